"""The local executor (tournaments/local.py): worker processes, for real.

Every scheduled game must come back exactly once and equal to the same game played inline, however the jobs
were batched and whichever way the workers were started (forked from a single-threaded process, spawned when
other threads run). A worker that dies or whose game raises stops the run with a one-line
:class:`ExecutorError`, with the games already stored kept; workers whose parent is SIGKILLed exit by
themselves and take their bot processes with them; what the parent printed before forking appears once.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from proctable import descendants, living
from stored import untimed

from referee.errors import ExecutorError
from referee.plugins import load_registry
from tournaments.config import TournamentConfig
from tournaments.local import LocalExecutor, start_method
from tournaments.run import run_tournament
from tournaments.schedule import Scheduled, schedule
from tournaments.storage import FinishedGame, Store
from tournaments.worker import GameWorker

BOTS = ["heuristic", "random", "first"]
DEADLINE = 60.0


def config(game: str = "kozel", seats: int = 2, games: int = 40, specs: list[str] | None = None) -> TournamentConfig:
    specs = specs or BOTS
    return TournamentConfig(game=game, options=load_registry().game(game).configure({}), entrants=list(BOTS),
                            specs=specs, seats=seats, games=games, duplicate=True, seed=7)


def jobs_of(cfg: TournamentConfig) -> list[Scheduled]:
    return list(schedule(len(cfg.entrants), cfg.seats, cfg.games, seed=cfg.seed, duplicate=cfg.duplicate))


def run_all(cfg: TournamentConfig, workers: int) -> list[FinishedGame]:
    executor = LocalExecutor(cfg, workers)
    try:
        return list(executor.run(jobs_of(cfg)))
    finally:
        executor.close()


def worker_processes() -> list[object]:
    import multiprocessing

    return [p for p in multiprocessing.active_children() if p.name.startswith("referee-worker-")]


@pytest.fixture(scope="module")
def inline() -> dict[str, FinishedGame]:
    """The reference: every game of the schedule played in this process."""
    return {o.key: o for o in run_all(config(), 1)}


@pytest.mark.parametrize("workers", [2, 3])
def test_every_game_comes_back_once_and_equal_to_inline(inline: dict[str, FinishedGame], workers: int) -> None:
    outcomes = run_all(config(), workers)
    keys = [o.key for o in outcomes]
    assert len(keys) == len(set(keys)) == len(inline) == 3 * 2 * 40
    for outcome in outcomes:
        assert untimed(outcome) == untimed(inline[outcome.key])  # seq, seed, seating, places, the whole record
    assert not worker_processes(), "close() must end every worker"


def test_spawned_workers_when_other_threads_run(inline: dict[str, FinishedGame]) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert start_method() == "spawn"  # forking with a second thread could copy a held lock
        outcomes = run_all(config(), 2)
    finally:
        stop.set()
        other.join()
    assert {o.key: untimed(o) for o in outcomes} == {key: untimed(o) for key, o in inline.items()}


def test_a_single_threaded_process_forks_its_workers() -> None:
    code = "from tournaments.local import start_method; print(start_method())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE)
    assert out.stdout.strip() == ("fork" if sys.platform == "linux" else "spawn"), out.stderr


def test_fewer_jobs_than_workers() -> None:
    cfg = config()
    jobs = jobs_of(cfg)[:1]
    executor = LocalExecutor(cfg, 4)
    try:
        outcomes = list(executor.run(jobs))
    finally:
        executor.close()
    assert [(o.seq, o.key, o.seed) for o in outcomes] == [(j.seq, j.key, j.seed) for j in jobs]
    assert not worker_processes()


@pytest.mark.parametrize("workers,count", [(2, 2), (3, 2), (3, 4)])
def test_few_jobs_for_many_workers_do_not_hang(workers: int, count: int) -> None:
    """2 <= jobs <= 2 (workers - 1): the first worker is fed every job; the others must not be waited on."""
    cfg = config()
    jobs = jobs_of(cfg)[:count]
    outcome: dict[str, object] = {}

    def run() -> None:
        executor = LocalExecutor(cfg, workers)
        try:
            outcome["games"] = list(executor.run(jobs))
        finally:
            executor.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    assert not thread.is_alive(), "the executor hung after the last game"
    assert sorted(o.seq for o in outcome["games"]) == sorted(j.seq for j in jobs)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------- failures


def test_a_killed_worker_stops_the_run_with_one_line_and_keeps_what_was_stored(tmp_path: Path) -> None:
    cfg = config(game="kazaki", seats=3, games=200)
    game = load_registry().game(cfg.game)
    killed: list[int] = []

    def progress(p: object, outcome: FinishedGame | None) -> None:
        if outcome is not None and not killed:
            victim = worker_processes()[0]
            killed.append(victim.pid)  # type: ignore[attr-defined]
            os.kill(victim.pid, signal.SIGKILL)  # type: ignore[attr-defined]

    with Store(tmp_path / "t.db", create=True) as store:
        with pytest.raises(ExecutorError) as err:
            run_tournament(store, cfg, game, lambda c: LocalExecutor(c, 2), progress)
        stored = store.count()
    message = str(err.value)
    assert "\n" not in message and f"worker process {killed[0]} died" in message and "exit code -9" in message
    assert 1 <= stored < 600
    assert not worker_processes(), "the other worker must be stopped too"
    with Store(tmp_path / "t.db", create=False) as store:  # what was stored is whole, and resume completes it
        played = run_tournament(store, cfg, game, lambda c: LocalExecutor(c, 2))
        assert played == 600 - stored and store.count() == 600


def test_a_game_that_raises_in_a_worker_names_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config()
    bad = jobs_of(cfg)[17].key
    play = GameWorker.play

    def broken(self: GameWorker, job: Scheduled) -> FinishedGame:
        if job.key == bad:
            raise ZeroDivisionError("a bug in a game")
        return play(self, job)

    monkeypatch.setattr(GameWorker, "play", broken)  # forked workers inherit it
    executor = LocalExecutor(cfg, 2)
    seen = []
    with pytest.raises(ExecutorError) as err:
        for outcome in executor.run(jobs_of(cfg)):
            seen.append(outcome.key)
    executor.terminate()
    assert str(err.value) == f"game {bad} failed in a worker process: ZeroDivisionError: a bug in a game"
    assert bad not in seen
    assert not worker_processes()


def test_a_worker_that_cannot_start_stops_the_run_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: GameWorker, config: TournamentConfig, *args: object) -> None:
        raise ConnectionError("the plugin's licence server is down")

    monkeypatch.setattr(GameWorker, "__init__", broken)  # forked workers inherit it
    executor = LocalExecutor(config(), 2)
    with pytest.raises(ExecutorError) as err:
        list(executor.run(jobs_of(config())))
    executor.terminate()
    assert str(err.value) == ("a worker process failed to start: ConnectionError: the plugin's licence server is "
                              "down")
    assert not worker_processes()


def test_terminate_stops_busy_workers_and_their_bot_processes() -> None:
    program = [f"cmd:{sys.executable} -m bots.{name}" for name in BOTS]
    cfg = config(game="kazaki", seats=3, games=300, specs=program)
    executor = LocalExecutor(cfg, 2)
    try:
        outcomes = executor.run(jobs_of(cfg))
        for _ in range(10):  # both workers and their bot processes are up and busy
            next(outcomes)
        workers = {p.pid for p in worker_processes()}  # type: ignore[attr-defined]
        below = {key for key in descendants(os.getpid()) if key[0] in workers}
        below |= set().union(*(descendants(pid) for pid in workers))  # (this process has other children, too)
        assert len(workers) == 2 and len(below) >= 2 + 3, below
    finally:
        executor.terminate()  # what ^C does: SIGTERM to the workers, which close their bots
    deadline = time.monotonic() + 20
    while living(below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not living(below), f"survivors of terminate(): {living(below)}"


# ---------------------------------------------------------------------------------- the parent process

DRIVER = textwrap.dedent("""
    import json, sys
    from referee.plugins import load_registry
    from tournaments.config import TournamentConfig
    from tournaments.local import LocalExecutor
    from tournaments.schedule import schedule

    game, seats, games, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    specs = json.loads(sys.argv[5])
    names = ["heuristic", "random", "first"]
    config = TournamentConfig(game=game, options=load_registry().game(game).configure({}), entrants=names,
                              specs=specs, seats=seats, games=games, duplicate=True, seed=7)
    print("started", end=" ")  # not flushed: stdout is a pipe, so this sits in the buffer a fork copies
    executor = LocalExecutor(config, workers)
    for outcome in executor.run(schedule(3, seats, games, seed=7)):
        sys.stderr.write(outcome.key + "\\n")
        sys.stderr.flush()
    executor.close()
    print("finished")
""")


def driver(*args: str, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", DRIVER, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)  # type: ignore[call-overload]


def test_output_buffered_before_the_workers_fork_appears_once() -> None:
    proc = driver("kozel", "2", "20", "2", json.dumps(BOTS))
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    assert out == "started finished\n"  # a worker that flushed its copy of the buffer would repeat it
    assert len(err.split()) == 3 * 2 * 20


def test_workers_and_their_bot_processes_exit_when_the_parent_is_sigkilled() -> None:
    program = [f"cmd:{sys.executable} -m bots.{name}" for name in BOTS]
    proc = driver("kazaki", "3", "500", "2", json.dumps(program), start_new_session=True)
    below: set[tuple[int, int]] = set()
    try:
        assert proc.stderr is not None
        for _ in range(10):  # some games done: both workers and their bot processes are up
            assert proc.stderr.readline()
        below = descendants(proc.pid)
        assert len(below) >= 2 + 3, below  # 2 workers, 3 bot processes each (at least the first worker's)
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: the workers get no signal
        proc.wait(timeout=DEADLINE)
        deadline = time.monotonic() + 20
        while living(below) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not living(below), f"survivors of the parent's death: {living(below)}"
    finally:
        for pid, _ in living(below) | living(descendants(proc.pid)):  # after a failure: leave nothing behind
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_jobs_are_taken_only_as_workers_need_them() -> None:
    """A schedule that depends on the results (an SPRT's deals) ends when it is decided: the executor pulls jobs
    lazily, so after the schedule stops only the few jobs taken ahead are still played."""
    cfg = config(games=400)
    pulled = 0
    stop = False

    def lazily() -> Iterator[Scheduled]:
        nonlocal pulled
        for job in jobs_of(cfg):
            if stop:
                return
            pulled += 1
            yield job

    executor = LocalExecutor(cfg, 2)
    played = 0
    try:
        for _ in executor.run(lazily()):
            played += 1
            stop = stop or played == 10
    finally:
        executor.close()
    assert played == pulled  # every job taken was played: none lost, none played twice
    assert 10 <= played <= 10 + 2 * 2 * 32  # at most two batches per worker were ahead when it stopped
    assert played < len(jobs_of(cfg))


class _GoneOnSend:
    """A worker's pipe whose worker dies just when it has answered every job it was sent: the next batch fails."""

    def __init__(self, conn: object, proc: object) -> None:
        self.conn, self.proc, self.sent, self.answered, self.armed = conn, proc, 0, 0, True

    def fileno(self) -> int:
        return self.conn.fileno()  # type: ignore[attr-defined, no-any-return]

    def recv_bytes(self) -> bytes:
        data: bytes = self.conn.recv_bytes()  # type: ignore[attr-defined]
        self.answered += len(pickle.loads(data)[0])
        return data

    def send(self, obj: object) -> None:
        if isinstance(obj, list) and self.armed and self.sent and self.answered == self.sent:
            self.armed = False
            self.proc.kill()  # type: ignore[attr-defined]
            self.proc.join()  # type: ignore[attr-defined]
            raise BrokenPipeError("the worker is gone")
        self.conn.send(obj)  # type: ignore[attr-defined]
        if isinstance(obj, list):
            self.sent += len(obj)

    def close(self) -> None:
        self.conn.close()  # type: ignore[attr-defined]


def test_a_worker_gone_before_a_batch_reached_it_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch sent to a dead worker that held nothing was dropped with the worker: the run ended as if
    complete, those games never played nor reported."""
    start = LocalExecutor._start

    def flaky(self: LocalExecutor) -> Any:
        conn = start(self)
        proc = self._procs.pop(conn)
        wrapped = _GoneOnSend(conn, proc)
        self._procs[wrapped] = proc  # type: ignore[index]
        return wrapped

    monkeypatch.setattr(LocalExecutor, "_start", flaky)
    cfg = config(games=10)
    executor = LocalExecutor(cfg, 1 + 1)
    got: list[FinishedGame] = []
    try:
        with pytest.raises(ExecutorError, match="died"):
            got.extend(executor.run(jobs_of(cfg)))
    finally:
        executor.terminate()
    assert len(got) < len(jobs_of(cfg))
