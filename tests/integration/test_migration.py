"""Schema-1 databases (tests/fixtures/schema1/, made by the referee before schema 2: a 2-seat round robin with a
crashing bot, a 3-seat one under ``--on-fault continue`` with illegal moves, an SPRT): ``table``, ``games``,
``record`` and ``verify`` read them as they are; ``resume`` migrates them in place after a backup, and then every
one of those gives what it gave before (tournaments/migrations.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_process import ROOT
from stored import untimed_record
from typer.testing import CliRunner

from referee.cli import app
from referee.record import record_from_dict, record_to_dict
from tournaments import migrations as migration
from tournaments.storage import StorageError, Store

FIXTURES = ROOT / "tests" / "fixtures" / "schema1"
NAMES = ["rr", "rr3", "sprt"]


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    return result.stdout


def copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name}.db"
    shutil.copy(FIXTURES / f"{name}.db", path)  # never opened in place: reading a WAL database writes its -shm
    return path


def dump(path: Path) -> list[str]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def schema1_records(path: Path) -> dict[str, str]:
    """Every game's record as schema 1 holds it (the record column with the stderr column added), as JSON."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT key, record, stderr FROM games ORDER BY seq").fetchall()
    finally:
        db.close()
    return {key: json.dumps({**json.loads(record), "stderr": json.loads(stderr)}) for key, record, stderr in rows}


def outputs(path: Path) -> dict[str, Any]:
    """What the commands print for a database: table, games and verify as JSON, every record."""
    with Store(path, create=False, readonly=True) as store:
        keys = [row.key for row in store.games()]
    return {"table": json.loads(invoke("tournament", "table", str(path), "--json")),
            "games": json.loads(invoke("tournament", "games", str(path), "--json")),
            "verify": json.loads(invoke("tournament", "verify", str(path), "--json")),
            "records": {key: invoke("tournament", "record", str(path), key) for key in keys}}


def schema_of(path: Path) -> tuple[str, set[str]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        return version, {row[1] for row in db.execute("PRAGMA table_info(games)")}
    finally:
        db.close()


@pytest.mark.parametrize("name", NAMES)
def test_a_schema1_database_is_read_as_it_is(tmp_path: Path, name: str) -> None:
    path = copy(name, tmp_path)
    before = dump(path)
    out = outputs(path)
    assert out["verify"]["ok"] and out["verify"]["games"] == len(out["games"]["games"]) > 0
    with Store(path, create=False, readonly=True) as store:
        assert store.schema == 1
        assert {key: json.dumps(store.record(key)) for key in out["records"]} == schema1_records(path)
        faulted = [row.key for row in store.games(faulted=True)]
    assert bool(faulted) == (name != "sprt")  # the round robins have faulting bots
    assert dump(path) == before and schema_of(path)[0] == "1"  # reading changed nothing


@pytest.mark.parametrize("name", ["rr", "rr3"])
def test_resume_migrates_in_place_after_a_backup(tmp_path: Path, name: str) -> None:
    path = copy(name, tmp_path)
    original, before = dump(path), outputs(path)
    records = schema1_records(path)
    invoke("tournament", "resume", str(path), "--json")
    backup = tmp_path / f"{name}.db.schema1.bak"
    assert backup.is_file() and dump(backup) == original
    version, columns = schema_of(path)
    assert version == "2" and "body" in columns and "record" not in columns
    assert outputs(path) == before
    with Store(path, create=False, readonly=True) as store:
        assert store.schema == 2
        assert {key: json.dumps(store.record(key)) for key in records} == records  # byte for byte
    invoke("tournament", "resume", str(path), "--json")  # a migrated database is not migrated again
    assert dump(backup) == original


def test_a_finished_sprt_is_decided_again_without_a_write(tmp_path: Path) -> None:
    path = copy("sprt", tmp_path)
    original, before = dump(path), outputs(path)
    invoke("tournament", "resume", str(path), "--json")  # nothing to play: nothing written, nothing migrated
    assert dump(path) == original and not (tmp_path / "sprt.db.schema1.bak").exists()
    assert outputs(path) == before


def test_resume_migrates_an_sprt_and_plays_its_missing_games(tmp_path: Path) -> None:
    complete = copy("sprt", tmp_path)
    path = tmp_path / "partial.db"
    shutil.copy(complete, path)
    db = sqlite3.connect(path)
    gone = [row[0] for row in db.execute("SELECT key FROM games WHERE key GLOB 'd4.*'")]
    db.execute("DELETE FROM games WHERE key GLOB 'd4.*'")
    db.commit()
    db.close()
    assert gone
    invoke("tournament", "resume", str(path), "--json")
    assert schema_of(path)[0] == "2" and (tmp_path / "partial.db.schema1.bak").is_file()
    want = outputs(complete)
    got = outputs(path)
    # the resume recorded how far the deals are stored (meta 'played'), which the schema-1 fixture has not
    assert (got["verify"].pop("recorded"), want["verify"].pop("recorded")) == (want["verify"]["games"], None)
    # the games played again are the very ones deleted, with their times measured this time
    got_records, want_records = got.pop("records"), want.pop("records")
    assert got == want
    assert {key: untimed_record(text) for key, text in got_records.items()} == \
        {key: untimed_record(text) for key, text in want_records.items()}
    assert all(json.loads(got_records[key])["times"] for key in gone)
    with Store(path, create=False, readonly=True) as store:
        old = schema1_records(complete)  # read as records are read today (no times, no words: empty ones)
        assert {key: untimed_record(json.dumps(store.record(key))) for key in gone} == \
            {key: untimed_record(json.dumps(record_to_dict(record_from_dict(json.loads(old[key]))))) for key in gone}


def test_an_interrupted_migration_leaves_schema_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy("rr", tmp_path)
    original = dump(path)
    encoded = 0
    real = migration.encode_body

    def failing(*args: Any, **kwargs: Any) -> bytes:
        nonlocal encoded
        encoded += 1
        if encoded > 3:
            raise sqlite3.OperationalError("disk I/O error")
        return real(*args, **kwargs)

    monkeypatch.setattr(migration, "encode_body", failing)
    with Store(path, create=False) as store, pytest.raises(StorageError) as exc:
        store.lock()
    assert "\n" not in str(exc.value)
    assert dump(path) == original and schema_of(path)[0] == "1"
    monkeypatch.undo()
    with Store(path, create=False) as store:  # the next write migrates it
        store.lock()
        assert store.schema == 2
    assert schema_of(path)[0] == "2"


@pytest.mark.parametrize("command", [["table"], ["games"], ["verify"], ["record", "t1.d0.r0"], ["resume"],
                                     ["report", "-o", "{tmp}/report.html"]])
def test_a_database_of_a_newer_schema_is_refused_and_left_as_it_is(tmp_path: Path, command: list[str]) -> None:
    """A database that says it is at a schema newer than this referee's was read, and written, as schema 2."""
    path = tmp_path / "t.db"
    invoke("tournament", "run", "durak", "-b", "random", "-b", "first", "--games", "1", "--seed", "1", "--db",
           str(path), "--workers", "1", "--json")
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    db.execute("PRAGMA journal_mode=DELETE")  # so that a PRAGMA journal_mode=WAL would show in the file's bytes
    db.close()
    before, files = path.read_bytes(), sorted(p.name for p in tmp_path.iterdir())
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = CliRunner().invoke(app, ["tournament", args[0], str(path), *args[1:]], catch_exceptions=False)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == [f"referee: error: {path} is at schema 3, written by a newer referee; this "
                                          "one reads schemas 1 and 2: use the newer referee (nothing was changed)"]
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == files


@pytest.mark.parametrize("command", ["run", "sprt"])
def test_a_refused_run_leaves_a_schema1_database_unmigrated(tmp_path: Path, command: str) -> None:
    """Taking the run's lock migrates an old database: a run refused for another configuration must not get there."""
    path = copy("rr", tmp_path)
    before = dump(path)
    args = ["run", "durak", "-b", "random", "-b", "first", "--games", "1"] if command == "run" else \
        ["sprt", "durak", "-c", "heuristic", "-B", "random", "--max-games", "2"]
    result = CliRunner().invoke(app, ["tournament", *args, "--db", str(path)], catch_exceptions=False)
    assert result.exit_code == 2 and "holds a different tournament" in result.stderr, result.stderr
    assert dump(path) == before and schema_of(path)[0] == "1"
    assert not {"rr.db.schema1.bak", "rr.db.lock"} & {p.name for p in tmp_path.iterdir()}  # no backup, no lock
