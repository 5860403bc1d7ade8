"""``referee tournament verify`` checks completeness (issue 33): every game the run recorded as stored is there once,
a deleted row, a key outside the schedule and a row of another tournament are each named (exit 1), while the keys an
interrupted run never finished are not a false alarm; bad input is one line and exit 2."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.plugins import load_registry
from tournaments.config import TournamentConfig
from tournaments.local import LocalExecutor
from tournaments.run import run_tournament
from tournaments.schedule import Scheduled
from tournaments.storage import FinishedGame, Store

RUN = ["run", "durak", "-b", "random", "-b", "first", "--games", "4", "--seed", "7", "-w", "1"]


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["tournament", *args], catch_exceptions=False)


def played(tmp_path: Path, name: str = "t.db", *extra: str) -> Path:
    db = tmp_path / name
    result = cli(*RUN, *extra, "--db", str(db))
    assert result.exit_code == 0, result.stderr
    return db


def sql(db: Path, statement: str, *params: Any) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(statement, params)


def verified(db: Path) -> tuple[int, dict[str, Any], str]:
    text = cli("verify", str(db))
    data = cli("verify", str(db), "--json")
    assert text.exit_code == data.exit_code and "Traceback" not in text.stderr + data.stderr
    return text.exit_code, json.loads(data.stdout), text.stdout


def test_a_complete_tournament_verifies(tmp_path: Path) -> None:
    code, data, text = verified(played(tmp_path))
    assert code == 0 and data["ok"] and data["recorded"] == data["scheduled"] == data["games"] == 8
    assert data["missing"] == [] and data["mismatches"] == []
    assert text.splitlines() == ["8 stored games (of 8 scheduled): every one follows from its record"]


def test_a_deleted_row_is_named_and_resume_plays_it_again_with_a_warning(tmp_path: Path) -> None:
    db = played(tmp_path)
    sql(db, "DELETE FROM games WHERE key = 't0.d1.r0'")
    code, data, text = verified(db)
    assert code == 1 and not data["ok"] and data["missing"] == ["t0.d1.r0"] and data["recorded"] == 8
    assert data["mismatches"] == [{"key": "t0.d1.r0", "problems": [
        "missing: the run recorded it as stored (resume plays it again)"]}]
    assert text.splitlines() == ["t0.d1.r0: missing: the run recorded it as stored (resume plays it again)",
                                 "7 stored games (of 8 scheduled): 1 missing"]
    resumed = cli("resume", str(db), "-w", "1")
    assert resumed.exit_code == 0
    assert ("referee: warning: 1 game stored before is missing from " f"{db} (t0.d1.r0): playing it again"
            in resumed.stderr.splitlines())
    assert verified(db)[0] == 0


def test_a_duplicated_key_cannot_be_stored_and_a_key_outside_the_schedule_is_named(tmp_path: Path) -> None:
    db = played(tmp_path)
    copy = ("INSERT INTO games SELECT ?, ?, seed, seating, places, faults, decisions, body, finished_at FROM games "
            "WHERE key = 't0.d1.r0'")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):  # the schema refuses a key twice
        sql(db, copy, 100, "t0.d1.r0")
    sql(db, copy, 100, "t0.d9.r0")  # a deal beyond --games 4
    sql(db, copy, 101, "t3.d0.r0")  # a table the tournament does not have
    code, data, text = verified(db)
    assert code == 1 and data["missing"] == []
    outside = ["not a key of this tournament's schedule"]
    assert {m["key"]: m["problems"] for m in data["mismatches"]} == {"t0.d9.r0": outside, "t3.d0.r0": outside}
    assert text.splitlines()[-1] == "10 stored games (of 8 scheduled): 2 do not follow from their records"


def test_a_row_of_another_tournament_is_named(tmp_path: Path) -> None:
    db = played(tmp_path)
    other = tmp_path / "other.db"
    assert cli("run", "durak", "-b", "random", "-b", "first", "--games", "4", "--seed", "8", "-w", "1",
               "--db", str(other)).exit_code == 0
    sql(db, "DELETE FROM games WHERE key = 't0.d1.r0'")
    with sqlite3.connect(db) as conn:  # the other tournament's game under the same key, in the hole
        conn.execute("ATTACH DATABASE ? AS other", (str(other),))
        conn.execute("INSERT INTO games SELECT * FROM other.games WHERE key = 't0.d1.r0'")
    code, data, _ = verified(db)
    assert code == 1 and data["missing"] == []
    [mismatch] = data["mismatches"]
    assert mismatch["key"] == "t0.d1.r0" and mismatch["problems"][0].startswith("seed: stored ")


class Stopping:
    """An executor that plays the jobs a few at a time, yields each few in reverse (games finish in any order), and
    is interrupted (^C) after ``after`` games: what a run killed with games in flight leaves."""

    def __init__(self, config: TournamentConfig, after: int) -> None:
        self.inner = LocalExecutor(config, 1)
        self.after = after

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        window: list[FinishedGame] = []
        given = 0
        for game in self.inner.run(jobs):
            window.append(game)
            if len(window) == 3:
                for finished in reversed(window):
                    if given == self.after:
                        raise KeyboardInterrupt
                    given += 1
                    yield finished
                window = []

    def close(self) -> None:
        self.inner.close()

    def terminate(self) -> None:
        self.inner.terminate()


def test_an_interrupted_run_is_no_false_alarm_and_a_hole_below_its_prefix_is(tmp_path: Path) -> None:
    db = played(tmp_path, "full.db")
    with Store(db, create=False, readonly=True) as store:
        config = TournamentConfig.from_dict(store.config())
    cut = tmp_path / "cut.db"
    game = load_registry(entry_points=False).game("durak")
    with Store(cut, create=True) as store, pytest.raises(KeyboardInterrupt):
        run_tournament(store, config, game, lambda c: Stopping(c, after=5))
    # the games 0-2 came as 2, 1, 0; the next three as 5, 4 (and then ^C): 3 is missing but was never recorded
    code, data, text = verified(cut)
    assert code == 0, text
    assert data["games"] == 5 and data["recorded"] == 3 and data["missing"] == []
    with sqlite3.connect(cut) as conn:
        keys = {row[0] for row in conn.execute("SELECT key FROM games")}
    assert "t0.d1.r1" not in keys and "t0.d2.r1" in keys  # a ragged end: a key missing before a stored one
    sql(cut, "DELETE FROM games WHERE key = 't0.d0.r1'")  # within what the run recorded as stored
    code, data, _ = verified(cut)
    assert code == 1 and data["missing"] == ["t0.d0.r1"]


@pytest.mark.parametrize("damage, fragment", [
    ("nonsense", "meta 'played') is damaged"),
    ('[{"games": -1}]', "meta 'played') is damaged"),
    ('[{"games": 1, "what": 2}]', "meta 'played') is damaged"),
])
def test_a_damaged_record_of_play_is_one_line_and_exit_2(tmp_path: Path, damage: str, fragment: str) -> None:
    db = played(tmp_path)
    sql(db, "UPDATE meta SET value = ? WHERE key = 'played'", damage)
    sql(db, "DELETE FROM games WHERE key = 't0.d3.r1'")  # resume has a game to play: it reads the record of play
    for command in (["verify", str(db)], ["verify", str(db), "--json"], ["resume", str(db)]):
        result = cli(*command)
        lines = result.stderr.splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and fragment in lines[0], (command, result.stderr)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    for path in (tmp_path / "none.db", junk, empty, tmp_path):
        result = cli("verify", str(path))
        lines = result.stderr.splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("referee: error: "), result.stderr


def test_a_database_from_before_the_record_of_play_checks_its_rows_only(tmp_path: Path) -> None:
    db = played(tmp_path)
    sql(db, "DELETE FROM meta WHERE key = 'played'")
    sql(db, "DELETE FROM games WHERE key = 't0.d1.r0'")
    code, data, _ = verified(db)
    assert code == 0 and data["recorded"] is None and data["missing"] == []  # nothing says the game was ever stored
