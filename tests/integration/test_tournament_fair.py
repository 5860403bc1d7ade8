"""Tournaments bots cannot predict or forge (issue 12): a secret seed drawn when ``--seed`` is not given, which no bot
learns, and ``referee tournament verify``, which replays every stored game and names the rows that do not follow from
their records.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee

from tournaments.storage import Store, decode_body, pack_body

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "zoo"


def referee(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, timeout=timeout)


def stored_config(db: Path) -> dict:
    with sqlite3.connect(db) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])


def run(db: Path, *extra: str, bots: tuple[str, ...] = ("random", "first")) -> subprocess.CompletedProcess[str]:
    args = ["tournament", "run", "kazaki", *(a for b in bots for a in ("-b", b)), "--games", "2", "--workers", "1",
            "--db", str(db), *extra]
    return referee(*args)


# ------------------------------------------------------------------------------------------------ the seed


def test_without_seed_a_secret_seed_is_drawn_stored_and_the_same_command_continues(tmp_path: Path) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    done = run(first)
    assert done.returncode == 0, done.stderr
    config = stored_config(first)
    assert config["extra"]["seed"] == "drawn" and config["seed"] != 1
    assert run(second).returncode == 0
    assert stored_config(second)["seed"] != config["seed"]  # drawn anew for every tournament
    again = run(first)  # the same command on the same database: it continues (here: nothing is left to play)
    assert again.returncode == 0, again.stderr
    assert stored_config(first) == config
    assert f"games, seed {config['seed']}" in again.stdout  # shown once every game is played
    other = run(first, "--on-fault", "continue")
    assert other.returncode == 2  # only what really differs is named, the secret seed not at all
    assert 'different tournament (policy: stored "forfeit", given "continue");' in other.stderr


def test_the_seed_is_not_shown_before_the_tournament_is_complete(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert run(db).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE seq = (SELECT MAX(seq) FROM games)")
    table = referee("tournament", "table", str(db), "--json")
    assert table.returncode == 0 and json.loads(table.stdout)["seed"] is None
    assert "seed" not in referee("tournament", "table", str(db)).stdout


def test_an_explicit_seed_is_kept_and_not_replaced_by_a_drawn_one(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert run(db, "--seed", "5").returncode == 0
    assert stored_config(db)["seed"] == 5 and "seed" not in stored_config(db)["extra"]
    again = run(db)
    assert again.returncode == 2 and "with --seed 5: give that --seed" in again.stderr
    assert run(db, "--seed", "5").returncode == 0


def test_a_database_of_the_old_default_seed_continues_without_seed(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert run(db, "--seed", "1").returncode == 0  # what 'run' without --seed stored before seeds were drawn
    again = run(db)
    assert again.returncode == 0, again.stderr
    assert stored_config(db)["seed"] == 1


def test_no_bot_learns_the_secret_seed(tmp_path: Path) -> None:
    snoop = f"cmd:{sys.executable} {ZOO / 'snoop.py'}"  # notes what it learns on stderr, which the tournament keeps
    for workers in ("1", "2"):
        db = tmp_path / f"w{workers}.db"
        done = referee("tournament", "run", "durak", "-b", snoop, "-b", "random", "--games", "2", "--workers",
                       workers, "--db", str(db))
        assert done.returncode == 0, done.stderr
        config = stored_config(db)
        with Store(db, create=False, readonly=True) as store:
            rows = [(str(row.seed), (store.record(row.key) or {})["stderr"]) for row in store.games()]
        text = "".join(text for _, stderr in rows for text in stderr.values())
        assert text.count("message: {'type': 'new_game'") == len(rows) == 4  # it saw every game, and noted it
        assert "parent cmdline: " in text and "argv: " in text
        assert str(config["seed"]) not in text
        for deal, _ in rows:  # nor the deals' own seeds
            assert deal not in text


# ------------------------------------------------------------------------------------------------ verify


def faulty_tournament(tmp_path: Path) -> Path:
    """A finished tournament in which one entrant faults (so places follow from the faults and the policy)."""
    db = tmp_path / "t.db"
    illegal = f"cmd:{sys.executable} {ZOO / 'illegal.py'}"
    done = referee("tournament", "run", "durak", "-b", illegal, "-b", "random", "-b", "first", "--seats", "2",
                   "--games", "3", "--workers", "2", "--db", str(db))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games WHERE faults > 0").fetchone()[0] > 0
    return db


def test_verify_passes_an_untouched_tournament(tmp_path: Path) -> None:
    db = faulty_tournament(tmp_path)
    checked = referee("tournament", "verify", str(db))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "18 stored games (of 18 scheduled): every one follows from its record"
    as_json = json.loads(referee("tournament", "verify", str(db), "--json").stdout)
    assert as_json == {"games": 18, "scheduled": 18, "ok": True, "mismatches": [], "recorded": 18, "missing": []}


def rewrite_body(conn: sqlite3.Connection, key: str, change: Callable[[list[int], dict[str, Any]], object]) -> None:
    """Change a stored game's body as a forger would: its choices and the rest of its fields."""
    choices, rest = decode_body(conn.execute("SELECT body FROM games WHERE key = ?", (key,)).fetchone()[0])
    change(choices, rest)
    conn.execute("UPDATE games SET body = ? WHERE key = ?", (pack_body(choices, rest), key))


def test_verify_names_a_row_whose_places_were_rewritten(tmp_path: Path) -> None:
    db = faulty_tournament(tmp_path)
    before = json.loads(referee("tournament", "table", str(db), "--json").stdout)
    with sqlite3.connect(db) as conn:
        key, places = conn.execute("SELECT key, places FROM games WHERE places = '[2, 1]' ORDER BY seq").fetchone()
        conn.execute("UPDATE games SET places = '[1, 2]' WHERE key = ?", (key,))  # what a forging bot did
        other = conn.execute("SELECT key FROM games WHERE key != ? ORDER BY seq", (key,)).fetchone()[0]
        # a record that no longer replays to its end (its last decision's time dropped with it)
        rewrite_body(conn, other, lambda choices, rest: (choices.pop(), rest["t"].pop()))
    checked = referee("tournament", "verify", str(db))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert f"{key}: places: stored [1, 2], the replay gives [2, 1]" in lines
    assert any(line.startswith(f"{other}: the record does not replay: the record stops after") for line in lines)
    assert lines[-1] == "18 stored games (of 18 scheduled): 2 do not follow from their records"
    assert "Traceback" not in checked.stderr
    # Schema 2 stores the places once: the table counts the forged ones (only verify, replaying, finds them) …
    assert json.loads(referee("tournament", "table", str(db), "--json").stdout) != before
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET places = ? WHERE key = ?", (places, key))
    assert json.loads(referee("tournament", "table", str(db), "--json").stdout) == before  # … not the record


def scores(choices: list[int], rest: dict[str, Any]) -> None:
    rest["r"]["scores"] = [9] * len(rest["r"]["scores"])


@pytest.mark.parametrize(("column", "value", "fragment"), [
    ("seed", "123", "seed: stored 123, the schedule says"),
    ("seating", '["first", "random"]', "seating: stored"),
    ("faults", "0", "faults: stored 0, the record has"),
    ("decisions", "999", "decisions: stored 999, the record has"),
    ("body", "scores", "result scores: stored [9, 9], the replay gives"),
    ("body", "x'01ff'", "record: its row's body does not rebuild it: not deflated"),
    ("places", "nonsense", "column places is not JSON"),
])
def test_verify_names_each_kind_of_tampering(tmp_path: Path, column: str, value: str, fragment: str) -> None:
    db = faulty_tournament(tmp_path)
    with sqlite3.connect(db) as conn:
        key = conn.execute("SELECT key FROM games WHERE faults > 0 ORDER BY seq").fetchone()[0]
        if value == "scores":
            rewrite_body(conn, key, scores)
        else:
            stored: str | bytes = bytes.fromhex(value[2:-1]) if value.startswith("x'") else value
            conn.execute(f"UPDATE games SET {column} = ? WHERE key = ?", (stored, key))  # noqa: S608 - test's own names
    checked = referee("tournament", "verify", str(db), "--json")
    assert checked.returncode == 1
    mismatches = json.loads(checked.stdout)["mismatches"]
    assert [m["key"] for m in mismatches] == [key], mismatches
    assert any(fragment in p for p in mismatches[0]["problems"]), mismatches


def test_verify_of_no_database_is_one_line(tmp_path: Path) -> None:
    checked = referee("tournament", "verify", str(tmp_path / "none.db"))
    assert checked.returncode == 2 and checked.stderr.startswith("referee: error: no tournament database at")
