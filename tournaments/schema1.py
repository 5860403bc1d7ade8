"""Reading a schema-1 tournament database as it is: a JSON row per game (a database of the referee before issue 15).

``table``, ``games``, ``record`` and ``verify`` read such a database without writing to it, so it stays readable by
the referee that wrote it and on a read-only medium; its first write migrates it (tournaments/migrations.py, which
reads its rows here). Its columns: ``seq``, ``key``, ``seed``, ``seating``, ``places``, ``result`` (the result
object), ``faults`` (their list), ``decisions``, ``record`` (the whole record, the action texts included),
``stderr`` and ``finished_at`` (docs/TOURNAMENTS.md, "Schema 1 and its migration").
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from referee.errors import StorageError

from .columns import Columns, faults_of, json_columns, result_of, translate
from .rows import GameRow, StoredGame

__all__ = ["OldRow", "Schema1", "is_schema1"]


def is_schema1(db: sqlite3.Connection) -> bool:
    """Whether the games table is schema 1's: its rows hold the record whole."""
    return "record" in {row[1] for row in db.execute("PRAGMA table_info(games)")}


class OldRow(NamedTuple):
    """A schema-1 row as the migration rewrites it: its columns as stored, checked, and its record."""

    seq: Any
    key: Any
    seed: Any
    seating: Any
    places: Any
    decisions: Any
    finished_at: Any
    game: GameRow
    record: dict[str, Any]


class Schema1:
    """The games of a schema-1 database, read as they are; what is damaged is a StorageError naming the row."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        self.columns = Columns(path)

    def games(self, entrant: str | None, faulted: bool) -> Iterator[GameRow]:
        """:meth:`Store.games <tournaments.storage.Store.games>` of this database."""
        try:
            for row in self.db.execute("SELECT seq, key, seed, seating, places, result, faults, decisions "
                                       "FROM games ORDER BY seq"):
                game = self.row(*row)
                if (entrant is None or entrant in game.seating) and (not faulted or game.faults):
                    yield game
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def tally(self) -> Iterator[tuple[tuple[str, ...], tuple[int, ...], int]]:
        counts: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}
        for row in self.games(None, False):
            counts[row.seating, row.places] = counts.get((row.seating, row.places), 0) + 1
        for (seating, places), n in counts.items():
            yield seating, places, n

    def row(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, result: Any, faults: Any,
            decisions: Any) -> GameRow:
        """A schema-1 row, checked: StorageError names the row and its first damaged column."""
        what = self.columns.what(seq, key)
        values = {name: self.columns.json(text, f"{what}, column {name!r},") for name, text in
                  (("seating", seating), ("places", places), ("result", result), ("faults", faults))}
        try:
            seed_value = int(seed)
        except (TypeError, ValueError):
            seed_value = -1
        seating_v, places_v, result_v, faults_v = (values[k] for k in ("seating", "places", "result", "faults"))
        seats = len(seating_v) if isinstance(seating_v, list) else 0
        typed = result_of(result_v)
        checked = faults_of(faults_v, seats)
        damaged = (
            "key" if not isinstance(key, str) else
            "seed" if seed_value < 0 else
            "seating" if not (isinstance(seating_v, list) and all(isinstance(s, str) for s in seating_v)) else
            "places" if not (isinstance(places_v, list) and len(places_v) == seats
                             and all(type(p) is int and 1 <= p <= seats for p in places_v)) else
            "result" if typed is None or typed.seats != seats else
            "places" if tuple(places_v) != typed.places else  # the column and the result say different places
            "faults" if checked is None or checked != typed.faults else
            "decisions" if not (type(decisions) is int and decisions >= 0) else None
        )
        if damaged:
            raise self.columns.damaged(seq, key, damaged)
        assert typed is not None
        return GameRow(seq, key, seed_value, tuple(seating_v), typed.places, typed.faults, decisions)

    def record(self, key: str) -> dict[str, Any] | None:
        """The game's whole record (its stderr column in ``stderr``), or None when no game has that key."""
        try:
            row = self.db.execute("SELECT record, stderr FROM games WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
        return None if row is None else self.record_of(key, *row)

    def record_of(self, key: str, record_text: Any, stderr_text: Any) -> dict[str, Any]:
        record = self.columns.json(record_text, f"the record of game {key!r:.40}")
        if not isinstance(record, dict):
            raise StorageError(f"{self.path}: the record of game {key!r:.40} is damaged (not a JSON object)")
        record["stderr"] = self.columns.json(stderr_text, f"the stderr of game {key!r:.40}")
        return record

    def rows(self) -> Iterator[OldRow]:
        """Every row, checked, with its record, in seq order: streamed (a schema-1 row is a few kilobytes, and a
        million of them are gigabytes). SQLite's errors are the caller's to translate."""
        rows = self.db.execute("SELECT seq, key, seed, seating, places, result, faults, decisions, record, stderr, "
                               "finished_at FROM games ORDER BY seq")
        for seq, key, seed, seating, places, result, faults, decisions, record, stderr, finished in rows:
            game = self.row(seq, key, seed, seating, places, result, faults, decisions)
            yield OldRow(seq, key, seed, seating, places, decisions, finished, game,
                         self.record_of(key, record, stderr))

    def stored(self) -> Iterator[StoredGame]:
        """:meth:`Store.stored <tournaments.storage.Store.stored>` of this database: each row's columns and record
        as JSON, or why they are not."""
        try:
            rows = self.db.execute("SELECT key, seed, seating, places, result, faults, decisions, record "
                                   "FROM games ORDER BY seq")
            for key, seed, seating, places, result, faults, decisions, record in rows:
                columns = json_columns({"seating": seating, "places": places, "result": result, "faults": faults})
                try:
                    data: dict[str, Any] | str = json.loads(record)
                except (TypeError, ValueError, RecursionError):
                    data = "not valid JSON"
                yield StoredGame(key, seed, columns, decisions, data)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
