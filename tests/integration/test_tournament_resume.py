"""SIGKILL in the middle of a tournament, then ``referee tournament resume``: no game lost, none played twice,
and the same results as a run that was never interrupted.

A kazaki tournament of 3 bots at one 3-seat table (3 rotations × 60 deals = 180 games) runs with two worker
processes in its own session; once the database holds some games but not all, the whole process group gets
SIGKILL (no handler runs, no cleanup). ``resume`` must complete the schedule: every key exactly once, and per
key the same deal, seating and places (the bots' randomness is seeded per game) as an uninterrupted run of the
same command on another database. Nothing of the killed run or of the resume may survive.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from proctable import descendants, living, proc_table

from tournaments.schedule import schedule, schedule_size
from tournaments.storage import Store

ENTRANTS, SEATS, GAMES, SEED = 3, 3, 60, 1
TOTAL = 180
COMMAND = ["run", "kazaki", "--bot", "heuristic", "--bot", "random", "--bot", "first", "--games", str(GAMES),
           "--seats", str(SEATS), "--workers", "2", "--seed", str(SEED)]
DEADLINE = 60.0  # a bound on every wait; the whole test takes a few seconds


def referee_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee", "tournament", *args]


# ------------------------------------------------------------------------------------------- processes


def cmdlines_mentioning(text: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if text in cmdline and state != "Z":
                found.append(f"{entry}: {cmdline}")
    return found


def wait_until_gone(processes: set[tuple[int, int]], group: int) -> None:
    deadline = time.monotonic() + 10
    while (living(processes) or living(group=group)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not living(processes), f"survivors: {living(processes)}"
    assert not living(group=group), f"survivors in the process group: {living(group=group)}"


# -------------------------------------------------------------------------------------------- database


def stored_count(db: Path) -> int:
    """Games stored so far, through a read-only connection of our own (0 while the database is not there)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def stored_games(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT seq, key, seed, seating, places, finished_at FROM games ORDER BY seq").fetchall()
    with Store(db, create=False, readonly=True) as store:
        return [{"seq": seq, "key": key, "seed": int(seed), "seating": json.loads(seating),
                 "places": json.loads(places), "actions": (store.record(key) or {})["actions"], "finished_at": finished}
                for seq, key, seed, seating, places, finished in rows]


def by_key(games: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """The result of each game, without when it was stored."""
    return {g["key"]: (g["seq"], g["seed"], g["seating"], g["places"], g["actions"]) for g in games}


# ---------------------------------------------------------------------------------------------- the test


def start_and_kill(db: Path, log: Path) -> int:
    """Start the tournament, SIGKILL its whole process group once some games are stored; return how many."""
    with log.open("w") as err:
        proc = subprocess.Popen(referee_argv(*COMMAND, "--db", str(db)), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    try:
        deadline = time.monotonic() + DEADLINE
        while stored_count(db) == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        below = descendants(proc.pid) | {key for key in proc_table() if key[0] == proc.pid}
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, at once, with no chance to clean up
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, log.read_text())
    assert len(below) >= 3, below  # the run and its two workers were there to be killed
    wait_until_gone(below, proc.pid)
    return stored_count(db)


def test_sigkill_then_resume_completes_the_schedule_exactly_once(tmp_path: Path) -> None:
    assert schedule_size(ENTRANTS, SEATS, GAMES) == TOTAL
    expected = {job.key: job for job in schedule(ENTRANTS, SEATS, GAMES, seed=SEED)}

    # an uninterrupted run: the results to expect
    reference_db = tmp_path / "reference.db"
    reference = subprocess.run(referee_argv(*COMMAND, "--db", str(reference_db), "--json"), capture_output=True,
                               text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert reference.returncode == 0, reference.stderr
    reference_report = json.loads(reference.stdout)
    assert reference_report["games"] == TOTAL
    reference_games = by_key(stored_games(reference_db))

    # a run killed part-way; the kill can come too late on a fast machine: then try again, a few times
    work = tmp_path / "killed"
    work.mkdir()
    for attempt in range(3):
        db = work / f"t{attempt}.db"
        stored = start_and_kill(db, work / f"run{attempt}.log")
        if 0 < stored < TOTAL:
            break
    else:
        pytest.fail(f"the run could not be caught part-way (last attempt stored {stored} of {TOTAL} games)")
    before = stored_games(db)
    assert len(before) == stored
    # what the killed run left is no false alarm for verify: the games it never finished were not recorded as stored
    checked = subprocess.run(referee_argv("verify", str(db), "--json"), capture_output=True, text=True,
                             timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["missing"] == []

    # resume, watching for the processes it starts
    out, err = work / "resume.json", work / "resume.log"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen(referee_argv("resume", str(db), "--workers", "2", "--json"), stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=stderr, start_new_session=True)
        seen: set[tuple[int, int]] = set()
        deadline = time.monotonic() + DEADLINE
        while proc.poll() is None and time.monotonic() < deadline:
            seen |= descendants(proc.pid)
            time.sleep(0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"resume did not finish in {DEADLINE} s: {err.read_text()}")
    assert proc.returncode == 0, err.read_text()
    assert "Traceback" not in err.read_text()
    report = json.loads(out.read_text())
    assert report["games"] == TOTAL
    assert report["ratings"] == reference_report["ratings"]
    assert report == reference_report

    # nothing of the killed run or of the resume is left behind
    wait_until_gone(seen, proc.pid)
    assert not cmdlines_mentioning(str(work)), cmdlines_mentioning(str(work))

    # every scheduled game exactly once, the killed run's games untouched, the same results as uninterrupted
    final = stored_games(db)
    keys = [g["key"] for g in final]
    assert len(final) == TOTAL
    assert len(set(keys)) == len(keys)
    assert sorted(keys) == sorted(expected)
    for game in final:
        job = expected[game["key"]]
        assert (game["seq"], game["seed"]) == (job.seq, job.seed)
        assert game["seating"] == [["heuristic", "random", "first"][e] for e in job.seating]
    assert [g for g in final if g["key"] in {b["key"] for b in before}] == before  # not one rewritten
    assert by_key(final) == reference_games
