"""Tournament storage in SQLite: the configuration and one compact row per finished game (schema 2).

:class:`Store` reads and writes schema 2: a row per game (tournaments/rows.py: its columns, and the body that holds
the rest of the record compactly), and the configuration and how far the runs played in ``meta``. Writes are
committed a batch at a time (:class:`Batch`), in WAL mode, so a run killed at any moment (even by SIGKILL) loses at
most the batch not yet committed and the games in flight; ``resume`` plays them again. An older database is read
as it is (tournaments/schema1.py), and migrated in place, after a backup, before the first write
(tournaments/migrations.py). SQLite errors (a read-only file, a full disk, a file that is not a database) become
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
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.faults import Fault
from referee.engine import Game, State
from referee.errors import ConfigError, RefereeError, StorageError, StoreChanged, StoreLocked

from .columns import Columns, faults_of, json_columns, translate
from .rows import (
    SCHEMA_VERSION,
    TABLES,
    FinishedGame,
    GameRow,
    RecordTemplate,
    StoredGame,
    decode_body,
    encode_body,
    pack_body,
    rebuild,
)
from .schema1 import Schema1, is_schema1

if TYPE_CHECKING:
    from .played import Claims

__all__ = ["Store", "StorageError", "body_faults", "GameRow", "FinishedGame", "RecordTemplate", "StoredGame", "Batch",
           "SCHEMA_VERSION", "decode_body", "encode_body", "pack_body"]


class Store:
    """One tournament database, at schema 2; an older one (:attr:`schema`) is read as it is (:attr:`old`), and
    migrated before the first write."""

    def __init__(self, path: str | Path, *, create: bool, readonly: bool = False) -> None:
        """``readonly``: only read (``table``, ``games``, ``record``), which works on a read-only medium too."""
        self.path = Path(path)
        self._lock: int | None = None  # the lock file's descriptor, while this store plays games (lock())
        if not create and not self.path.is_file():
            raise StorageError(f"no tournament database at {self.path}")
        self._template: RecordTemplate | None = None
        self.columns = Columns(self.path)
        if readonly:
            self.db = self._open_readonly()
            self._schema()
            return
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._refuse_foreign(create)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(TABLES)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
        self._schema()

    def _refuse_foreign(self, create: bool) -> None:
        """Before anything is written: a database holding other tables than a tournament's (or only one of them)
        belongs to another program, and is left as it is; so is an empty one (an empty file too) unless a tournament
        is to be made in it (``create``)."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and not create:
            self.db.close()
            raise StorageError(f"{self.path} holds no tournament")
        self._refuse_newer(self.db, tables)
        if tables and tables != {"meta", "games"}:
            self.db.close()
            names = ", ".join(sorted(tables - {"meta", "games"}) or sorted(tables))
            raise StorageError(f"{self.path} is an SQLite database of another program (tables: {names:.200}), not a "
                               "tournament's; nothing was written to it: use another --db")

    def _refuse_newer(self, db: sqlite3.Connection, tables: set[str]) -> None:
        """Before anything is read or written: a database of a schema newer than this referee's (``meta``'s
        ``schema``) is left as it is, and the connection ``db`` closed."""
        try:
            stated = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if "meta" in tables else None
        except sqlite3.Error as exc:
            db.close()
            raise translate(self.path, exc, reading=True) from exc
        if stated is not None and str(stated[0]).isdecimal() and int(stated[0]) > SCHEMA_VERSION:
            db.close()
            raise StorageError(f"{self.path} is at schema {int(stated[0])}, written by a newer referee; this one reads "
                               f"schemas 1 and {SCHEMA_VERSION}: use the newer referee (nothing was changed)")

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
                others = ", ".join(sorted(tables - {"meta", "games"}))
                raise StorageError(f"{self.path} is an SQLite database of another program (tables: {others:.200}), "
                                   "not a tournament's" if others else f"{self.path} holds no tournament")
            self._refuse_newer(db, tables)
            return db
        assert error is not None
        raise translate(self.path, error, reading=True) from error

    def _schema(self) -> None:
        """:attr:`schema`: 1, a JSON row per game (a database of referee before issue 15), read by :attr:`old`
        until it is migrated; 2, compact rows."""
        try:
            old = is_schema1(self.db)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
        self.schema = 1 if old else SCHEMA_VERSION
        #: the reader of an older database's games, until it is migrated (None: it is at schema 2)
        self.old = Schema1(self.db, self.path) if old else None

    def _writable(self) -> None:
        """Before the first game is written: an older database is migrated (tournaments/migrations.py)."""
        if self.schema < SCHEMA_VERSION:
            from .migrations import migrate  # here: reading needs no migration, and most commands only read

            migrate(self.db, self.path, self.schema, self.config)
            self.schema, self.old, self._template = SCHEMA_VERSION, None, None

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
            raise StoreLocked(f"another process is running this tournament ({self.path}); let it finish, or "
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
            raise translate(self.path, exc) from exc
        if row is None:
            return None
        config = self.columns.json(row[0], "the stored tournament configuration")
        if not isinstance(config, dict):
            raise StorageError(f"{self.path}: the stored tournament configuration is damaged (not a JSON object)")
        return config

    def tournament(self) -> dict[str, Any]:
        """:meth:`config`, which a command reading a tournament needs: ConfigError when there is none."""
        config = self.config()
        if config is None:
            raise ConfigError(f"{self.path} holds no tournament")
        return config

    def save_config(self, config: dict[str, Any]) -> None:
        """Store the configuration; refuse a database made for a different one."""
        stored = self.config()
        if stored is not None:
            if stored != config:
                from .config import config_differences  # here: the rules of play weigh on every open

                diff = "; ".join(config_differences(stored, config))
                raise StorageError(f"{self.path} holds a different tournament ({diff}); use 'referee tournament "
                                   f"resume {self.path}' to continue it, or another --db")
            return
        try:
            with self.db:
                self.db.execute("BEGIN")
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                self.db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config, sort_keys=True),))
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def replace_config(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Change the stored configuration from ``old`` to ``new`` (a ladder's new entrants), in one transaction;
        :class:`StoreChanged` if the stored one is not ``old`` any more. The games stored stay as they are."""
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
                if row is None or self.columns.json(row[0], "the stored tournament configuration") != old:
                    raise StoreChanged(f"{self.path}: the tournament changed meanwhile; try again")
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(new, sort_keys=True),))
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    # -------------------------------------------------------------------------------------- games

    def done_keys(self) -> set[str]:
        try:
            return {row[0] for row in self.db.execute("SELECT key FROM games")}
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

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
                    from .played import META_KEY as PLAYED
                    from .played import merge

                    claims = merge(self._played(), played)
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                    (PLAYED, json.dumps(claims, sort_keys=True)))
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def _played(self) -> Claims:
        from .played import META_KEY as PLAYED  # here: the rules of play (config, schedule, SPRT) weigh on a read
        from .played import parse

        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (PLAYED,)).fetchone()
        return parse(None if row is None else row[0], self.path)

    def played(self) -> Claims:
        """How far the runs say they played (tournaments/played.py): the claims, none for an older database."""
        try:
            return self._played()
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

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

    def games(self, *, entrant: str | None = None, faulted: bool = False,
              newest_first: bool = False, seqs: Sequence[int] | None = None) -> Iterator[GameRow]:
        """The stored games in schedule order (seq), streamed: ``entrant``, only the games it played; ``faulted``,
        only the games with a fault; ``newest_first``: from the last seq back (a list of the latest games stops
        early); ``seqs`` (schema 2), only those games (at most 999). A damaged row is a StorageError naming it and
        its column."""
        if self.old is not None:
            if seqs is not None:
                raise ValueError("games(seqs=...) reads a database of schema 2")
            old = self.old.games(entrant, faulted)
            yield from (reversed(list(old)) if newest_first else old)
            return
        try:
            yield from self._games(entrant, faulted, newest_first, seqs)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def _games(self, entrant: str | None, faulted: bool, newest_first: bool = False,
               seqs: Sequence[int] | None = None) -> Iterator[GameRow]:
        """The rows: the seating and places texts repeat, so each is parsed (and checked) once."""
        seatings: dict[Any, tuple[str, ...]] = {}
        placings: dict[Any, tuple[int, ...]] = {}
        new = tuple.__new__  # a GameRow from a tuple without NamedTuple's own __new__
        last_seed, deck = None, -1
        where = [" faults != 0"] if faulted else []
        if seqs is not None:
            where.append(f" seq IN ({', '.join('?' * len(seqs))})")
        rows = self.db.execute("SELECT seq, key, seed, seating, places, faults, decisions, CASE WHEN faults != 0 "
                               f"THEN body END FROM games{' WHERE' + ' AND'.join(where) if where else ''} ORDER BY seq"
                               + (" DESC" if newest_first else ""), tuple(seqs or ()))
        for seq, key, seed, seating, places, faults, decisions, body in rows:
            names = seatings.get(seating)
            if names is None:
                names = seatings[seating] = self.columns.seating(seq, key, seating)
            if entrant is not None and entrant not in names:
                continue
            placed = placings.get(places)
            if placed is None:
                placed = placings[places] = self.columns.places(seq, key, places)
            if len(placed) != len(names):
                raise self.columns.damaged(seq, key, "places")
            if seed != last_seed:  # the rotations of a deal follow one another and share its seed
                try:
                    deck = int(seed)
                except (TypeError, ValueError):
                    deck = -1
                last_seed = seed
            if deck < 0 or type(key) is not str or type(decisions) is not int or decisions < 0:
                column = "seed" if deck < 0 else "key" if type(key) is not str else "decisions"
                raise self.columns.damaged(seq, key, column)
            if faults == 0:
                yield new(GameRow, (seq, key, deck, names, placed, (), decisions))
            else:
                yield new(GameRow, (seq, key, deck, names, placed, self._faults(seq, key, faults, body, len(names)),
                                    decisions))

    def tally(self) -> Iterator[tuple[tuple[str, ...], tuple[int, ...], int]]:
        """How many stored games ended with each (seating, places): what a rating table is computed from."""
        if self.old is not None:
            yield from self.old.tally()
            return
        try:
            groups = self.db.execute("SELECT seating, places, COUNT(*), MIN(seq), MIN(key) FROM games "
                                     "GROUP BY seating, places").fetchall()
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
        for seating, places, n, seq, key in groups:
            names, placed = self.columns.seating(seq, key, seating), self.columns.places(seq, key, places)
            if len(placed) != len(names):
                raise self.columns.damaged(seq, key, "places")
            yield names, placed, n

    # ------------------------------------------------------------------------------- checking a row

    def _faults(self, seq: Any, key: Any, count: Any, body: Any, seats: int) -> tuple[Fault, ...]:
        """A row's faults, from its body: as many as its ``faults`` column says."""
        if type(count) is not int or count < 0:
            raise self.columns.damaged(seq, key, "faults")
        try:
            faults = body_faults(body, seats)
        except ValueError as exc:
            raise self.columns.damaged(seq, key, "body", f": {exc}") from None
        if faults is None:
            raise self.columns.damaged(seq, key, "body", ": its faults")
        if len(faults) != count:
            raise self.columns.damaged(seq, key, "faults")
        return faults

    # --------------------------------------------------------------------------------------- records

    def record(self, key: str, find_game: Callable[[str], Game] | None = None) -> dict[str, Any] | None:
        """The game's whole record, as ``referee play --record`` writes it (the stderr tails of the seats that
        faulted included), or None when no game has that key. ``find_game``: the game by its id (a registry's
        ``game``), for the engine that turns stored choices back into action texts; None: the plugin registry's."""
        if self.old is not None:
            return self.old.record(key)
        try:
            row = self.db.execute("SELECT seq, seed, seating, places, body FROM games WHERE key = ?",
                                  (key,)).fetchone()
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc
        if row is None:
            return None
        seq, seed, seating, places, body = row
        return self._rebuild(seq, key, seed, seating, places, body, self._game(find_game))[0]

    def _game(self, find_game: Callable[[str], Game] | None) -> Game:
        if find_game is None:
            from referee.plugins import load_registry  # here: only a record without a registry given needs it

            find_game = load_registry().game
        try:
            return find_game(str((self.config() or {}).get("game")))
        except RefereeError as exc:
            raise StorageError(f"{self.path}: {exc}") from exc

    def move_times(self, limit_games: int, find_game: Callable[[str], Game] | None = None, *,
                   enough: tuple[Collection[str], int] | None = None) -> dict[str, list[int]]:
        """Each entrant's time per move: the microseconds of every decision it was asked, in the most recent
        ``limit_games`` stored games that measured them (a game from before times were kept adds nothing).
        ``enough`` = (entrants, moves): stop sooner, after the first game that leaves each of ``entrants`` with at
        least ``moves`` times (each replayed game costs the engine's work of all its decisions)."""
        times: dict[str, list[int]] = {}
        wanted, moves = enough if enough is not None else ((), 0)
        short = set(wanted)
        for names, actors, record in self._recent(limit_games, find_game):
            measured = record.get("times") or ()
            if len(measured) != len(actors):
                continue
            for seat, used in zip(actors, measured, strict=True):
                if type(used) is int:
                    times.setdefault(names[seat], []).append(used)
            if enough is not None:
                short.difference_update([name for name in names if len(times.get(name, ())) >= moves])
                if not short:
                    break
        return times

    def asked(self, entrant: str, limit_games: int,
              find_game: Callable[[str], Game] | None = None) -> Iterator[tuple[int | None, Any]]:
        """Each decision ``entrant`` was asked in its most recent ``limit_games`` stored games (newest first): its
        time in µs (None where the record kept none) and what it said there (RECORDS.md, "What the bots said";
        None: nothing). A league's bot page reads its time per move and its counters from these."""
        for names, actors, record in self._recent(limit_games, find_game, entrant):
            times = record.get("times") or ()
            said = record.get("said") or {}
            for i, seat in enumerate(actors):
                if names[seat] == entrant:
                    used = times[i] if i < len(times) and type(times[i]) is int else None
                    yield used, said.get(str(i), said.get(i)) if isinstance(said, dict) else None

    def _recent(self, limit_games: int, find_game: Callable[[str], Game] | None,
                entrant: str | None = None) -> Iterator[tuple[tuple[str, ...], list[int], dict[str, Any]]]:
        """The most recent ``limit_games`` stored games (of ``entrant``, if given), newest first, replayed: each
        game's seating, the seat asked at each decision, and its record. Nothing from before times were kept."""
        if self.old is not None:  # from before times and words were kept
            return
        game = self._game(find_game)
        try:
            rows = self.db.execute("SELECT seq, key, seed, seating, places, body FROM games ORDER BY seq DESC")
            taken = 0
            for seq, key, seed, seating, places, body in rows:
                if taken >= limit_games:
                    return
                names = self.columns.seating(seq, key, seating)
                if entrant is not None and entrant not in names:
                    continue
                taken += 1
                actors: list[int] = []
                record = self._rebuild(seq, key, seed, seating, places, body, game, actors)[0]
                yield names, actors, record
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def _rebuild(self, seq: Any, key: Any, seed: Any, seating: Any, places: Any, body: Any,
                 game: Game, actors: list[int] | None = None) -> tuple[dict[str, Any], State | None]:
        names, placed = self.columns.seating(seq, key, seating), self.columns.places(seq, key, places)
        try:
            deck = int(seed)
        except (TypeError, ValueError):
            raise self.columns.damaged(seq, key, "seed") from None
        try:
            return rebuild(deck, names, placed, body, self.template(game), game, actors)
        except ValueError as exc:
            raise self.columns.damaged(seq, key, "body", f": {exc}") from None

    def stored(self, game: Game) -> Iterator[StoredGame]:
        """Every stored game with its whole record, in seq order, for ``verify``: what a row says and its record,
        each decoded as far as it can be (a damaged part is a line saying why, not an error)."""
        if self.old is not None:
            yield from self.old.stored()
            return
        try:
            rows = self.db.execute("SELECT seq, key, seed, seating, places, faults, decisions, body FROM games "
                                   "ORDER BY seq")
            for _seq, key, seed, seating, places, faults, decisions, body in rows:
                yield self._stored(key, seed, seating, places, faults, decisions, body, game)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from exc

    def _stored(self, key: Any, seed: Any, seating: Any, places: Any, faults: Any, decisions: Any, body: Any,
                 game: Game) -> StoredGame:
        decoded = json_columns({"seating": seating, "places": places})
        if isinstance(decoded, str):
            return StoredGame(key, seed, decoded, decisions, "")
        columns: dict[str, Any] = {"faults": faults, **decoded}
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
            raise translate(self.path, exc) from exc


def body_faults(body: Any, seats: int) -> tuple[Fault, ...] | None:
    """The faults a row's body holds (None: damaged); ValueError for a body that does not decode. Also what a
    :class:`FinishedGame`'s ``body`` holds, before it is stored (a league's suspension rule reads it)."""
    _, rest = decode_body(body)
    whole = rest.get("X")
    listed = (whole.get("faults") if isinstance(whole, dict) else None) if "X" in rest else rest.get("f")
    return faults_of(listed, seats)


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
