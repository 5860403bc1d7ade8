"""Where games run: the executor seam, with one local implementation.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration. :class:`LocalExecutor` runs games in this process
(``workers=1``) or in N worker processes; each worker builds its bots once and keeps them — and the bot
processes behind them — alive across games.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, asdict, dataclass, field, fields
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, cast, get_args, get_origin, get_type_hints

from protocol.bot import Bot
from referee.botspec import BotSpec, parse_spec
from referee.errors import ConfigError, ExecutorError
from referee.match import play_game
from referee.plugins import load_registry
from referee.record import record_to_dict
from referee.sandbox import Sandbox

from .schedule import Scheduled
from .storage import FinishedGame

__all__ = ["TournamentConfig", "Executor", "LocalExecutor", "GameWorker"]


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
    def from_dict(cls, data: Any) -> TournamentConfig:
        """The configuration as stored; :class:`ConfigError` names the first missing, unknown or mistyped field
        (a damaged database says so instead of raising TypeError)."""
        if not isinstance(data, dict):
            raise ConfigError("the stored tournament configuration is damaged: it is not a JSON object")
        hints = get_type_hints(cls)
        for f in fields(cls):
            if f.name not in data:
                if f.default is MISSING and f.default_factory is MISSING:
                    raise ConfigError(f"the stored tournament configuration is damaged: no {f.name!r} field")
            elif not _fits(data[f.name], hints[f.name]):
                raise ConfigError(f"the stored tournament configuration is damaged: field {f.name!r} is "
                                  f"{data[f.name]!r:.60}")
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ConfigError(f"the stored tournament configuration has unknown fields: {', '.join(unknown)} "
                              "(damaged, or written by a newer referee)")
        if len(data["entrants"]) != len(data["specs"]):
            raise ConfigError("the stored tournament configuration is damaged: entrants and specs differ in number")
        return cls(**data)


def _fits(value: Any, hint: Any) -> bool:
    """Is ``value`` (decoded JSON) of type ``hint``: bool, int (not bool), str, dict, list[X], or anything else."""
    if hint is bool or hint is str:
        return isinstance(value, hint)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    origin = get_origin(hint)
    if origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, get_args(hint)[0]) for v in value)
    return True


class Executor(Protocol):
    """Plays scheduled games and yields them as they finish, in any order: a FinishedGame carries its
    schedule key, so results do not depend on where a game ran."""

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]: ...

    def close(self) -> None:
        """Let the games in flight finish, then release the workers and their bots."""

    def terminate(self) -> None:
        """Stop now (^C, an error): the games in flight are lost."""


class GameWorker:
    """Plays scheduled games of one tournament; bots are made once and reused."""

    def __init__(self, config: TournamentConfig, sandbox: Sandbox | None = None) -> None:
        self.config = config
        self.sandbox = sandbox  # how program bots are started (None: as they are)
        self.registry = load_registry()
        self.game = self.registry.game(config.game)
        self.specs: list[BotSpec] = [parse_spec(spec, self.registry) for spec in config.specs]
        self.bots: dict[int, Bot] = {}

    def _bot(self, entrant: int) -> Bot:
        if entrant not in self.bots:
            self.bots[entrant] = self.specs[entrant].make(self.registry,
                                                          move_time=self.config.move_time_ms / 1000,
                                                          sandbox=self.sandbox)
        return self.bots[entrant]

    def play(self, job: Scheduled) -> FinishedGame:
        bots = [self._bot(e) for e in job.seating]
        record = play_game(self.game, bots, seed=job.seed, options=self.config.options,
                           policy=self.config.policy)
        faulted = {f.seat for f in record.faults}
        stderr = {str(s): text for s, text in record.stderr.items() if s in faulted}
        data = record_to_dict(record)
        data["bots"] = [self.config.entrants[e] for e in job.seating]
        data.pop("stderr", None)
        return FinishedGame.encode(job.seq, job.key, job.seed, data["bots"], data, stderr)

    def close(self) -> None:
        for bot in self.bots.values():
            try:
                bot.close()
            except Exception:  # noqa: BLE001 - closing must reach every bot
                pass
        self.bots.clear()


# ------------------------------------------------------------------------------------ worker processes
#
# Each worker is a process with one duplex pipe to the parent, and no helper threads on either side. The
# parent sends batches of jobs and ``None`` to stop; the worker answers each batch with the pickled
# FinishedGames and the seconds it played (or stops after a _Failed). Batches are sized to about
# _BATCH_SECONDS of play from those reports: one message per game would wake the parent, and preempt a
# worker, a thousand times a second, which costs more CPU than storing the games. A worker holds two batches,
# so it never waits for work; near the end of the schedule batches shrink so that the workers finish
# together. A worker also sends what it has once _FLUSH_SECONDS have passed since its oldest unsent game (it
# checks after each game), so a SIGKILLed run loses only the games in flight: those being played, and those
# finished a moment before (at most one game's time before, when one game is slow).
# When the parent dies the pipe closes: the worker sees it on its next read or write, closes its bots and
# exits.
#
# On Linux workers are forked: a worker is ready in milliseconds instead of the ~0.2 s CPU of a fresh
# interpreter re-importing everything. Forking is safe only from a process with one thread (a lock held by
# another thread stays locked in the child), so with more threads running the workers are spawned instead;
# the CLI's progress display has no thread of its own. A forked worker closes the inherited parent ends of all
# pipes (multiprocessing flushes the parent's stdout and stderr before it forks, so nothing is written twice).

_BATCH_SECONDS = 0.02  # play per batch of jobs
_MAX_BATCH = 32
_FLUSH_SECONDS = 0.1


def start_method() -> str:
    """How to start a worker now: fork on Linux from a single-threaded process, otherwise spawn."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


@dataclass(frozen=True)
class _Failed:
    """A game raised in a worker (a bug in a game or an in-process bot, not a bot fault), or the worker could
    not start (``key`` None)."""

    key: str | None
    error: str

    def message(self) -> str:
        where = f"game {self.key} failed in a worker process" if self.key else "a worker process failed to start"
        return f"{where}: {self.error}"


class _Stopped(BaseException):
    """SIGTERM from the parent: unwind from wherever the worker is, close its bots and return."""


def _serve(config: dict[str, Any], conn: Connection, inherited: list[Connection],
           sandbox: Sandbox | None = None) -> None:
    for other in inherited:  # the parent's ends (forked): held here, they would hide the parent's death
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and stops its workers
    try:
        worker = GameWorker(TournamentConfig.from_dict(config), sandbox)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which stops the run
        conn.send_bytes(pickle.dumps(([_Failed(None, f"{type(exc).__name__}: {exc}")], 0.0), pickle.HIGHEST_PROTOCOL))
        return

    def stop(signum: int, frame: Any) -> None:
        raise _Stopped

    signal.signal(signal.SIGTERM, stop)
    done: list[FinishedGame | _Failed] = []
    oldest = started = 0.0

    def flush() -> None:
        conn.send_bytes(pickle.dumps((done, time.perf_counter() - started), pickle.HIGHEST_PROTOCOL))
        done.clear()

    failed = False
    try:
        while not failed and (jobs := conn.recv()) is not None:
            started = time.perf_counter()
            for job in jobs:
                try:
                    done.append(worker.play(job))
                except Exception as exc:  # noqa: BLE001 - reported to the parent, which stops the run
                    done.append(_Failed(job.key, f"{type(exc).__name__}: {exc}"))
                    failed = True
                    break
                now = time.perf_counter()
                if len(done) == 1:
                    oldest = now
                elif now - oldest >= _FLUSH_SECONDS:
                    flush()
                    started = now
            if done:
                flush()
    except (EOFError, OSError, _Stopped):  # the parent is gone, or stops us (^C, an error elsewhere)
        pass
    finally:
        worker.close()


class LocalExecutor:
    """Games on this machine: inline for one worker, otherwise in N worker processes."""

    def __init__(self, config: TournamentConfig, workers: int, sandbox: Sandbox | None = None) -> None:
        self.config = config
        self.sandbox = sandbox
        self.workers = max(1, workers)
        self._inline: GameWorker | None = None
        self._procs: dict[Connection, BaseProcess] = {}

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        if self.workers == 1:
            self._inline = GameWorker(self.config, self.sandbox)
            for job in jobs:
                yield self._inline.play(job)
            return
        pending = list(jobs)
        pending.reverse()  # taken from the end: the schedule's order
        held: dict[Connection, int] = {}  # jobs sent to each worker and not answered yet
        per_game: float | None = None  # seconds of play per game, from the workers' reports

        def feed(conn: Connection) -> None:
            if per_game is None:
                size = 1
            else:
                size = max(1, min(_MAX_BATCH, int(_BATCH_SECONDS / max(per_game, 1e-6)),
                                  len(pending) // (2 * self.workers)))
            while held[conn] < 2 * size and pending:
                batch = [pending.pop() for _ in range(min(size, len(pending)))]
                try:
                    conn.send(batch)
                except OSError:  # the worker is gone: its pipe reads as ended, or holds its last message
                    return
                held[conn] += len(batch)

        for _ in range(self.workers):
            if not pending:  # the first workers hold every job: one holding none would be waited on forever
                break
            conn = self._start()
            held[conn] = 0
            feed(conn)
        while held:
            for ready in wait(list(held)):
                conn = cast(Connection, ready)
                games, seconds = self._receive(conn)
                if games:
                    rate = seconds / len(games)
                    per_game = rate if per_game is None else 0.8 * per_game + 0.2 * rate
                for game in games:
                    if isinstance(game, _Failed):
                        raise ExecutorError(game.message())
                    held[conn] -= 1
                    yield game
                feed(conn)
                if not held[conn]:
                    del held[conn]

    def _start(self) -> Connection:
        fork = start_method() == "fork"
        ctx = multiprocessing.get_context("fork") if fork else multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        inherited = [*self._procs, mine] if fork else []
        proc = ctx.Process(target=_serve, args=(self.config.to_dict(), theirs, inherited, self.sandbox),
                           daemon=True, name=f"referee-worker-{len(self._procs) + 1}")
        proc.start()
        theirs.close()  # the worker's end lives in the worker only: its death closes the pipe
        self._procs[mine] = proc
        return mine

    def _receive(self, conn: Connection) -> tuple[list[FinishedGame | _Failed], float]:
        try:
            message: tuple[list[FinishedGame | _Failed], float] = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            proc = self._procs[conn]
            proc.join(5)
            raise ExecutorError(f"worker process {proc.pid} died (exit code {proc.exitcode}) with games in "
                                "flight") from None
        return message

    def close(self) -> None:
        """Let the workers finish their games and close their bots."""
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        for conn in self._procs:
            try:
                conn.send(None)
            except OSError:
                pass
        self._reap(timeout=10)

    def terminate(self) -> None:
        """Stop now (^C, an error): workers close their bots on SIGTERM."""
        for proc in self._procs.values():
            if proc.is_alive():
                proc.terminate()
        self._reap(timeout=5)
        self.close()

    def _reap(self, timeout: float) -> None:
        for conn, proc in self._procs.items():
            proc.join(timeout)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()
        self._procs.clear()
