"""Tournament storage (tournaments/storage.py): games and configuration in SQLite, durable game by game.

Every SQLite failure must become a one-line :class:`StorageError` (never a raw ``sqlite3`` exception), and what
was committed before a failure must stay readable. Tests may run as root, so "unwritable" is a path inside a
missing directory or a path that is a directory, not a file without write permission.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.errors import ConfigError, RefereeError
from referee.plugins import load_registry
from referee.results import GameResult
from tournaments.storage import FinishedGame, GameRow, RecordTemplate, StorageError, Store

CONFIG: dict[str, Any] = {
    "game": "durak", "options": {"transfer": False, "max_bouts": 1000}, "entrants": ["heuristic", "random"],
    "specs": ["heuristic", "random"], "seats": 2, "games": 10, "duplicate": True, "seed": 1,
    "move_time_ms": 1000, "policy": "forfeit", "extra": {},
}


TEMPLATE = RecordTemplate.of(CONFIG, load_registry().game("durak"))
BIG = {"0": secrets.token_hex(20_000)}  # a stderr tail that does not compress below a page


def record(places: list[int], *, faults: list[dict[str, Any]] | None = None, actions: int = 3,
           ) -> dict[str, Any]:
    order = [[seat for seat, p in enumerate(places) if p == place] for place in sorted(set(places))]
    result = {"places": places, "finishing_order": order, "scores": [0] * len(places), "faults": faults or [],
              "aborted": False}
    return {"game": "durak", "seed": 0, "actions": [f"a{i}" for i in range(actions)], "result": result}


def add_game(store: Store, seq: int, key: str, seed: int, seating: list[str], data: dict[str, Any],
             stderr: dict[str, str]) -> None:
    """Store a record of made-up actions: the compact form cannot hold it (its actions are no game's), so the row
    keeps it whole (tests/unit/test_storage_schema2.py stores real games)."""
    whole = {**data, "bots": seating, "faults": data["result"]["faults"], "stderr": stderr}
    store.add(FinishedGame.of(seq, key, seed, whole, (), TEMPLATE))


def add(store: Store, seq: int, stderr: dict[str, str] | None = None, **kw: Any) -> None:
    places = kw.pop("places", [1, 2])
    add_game(store, seq, f"t0.d{seq}.r0", 1000 + seq, ["heuristic", "random"], record(places, **kw), stderr or {})


def count_elsewhere(path: Path) -> int:
    """The number of games as another connection sees them (what survives this process)."""
    other = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return other.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        other.close()


def assert_one_line(exc: pytest.ExceptionInfo[StorageError], *fragments: str) -> str:
    text = str(exc.value)
    assert text and "\n" not in text, text
    assert isinstance(exc.value, RefereeError)  # the CLI maps it to one line and exit code 2
    assert not isinstance(exc.value, ConfigError)  # its own branch of the tree, not a bad configuration
    for fragment in fragments:
        assert fragment in text, text
    return text


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "t.db"


# ------------------------------------------------------------------------------------------------ games


def test_add_and_read_games(db: Path) -> None:
    faults = [{"seat": 1, "kind": "illegal", "decision": 2, "message": "x is not a legal action"}]
    with Store(db, create=True) as store:
        store.save_config(CONFIG)
        assert store.count() == 0 and store.done_keys() == set() and list(store.games()) == []
        add_game(store, 5, "t1.d0.r1", 2**64 - 1, ["random", "heuristic"], record([2, 1], faults=faults), {"1": "oops"})
        add_game(store, 0, "t0.d0.r0", 7, ["heuristic", "random"], record([1, 2], actions=5), {})
        rows = list(store.games())
        assert rows == [  # in schedule order (seq), whatever the order they finished in
            GameRow(0, "t0.d0.r0", 7, ("heuristic", "random"), (1, 2), (), 5),
            GameRow(5, "t1.d0.r1", 2**64 - 1, ("random", "heuristic"), (2, 1),
                    GameResult.from_dict(record([2, 1], faults=faults)["result"]).faults, 3),
        ]
        assert list(store.games(entrant="random", faulted=True)) == rows[1:]
        assert sorted(store.tally()) == [(("heuristic", "random"), (1, 2), 1), (("random", "heuristic"), (2, 1), 1)]
        assert rows[1].places == (2, 1) and [f.to_dict() for f in rows[1].faults] == faults
        assert store.count() == 2
        assert store.done_keys() == {"t0.d0.r0", "t1.d0.r1"}
        assert store.record("t0.d0.r0") == {**record([1, 2], actions=5), "bots": ["heuristic", "random"],
                                            "faults": [], "stderr": {}}
        assert store.record("t1.d0.r1") == {**record([2, 1], faults=faults), "bots": ["random", "heuristic"],
                                            "faults": faults, "stderr": {"1": "oops"}}
        assert store.record("t9.d9.r9") is None
    with Store(db, create=False) as again:  # and after reopening
        assert list(again.games()) == rows


def test_a_key_is_stored_once(db: Path) -> None:
    with Store(db, create=True) as store:
        add(store, 0)
        with pytest.raises(StorageError) as exc:
            add_game(store, 1, "t0.d0.r0", 1, ["a", "b"], record([1, 2]), {})
        assert_one_line(exc)
        assert store.count() == 1


# ---------------------------------------------------------------------------------------- configuration


def test_config_is_stored_and_the_same_config_is_accepted_again(db: Path) -> None:
    with Store(db, create=True) as store:
        assert store.config() is None
        store.save_config(CONFIG)
        assert store.config() == CONFIG
        store.save_config(dict(CONFIG))  # resume: the same configuration again
    with Store(db, create=False) as store:
        assert store.config() == CONFIG
        store.save_config(CONFIG)


def test_a_different_config_is_refused_naming_the_fields(db: Path) -> None:
    with Store(db, create=True) as store:
        store.save_config(CONFIG)
        add(store, 0)
    other = {**CONFIG, "games": 11, "seed": 2, "options": {**CONFIG["options"], "transfer": True}}
    with Store(db, create=False) as store:
        with pytest.raises(StorageError) as exc:
            store.save_config(other)
        text = assert_one_line(exc, str(db))
        assert ("holds a different tournament (games: stored 10, given 11; options.transfer: stored false, given "
                "true; seed: stored 1, given 2); use 'referee tournament resume") in text
        assert store.config() == CONFIG  # the stored one is untouched
        assert store.count() == 1


def test_a_secret_seed_and_a_deal_key_are_not_shown_when_configurations_differ(db: Path) -> None:
    stored = {**CONFIG, "seed": 123456789, "extra": {"seed": "drawn", "deal_key": "ab" * 16}}
    with Store(db, create=True) as store:
        store.save_config(stored)
        with pytest.raises(StorageError) as exc:
            store.save_config({**stored, "seed": 5, "extra": {"seed": "drawn", "deal_key": "cd" * 16}})
    text = assert_one_line(exc)
    assert "(extra.deal_key: stored and given differ; seed: stored in secret, given 5)" in text
    assert "123456789" not in text and "abab" not in text and "cdcd" not in text


def test_an_empty_file_opened_to_continue_is_refused_and_left_empty(tmp_path: Path) -> None:
    """'resume' on an empty file refused it, but had written a schema into it first (20 KB, WAL mode)."""
    empty = tmp_path / "e.db"
    empty.write_bytes(b"")
    with pytest.raises(StorageError, match=r"e\.db holds no tournament$"):
        Store(empty, create=False)
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["e.db"]


def test_config_differences_name_list_entries_and_never_show_a_deal_key() -> None:
    from tournaments.config import config_differences

    key = "ab" * 32
    # lists of one length by index: cut at 60 characters, two spec lists differing late looked the same
    specs = [f"cmd:python3 /home/someone/bots/{n}.py" for n in ("a", "b", "c")]
    assert config_differences({"specs": specs}, {"specs": [*specs[:2], "random"]}) == [
        'specs[2]: stored "cmd:python3 /home/someone/bots/c.py", given "random"']
    # an extra missing on one side, or damaged: compared field by field, the key never printed
    for stored in ({}, {"extra": None}, {"extra": "damaged"}):
        lines = config_differences(stored, {"extra": {"deal_key": key, "seed": "drawn"}})
        assert lines == ["extra.deal_key: stored and given differ", 'extra.seed: stored none, given "drawn"']
    assert key[:8] not in " ".join(config_differences({"extra": {"sprt": {"deal_key": key}}}, {"extra": {"sprt": 1}}))


def test_a_config_with_an_extra_field_is_refused(db: Path) -> None:
    with Store(db, create=True) as store:
        store.save_config(CONFIG)
        with pytest.raises(StorageError) as exc:
            store.save_config({**CONFIG, "extra": {"note": 1}})
        assert "(extra.note: stored none, given 1)" in assert_one_line(exc)


# ------------------------------------------------------------------------------------------- durability


def test_games_are_durable_after_each_add(db: Path) -> None:
    store = Store(db, create=True)
    try:
        store.save_config(CONFIG)
        for seq in range(5):
            add(store, seq)
            assert count_elsewhere(db) == seq + 1  # committed, not waiting for close()
        with Store(db, create=False) as second:
            assert second.count() == 5
            assert second.config() == CONFIG
    finally:
        store.close()


# ------------------------------------------------------------------------------------------------ errors


def test_a_path_in_a_missing_directory_is_one_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "t.db"
    with pytest.raises(StorageError) as exc:
        Store(path, create=True)
    assert_one_line(exc, str(path))
    assert not path.parent.exists()


def test_a_path_that_is_a_directory_is_one_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as exc:
        Store(tmp_path, create=True)
    assert_one_line(exc, str(tmp_path))
    with pytest.raises(StorageError) as exc:
        Store(tmp_path, create=False)
    assert_one_line(exc, str(tmp_path))


def test_a_missing_database_is_not_created_without_create(db: Path) -> None:
    with pytest.raises(StorageError) as exc:
        Store(db, create=False)
    assert_one_line(exc, str(db))
    assert not db.exists()


@pytest.mark.parametrize("create", [True, False])
def test_a_file_that_is_not_sqlite_is_one_storage_error(db: Path, create: bool) -> None:
    db.write_text("rank,bot,rating\n1,heuristic,1700\n" * 200)
    with pytest.raises(StorageError) as exc:
        Store(db, create=create)
    assert_one_line(exc, str(db), "not")
    assert db.read_text().startswith("rank,bot,rating")  # not overwritten


def test_a_full_disk_is_one_storage_error_and_the_stored_games_stay(db: Path) -> None:
    store = Store(db, create=True)
    try:
        store.save_config(CONFIG)
        for seq in range(3):
            add(store, seq)
        before = list(store.games())
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: not one page more
        with pytest.raises(StorageError) as exc:
            add(store, 3, stderr=BIG)  # a game far bigger than a page
        assert_one_line(exc, str(db), "full")
        assert list(store.games()) == before  # still readable on the same connection
        assert store.done_keys() == {g.key for g in before}
        assert count_elsewhere(db) == 3
    finally:
        store.close()
    with Store(db, create=False) as again:  # and after reopening
        assert list(again.games()) == before
        add(again, 3, stderr=BIG)  # room again: the failed game can be stored now
        assert again.count() == 4


def test_every_read_turns_sqlite_errors_into_one_storage_error(db: Path) -> None:
    with Store(db, create=True) as store:
        store.save_config(CONFIG)
        add(store, 0)
        other = sqlite3.connect(db)
        other.execute("DROP TABLE games")  # a database damaged under the running store
        other.commit()
        other.close()
        for read in (store.count, store.done_keys, lambda: store.record("t0.d0.r0"), lambda: list(store.games())):
            with pytest.raises(StorageError) as exc:
                read()
            assert_one_line(exc, str(db), "no such table")


def test_a_held_lock_and_a_lost_compare_and_swap_are_told_by_type(tmp_path: Path) -> None:
    """Callers (the league's roster and server) tell these two apart by type, never by the message's words."""
    from referee.errors import StoreChanged, StoreLocked
    from tournaments.storage import Store

    path = tmp_path / "t.db"
    with Store(path, create=True) as first, Store(path, create=False) as second:
        first.save_config({"game": "durak", "n": 1})
        first.lock()
        with pytest.raises(StoreLocked, match="another process is running this tournament"):
            second.lock()
        first.replace_config({"game": "durak", "n": 1}, {"game": "durak", "n": 2})
        with pytest.raises(StoreChanged, match="changed meanwhile"):
            second.replace_config({"game": "durak", "n": 1}, {"game": "durak", "n": 3})
        assert second.config() == {"game": "durak", "n": 2}


def test_a_database_without_a_tournament_is_refused_in_one_line(tmp_path: Path) -> None:
    from tournaments.storage import Store

    path = tmp_path / "empty.db"
    with Store(path, create=True) as store:
        assert store.config() is None
        with pytest.raises(ConfigError, match=f"^{re.escape(str(path))} holds no tournament$"):
            store.tournament()
