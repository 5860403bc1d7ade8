"""What ``--games`` counts, and ``--total-games`` (tournaments/cli/run.py), for real: ``python -m referee`` in a
subprocess, the stored games counted in the SQLite file itself.

``--games N`` is deals per table and seating, so 3 bots at 2 seats play 3 tables × 2 rotations × N games: the
header before play says that total and the product it comes from. ``--total-games T`` plays the smallest N whose
schedule holds T games (whole rounds), stored as that N so that ``resume`` and ``run --games N`` go on with it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cli_process import run_referee

THREE = ["tournament", "run", "durak", "-b", "heuristic", "-b", "random", "-b", "first", "--seats", "2", "--seed",
         "3", "--workers", "1"]


def ok(*args: str) -> subprocess.CompletedProcess[str]:
    done = run_referee(*args)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done


def header(done: subprocess.CompletedProcess[str]) -> str:
    return done.stderr.splitlines()[0]


def stored(db: Path) -> tuple[int, int]:
    """(the stored config's games, the number of stored games), read from the file as it is."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        config = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
        count = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    return config["games"], count


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), done.stderr
    assert "Traceback" not in done.stdout
    return lines[0]


def test_the_header_says_the_total_and_what_it_multiplies_out_from(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    done = ok(*THREE, "--games", "2", "--db", str(db))
    assert ", 2 seats, 12 games (3 tables × 2 seatings × 2 deals), duplicate deals," in header(done)
    assert "asked" not in header(done)
    assert stored(db) == (2, 12)


def test_total_games_rounds_up_to_whole_rounds(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    done = ok(*THREE, "--total-games", "7", "--db", str(db))
    # a round is 3 tables × 2 seatings = 6 games: 7 asked takes 2 rounds
    assert "12 games (3 tables × 2 seatings × 2 deals; 7 asked, 12 played: whole rounds)" in header(done)
    assert stored(db) == (2, 12)
    assert json.loads(ok("tournament", "table", str(db), "--json").stdout)["played"] == 12
    # stored as --games 2: the same tournament for resume and for run --games 2, which play nothing more
    ok("tournament", "resume", str(db), "--workers", "1")
    again = ok(*THREE, "--games", "2", "--db", str(db))
    assert "12 games (3 tables × 2 seatings × 2 deals)" in header(again)
    assert stored(db) == (2, 12)


def test_a_total_of_whole_rounds_is_played_as_asked(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    done = ok(*THREE, "--total-games", "6", "--db", str(db))
    assert "6 games (3 tables × 2 seatings × 1 deal)," in header(done) and "asked" not in header(done)
    assert stored(db) == (1, 6)


def test_total_games_counts_the_seatings_of_a_team_game(tmp_path: Path) -> None:
    # kozel-nn: one table of 4, 3 ways to split it into teams × 4 rotations = 12 seatings a round
    db = tmp_path / "t.db"
    done = ok("tournament", "run", "kozel-nn", "-b", "random", "-b", "first", "-b", "random", "-b", "first",
              "--total-games", "13", "--seed", "1", "--workers", "1", "--db", str(db))
    assert "24 games (1 table × 12 seatings × 2 deals; 13 asked, 24 played: whole rounds)" in header(done)
    assert stored(db) == (2, 24)


@pytest.mark.parametrize("games", [["--games", "5"], ["-n", "1000"]])
def test_games_and_total_games_together_are_refused(tmp_path: Path, games: list[str]) -> None:
    db = tmp_path / "t.db"
    line = one_error_line(run_referee(*THREE, *games, "--total-games", "12", "--db", str(db)))
    assert "--games" in line and "--total-games" in line
    assert not db.exists()


@pytest.mark.parametrize("total", ["0", "-4"])
def test_a_total_below_one_is_refused(tmp_path: Path, total: str) -> None:
    db = tmp_path / "t.db"
    line = one_error_line(run_referee(*THREE, "--total-games", total, "--db", str(db)))
    assert "--total-games" in line
    assert not db.exists()


def test_the_help_says_what_n_counts() -> None:
    text = " ".join(ok("tournament", "run", "--help").stdout.split())  # unwrapped
    assert "-n, --games N Games per table and seating, not in all:" in text
    assert "3 bots at 2 seats play 3 tables × 2 rotations × N deals" in text
    assert "--total-games T Instead of --games: play at least T games in all" in text
