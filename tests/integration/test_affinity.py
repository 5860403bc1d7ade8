"""Pinned workers (issue 15, part 2): with --affinity auto each worker process (or Dask worker) and the bots it
starts share one core of their own, when there are no more workers than cores; with off, or more workers than cores,
nothing is pinned. A tournament with fewer workers than cores takes the cores the fewest other processes are pinned
to, so two of them side by side do not share one core (tests run in parallel pin processes too: the assertions
allow for that)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tournaments.local
from tournaments.dask_executor import _pinned
from tournaments.local import cores_for, pinned_elsewhere
from tournaments.storage import Store

ZOO = Path(__file__).resolve().parents[1] / "fixtures" / "zoo"
MINE = sorted(os.sched_getaffinity(0))
needs_two = pytest.mark.skipif(len(MINE) < 2, reason="needs two cores to pin two workers apart")


def test_a_core_each_when_there_are_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournaments.local, "pinned_elsewhere", dict)  # a quiet machine: nothing else pinned
    assert cores_for(1, "auto") == MINE[:1]
    assert cores_for(len(MINE), "auto") == MINE
    assert cores_for(len(MINE) + 1, "auto") is None  # more workers than cores: none is pinned
    assert cores_for(1, "off") is None


@needs_two
def test_the_cores_fewest_others_are_pinned_to_come_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournaments.local, "pinned_elsewhere", lambda: {MINE[0]: 2, MINE[1]: 1})
    assert cores_for(1, "auto") == [MINE[1]]
    # every core: each worker gets one whatever else runs there, in order
    assert cores_for(len(MINE), "auto") == MINE


def status(folder: Path, pid: int, allowed: str, *, kthread: bool = False, memory: bool = True) -> None:
    (folder / str(pid)).mkdir()
    lines = ["Name:\tx", f"Kthread:\t{int(kthread)}", *(["VmSize:\t  3060 kB"] if memory else []),
             f"Cpus_allowed_list:\t{allowed}"]
    (folder / str(pid) / "status").write_text("\n".join(lines) + "\n")


def test_pinned_elsewhere_counts_user_processes_pinned_to_one_core(tmp_path: Path) -> None:
    status(tmp_path, 10, "1")
    status(tmp_path, 11, "1")
    status(tmp_path, 12, "3")
    status(tmp_path, 13, "0-1")  # free to move: not pinned
    status(tmp_path, 14, "0,2")  # two cores: not pinned to one
    status(tmp_path, 15, "0", kthread=True)  # every core has its kernel threads
    status(tmp_path, 16, "0", memory=False)  # a kernel thread on a kernel without the Kthread field
    status(tmp_path, os.getpid(), "0")  # this process itself
    (tmp_path / "17").mkdir()  # gone before its status was read
    (tmp_path / "18").mkdir()
    (tmp_path / "18" / "status").write_bytes(b"\xff\xfe garbage")
    (tmp_path / "self").mkdir()  # not a process id
    assert pinned_elsewhere(tmp_path) == {1: 2, 3: 1}
    assert pinned_elsewhere(tmp_path / "missing") == {}


@pytest.fixture
def first_core_held() -> Iterator[None]:
    """Five sleeping processes pinned to the first core: more than a test running beside this one pins to any."""
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                 preexec_fn=lambda: os.sched_setaffinity(0, {MINE[0]})) for _ in range(5)]
    try:
        yield
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()


@needs_two
def test_a_core_held_by_others_is_seen_and_avoided(first_core_held: None) -> None:
    assert pinned_elsewhere().get(MINE[0], 0) >= 5
    assert cores_for(1, "auto") != [MINE[0]]


def test_dask_workers_of_a_host_take_its_least_pinned_cores_first() -> None:
    workers = {"tcp://h:1": {"name": 0}, "tcp://h:2": {"name": 1}, "tcp://g:1": {"name": 2}, "tcp://g:2": {"name": 3}}
    # host h: its cores as each worker saw them, least pinned first (the order may differ between two readings)
    where = {"tcp://h:1": ([3, 0, 1, 2], 1), "tcp://h:2": ([3, 1, 0, 2], 1),
             "tcp://g:1": ([0, 1], 2), "tcp://g:2": ([0, 1], 1)}  # a worker of g runs two threads: g is not pinned
    assert _pinned(workers, where) == {"0": 3, "1": 0}


def bot_cores(tmp_path: Path, *options: str) -> list[list[int]]:
    """Play a small tournament of the cores bot against random; the cores it ran on, game by game."""
    db = tmp_path / "t.db"
    done = subprocess.run([sys.executable, "-m", "referee", "tournament", "run", "durak", "-b",
                           f"cmd:{sys.executable} {ZOO / 'cores.py'}", "-b", "random", "--games", "6", "--db",
                           str(db), "--sandbox", "off", *options], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    with Store(db, create=False, readonly=True) as store:
        records = [store.record(row.key) or {} for row in store.games()]
    text = "".join(tail for record in records for tail in (record.get("stderr") or {}).values())
    return [json.loads(found) for found in re.findall(r"cores: (\[[0-9, ]*\])", text)]


@needs_two
def test_two_workers_and_their_bots_run_on_a_core_each(tmp_path: Path) -> None:
    seen = bot_cores(tmp_path, "--workers", "2", "--affinity", "auto")
    assert len(seen) == 12  # every game noted it
    assert all(len(cores) == 1 for cores in seen)  # pinned: one core
    assert {cores[0] for cores in seen} <= set(MINE)


def test_one_worker_pins_the_referee_while_it_plays(tmp_path: Path) -> None:
    seen = bot_cores(tmp_path, "--workers", "1", "--affinity", "auto")
    assert seen and all(len(cores) == 1 and cores == seen[0] for cores in seen)  # one core, the same all along
    assert set(seen[0]) <= set(MINE)


@needs_two
def test_a_second_tournament_takes_another_core(tmp_path: Path, first_core_held: None) -> None:
    """Two single-worker tournaments side by side (here: one and five processes already pinned to the first core)
    each get a core of their own, instead of both taking the first and running at half speed."""
    seen = bot_cores(tmp_path, "--workers", "1", "--affinity", "auto")
    assert seen and all(len(cores) == 1 and cores == seen[0] for cores in seen)
    assert seen[0][0] != MINE[0]


def test_off_pins_nothing(tmp_path: Path) -> None:
    seen = bot_cores(tmp_path, "--workers", "2", "--affinity", "off")
    assert seen and all(cores == MINE for cores in seen)


def test_more_workers_than_cores_pins_nothing(tmp_path: Path) -> None:
    seen = bot_cores(tmp_path, "--workers", str(len(MINE) + 1), "--affinity", "auto")
    assert seen and all(cores == MINE for cores in seen)


@needs_two
def test_dask_workers_of_a_local_cluster_and_their_bots_run_on_a_core_each(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    seen = bot_cores(tmp_path, "--executor", "dask", "--scheduler", "local:2", "--affinity", "auto")
    assert len(seen) == 12
    assert all(len(cores) == 1 for cores in seen)  # the task thread pinned itself before it started the bot
    assert {cores[0] for cores in seen} <= set(MINE[:2])


def test_dask_workers_with_affinity_off_pin_nothing(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    seen = bot_cores(tmp_path, "--executor", "dask", "--scheduler", "local:2", "--affinity", "off")
    assert seen and all(cores == MINE for cores in seen)
