"""A soak of kill and resume: one tournament SIGKILLed at 20 moments drawn at random, resumed after each kill,
ends identical to a run that was never interrupted (issue 12). Every run kills it at 8 moments; the 20 are a
``deep`` test (``-m deep``).

The moments are drawn from a seeded generator: some a time after the start (start-up, the workers' start, the
first games), most once the database holds a drawn number of games, and the last ones within the last few
games of the schedule. After every kill nothing of the killed run may survive, and what was stored must be kept
exactly as it was. At the end every schedule key is stored once, with the results of the uninterrupted run, and
``referee tournament verify`` finds every stored game to follow from its record.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from proctable import descendants, proc_table
from test_tournament_resume import DEADLINE, TOTAL, by_key, referee_argv, stored_count, stored_games, wait_until_gone

KILLS = 20
#: The kills of every run: 2 moments in time at the start, 2 near the end, and 4 game counts between.
QUICK_KILLS = 8
#: The count kills stop this many games before the end of the schedule (a commit batch and more).
LATE = 40
#: The tournament of test_tournament_resume (3 rotations × 60 deals = 180 games), with one program bot: its games
#: take milliseconds, so the workers send results a game or two at a time and a kill lands where it is aimed,
#: and bot processes are there to be killed with the run.
COMMAND = ["run", "kazaki", "--bot", "heuristic", "--bot", f"cmd:{sys.executable} -m bots.random", "--bot", "first",
           "--games", "60", "--seats", "3", "--workers", "2", "--seed", "1"]


def start_or_resume(db: Path) -> list[str]:
    """``resume`` once games are stored; before that the same ``run`` command again (a start killed before it
    stored a game may have left no tournament to resume, and the same command continues the one it made)."""
    return referee_argv("resume", str(db), "--workers", "2") if stored_count(db) else referee_argv(*COMMAND, "--db",
                                                                                                 str(db))


def kill_at(argv: list[str], db: Path, log: Path, *, after: float | None, stored: int | None) -> int:
    """Run ``argv``; SIGKILL its process group ``after`` seconds from the start, or once ``stored`` games are in
    the database, or when it ends by itself. Returns its exit code (-9 when killed)."""
    with log.open("w") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
    below: set[tuple[int, int]] = set()
    try:
        start = time.monotonic()
        while proc.poll() is None and time.monotonic() - start < DEADLINE:
            below |= descendants(proc.pid) | {key for key in proc_table() if key[0] == proc.pid}
            if after is not None and time.monotonic() - start >= after:
                break
            if stored is not None and stored_count(db) >= stored:
                break
            time.sleep(0.002)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers at once, no handler runs
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
    wait_until_gone(below, proc.pid)
    assert "Traceback" not in log.read_text(), log.read_text()
    return proc.returncode


@pytest.mark.deep
def test_twenty_kills_at_random_moments_then_resume_end_as_an_uninterrupted_run(tmp_path: Path) -> None:
    soak(tmp_path, KILLS, 4)


def test_eight_kills_at_random_moments_then_resume_end_as_an_uninterrupted_run(tmp_path: Path) -> None:
    soak(tmp_path, QUICK_KILLS, 2)


def soak(tmp_path: Path, kills: int, times: int) -> None:
    """``kills`` kills: ``times`` moments in time at the start, ``times`` at the end, game counts between."""
    reference_db = tmp_path / "reference.db"
    began = time.monotonic()
    done = subprocess.run(referee_argv(*COMMAND, "--db", str(reference_db)), capture_output=True, text=True,
                          timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    # The moments in time below are drawn for a run of 2 s or more; where the uninterrupted run is shorter (a fast
    # machine, a fast engine: about 0.9 s on a 2-core machine in December 2026), they shrink with it, so that a kill
    # aimed at the start-up or the first games still lands before the run has ended by itself.
    scale = min(1.0, (time.monotonic() - began) / 2.0)
    reference = by_key(stored_games(reference_db))
    assert len(reference) == TOTAL

    draw = random.Random(20261201)
    # ``times`` moments in time (start-up, the workers' start, the first games), the other kills at game counts
    # drawn over the schedule, and ``times`` moments in time again, of runs resumed near its end. Games are
    # committed a batch at a time (Store.batch: a batch is about 0.1 s of games), so a kill aimed at a count lands up
    # to a batch later, and a count only a run's last commit reaches cannot be killed at: the counts stop LATE games
    # before the end, and the last kills are aimed at a time from the start of a resumed run (its start-up, its
    # bots' start, its first games).
    early = [draw.uniform(0.05, 1.0) * scale for _ in range(times)]
    counts = sorted(draw.sample(range(5, TOTAL - LATE), kills - 2 * times - 1)) + [TOTAL - LATE]
    late = [draw.uniform(0.1, 0.6) * scale for _ in range(times)]
    db = tmp_path / "soak.db"
    kept: dict[str, dict[str, Any]] = {}  # key → stored row
    moments = []
    for kill in range(kills):
        have = stored_count(db)
        step = kill - len(early)
        after = early[kill] if step < 0 else late[step - len(counts)] if step >= len(counts) else None
        stored = None if after is not None else max(counts[step], have + 1)
        argv = start_or_resume(db)
        code = kill_at(argv, db, tmp_path / f"run{kill}.log", after=after, stored=stored)
        rows = stored_games(db) if db.exists() else []  # a start killed early may not have made it
        now = {g["key"]: g for g in rows}
        assert len(now) == len(rows), f"kill {kill}: a game stored twice"
        assert {key: now.get(key) for key in kept} == kept, f"kill {kill}: games stored before were changed"
        kept = now
        moments.append((kill, after, stored, code, len(now)))
    killed = [m for m in moments if m[3] == -signal.SIGKILL]
    assert len(killed) >= kills - 2, moments  # the moments are real kills, not runs that had already ended
    assert any(m[4] >= TOTAL - LATE for m in killed[-times:]), moments  # kills near the end of the schedule
    assert any(m[4] == 0 for m in killed) or any(m[1] is not None and m[4] < 10 for m in killed), moments

    # the last resume completes the schedule
    finished = subprocess.run(start_or_resume(db), capture_output=True, text=True, timeout=DEADLINE,
                              stdin=subprocess.DEVNULL)
    assert finished.returncode == 0, finished.stderr
    final = stored_games(db)
    assert {g["key"]: g for g in final if g["key"] in kept} == kept
    assert len(final) == TOTAL and len({g["key"] for g in final}) == TOTAL
    assert by_key(final) == reference  # every key once, the same deal, seating, places and actions

    checked = subprocess.run(referee_argv("verify", str(db), "--json"), capture_output=True, text=True,
                             timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["games"] == TOTAL and json.loads(checked.stdout)["ok"] is True
    assert not os.path.exists(f"{db}-journal")
