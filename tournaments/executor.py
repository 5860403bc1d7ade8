"""Where games run: the executor seam, with one local implementation.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration. :class:`LocalExecutor` runs games in this process
(``workers=1``) or in N worker processes; each worker builds its bots once and keeps them — and the bot
processes behind them — alive across games.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from multiprocessing import util
from typing import Any, Protocol

from protocol.bot import Bot
from referee.botspec import BotSpec, parse_spec
from referee.match import play_game
from referee.plugins import load_registry
from referee.record import record_to_dict

from .schedule import Scheduled

__all__ = ["TournamentConfig", "Outcome", "Executor", "LocalExecutor", "GameWorker"]


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament; stored in its database and compared on resume."""

    game: str
    options: dict[str, Any]
    entrants: list[str]  # display names, unique
    specs: list[str]  # the SPEC of each entrant
    seats: int
    games: int
    duplicate: bool
    seed: int
    move_time_ms: int = 1000
    policy: str = "forfeit"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        return cls(**data)


@dataclass(frozen=True)
class Outcome:
    """A finished game: its schedule entry, its record (record format) and stderr tails of faulted seats."""

    job: Scheduled
    record: dict[str, Any]
    stderr: dict[str, str]


class Executor(Protocol):
    def run(self, jobs: Iterable[Scheduled]) -> Iterator[Outcome]: ...

    def close(self) -> None: ...


class GameWorker:
    """Plays scheduled games of one tournament; bots are made once and reused."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.registry = load_registry()
        self.game = self.registry.game(config.game)
        self.specs: list[BotSpec] = [parse_spec(spec, self.registry) for spec in config.specs]
        self.bots: dict[int, Bot] = {}

    def _bot(self, entrant: int) -> Bot:
        if entrant not in self.bots:
            self.bots[entrant] = self.specs[entrant].make(self.registry,
                                                          move_time=self.config.move_time_ms / 1000)
        return self.bots[entrant]

    def play(self, job: Scheduled) -> Outcome:
        bots = [self._bot(e) for e in job.seating]
        record = play_game(self.game, bots, seed=job.seed, options=self.config.options,
                           policy=self.config.policy)
        faulted = {f.seat for f in record.faults}
        stderr = {str(s): text for s, text in record.stderr.items() if s in faulted}
        data = record_to_dict(record)
        data["bots"] = [self.config.entrants[e] for e in job.seating]
        data.pop("stderr", None)
        return Outcome(job, data, stderr)

    def close(self) -> None:
        for bot in self.bots.values():
            try:
                bot.close()
            except Exception:  # noqa: BLE001 - closing must reach every bot
                pass
        self.bots.clear()


# ------------------------------------------------------------------------------------ worker processes

_worker: GameWorker | None = None


def _init(config: dict[str, Any]) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and stops the pool
    _worker = GameWorker(TournamentConfig.from_dict(config))
    util.Finalize(None, _worker.close, exitpriority=10)  # runs when the worker exits, unlike atexit

    def stop(signum: int, frame: Any) -> None:
        if _worker is not None:
            _worker.close()
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)


def _play(job: Scheduled) -> Outcome:
    assert _worker is not None
    return _worker.play(job)


class LocalExecutor:
    """Games on this machine: inline for one worker, otherwise in a pool of worker processes."""

    def __init__(self, config: TournamentConfig, workers: int) -> None:
        self.config = config
        self.workers = max(1, workers)
        self._inline: GameWorker | None = None
        self._pool: Any = None

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[Outcome]:
        jobs = list(jobs)
        if self.workers == 1:
            self._inline = GameWorker(self.config)
            for job in jobs:
                yield self._inline.play(job)
            return
        ctx = multiprocessing.get_context("spawn")  # no inherited threads or descriptors
        self._pool = ctx.Pool(self.workers, initializer=_init, initargs=(self.config.to_dict(),))
        # Small chunks: results stream back steadily and a killed run loses few finished games.
        chunk = max(1, min(4, len(jobs) // (self.workers * 64)))
        yield from self._pool.imap_unordered(_play, jobs, chunksize=chunk)

    def close(self) -> None:
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        if self._pool is not None:
            self._pool.close()  # let workers finish and run their finalizers (bots closed)
            self._pool.join()
            self._pool = None

    def terminate(self) -> None:
        """Stop now (^C): workers close their bots on SIGTERM."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        self.close()
