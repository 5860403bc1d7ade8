"""What every executor shares: the :class:`Executor` it is, the :class:`Placement` it is given, and :class:`Feed`,
the one loop that hands a schedule to workers in batches and yields the games they finish.

The loop knows nothing of processes, pipes or Dask. An executor gives it a :class:`Workers`: where a batch is sent
(a lane: one worker process of the local executor, the whole cluster of the Dask executor) and how finished batches
come back. The loop decides when and how much to send:

- jobs are taken from the schedule only as a lane needs them, so a schedule that depends on the results (an SPRT's
  deals: tournaments/sprt_run.py) stops as soon as it is decided: a lane holds at most two batches per worker it
  stands for, and two batches' worth of games (an idle lane always gets one);
- a batch is about ``seconds`` of play, from the seconds the workers report (:func:`batch_size`); 1 game until a
  worker has reported; at most ``most``; smaller near the end when the number of jobs is known, so that the workers
  finish together;
- a lane is topped up before the games it finished are yielded (the workers play on while they are stored); a
  game that failed stops the run after the games finished before it are yielded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from referee.errors import ConfigError, ExecutorError

from .schedule import Scheduled
from .storage import FinishedGame

if TYPE_CHECKING:
    from referee.sandbox import Sandbox
    from referee.wirelog import WireLog

__all__ = ["AFFINITIES", "Executor", "Feed", "Finished", "Placement", "Workers", "batch_size"]


class Executor(Protocol):
    """Plays scheduled games and yields them as they finish, in any order: a FinishedGame carries its
    schedule key, so results do not depend on where a game ran."""

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]: ...

    def close(self) -> None:
        """Let the games in flight finish, then release the workers and their bots."""

    def terminate(self) -> None:
        """Stop now (^C, an error): the games in flight are lost."""


AFFINITIES = ("auto", "off")


@dataclass(frozen=True)
class Placement:
    """Where and how an executor runs a tournament's games. None of it is part of the tournament: a game's result
    does not depend on it, so a tournament may be resumed with another placement."""

    workers: int = 1
    #: how program bots are started (None: as they are)
    sandbox: Sandbox | None = None
    #: where their frames are logged (None: nowhere); a WireLog pickles as its path, for workers elsewhere
    wire_log: WireLog | None = None
    #: ``auto``: pin each worker and its bots to a core of its own where there are enough cores; ``off``: never
    affinity: str = "off"
    #: the dask executor's cluster: ``tcp://HOST:PORT`` or ``local:N`` (None: ``local:WORKERS``)
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.affinity not in AFFINITIES:
            raise ConfigError(f"unknown --affinity {self.affinity!r} (choose from {', '.join(AFFINITIES)})")


def batch_size(per_game: float | None, remaining: int | None, workers: int, *, seconds: float, most: int) -> int:
    """Jobs in the next batch: 1 until a worker has reported (``per_game`` seconds of play per game), then about
    ``seconds`` of play, at most ``most``, and at most a share of the ``remaining`` jobs (when known) small enough
    that the ``workers`` finish together."""
    if per_game is None:
        return 1
    left = most if remaining is None else remaining // (2 * workers)
    return max(1, min(most, int(seconds / max(per_game, 1e-6)), left))


Lane = TypeVar("Lane")


@dataclass(frozen=True)
class Finished(Generic[Lane]):
    """What came back from a lane: the games played (in the order of their batch), the seconds they took, the jobs
    they take off the lane (``answered``: the games, or a whole batch), whether a batch ended with them, and what
    failed (a game that raised) if one did."""

    lane: Lane
    games: list[FinishedGame]
    seconds: float
    answered: int
    batch_done: bool
    failure: str | None = None


class Workers(Protocol[Lane]):
    """Where an executor's batches go: lanes (a worker, or a cluster) and what comes back from them."""

    def open(self) -> Lane:
        """A lane to send to (a new worker, or the one cluster): called only when there is a job for it."""

    def capacity(self, lane: Lane) -> int:
        """The workers that ``lane`` stands for."""

    def send(self, lane: Lane, batch: list[Scheduled]) -> bool:
        """Send ``batch`` to ``lane``; False when the lane is gone (what it holds is then reported by
        :meth:`finished` as an :class:`ExecutorError`)."""

    def finished(self, lanes: list[Lane]) -> Iterable[Finished[Lane]]:
        """Wait until one or more of ``lanes`` has played games, and say what came back."""


class Feed:
    """The one loop of every executor: a schedule fed to ``workers`` (their number) in batches of about ``seconds``
    of play, at most ``most`` games. ``smoothing``: the weight of the latest report in the seconds per game
    (a moving average); None weighs every game alike."""

    def __init__(self, jobs: Iterable[Scheduled], workers: int, *, seconds: float, most: int,
                 smoothing: float | None = None) -> None:
        self.source = iter(jobs)
        self.remaining = len(jobs) if isinstance(jobs, Sized) else None
        self.exhausted = False
        self.workers = workers
        self.seconds, self.most, self.smoothing = seconds, most, smoothing
        self.per_game: float | None = None  # seconds of play per game, from the workers' reports
        self._played = (0.0, 0)  # seconds and games the workers reported

    def size(self) -> int:
        return batch_size(self.per_game, self.remaining, self.workers, seconds=self.seconds, most=self.most)

    def take(self, size: int) -> list[Scheduled]:
        batch = [] if self.exhausted else list(islice(self.source, size))
        if len(batch) < size:
            self.exhausted = True
        if self.remaining is not None:
            self.remaining -= len(batch)
        return batch

    def timed(self, games: int, seconds: float) -> None:
        """``games`` were played in ``seconds``: the next batches are sized from it."""
        if not games:
            return
        if self.smoothing is None:  # a first, slow game (the bots start) weighs as one game, not as a batch
            played_seconds, played_games = self._played
            self._played = (played_seconds + seconds, played_games + games)
            self.per_game = self._played[0] / self._played[1]
        else:
            rate = seconds / games
            last = self.per_game
            self.per_game = rate if last is None else (1 - self.smoothing) * last + self.smoothing * rate

    def run(self, workers: Workers[Lane], lanes: int) -> Iterator[FinishedGame]:
        """Play the schedule on up to ``lanes`` lanes opened from ``workers``, yielding each game as it comes."""
        held: dict[Lane, list[int]] = {}  # per lane, the unanswered games of each batch sent, oldest first
        for _ in range(lanes):
            first = self.take(self.size())
            if not first:  # the first lanes hold every job: one holding none would be waited on forever
                break
            lane = workers.open()
            held[lane] = []
            if self._send(workers, lane, held[lane], first):
                self._top_up(workers, lane, held[lane])
        while held:
            for done in workers.finished(list(held)):
                mine = held[done.lane]
                if done.batch_done:
                    mine.remove(done.answered)
                else:
                    _answer(mine, done.answered)
                self.timed(len(done.games), done.seconds)
                if done.failure is None:
                    self._top_up(workers, done.lane, mine)  # before the games are stored: the workers play on
                yield from done.games
                if done.failure is not None:
                    raise ExecutorError(done.failure)
                if not sum(mine):
                    del held[done.lane]

    def _top_up(self, workers: Workers[Lane], lane: Lane, held: list[int]) -> None:
        size, capacity = self.size(), workers.capacity(lane)
        while (sum(held) < 2 * size * capacity and len(held) < 2 * capacity) or not held:
            batch = self.take(size)
            if not batch or not self._send(workers, lane, held, batch):
                return

    def _send(self, workers: Workers[Lane], lane: Lane, held: list[int], batch: list[Scheduled]) -> bool:
        held.append(len(batch))  # sent or not: a lane gone with jobs is waited on, and reports its end
        return workers.send(lane, batch)


def _answer(batches: list[int], games: int) -> None:
    """``games`` of the oldest batches came back (a worker plays its batches in order, and may answer part of one)."""
    while games and batches:
        taken = min(games, batches[0])
        games -= taken
        batches[0] -= taken
        if not batches[0]:
            batches.pop(0)
