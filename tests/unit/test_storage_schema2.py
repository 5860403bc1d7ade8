"""Schema 2 (tournaments/storage.py): a compact row per game from which ``Store.record`` rebuilds, byte for byte as
JSON, the record schema 1 stored (its file form, the entrant names in ``bots``, the faulted seats' stderr tails) —
for every registered game at its fewest and most seats, under both fault policies, with faults and stderr."""

from __future__ import annotations

import json
import random
import sqlite3
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import Answer, BotBase, Decision
from referee.match import GameRecord, play_game
from referee.plugins import load_registry
from referee.record import record_to_dict
from tournaments.storage import Batch, FinishedGame, GameRow, RecordTemplate, StorageError, Store, decode_body

REGISTRY = load_registry()
GAMES = sorted(REGISTRY.games)


class Random(BotBase):
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> Action | str:
        return self.rng.choice(list(decision.legal))


class Faulty(Random):
    """Plays at random, crashes now and then, answers an illegal action now and then."""

    def act(self, decision: Decision) -> Action | str:
        roll = self.rng.random()
        if roll < 0.03:
            raise RuntimeError("boom")
        if roll < 0.08:
            return "no_such_action(XX)"
        if roll < 0.2:
            return Answer(super().act(decision), f"roll {roll:.3f} ✓")
        return super().act(decision)


def schema1_record(record: GameRecord, names: list[str], stderr: Mapping[str, str]) -> dict[str, Any]:
    """What schema 1 stored for a game (its record column with the stderr column added, as record() gave it), with
    each decision's time and words (which schema 1 did not have), as a worker gives them now."""
    data = record_to_dict(record)
    data["bots"] = names
    data["stderr"] = dict(stderr)
    return data


def played(game_id: str, seats: int, policy: str, count: int) -> list[tuple[FinishedGame, str]]:
    """``count`` games, each encoded as a worker encodes it, with the JSON schema 1 stored for it."""
    game = REGISTRY.game(game_id)
    options = game.configure({})
    template = RecordTemplate(game_id, options, policy)
    out = []
    for i in range(count):
        bots = [Faulty(i * 10 + s) if s == i % seats else Random(i * 10 + s) for s in range(seats)]
        record = play_game(game, bots, seed=(2**64 - 1 - i if i % 2 else i), options=options, policy=policy)
        names = [f"e{s}" for s in range(seats)]
        record.bots = names
        stderr = {str(f.seat): f"tail of seat {f.seat}\nlast line ✓\n" for f in record.faults}
        expected = json.dumps(schema1_record(record, names, stderr))
        finished = FinishedGame.encode(i, f"t0.d{i}.r0", record.seed, record, stderr, template)
        out.append((finished, expected))
    return out


def config(game_id: str, seats: int, policy: str) -> dict[str, Any]:
    return {"game": game_id, "options": REGISTRY.game(game_id).configure({}),
            "entrants": [f"e{s}" for s in range(seats)], "specs": ["random"] * seats, "seats": seats, "games": 1,
            "duplicate": True, "seed": 1,
            "move_time_ms": 1000, "policy": policy, "extra": {}}


CASES = [(g, s, p) for g in GAMES for s in sorted({REGISTRY.game(g).min_seats, REGISTRY.game(g).max_seats})
         for p in ("forfeit", "continue")]


@pytest.mark.parametrize(("game_id", "seats", "policy"), CASES)
def test_every_record_rebuilds_exactly(tmp_path: Path, game_id: str, seats: int, policy: str) -> None:
    games = played(game_id, seats, policy, 6)
    assert any(g.faults for g, _ in games), "the faulty bot must fault in some game"
    with Store(tmp_path / "t.db", create=True) as store:
        store.save_config(config(game_id, seats, policy))
        with store.batch() as batch:
            for finished, _ in games:
                batch.add(finished)
    with Store(tmp_path / "t.db", create=False, readonly=True) as store:
        for finished, expected in games:
            assert json.dumps(store.record(finished.key, REGISTRY.game)) == expected
        rows = list(store.games())
        assert [(r.seq, r.seating, r.places, len(r.faults), r.decisions) for r in rows] == [
            (g.seq, g.seating, g.places, g.faults, g.decisions) for g, _ in games]
        by_key = {g.key: json.loads(e) for g, e in games}
        for row in rows:
            assert [f.to_dict() for f in row.faults] == by_key[row.key]["faults"]
            assert row.seed == by_key[row.key]["seed"]
        assert [r.key for r in store.games(faulted=True)] == [g.key for g, _ in games if g.faults]


def test_a_durak_game_is_a_few_hundred_bytes() -> None:
    games = played("durak", 2, "forfeit", 20)
    assert sum(len(g.body) for g, _ in games) / len(games) < 400  # the body; schema 1 stored ~2 KB of JSON


def test_the_body_is_choices_then_json(tmp_path: Path) -> None:
    (finished, expected), = played("durak", 2, "forfeit", 1)
    choices, rest = decode_body(finished.body)
    assert len(choices) == finished.decisions and set(rest) <= {"r", "f", "e", "x", "-", "t", "s"}
    assert "actions" not in json.dumps(rest)


def store_of(tmp_path: Path, games: list[tuple[FinishedGame, str]]) -> Path:
    path = tmp_path / "t.db"
    with Store(path, create=True) as store:
        store.save_config(config("durak", 2, "forfeit"))
        store.add_many([g for g, _ in games])
    return path


@pytest.mark.parametrize(("column", "value", "fragment"), [
    ("body", b"\x01\xff", "column 'body': not deflated"),
    ("body", b"\x07", "column 'body': unknown encoding 7"),
    ("body", b"\x00\x03\x00", "column 'body': the choices are cut short"),
    ("body", b"\x00\x01\x63{}", "column 'body': choice 0 (99) is not the index of a legal action"),
    ("seating", "[1]", "(column 'seating')"),
    ("places", "[1, 3]", "(column 'places')"),
    ("seed", "x", "(column 'seed')"),
])
def test_a_damaged_row_is_one_line_naming_it_and_its_column(tmp_path: Path, column: str, value: Any,
                                                            fragment: str) -> None:
    games = played("durak", 2, "forfeit", 2)
    path = store_of(tmp_path, games)
    db = sqlite3.connect(path)
    db.execute(f"UPDATE games SET {column} = ? WHERE seq = 1", (value,))
    db.commit()
    db.close()
    with Store(path, create=False, readonly=True) as store:
        with pytest.raises(StorageError) as exc:
            if column == "body":
                store.record("t0.d1.r0")
            else:
                list(store.games())
    text = str(exc.value)
    assert "\n" not in text and "the row of game 't0.d1.r0' (seq 1) is damaged" in text and fragment in text, text


def deflated(payload: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return b"\x01" + packer.compress(payload) + packer.flush()


@pytest.mark.parametrize(("body", "faults", "listing", "record"), [
    # a deflate bomb: 64 MiB of zeros behind a few kilobytes is refused after at most MAX_BODY_BYTES
    (deflated(b"\x00" + b"0" * (64 * 1024 * 1024)), 1, "inflates to more than", "inflates to more than"),
    (deflated(b"\x00{}")[:-1], 0, None, "not deflated"),  # cut short
    (b"\x00\x00" + b'{"X": [1]}', 1, "its faults", "its whole record is not a JSON object"),
    (b"\x00\x00" + b'{"r": {"rule_places": 5}}', 0, None, "its fields are damaged"),
    (b"\x00\x00" + b'{"f": [7]}', 1, "its faults", "damaged"),
])
def test_a_hostile_body_is_one_line_in_every_reader(tmp_path: Path, body: bytes, faults: int, listing: str | None,
                                                    record: str) -> None:
    """A forged body (a deflate bomb, fields of the wrong shape) is one StorageError line naming the row, from the
    listing (which reads a faulted row's body) and from the record, never a traceback or unbounded memory."""
    path = store_of(tmp_path, played("durak", 2, "forfeit", 2))
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET body = ?, faults = ? WHERE seq = 1", (body, faults))
    db.commit()
    db.close()
    with Store(path, create=False, readonly=True) as store:
        readers: list[tuple[Any, str]] = [(lambda: list(store.games()), listing)] if listing else []
        readers.append((lambda: store.record("t0.d1.r0"), record))
        for read, fragment in readers:
            with pytest.raises(StorageError) as exc:
                read()
            text = str(exc.value)
            assert "\n" not in text and "'t0.d1.r0' (seq 1) is damaged" in text and fragment in text, text


def test_a_faulted_rows_faults_come_from_its_body(tmp_path: Path) -> None:
    games = played("durak", 2, "continue", 6)
    path = store_of(tmp_path, games)
    faulted = next(g for g, _ in games if g.faults)
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET faults = faults + 1 WHERE key = ?", (faulted.key,))
    db.commit()
    db.close()
    with Store(path, create=False, readonly=True) as store, pytest.raises(StorageError) as exc:
        list(store.games())
    assert "(column 'faults')" in str(exc.value)


def test_tally_counts_each_seating_and_places(tmp_path: Path) -> None:
    games = played("durak", 2, "forfeit", 12)
    with Store(store_of(tmp_path, games), create=False, readonly=True) as store:
        counted: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}
        for row in store.games():
            counted[row.seating, row.places] = counted.get((row.seating, row.places), 0) + 1
        assert sorted(store.tally()) == sorted((s, p, n) for (s, p), n in counted.items())
        assert all(isinstance(r, GameRow) for r in store.games(entrant="e1"))
        assert list(store.games(entrant="nobody")) == []


def test_add_many_stores_all_or_none(tmp_path: Path) -> None:
    games = played("durak", 2, "forfeit", 3)
    path = store_of(tmp_path, games[:1])
    with Store(path, create=False) as store:
        with pytest.raises(StorageError):
            store.add_many([games[1][0], games[0][0]])  # the second is stored already
        assert store.count() == 1
        store.add_many([g for g, _ in games[1:]])
        assert store.count() == 3


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def count_elsewhere(path: Path) -> int:
    other = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(other.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        other.close()


def test_a_batch_commits_after_its_seconds_or_size_and_at_the_end(tmp_path: Path) -> None:
    games = [g for g, _ in played("durak", 2, "forfeit", 8)]
    path = store_of(tmp_path, [])
    clock = Clock()
    with Store(path, create=False) as store:
        with Batch(store, 0.1, 4, clock) as batch:
            batch.add(games[0])  # the first game is committed at once
            assert count_elsewhere(path) == 1
            clock.now += 0.05
            batch.add(games[1])
            batch.add(games[2])
            assert count_elsewhere(path) == 1  # within 0.1 s of the last commit: waiting
            clock.now += 0.06
            batch.add(games[3])  # 0.11 s after the last commit
            assert count_elsewhere(path) == 4
            for g in games[4:7]:
                batch.add(g)
            assert count_elsewhere(path) == 4
            batch.add(games[7])  # four waiting: the size
            assert count_elsewhere(path) == 8
        with pytest.raises(KeyboardInterrupt), Batch(store, 10.0, 100, clock) as batch:
            store.db.execute("DELETE FROM games WHERE seq >= 6")
            batch.add(games[6])
            batch.add(games[7])
            assert count_elsewhere(path) == 7
            raise KeyboardInterrupt
        assert count_elsewhere(path) == 8  # the end of the block committed what was received


def test_a_row_seating_a_stranger_is_one_line_in_the_table(tmp_path: Path) -> None:
    """A forged seating column naming someone who is no entrant: the table refuses the row in one line."""
    from tournaments.report import build_report

    path = store_of(tmp_path, played("durak", 2, "forfeit", 2))
    db = sqlite3.connect(path)
    db.execute("""UPDATE games SET seating = '["evil", "e1"]' WHERE seq = 1""")
    db.commit()
    db.close()
    with Store(path, create=False, readonly=True) as store, pytest.raises(StorageError) as exc:
        build_report(["e0", "e1"], store.games())
    assert "seats 'evil', 'e1': not all entrants" in str(exc.value) and "\n" not in str(exc.value)


def test_a_record_from_before_times_and_words_rebuilds_as_it_was(tmp_path: Path) -> None:
    """A migrated schema-1 row's record has no ``times`` or ``said``: it is stored compact and rebuilt without them."""
    (finished, expected), = played("durak", 2, "forfeit", 1)
    data = json.loads(expected)
    del data["times"], data["said"]
    template = RecordTemplate("durak", REGISTRY.game("durak").configure({}), "forfeit")
    choices, _ = decode_body(finished.body)
    old = FinishedGame.of(0, "t0.d0.r0", finished.seed, data, choices, template)
    assert "X" not in decode_body(old.body)[1]  # compact, not kept whole
    path = tmp_path / "t.db"
    with Store(path, create=True) as store:
        store.save_config(config("durak", 2, "forfeit"))
        store.add_many([old])
        assert store.record("t0.d0.r0") == data


def test_each_decision_s_time_and_words_are_stored() -> None:
    games = played("durak", 2, "forfeit", 6)
    kept = [json.loads(expected) for _, expected in games]
    assert all(len(r["times"]) == len(r["actions"]) for r in kept)
    assert any(said.get("note", "").endswith("✓") for r in kept for said in r["said"].values())
    for finished, _ in games:
        rest = decode_body(finished.body)[1]
        assert len(rest["t"]) == finished.decisions
