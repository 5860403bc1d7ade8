"""Migrating an older tournament database to the schema this referee writes, in place: an ordered list.

Each migration is a function named ``m{N}_{what}`` that takes a database at schema ``N - 1`` to schema ``N``
(:data:`MIGRATIONS`, in order; the last one's ``N`` is :data:`~tournaments.rows.SCHEMA_VERSION`). They run before
the first write to an older database (``resume``, ``run`` on the same ``--db``, a ladder's ``join``, an SPRT
resumed): first a copy of the whole database, made with SQLite's backup API, to ``DB.schema{N}.bak`` beside it (N:
the schema it was at); then each migration still to do, in one transaction of its own that also sets ``schema`` in
``meta``. A migration interrupted at any point (an error, a kill) leaves the database at the schema before it.
Reading an older database (``table``, ``games``, ``record``, ``verify``) migrates nothing (tournaments/schema1.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from referee.engine import Game
from referee.errors import RefereeError, StorageError
from referee.record import record_from_dict, replay

from .columns import translate
from .rows import SCHEMA_VERSION, TABLES, RecordTemplate, decode_record, encode_body
from .schema1 import Schema1

__all__ = ["MIGRATIONS", "Database", "backup_path", "migrate", "migration"]


class Database(NamedTuple):
    """What a migration works on: the connection (a transaction open), its file, and its stored configuration."""

    db: sqlite3.Connection
    path: Path
    config: Mapping[str, Any] | None


Migration = Callable[[Database], None]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    """Append ``fn`` to :data:`MIGRATIONS`: the next schema's."""
    MIGRATIONS.append(fn)
    return fn


def version(fn: Migration) -> int:
    """The schema a migration brings a database to, from its name (``m002_…``: 2)."""
    return int(fn.__name__[1:].split("_", 1)[0])


def backup_path(path: Path, schema: int = 1) -> Path:
    return path.with_name(f"{path.name}.schema{schema}.bak")


def migrate(db: sqlite3.Connection, path: Path, schema: int,
            config: Callable[[], Mapping[str, Any] | None]) -> None:
    """Bring the database ``db`` (the file ``path``, open for writing, at ``schema``) to :data:`SCHEMA_VERSION`,
    after backing it up; ``config()`` reads its configuration. StorageError (the database at the schema of the last
    migration done) when it cannot be."""
    todo = [fn for fn in MIGRATIONS if version(fn) > schema]
    if not todo:
        return
    _back_up(db, path, schema)
    stored = config()
    for fn in todo:
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                fn(Database(db, path, stored))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(version(fn)),))
        except sqlite3.Error as exc:
            raise translate(path, exc) from exc


def _back_up(db: sqlite3.Connection, path: Path, schema: int) -> None:
    target = backup_path(path, schema)
    partial = target.with_name(target.name + ".part")
    try:
        copy = sqlite3.connect(partial)
        try:
            db.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        raise StorageError(f"cannot back {path} up to {target} before migrating it to schema "
                           f"{SCHEMA_VERSION}: {exc}; nothing was changed") from exc


@migration
def m002_compact_rows(database: Database) -> None:
    """Schema 1 (a JSON row per game) to schema 2 (compact rows): every game's row written anew into a new table
    that replaces the old one. Each row's choices come from replaying its record; a row whose record does not
    rebuild from the compact form exactly (one that does not replay, or one written by other code) keeps its whole
    record in its body, so ``record`` and ``verify`` give for it what they gave before."""
    from referee.plugins import load_registry  # here: only a migration needs every game, to replay its records

    db, path, config = database
    find_game = load_registry().game
    try:
        template = None if config is None else RecordTemplate.of(config, find_game(str(config.get("game"))))
    except RefereeError as exc:
        raise StorageError(f"{path} cannot be migrated to schema {SCHEMA_VERSION}: {exc}") from exc
    table = TABLES.split("CREATE TABLE IF NOT EXISTS games", 1)[1]
    db.execute("CREATE TABLE games_2" + table.rstrip().rstrip(";"))
    for row in Schema1(db, path).rows():
        if template is None:
            raise StorageError(f"{path} holds games but no tournament configuration: it cannot be migrated")
        game = row.game
        body = _body(game.seed, game.seating, game.places, row.record, template, find_game)
        db.execute("INSERT INTO games_2 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (row.seq, row.key, row.seed, row.seating, row.places, len(game.faults), row.decisions, body,
                    row.finished_at))
    db.execute("DROP TABLE games")
    db.execute("ALTER TABLE games_2 RENAME TO games")


def _body(seed: int, seating: tuple[str, ...], places: tuple[int, ...], data: dict[str, Any],
          template: RecordTemplate, find_game: Callable[[str], Game]) -> bytes:
    """A row's compact body, checked: it must rebuild ``data`` exactly, or it holds ``data`` whole."""
    try:
        game = find_game(template.game)
        choices = replay(record_from_dict(data), find_game).choices
        body = encode_body(seed, data, choices, template)
        if json.dumps(decode_record(seed, seating, places, body, template, game)) == json.dumps(data):
            return body
    except (RefereeError, ValueError, TypeError, KeyError):
        pass
    return encode_body(seed, data, (), template, whole=True)
