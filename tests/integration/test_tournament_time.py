"""``referee tournament``: the time bank (``--time-bank``, stored as ``time_bank_ms`` only when it is not 0), old
databases stored before it, and the executor chosen by ``--executor``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_process import run_referee

from tournaments.storage import Store

ZOO = Path(__file__).resolve().parents[1] / "fixtures" / "zoo"

#: The ``config`` row of a database stored before the time bank existed, for the command ``RUN``.
OLD_ROW = ('{"duplicate": true, "entrants": ["random", "first"], "extra": {"sandbox": {"env": [], "file_size_mb": 64, '
           '"memory_mb": 2048, "mode": "off", "processes": 256}}, "game": "durak", "games": 2, "move_time_ms": 1000, '
           '"options": {"max_bouts": 1000, "redeal_five": false, "throw_after_take": true, "transfer": false, '
           '"withdraw": false}, "policy": "forfeit", "seats": 2, "seed": 1, "specs": ["random", "first"]}')
RUN = ["run", "durak", "-b", "random", "-b", "first", "--games", "2", "--seed", "1", "--workers", "1"]


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return run_referee("tournament", *args)


def ok(*args: str) -> str:
    result = referee(*args)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def one_line_error(*args: str) -> str:
    result = referee(*args)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    return result.stderr.strip()


def stored_row(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    finally:
        conn.close()


def old_database(db: Path) -> Path:
    """A database as a referee from before the time bank left it: its configuration, no game played yet."""
    with Store(db, create=True) as store:
        store.save_config(json.loads(OLD_ROW))
    assert stored_row(db) == OLD_ROW
    return db


# ------------------------------------------------------------------------------------------- old databases


def test_a_new_tournament_without_a_bank_stores_what_an_old_referee_stored(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    ok(*RUN, "--db", str(db), "--json")
    assert stored_row(db) == OLD_ROW


def test_an_old_database_continues_resumes_and_reads_as_before(tmp_path: Path) -> None:
    continued = old_database(tmp_path / "continued.db")
    resumed = old_database(tmp_path / "resumed.db")
    fresh = tmp_path / "fresh.db"
    table = json.loads(ok(*RUN, "--db", str(fresh), "--json"))
    assert json.loads(ok(*RUN, "--db", str(continued), "--json")) == table  # the same command continues it
    assert json.loads(ok("resume", str(resumed), "--workers", "1", "--json")) == table
    for db in (continued, resumed):
        assert stored_row(db) == OLD_ROW  # never rewritten
        assert json.loads(ok("table", str(db), "--json")) == table
        assert json.loads(ok("games", str(db), "--json")) == json.loads(ok("games", str(fresh), "--json"))
        assert json.loads(ok("verify", str(db), "--json"))["ok"] is True


def test_a_time_bank_on_an_old_database_is_another_tournament(tmp_path: Path) -> None:
    db = old_database(tmp_path / "old.db")
    line = one_line_error(*RUN, "--db", str(db), "--time-bank", "500")
    assert "holds a different tournament (time_bank_ms: stored none, given 500);" in line
    assert stored_row(db) == OLD_ROW


# ------------------------------------------------------------------------------------------------ the bank


def slow_tournament(tmp_path: Path, name: str, *time_args: str) -> tuple[dict[str, Any], list[int]]:
    """Two durak games of a program that thinks 0.5 s over its first move of each game, under a 200 ms move limit:
    the stored configuration and the deadline_ms of every request the program got."""
    db, deadlines = tmp_path / f"{name}.db", tmp_path / f"{name}.deadlines"
    slow = f"cmd:{sys.executable} {ZOO / 'slow.py'} 0.5 {deadlines}"
    ok("run", "durak", "-b", slow, "-b", "first", "--games", "1", "--seed", "3", "--workers", "1",
       "--sandbox", "off", "--move-time", "200", *time_args, "--db", str(db), "--json")
    games = json.loads(ok("games", str(db), "--json"))["games"]
    return {"config": json.loads(stored_row(db)), "games": games}, [int(x) for x in deadlines.read_text().split()]


def test_the_time_bank_of_a_tournament_reaches_its_bots(tmp_path: Path) -> None:
    banked, deadlines = slow_tournament(tmp_path, "banked", "--time-bank", "1000")
    assert banked["config"]["time_bank_ms"] == 1000
    assert len(banked["games"]) == 2 and all(g["faults"] == [] for g in banked["games"])  # the bank covered it
    assert deadlines[0] == 1200 and 1200 in deadlines[1:]  # the whole bank again at the next game
    assert min(deadlines) < 1200  # what the slow first move spent


def test_without_a_bank_the_same_bot_times_out(tmp_path: Path) -> None:
    plain, deadlines = slow_tournament(tmp_path, "plain")
    assert "time_bank_ms" not in plain["config"]
    assert set(deadlines) == {200}
    assert len(plain["games"]) == 2
    for game in plain["games"]:  # its first move in each game, at least (a loaded machine may add one)
        assert game["faults"] and {f["kind"] for f in game["faults"]} == {"timeout"}, game["faults"]


# -------------------------------------------------------------------------------------------- the executor


def test_the_local_executor_by_name_plays_as_the_default(tmp_path: Path) -> None:
    default = json.loads(ok(*RUN, "--db", str(tmp_path / "a.db"), "--json"))
    named = json.loads(ok(*RUN, "--db", str(tmp_path / "b.db"), "--json", "--executor", "local"))
    assert named == default


def test_an_unknown_executor_is_one_line_listing_the_choices(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert one_line_error(*RUN, "--db", str(db), "--executor", "ray") == \
        "referee: error: unknown executor 'ray' (choices: dask, local)"
    assert not db.exists()  # refused before anything is stored
    old = old_database(tmp_path / "old.db")
    assert one_line_error("resume", str(old), "--executor", "ray") == \
        "referee: error: unknown executor 'ray' (choices: dask, local)"
    with Store(old, create=False, readonly=True) as store:
        assert store.count() == 0
