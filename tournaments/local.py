"""The executor of this machine: :class:`LocalExecutor` runs games in this process (``workers=1``) or in N
worker processes; each worker builds its bots once and keeps them, and the bot processes behind them, alive
across games."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, cast

from referee.errors import ExecutorError
from referee.sandbox import Sandbox
from referee.wirelog import WireLog

from .config import TournamentConfig
from .feed import Feed, Finished
from .schedule import Scheduled
from .storage import FinishedGame
from .worker import GameWorker

__all__ = ["LocalExecutor", "cores_for", "least_pinned", "pinned_elsewhere", "start_method"]


# ------------------------------------------------------------------------------------ worker processes
#
# Each worker is a process with one duplex pipe to the parent, and no helper threads on either side. The
# parent sends batches of jobs and ``None`` to stop; the worker answers each batch with the pickled
# FinishedGames and the seconds it played (or stops after a _Failed). Each worker is a lane of the one feeding loop
# (tournaments/feed.py): batches are sized to about _BATCH_SECONDS of play from those reports (a moving average):
# one message per game would wake the parent, and preempt a worker, a thousand times a second, which costs more CPU
# than storing the games. A worker holds two batches, so it never waits for work; near the end of the schedule
# batches shrink so that the workers finish together. A worker also sends what it has once _FLUSH_SECONDS have
# passed since its oldest unsent game (it checks after each game), so a SIGKILLed run loses only the games in
# flight: those being played, and those finished a moment before (at most one game's time before, when one game is
# slow).
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


def cores_for(workers: int, affinity: str) -> list[int] | None:
    """The core each worker is pinned to: with ``auto``, on a platform that can pin (Linux), one core each of those
    this process may run on, when there are no more workers than such cores; otherwise None (nothing is pinned).
    The cores that the fewest other processes are already pinned to come first (:func:`pinned_elsewhere`), so
    two tournaments of one worker each, started one after the other, take a core each instead of sharing the first.

    A worker and the bot processes it starts (which inherit its affinity) then share one core, so a request and
    its answer do not wait for the scheduler to wake a process on another core: benchmarks/protocol_overhead.py
    measures the round trip pinned (``taskset -c 0``) against unpinned."""
    if affinity != "auto" or not hasattr(os, "sched_setaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    if workers > len(cores):
        return None
    return least_pinned(cores)[:workers] if workers < len(cores) else cores


def least_pinned(cores: list[int]) -> list[int]:
    """``cores``, those the fewest other processes are pinned to first (:func:`pinned_elsewhere`), then by number:
    the order in which a tournament on this machine, local or a Dask worker's host, hands out cores."""
    taken = pinned_elsewhere()
    return sorted(cores, key=lambda core: (taken.get(core, 0), core))


def pinned_elsewhere(proc: Path = Path("/proc")) -> dict[int, int]:
    """How many other user processes are pinned to each core alone (Linux's ``/proc/PID/status``; kernel threads,
    which every core has its own of, are not counted). Empty where there is no ``/proc``. Two tournaments started
    at the same instant can still both see a core free: the count is read once, when a tournament starts."""
    me = os.getpid()
    taken: dict[int, int] = {}
    for status in proc.glob("[0-9]*/status"):
        try:
            if int(status.parent.name) == me:
                continue
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except (OSError, ValueError, UnicodeDecodeError):  # gone meanwhile, or not ours to read
            continue
        if fields.get("Kthread", "0").strip() == "1" or "VmSize" not in fields:  # a kernel thread has no memory map
            continue
        allowed = fields.get("Cpus_allowed_list", "").strip()
        if allowed.isdigit():
            taken[int(allowed)] = taken.get(int(allowed), 0) + 1
    return taken


def _serve(config: dict[str, Any], conn: Connection, inherited: list[Connection],
           sandbox: Sandbox | None = None, wire_log: WireLog | None = None, core: int | None = None) -> None:
    for other in inherited:  # the parent's ends (forked): held here, they would hide the parent's death
        other.close()
    if core is not None:  # before any bot starts: its processes inherit the worker's core
        os.sched_setaffinity(0, {core})
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and stops its workers
    try:
        worker = GameWorker(TournamentConfig.from_dict(config), sandbox, wire_log)
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

    def __init__(self, config: TournamentConfig, workers: int, sandbox: Sandbox | None = None,
                 wire_log: WireLog | None = None, *, affinity: str = "off") -> None:
        """``affinity``: ``auto`` pins each worker, and the bots it starts, to a core of its own (:func:`cores_for`);
        inline (one worker), this process is pinned while it plays, and set free again when it closes."""
        self.config = config
        self.sandbox = sandbox
        self.wire_log = wire_log  # pickled as its path: each worker opens the file itself
        self.workers = max(1, workers)
        self.cores = cores_for(self.workers, affinity)
        self._inline: GameWorker | None = None
        self._unpinned: set[int] | None = None  # this process's cores before it played inline on one
        self._procs: dict[Connection, BaseProcess] = {}

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        if self.workers == 1:
            if self.cores and self._unpinned is None:
                self._unpinned = os.sched_getaffinity(0)
                os.sched_setaffinity(0, {self.cores[0]})
            self._inline = GameWorker(self.config, self.sandbox, self.wire_log)
            for job in jobs:
                yield self._inline.play(job)
            return
        yield from Feed(jobs, self.workers, seconds=_BATCH_SECONDS, most=_MAX_BATCH, smoothing=0.2).run(
            _Pipes(self), self.workers)

    def _start(self) -> Connection:
        """A new worker process, and the parent's end of its pipe."""
        fork = start_method() == "fork"
        ctx = multiprocessing.get_context("fork") if fork else multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        inherited = [*self._procs, mine] if fork else []
        core = self.cores[len(self._procs)] if self.cores else None
        proc = ctx.Process(target=_serve, args=(self.config.to_dict(), theirs, inherited, self.sandbox,
                                                self.wire_log, core),
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
        if self._unpinned is not None:  # this process runs where it ran before it played inline
            os.sched_setaffinity(0, self._unpinned)
            self._unpinned = None
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


class _Pipes:
    """The worker processes of a :class:`LocalExecutor` as lanes of the feeding loop: one pipe each."""

    def __init__(self, executor: LocalExecutor) -> None:
        self.executor = executor

    def open(self) -> Connection:
        return self.executor._start()

    def capacity(self, lane: Connection) -> int:
        return 1

    def send(self, lane: Connection, batch: list[Scheduled]) -> bool:
        try:
            lane.send(batch)
        except OSError:  # the worker is gone: its pipe reads as ended, or holds its last message
            return False
        return True

    def finished(self, lanes: list[Connection]) -> Iterator[Finished[Connection]]:
        for ready in wait(lanes):
            conn = cast(Connection, ready)
            games, seconds = self.executor._receive(conn)
            # a failed game comes last (the worker stops there): the games before it are yielded, then the run stops
            failed = games[-1] if games and isinstance(games[-1], _Failed) else None
            played = [game for game in games if not isinstance(game, _Failed)]
            yield Finished(conn, played, seconds, len(played), False, failed.message() if failed else None)
