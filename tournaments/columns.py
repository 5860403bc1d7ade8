"""Reading a stored game's columns, checked, for either schema: a damaged column is a one-line StorageError naming
its row and column, and an SQLite error (a read-only file, a full disk, a file that is not a database) one that
says what to do."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from protocol.errors import ParseError
from protocol.faults import Fault
from referee.errors import RecordError, StorageError
from referee.results import GameResult

__all__ = ["Columns", "faults_of", "json_columns", "result_of", "translate"]


def translate(path: Path, exc: sqlite3.Error, *, reading: bool = False) -> StorageError:
    """An SQLite error on the database at ``path`` as one line."""
    text = str(exc)
    if reading and "unable to open" in text:
        return StorageError(f"cannot read the database {path}: {text} (check the path and its permissions)")
    if "readonly" in text or "unable to open" in text:
        return StorageError(f"cannot write the database {path}: {text} (check the path and its permissions)")
    if "disk is full" in text or "disk I/O" in text:
        return StorageError(f"cannot write the database {path}: {text}; the games recorded so far are kept")
    if "not a database" in text:
        return StorageError(f"{path} is not a tournament database (not SQLite)")
    return StorageError(f"database {path}: {text}")


def json_columns(texts: dict[str, Any]) -> dict[str, Any] | str:
    """Columns stored as JSON text, by name, decoded; or the line that names the first that is not JSON (``verify``
    and ``games`` show it for the row)."""
    columns = {}
    for name, text in texts.items():
        try:
            columns[name] = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            return f"column {name} is not JSON"
    return columns


def faults_of(value: Any, seats: int) -> tuple[Fault, ...] | None:
    """The stored faults (each a fault of a seat of the game, of a known kind), or None when they are not."""
    if not isinstance(value, list):
        return None
    try:
        faults = tuple(Fault.from_dict(f) for f in value)
    except ParseError:
        return None
    return faults if all(0 <= f.seat < seats for f in faults) else None


def result_of(value: Any) -> GameResult | None:
    """The stored result object, or None when it is not one."""
    try:
        return GameResult.from_dict(value)
    except RecordError:
        return None


class Columns:
    """The checks of the rows of the database at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def what(self, seq: Any, key: Any) -> str:
        return f"the row of game {key!r:.40} (seq {seq!r:.20})"

    def damaged(self, seq: Any, key: Any, column: str, why: str = "") -> StorageError:
        return StorageError(f"{self.path}: {self.what(seq, key)} is damaged (column {column!r}{why})")

    def seating(self, seq: Any, key: Any, text: Any) -> tuple[str, ...]:
        value = self.json(text, f"{self.what(seq, key)}, column 'seating',")
        if not (isinstance(value, list) and value and all(isinstance(s, str) for s in value)):
            raise self.damaged(seq, key, "seating")
        return tuple(value)

    def places(self, seq: Any, key: Any, text: Any) -> tuple[int, ...]:
        value = self.json(text, f"{self.what(seq, key)}, column 'places',")
        if not (isinstance(value, list) and all(type(p) is int and 1 <= p <= len(value) for p in value)):
            raise self.damaged(seq, key, "places")
        return tuple(value)

    def json(self, text: Any, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            raise StorageError(f"{self.path}: {what} is damaged (not valid JSON: {reason})") from exc
