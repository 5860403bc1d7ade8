"""Tournament storage in SQLite: the configuration and one row per finished game.

Each finished game is written in its own transaction, in WAL mode, so a run killed at any moment (even by
SIGKILL) loses at most the games in flight, and ``resume`` continues with the schedule keys not yet stored.
SQLite errors (a read-only file, a full disk, a file that is not a database) become one-line
:class:`StorageError` messages; what was committed before stays.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from protocol.errors import ParseError
from protocol.faults import Fault
from referee.engine import Game
from referee.errors import RecordError, StorageError
from referee.results import GameResult

__all__ = ["Store", "StorageError", "GameRow", "FinishedGame", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    seed TEXT NOT NULL,
    seating TEXT NOT NULL,      -- JSON: entrant name per seat
    places TEXT NOT NULL,       -- JSON: place per seat, after the fault policy
    result TEXT NOT NULL,       -- JSON: the C-10 result record
    faults TEXT NOT NULL,       -- JSON: [{seat, kind, decision, message}]
    decisions INTEGER NOT NULL,
    record TEXT NOT NULL,       -- JSON: the game record, replayable with 'referee replay'
    stderr TEXT NOT NULL,       -- JSON: {seat: stderr tail} of bots that faulted
    finished_at REAL NOT NULL
);
"""


class GameRow(NamedTuple):
    """A stored game as the table and the listing read it: lean, so that a million of them are cheap to stream
    (:meth:`Store.games`). Its whole record is :meth:`Store.record`."""

    seq: int
    key: str
    seed: int
    seating: tuple[str, ...]  # the entrant name in each seat
    places: tuple[int, ...]  # the place of each seat, after the fault policy
    faults: tuple[Fault, ...]  # () for a game without faults
    decisions: int


class FinishedGame(NamedTuple):
    """A finished game encoded for its row: built where the game was played (a worker process), so that the
    process that stores it only inserts text. ``seating`` and ``places`` stay decoded for the live ratings.
    A tuple: it crosses the pipe from a worker cheaply."""

    seq: int
    key: str
    seed: int
    seating: list[str]
    places: list[int]
    result: str  # JSON
    faults: str  # JSON
    decisions: int
    record: str  # JSON
    stderr: str  # JSON

    @classmethod
    def encode(cls, seq: int, key: str, seed: int, seating: list[str], result: GameResult,
               record: Mapping[str, Any], stderr: Mapping[str, str]) -> FinishedGame:
        """``record``: the game's record in its file form (``record_to_dict``), ``result`` its result."""
        data = result.to_dict()
        return cls(seq, key, seed, list(seating), list(result.places), json.dumps(data), json.dumps(data["faults"]),
                   len(record["actions"]), json.dumps(record), json.dumps(stderr))


def _translate(path: Path, exc: sqlite3.Error, *, reading: bool = False) -> StorageError:
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


def _faults(value: Any, seats: int) -> tuple[Fault, ...] | None:
    """The stored faults (each a fault of a seat of the game, of a known kind), or None when they are not."""
    if not isinstance(value, list):
        return None
    try:
        faults = tuple(Fault.from_dict(f) for f in value)
    except ParseError:
        return None
    return faults if all(0 <= f.seat < seats for f in faults) else None


def _result(value: Any) -> GameResult | None:
    try:
        return GameResult.from_dict(value)
    except RecordError:
        return None


class Store:
    """One tournament database."""

    def __init__(self, path: str | Path, *, create: bool, readonly: bool = False) -> None:
        """``readonly``: only read (``table``, ``games``, ``record``), which works on a read-only medium too."""
        self.path = Path(path)
        self._lock: int | None = None  # the lock file's descriptor, while this store plays games (lock())
        if not create and not self.path.is_file():
            raise StorageError(f"no tournament database at {self.path}")
        if readonly:
            self.db = self._open_readonly()
            return
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._refuse_foreign()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def _refuse_foreign(self) -> None:
        """Before anything is written: a database holding other tables than a tournament's (or only one of them)
        belongs to another program, and is left as it is."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and tables != {"meta", "games"}:
            self.db.close()
            names = ", ".join(sorted(tables - {"meta", "games"}) or sorted(tables))
            raise StorageError(f"{self.path} is an SQLite database of another program (tables: {names:.200}), not a "
                               "tournament's; nothing was written to it: use another --db")

    def _open_readonly(self) -> sqlite3.Connection:
        """Open without writing anything: ``mode=ro``; where even that fails (a WAL database on a read-only medium,
        whose ``-shm`` cannot be made), ``immutable=1``: nothing can change the file there either."""
        uri = "file:" + urllib.parse.quote(str(self.path.resolve()))
        error: sqlite3.Error | None = None
        for mode in ("mode=ro", "immutable=1"):
            try:
                db = sqlite3.connect(f"{uri}?{mode}", uri=True, isolation_level=None, timeout=30)
            except sqlite3.Error as exc:
                error = exc
                continue
            try:
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            except sqlite3.Error as exc:
                db.close()
                error = exc
                continue
            if not {"meta", "games"} <= tables:
                db.close()
                raise StorageError(f"{self.path} holds no tournament")
            return db
        assert error is not None
        raise _translate(self.path, error, reading=True) from error

    def lock(self) -> None:
        """Be the one process playing games into this database, until :meth:`close`: an exclusive flock on
        ``DB.lock`` beside it. The kernel drops it when the process ends, however it ends (SIGKILL included), so a
        killed run never leaves a stale lock behind."""
        if self._lock is not None:
            return
        path = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot create the lock file {path}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StorageError(f"another process is running this tournament ({self.path}); let it finish, or "
                               "stop it, then resume") from None
        self._lock = fd

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            os.close(self._lock)  # releases the flock
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------------------------- configuration

    def config(self) -> dict[str, Any] | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        if row is None:
            return None
        config = self._json(row[0], "the stored tournament configuration")
        if not isinstance(config, dict):
            raise StorageError(f"{self.path}: the stored tournament configuration is damaged (not a JSON object)")
        return config

    def save_config(self, config: dict[str, Any]) -> None:
        """Store the configuration; refuse a database made for a different one."""
        stored = self.config()
        if stored is not None:
            if stored != config:
                diff = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
                raise StorageError(
                    f"{self.path} holds a different tournament (differs in: {', '.join(diff)}); "
                    f"use 'referee tournament resume {self.path}' to continue it, or another --db"
                )
            return
        try:
            with self.db:
                self.db.execute("BEGIN")
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                self.db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config, sort_keys=True),))
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def replace_config(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Change the stored configuration from ``old`` to ``new`` (a ladder's new entrants), in one transaction;
        StorageError if the stored one is not ``old`` any more. The games stored stay as they are."""
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
                if row is None or self._json(row[0], "the stored tournament configuration") != old:
                    raise StorageError(f"{self.path}: the tournament changed meanwhile; try again")
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(new, sort_keys=True),))
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    # -------------------------------------------------------------------------------------- games

    def done_keys(self) -> set[str]:
        try:
            return {row[0] for row in self.db.execute("SELECT key FROM games")}
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def add_game(self, seq: int, key: str, seed: int, seating: list[str], record: dict[str, Any],
                 stderr: dict[str, str]) -> None:
        """Store one finished game (its record as a dict, its result checked) in one transaction."""
        try:
            result = GameResult.from_dict(record.get("result"))
        except RecordError as exc:
            raise StorageError(f"game {key!r:.40} cannot be stored: {exc}") from exc
        self.add(FinishedGame.encode(seq, key, seed, seating, result, record, stderr))

    def add(self, game: FinishedGame) -> None:
        """Store one finished game in one transaction."""
        try:
            with self.db:
                self.db.execute("BEGIN")
                self.db.execute(
                    "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, julianday('now'))",
                    (game.seq, game.key, str(game.seed), json.dumps(game.seating), json.dumps(game.places),
                     game.result, game.faults, game.decisions, game.record, game.stderr),
                )
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def games(self, *, entrant: str | None = None, faulted: bool = False) -> Iterator[GameRow]:
        """The stored games in schedule order (seq), streamed: ``entrant``, only the games it played; ``faulted``,
        only the games with a fault. A damaged row is a StorageError naming it and its column."""
        try:
            rows = self.db.execute(
                "SELECT seq, key, seed, seating, places, result, faults, decisions FROM games ORDER BY seq")
            for seq, key, seed, seating, places, result, faults, decisions in rows:
                row = self._row(seq, key, seed, seating, places, result, faults, decisions)
                if (entrant is None or entrant in row.seating) and (not faulted or row.faults):
                    yield row
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def tally(self) -> Iterator[tuple[tuple[str, ...], tuple[int, ...], int]]:
        """How many stored games ended with each (seating, places): what a rating table is computed from."""
        counts: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}
        for row in self.games():
            counts[row.seating, row.places] = counts.get((row.seating, row.places), 0) + 1
        for (seating, places), n in counts.items():
            yield seating, places, n

    def _json(self, text: Any, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            raise StorageError(f"{self.path}: {what} is damaged (not valid JSON: {reason})") from exc

    def _row(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, result: Any, faults: Any,
             decisions: Any) -> GameRow:
        """A stored row, checked: StorageError names the row and its first damaged column."""
        what = f"the row of game {key!r:.40} (seq {seq!r:.20})"
        values = {name: self._json(text, f"{what}, column {name!r},") for name, text in
                  (("seating", seating), ("places", places), ("result", result), ("faults", faults))}
        try:
            seed_value = int(seed)
        except (TypeError, ValueError):
            seed_value = -1
        seating_v, places_v, result_v, faults_v = (values[k] for k in ("seating", "places", "result", "faults"))
        seats = len(seating_v) if isinstance(seating_v, list) else 0
        typed = _result(result_v)
        faults = _faults(faults_v, seats)
        damaged = (
            "key" if not isinstance(key, str) else
            "seed" if seed_value < 0 else
            "seating" if not (isinstance(seating_v, list) and all(isinstance(s, str) for s in seating_v)) else
            "places" if not (isinstance(places_v, list) and len(places_v) == seats
                             and all(type(p) is int and 1 <= p <= seats for p in places_v)) else
            "result" if typed is None or typed.seats != seats else
            "places" if tuple(places_v) != typed.places else  # the column and the result say different places
            "faults" if faults is None or faults != typed.faults else
            "decisions" if not (type(decisions) is int and decisions >= 0) else None
        )
        if damaged:
            raise StorageError(f"{self.path}: {what} is damaged (column {damaged!r})")
        assert typed is not None
        return GameRow(seq, key, seed_value, tuple(seating_v), typed.places, typed.faults, decisions)

    def record(self, key: str, game: Game | None = None) -> dict[str, Any] | None:
        """The game's whole record, as ``referee play --record`` writes it (the stderr tails of the seats that
        faulted included), or None when no game has that key. ``game``: the tournament's game (the engine that
        turns stored choices back into action texts); None: the registry's."""
        try:
            row = self.db.execute("SELECT record, stderr FROM games WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        if row is None:
            return None
        record = self._json(row[0], f"the record of game {key!r:.40}")
        if not isinstance(record, dict):
            raise StorageError(f"{self.path}: the record of game {key!r:.40} is damaged (not a JSON object)")
        record["stderr"] = self._json(row[1], f"the stderr of game {key!r:.40}")
        return record

    def count(self) -> int:
        try:
            return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
