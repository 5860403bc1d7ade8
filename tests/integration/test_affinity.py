"""Pinned workers (issue 15, part 2): with --affinity auto each worker process (or Dask worker) and the bots it
starts share one core of their own, when there are no more workers than cores; with off, or more workers than cores,
nothing is pinned."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.local import cores_for
from tournaments.storage import Store

ZOO = Path(__file__).resolve().parents[1] / "fixtures" / "zoo"
MINE = sorted(os.sched_getaffinity(0))
needs_two = pytest.mark.skipif(len(MINE) < 2, reason="needs two cores to pin two workers apart")


def test_a_core_each_when_there_are_enough() -> None:
    assert cores_for(1, "auto") == MINE[:1]
    assert cores_for(len(MINE), "auto") == MINE
    assert cores_for(len(MINE) + 1, "auto") is None  # more workers than cores: none is pinned
    assert cores_for(1, "off") is None


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
    assert {cores[0] for cores in seen} <= set(MINE[:2])


def test_one_worker_pins_the_referee_while_it_plays(tmp_path: Path) -> None:
    seen = bot_cores(tmp_path, "--workers", "1", "--affinity", "auto")
    assert seen and all(cores == MINE[:1] for cores in seen)


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
