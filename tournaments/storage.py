"""Tournament storage in SQLite: the configuration and one compact row per finished game (schema 2).

A row holds what the table and the listings query (key, seed, seating, places, the number of faults, decisions)
in columns, and the rest of the game in one compact ``body``: the index of each action in its decision's legal
list, the result fields the columns do not hold, the faults and the stderr tails. :meth:`Store.record` rebuilds the
record exactly, replaying the choices through the engine to get the action texts back (docs/TOURNAMENTS.md,
"Storage and resume"). The worker that played a game encodes its row (:meth:`FinishedGame.encode`), so the process
that stores it only inserts.

Writes are committed a batch at a time (:class:`Batch`), in WAL mode, so a run killed at any moment (even by
SIGKILL) loses at most the batch not yet committed and the games in flight; ``resume`` plays them again. A schema-1
database (a JSON row per game) is read as it is, and migrated in place, after a backup, before the first write
(tournaments/migrate.py). SQLite errors (a read-only file, a full disk, a file that is not a database) become
one-line :class:`StorageError` messages; what was committed before stays.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import sqlite3
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from protocol.errors import ParseError
from protocol.faults import Fault
from referee.engine import Game, State
from referee.errors import RecordError, RefereeError, StorageError
from referee.match import GameRecord
from referee.record import FORMAT, MAX_RECORD_BYTES, VERSION, record_to_dict
from referee.results import GameResult

from .played import META_KEY as PLAYED
from .played import Claims, merge, parse

__all__ = ["Store", "StorageError", "GameRow", "FinishedGame", "RecordTemplate", "Batch", "SCHEMA_VERSION"]

SCHEMA_VERSION = 2

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    seed TEXT NOT NULL,         -- the deck seed, in decimal: a 64-bit value
    seating TEXT NOT NULL,      -- JSON: entrant name per seat
    places TEXT NOT NULL,       -- JSON: place per seat, after the fault policy
    faults INTEGER NOT NULL,    -- how many faults the game had (their details are in the body)
    decisions INTEGER NOT NULL,
    body BLOB NOT NULL,         -- the rest of the record: docs/TOURNAMENTS.md, "Storage and resume"
    finished_at REAL NOT NULL   -- when it was stored: a Julian day number in UTC
);
"""
#: The columns of a schema-2 row, in table order (``finished_at`` is the time it is inserted).
COLUMNS = ("seq", "key", "seed", "seating", "places", "faults", "decisions", "body")
#: The keys of a stored record, in the order of its file form (``record_to_dict``); a record from before each
#: decision's time and words (schema 1's, a migrated row's) ends at ``stderr``.
_RECORD_KEYS = ("format", "version", "game", "seats", "seed", "dealer", "options", "policy", "bots", "actions",
                "faults", "result", "stderr", "times", "said")
_OLD_RECORD_KEYS = _RECORD_KEYS[:-2]
#: The result object's own fields in their order (referee/results.py); the game's fields follow them.
_RESULT_FIELDS = ("game", "n", "places", "rule_places", "finishing_order", "rule_finishing_order", "scores",
                  "faults", "aborted")
_STORED, _DEFLATED = 0, 1  # the body's first byte: how the rest of it is written
#: The most a body may inflate to: a record file's limit (a long game with six 64 KiB stderr tails is far below).
MAX_BODY_BYTES = MAX_RECORD_BYTES


class RecordTemplate(NamedTuple):
    """What every record of a tournament shares, from its configuration: a row's body holds only what differs."""

    game: str
    options: Mapping[str, Any]
    policy: str

    @classmethod
    def of(cls, config: Mapping[str, Any], game: Game) -> RecordTemplate:
        """From a configuration (its JSON object) of a tournament of ``game``: the options as a record holds
        them (every option, in the game's order); StorageError when a field is missing or damaged."""
        try:
            return cls(str(config["game"]), game.configure(config["options"]), str(config["policy"]))
        except (KeyError, TypeError, ValueError, RefereeError) as exc:
            raise StorageError(f"the stored tournament configuration is damaged ({type(exc).__name__}: {exc})"
                               ) from exc


def _groups(places: Sequence[int]) -> list[list[int]]:
    """The finishing order that ``places`` give: the seats by place, ties together, best first."""
    return [[s for s, p in enumerate(places) if p == place] for place in sorted(set(places))]


def _result_from(rest: Mapping[str, Any], absent: Sequence[str], places: list[int], faults: list[Any],
                 game: str, seats: int) -> dict[str, Any]:
    """The result object from a body's remainder: each referee field the remainder lacks takes its default (the
    tournament's game, the seats, the row's places, places and order as the rules gave them equal to those after
    the fault policy, no abort), unless ``absent`` says the result did not carry it."""
    out: dict[str, Any] = {}
    for name in _RESULT_FIELDS:
        if name in rest:
            out[name] = rest[name]
        elif name in absent:
            continue
        elif name == "game":
            out[name] = game
        elif name == "n":
            out[name] = seats
        elif name in ("places", "rule_places"):
            out[name] = places
        elif name == "finishing_order":
            out[name] = _groups(places)
        elif name == "rule_finishing_order":
            out[name] = _groups(out.get("rule_places", places))
        elif name == "faults":
            out[name] = faults
        elif name == "aborted":
            out[name] = False
    for name, value in rest.items():
        if name not in out:
            out[name] = value
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, key order and types included (``1 == True`` in Python; not in a record)."""
    return json.dumps(a) == json.dumps(b)


def _varints(values: Iterable[int]) -> bytearray:
    out = bytearray()
    for v in values:
        if v < 0:
            raise ValueError(f"a choice is an index, not {v}")
        while v >= 0x80:
            out.append(v & 0x7F | 0x80)
            v >>= 7
        out.append(v)
    return out


def encode_body(seed: int, record: Mapping[str, Any], choices: Sequence[int], template: RecordTemplate, *,
                whole: bool = False) -> bytes:
    """A row's body: ``record`` (the file form, ``bots`` the seating, ``stderr`` the stored tails) less what the
    row's columns and the tournament's configuration already say. :func:`decode_record` rebuilds it exactly.
    ``whole``: keep the record whole (one the compact form does not rebuild)."""
    seating = record.get("bots")
    result = record.get("result")
    keys = tuple(record)
    canonical = (keys in (_RECORD_KEYS, _OLD_RECORD_KEYS) and isinstance(seating, list) and isinstance(result, dict)
                 and isinstance(result.get("places"), list) and len(choices) == len(record["actions"]))
    rest: dict[str, Any] = {}
    if whole or not canonical:  # not a record this referee wrote: kept whole
        rest["X"] = dict(record)
        choices = ()
    else:
        assert isinstance(seating, list) and isinstance(result, dict)
        derived = {"format": FORMAT, "version": VERSION, "game": template.game, "seats": len(seating),
                   "seed": seed, "dealer": 0, "options": template.options, "policy": template.policy}
        others = {k: record[k] for k, v in derived.items() if not _same(record[k], v)}
        if others:
            rest["x"] = others
        faults = record["faults"]
        if faults:
            rest["f"] = faults
        if record["stderr"]:
            rest["e"] = record["stderr"]
        if keys == _RECORD_KEYS:
            rest["t"] = record["times"]
            if record["said"]:
                rest["s"] = record["said"]
        places, seats = result["places"], len(seating)
        absent = [name for name in _RESULT_FIELDS if name not in result]
        defaults = _result_from({}, absent, places, faults, template.game, seats)
        remainder = {name: value for name, value in result.items()
                     if name not in ("places", "faults") and (name not in defaults or not _same(value, defaults[name]))}
        if _same(_result_from(remainder, absent, places, faults, template.game, seats), result):
            rest["r"] = remainder
            if absent:
                rest["-"] = absent
        else:  # a result of a form the defaults do not rebuild: kept whole
            rest["R"] = result
    return pack_body(choices, rest)


def pack_body(choices: Sequence[int], rest: Mapping[str, Any]) -> bytes:
    """A body from its choices and the rest of its fields (what :func:`decode_body` reads back)."""
    payload = _varints([len(choices), *choices])
    payload += json.dumps(rest, ensure_ascii=False, separators=(",", ":")).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(payload) + packer.flush()
    return bytes([_DEFLATED]) + packed if len(packed) < len(payload) else bytes([_STORED]) + payload


def decode_body(body: Any) -> tuple[list[int], dict[str, Any]]:
    """A body's choices and the rest of its fields; ValueError when it is not a body."""
    if not isinstance(body, bytes) or not body:
        raise ValueError("not a body")
    data = body[1:]
    if body[0] == _DEFLATED:
        inflater = zlib.decompressobj(-15)
        try:  # bounded: a damaged or forged body may inflate a thousandfold
            data = inflater.decompress(data, MAX_BODY_BYTES)
        except zlib.error as exc:
            raise ValueError(f"not deflated ({exc})") from exc
        if inflater.unconsumed_tail:
            raise ValueError(f"it inflates to more than {MAX_BODY_BYTES} bytes")
        if not inflater.eof:
            raise ValueError("not deflated (cut short)")
    elif body[0] != _STORED:
        raise ValueError(f"unknown encoding {body[0]}")
    values: list[int] = []
    i, v, shift, count = 0, 0, 0, -1
    while count < 0 or len(values) < count:
        if i >= len(data):
            raise ValueError("the choices are cut short")
        byte = data[i]
        i += 1
        v |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            if count < 0:
                count = v
            else:
                values.append(v)
            v, shift = 0, 0
    try:
        rest = json.loads(data[i:].decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("the fields after the choices are not a JSON object") from exc
    if not isinstance(rest, dict):
        raise ValueError("the fields after the choices are not a JSON object")
    return values, rest


def replay_choices(game: Game, seats: int, seed: int, options: Mapping[str, Any], dealer: int,
                   choices: Sequence[int], actors: list[int] | None = None) -> tuple[list[str], State]:
    """The action texts of a game from the index of each action in its legal list, and the state they lead to;
    ValueError names the first choice that is not one. ``actors``, if given, gets the seat to act at each."""
    try:
        state = game.new_state(seats, seed, options, dealer=dealer)
    except RefereeError as exc:
        raise ValueError(f"the game cannot start: {exc}") from None
    texts: list[str] = []
    for i, choice in enumerate(choices):
        legal = state.legal_actions()
        if not 0 <= choice < len(legal):
            raise ValueError(f"choice {i} ({choice}) is not the index of a legal action ({len(legal)} legal)")
        action = legal[choice]
        texts.append(action.text)
        if actors is not None:
            actors.append(state.to_act)  # type: ignore[arg-type]  # a legal action: someone is to act
        state.apply(action)
    return texts, state


def decode_record(seed: int, seating: Sequence[str], places: Sequence[int], body: bytes, template: RecordTemplate,
                  game: Game) -> dict[str, Any]:
    """The record a row holds, as :func:`encode_body` was given it (its ``seed`` is the row's); ValueError when
    the body is damaged."""
    return rebuild(seed, seating, places, body, template, game)[0]


def rebuild(seed: int, seating: Sequence[str], places: Sequence[int], body: bytes, template: RecordTemplate,
            game: Game, actors: list[int] | None = None) -> tuple[dict[str, Any], State | None]:
    """:func:`decode_record`, and the state its choices lead to (None for a record kept whole); ``actors``, if
    given, gets the seat to act at each decision (a record kept whole adds none)."""
    choices, rest = decode_body(body)
    try:
        return _rebuild_fields(seed, seating, places, choices, rest, template, game, actors)
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:  # a field of the wrong shape
        raise ValueError(f"its fields are damaged ({type(exc).__name__})") from None


def _rebuild_fields(seed: int, seating: Sequence[str], places: Sequence[int], choices: list[int],
                    rest: dict[str, Any], template: RecordTemplate, game: Game,
                    actors: list[int] | None) -> tuple[dict[str, Any], State | None]:
    if "X" in rest:
        whole = rest["X"]
        if not isinstance(whole, dict):
            raise ValueError("its whole record is not a JSON object")
        return whole, None
    others = rest.get("x", {})
    faults = rest.get("f", [])
    if not isinstance(others, dict) or not isinstance(faults, list):
        raise ValueError("its record fields are damaged")
    record: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": template.game, "seats": len(seating),
                              "seed": seed, "dealer": 0, "options": template.options, "policy": template.policy,
                              "bots": list(seating), "actions": None, "faults": faults, "result": None,
                              "stderr": rest.get("e", {})}
    if "t" in rest:
        record.update(times=rest["t"], said=rest.get("s", {}))
    record.update((k, v) for k, v in others.items() if k in record)
    seats, options, dealer = record["seats"], record["options"], record["dealer"]
    if not isinstance(options, dict) or type(dealer) is not int or type(seats) is not int:
        raise ValueError("its options, dealer or seats are damaged")
    record["actions"], state = replay_choices(game, seats, seed, options, dealer, choices, actors)
    if "R" in rest:
        record["result"] = rest["R"]
    else:
        remainder, absent = rest.get("r"), rest.get("-", [])
        if not isinstance(remainder, dict) or not isinstance(absent, list):
            raise ValueError("its result fields are damaged")
        record["result"] = _result_from(remainder, absent, list(places), faults, template.game, len(seating))
    return record, state


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
    process that stores it only inserts. ``seating`` and ``places`` stay decoded for the live ratings.
    A tuple: it crosses the pipe from a worker cheaply."""

    seq: int
    key: str
    seed: int
    seating: tuple[str, ...]
    places: tuple[int, ...]
    faults: int
    decisions: int
    body: bytes
    seating_json: str
    places_json: str

    @classmethod
    def encode(cls, seq: int, key: str, seed: int, record: GameRecord, stderr: Mapping[str, str],
               template: RecordTemplate) -> FinishedGame:
        """``record``: the game as played (its ``bots`` the entrants by seat), ``stderr`` the tails to keep."""
        data = record_to_dict(record)
        data["stderr"] = dict(stderr)
        return cls.of(seq, key, seed, data, record.choices, template)

    @classmethod
    def of(cls, seq: int, key: str, seed: int, data: Mapping[str, Any], choices: Sequence[int],
           template: RecordTemplate) -> FinishedGame:
        """From a record's file form (``bots``: the entrant names by seat; ``stderr``: the tails to keep) and the
        index of each of its actions in its legal list."""
        seating, places = tuple(data["bots"]), tuple(data["result"]["places"])
        return cls(seq, key, seed, seating, places, len(data["faults"]), len(data["actions"]),
                   encode_body(seed, data, choices, template), json.dumps(list(seating)), json.dumps(list(places)))

    def row(self) -> tuple[Any, ...]:
        """The values of its row, in :data:`COLUMNS` order."""
        return (self.seq, self.key, str(self.seed), self.seating_json, self.places_json, self.faults,
                self.decisions, self.body)


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
        self._template: RecordTemplate | None = None
        if readonly:
            self.db = self._open_readonly()
            self.schema = self._schema()
            return
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._refuse_foreign()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_TABLES)
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        self.schema = self._schema()

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

    def _schema(self) -> int:
        """1: a JSON row per game (a database of referee before issue 15); 2: compact rows."""
        try:
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        return 1 if "record" in columns else 2

    def _writable(self) -> None:
        """Before the first game is written: a schema-1 database is migrated (tournaments/migrate.py)."""
        if self.schema == 1:
            from .migrate import migrate  # here: the migration builds on this module

            migrate(self)
            self.schema = 2
            self._template = None

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
        self._writable()

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

    def add(self, game: FinishedGame) -> None:
        """Store one finished game in one transaction."""
        self.add_many([game])

    def add_many(self, games: Sequence[FinishedGame], played: Mapping[str, int] | None = None) -> None:
        """Store finished games in one transaction: all of them, or (on an error) none. ``played``: how far the
        order of play is now stored, merged into the ``played`` row in the same transaction (tournaments/played.py)."""
        self._writable()
        try:
            with self.db:
                self.db.execute("BEGIN")
                self.db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, julianday('now'))",
                                    [g.row() for g in games])
                if played is not None:
                    claims = merge(self._played(), played)
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                    (PLAYED, json.dumps(claims, sort_keys=True)))
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def _played(self) -> Claims:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (PLAYED,)).fetchone()
        return parse(None if row is None else row[0], self.path)

    def played(self) -> Claims:
        """How far the runs say they played (tournaments/played.py): the claims, none for an older database."""
        try:
            return self._played()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def batch(self, seconds: float = 0.1, size: int = 2000,
              played: Callable[[], Mapping[str, int]] | None = None) -> Batch:
        """A writer that commits finished games a batch at a time (see :class:`Batch`); ``played()`` says, at each
        commit, how far the order of play is stored."""
        return Batch(self, seconds, size, played=played)

    def template(self, game: Game) -> RecordTemplate:
        """What the records of this tournament (of ``game``) share, from its stored configuration."""
        if self._template is None:
            config = self.config()
            if config is None:
                raise StorageError(f"{self.path} holds no tournament")
            self._template = RecordTemplate.of(config, game)
        return self._template

    def games(self, *, entrant: str | None = None, faulted: bool = False) -> Iterator[GameRow]:
        """The stored games in schedule order (seq), streamed: ``entrant``, only the games it played; ``faulted``,
        only the games with a fault. A damaged row is a StorageError naming it and its column."""
        try:
            if self.schema == 1:
                for row in self.db.execute("SELECT seq, key, seed, seating, places, result, faults, decisions "
                                           "FROM games ORDER BY seq"):
                    game = self._row1(*row)
                    if (entrant is None or entrant in game.seating) and (not faulted or game.faults):
                        yield game
                return
            yield from self._games2(entrant, faulted)
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def _games2(self, entrant: str | None, faulted: bool) -> Iterator[GameRow]:
        """Schema 2's rows: the seating and places texts repeat, so each is parsed (and checked) once."""
        seatings: dict[Any, tuple[str, ...]] = {}
        placings: dict[Any, tuple[int, ...]] = {}
        new = tuple.__new__  # a GameRow from a tuple without NamedTuple's own __new__
        last_seed, deck = None, -1
        where = " WHERE faults != 0" if faulted else ""
        rows = self.db.execute("SELECT seq, key, seed, seating, places, faults, decisions, "
                               f"CASE WHEN faults != 0 THEN body END FROM games{where} ORDER BY seq")
        for seq, key, seed, seating, places, faults, decisions, body in rows:
            names = seatings.get(seating)
            if names is None:
                names = seatings[seating] = self._seating(seq, key, seating)
            if entrant is not None and entrant not in names:
                continue
            placed = placings.get(places)
            if placed is None:
                placed = placings[places] = self._places(seq, key, places)
            if len(placed) != len(names):
                raise self._damaged(seq, key, "places")
            if seed != last_seed:  # the rotations of a deal follow one another and share its seed
                try:
                    deck = int(seed)
                except (TypeError, ValueError):
                    deck = -1
                last_seed = seed
            if deck < 0 or type(key) is not str or type(decisions) is not int or decisions < 0:
                raise self._damaged(seq, key, "seed" if deck < 0 else "key" if type(key) is not str else "decisions")
            if faults == 0:
                yield new(GameRow, (seq, key, deck, names, placed, (), decisions))
            else:
                yield new(GameRow, (seq, key, deck, names, placed, self._faults2(seq, key, faults, body, len(names)),
                                    decisions))

    def tally(self) -> Iterator[tuple[tuple[str, ...], tuple[int, ...], int]]:
        """How many stored games ended with each (seating, places): what a rating table is computed from."""
        if self.schema == 1:
            counts: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}
            for row in self.games():
                counts[row.seating, row.places] = counts.get((row.seating, row.places), 0) + 1
            for (seating, places), n in counts.items():
                yield seating, places, n
            return
        try:
            groups = self.db.execute("SELECT seating, places, COUNT(*), MIN(seq), MIN(key) FROM games "
                                     "GROUP BY seating, places").fetchall()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        for seating, places, n, seq, key in groups:
            names, placed = self._seating(seq, key, seating), self._places(seq, key, places)
            if len(placed) != len(names):
                raise self._damaged(seq, key, "places")
            yield names, placed, n

    # ------------------------------------------------------------------------------- checking a row

    def _what(self, seq: Any, key: Any) -> str:
        return f"the row of game {key!r:.40} (seq {seq!r:.20})"

    def _damaged(self, seq: Any, key: Any, column: str, why: str = "") -> StorageError:
        return StorageError(f"{self.path}: {self._what(seq, key)} is damaged (column {column!r}{why})")

    def _seating(self, seq: Any, key: Any, text: Any) -> tuple[str, ...]:
        value = self._json(text, f"{self._what(seq, key)}, column 'seating',")
        if not (isinstance(value, list) and value and all(isinstance(s, str) for s in value)):
            raise self._damaged(seq, key, "seating")
        return tuple(value)

    def _places(self, seq: Any, key: Any, text: Any) -> tuple[int, ...]:
        value = self._json(text, f"{self._what(seq, key)}, column 'places',")
        if not (isinstance(value, list) and all(type(p) is int and 1 <= p <= len(value) for p in value)):
            raise self._damaged(seq, key, "places")
        return tuple(value)

    def _faults2(self, seq: Any, key: Any, count: Any, body: Any, seats: int) -> tuple[Fault, ...]:
        """A schema-2 row's faults, from its body: as many as its ``faults`` column says."""
        if type(count) is not int or count < 0:
            raise self._damaged(seq, key, "faults")
        try:
            _, rest = decode_body(body)
        except ValueError as exc:
            raise self._damaged(seq, key, "body", f": {exc}") from None
        whole = rest.get("X")
        faults = _faults((whole.get("faults") if isinstance(whole, dict) else None) if "X" in rest else rest.get("f"),
                         seats)
        if faults is None:
            raise self._damaged(seq, key, "body", ": its faults")
        if len(faults) != count:
            raise self._damaged(seq, key, "faults")
        return faults

    def _json(self, text: Any, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            raise StorageError(f"{self.path}: {what} is damaged (not valid JSON: {reason})") from exc

    def _row1(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, result: Any, faults: Any,
              decisions: Any) -> GameRow:
        """A schema-1 row, checked: StorageError names the row and its first damaged column."""
        what = self._what(seq, key)
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
            raise self._damaged(seq, key, damaged)
        assert typed is not None
        return GameRow(seq, key, seed_value, tuple(seating_v), typed.places, typed.faults, decisions)

    # --------------------------------------------------------------------------------------- records

    def record(self, key: str, find_game: Callable[[str], Game] | None = None) -> dict[str, Any] | None:
        """The game's whole record, as ``referee play --record`` writes it (the stderr tails of the seats that
        faulted included), or None when no game has that key. ``find_game``: the game by its id (a registry's
        ``game``), for the engine that turns stored choices back into action texts; None: the plugin registry's."""
        try:
            if self.schema == 1:
                row = self.db.execute("SELECT record, stderr FROM games WHERE key = ?", (key,)).fetchone()
            else:
                row = self.db.execute("SELECT seq, seed, seating, places, body FROM games WHERE key = ?",
                                      (key,)).fetchone()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        if row is None:
            return None
        if self.schema == 1:
            return self._record1(key, *row)
        seq, seed, seating, places, body = row
        return self._record2(seq, key, seed, seating, places, body, self._game(find_game))

    def _game(self, find_game: Callable[[str], Game] | None) -> Game:
        if find_game is None:
            from referee.plugins import load_registry  # here: only a record without a registry given needs it

            find_game = load_registry().game
        try:
            return find_game(str((self.config() or {}).get("game")))
        except RefereeError as exc:
            raise StorageError(f"{self.path}: {exc}") from exc

    def _record1(self, key: str, record_text: Any, stderr_text: Any) -> dict[str, Any]:
        record = self._json(record_text, f"the record of game {key!r:.40}")
        if not isinstance(record, dict):
            raise StorageError(f"{self.path}: the record of game {key!r:.40} is damaged (not a JSON object)")
        record["stderr"] = self._json(stderr_text, f"the stderr of game {key!r:.40}")
        return record

    def move_times(self, limit_games: int, find_game: Callable[[str], Game] | None = None) -> dict[str, list[int]]:
        """Each entrant's time per move: the microseconds of every decision it was asked, in the most recent
        ``limit_games`` stored games that measured them (a game from before times were kept adds nothing)."""
        if self.schema == 1:
            return {}
        game = self._game(find_game)
        times: dict[str, list[int]] = {}
        try:
            rows = self.db.execute("SELECT seq, key, seed, seating, places, body FROM games ORDER BY seq DESC "
                                   "LIMIT ?", (limit_games,)).fetchall()
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc
        for seq, key, seed, seating, places, body in rows:
            actors: list[int] = []
            record = self._rebuild(seq, key, seed, seating, places, body, game, actors)[0]
            measured = record.get("times") or ()
            if len(measured) != len(actors):
                continue
            for seat, used in zip(actors, measured, strict=True):
                if type(used) is int:
                    times.setdefault(record["bots"][seat], []).append(used)
        return times

    def _record2(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, body: Any,
                 game: Game) -> dict[str, Any]:
        return self._rebuild(seq, key, seed, seating, places, body, game)[0]

    def _rebuild(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, body: Any,
                 game: Game, actors: list[int] | None = None) -> tuple[dict[str, Any], State | None]:
        names, placed = self._seating(seq, key, seating), self._places(seq, key, places)
        try:
            deck = int(seed)
        except (TypeError, ValueError):
            raise self._damaged(seq, key, "seed") from None
        try:
            return rebuild(deck, names, placed, body, self.template(game), game, actors)
        except ValueError as exc:
            raise self._damaged(seq, key, "body", f": {exc}") from None

    def stored(self, game: Game) -> Iterator[StoredGame]:
        """Every stored game with its whole record, in seq order, for ``verify``: what a row says and its record,
        each decoded as far as it can be (a damaged part is a line saying why, not an error)."""
        try:
            if self.schema == 1:
                rows = self.db.execute("SELECT key, seed, seating, places, result, faults, decisions, record "
                                       "FROM games ORDER BY seq")
                for key, seed, seating, places, result, faults, decisions, record in rows:
                    columns: dict[str, Any] | str = {}
                    assert isinstance(columns, dict)
                    for name, text in (("seating", seating), ("places", places), ("result", result),
                                       ("faults", faults)):
                        try:
                            columns[name] = json.loads(text)
                        except (TypeError, ValueError, RecursionError):
                            columns = f"column {name} is not JSON"
                            break
                    try:
                        data: dict[str, Any] | str = json.loads(record)
                    except (TypeError, ValueError, RecursionError):
                        data = "not valid JSON"
                    yield StoredGame(key, seed, columns, decisions, data)
                return
            rows = self.db.execute("SELECT seq, key, seed, seating, places, faults, decisions, body FROM games "
                                   "ORDER BY seq")
            for _seq, key, seed, seating, places, faults, decisions, body in rows:
                yield self._stored2(key, seed, seating, places, faults, decisions, body, game)
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc

    def _stored2(self, key: Any, seed: Any, seating: Any, places: Any, faults: Any, decisions: Any, body: Any,
                 game: Game) -> StoredGame:
        columns: dict[str, Any] = {"faults": faults}
        for name, text in (("seating", seating), ("places", places)):
            try:
                columns[name] = json.loads(text)
            except (TypeError, ValueError, RecursionError):
                return StoredGame(key, seed, f"column {name} is not JSON", decisions, "")
        names, placed = columns["seating"], columns["places"]
        try:
            deck = int(seed)
        except (TypeError, ValueError):
            return StoredGame(key, seed, columns, decisions, "it cannot be rebuilt: the seed is not a number")
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names) and isinstance(placed, list)):
            return StoredGame(key, seed, columns, decisions, "it cannot be rebuilt: the seating or places are damaged")
        try:
            data, state = rebuild(deck, names, placed, body, self.template(game), game)
            _, rest = decode_body(body)
        except ValueError as exc:
            return StoredGame(key, seed, columns, decisions, f"its row's body does not rebuild it: {exc}")
        result = data.get("result")
        kept = rest.get("r")
        if state is not None and isinstance(result, dict) and isinstance(kept, dict):
            result = {k: v for k, v in result.items() if k in kept}  # the fields its body holds, not the defaults
        return StoredGame(key, seed, {**columns, "result": result}, decisions, data, state)

    def count(self) -> int:
        try:
            return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.Error as exc:
            raise _translate(self.path, exc) from exc


class StoredGame(NamedTuple):
    """A stored game for ``verify``: its columns (seating, places, result, faults; schema 2: the result fields and
    the faults its body holds, not those that default to what the columns say), or why they cannot be read, and its
    record in its file form, or why it cannot be read."""

    key: Any
    seed: Any
    columns: dict[str, Any] | str
    decisions: Any
    record: dict[str, Any] | str
    #: schema 2: the state the row's choices lead to, from which its result is derived again (None: replay the
    #: record's action texts)
    state: State | None = None


class Batch:
    """Stores finished games a batch at a time: a game is committed with those that arrived after it, at the
    latest when a game arrives ``seconds`` after the last commit, or ``size`` games are waiting, and at
    :meth:`flush` (the end of a ``with`` block, however it ends). So games arriving more than ``seconds`` apart
    are each committed as they arrive, and what a SIGKILL can lose is the games received since the last commit:
    fewer than ``size``, all received within ``seconds`` of it."""

    def __init__(self, store: Store, seconds: float, size: int,
                 clock: Callable[[], float] = time.monotonic, *,
                 played: Callable[[], Mapping[str, int]] | None = None) -> None:
        self.store = store
        self.played = played
        self.seconds = seconds
        self.size = size
        self.clock = clock
        self.pending: list[FinishedGame] = []
        self.committed = -math.inf  # the first game is committed at once

    def add(self, game: FinishedGame) -> None:
        self.pending.append(game)
        now = self.clock()
        if now - self.committed >= self.seconds or len(self.pending) >= self.size:
            self.flush(now)

    def flush(self, now: float | None = None) -> None:
        if self.pending:
            self.store.add_many(self.pending, None if self.played is None else self.played())
            self.pending = []
        self.committed = self.clock() if now is None else now

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()
