"""Migrating a schema-1 tournament database (a JSON row per game) to schema 2 (compact rows), in place.

It runs before the first write to a schema-1 database (``resume``, ``run`` on the same ``--db``, a ladder's
``join``, an SPRT resumed): first a copy of the whole database, made with SQLite's backup API, to ``DB.schema1.bak``
beside it; then one transaction that writes every game's compact row into a new table and replaces the old one. A
migration interrupted at any point (an error, a kill) leaves the database as it was, at schema 1. Reading a schema-1
database (``table``, ``games``, ``record``, ``verify``) migrates nothing.

Each row's choices (the index of each action in its legal list) come from replaying its record; a row whose record
does not rebuild from the compact form exactly (one that does not replay, or one written by other code) keeps its
whole record in its body, so ``record`` and ``verify`` give for it what they gave before.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from referee.errors import RefereeError, StorageError
from referee.plugins import load_registry
from referee.record import record_from_dict, replay

from .columns import translate
from .rows import SCHEMA_VERSION, TABLES, decode_record, encode_body
from .schema1 import Schema1
from .storage import Store

__all__ = ["backup_path", "migrate"]


def backup_path(store: Store) -> os.PathLike[str]:
    return store.path.with_name(store.path.name + ".schema1.bak")


def migrate(store: Store) -> None:
    """Migrate ``store`` (open for writing, at schema 1) to schema 2; StorageError (the database unchanged) when
    it cannot be."""
    target = backup_path(store)
    partial = store.path.with_name(store.path.name + ".schema1.bak.part")
    try:
        copy = sqlite3.connect(partial)
        try:
            store.db.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        raise StorageError(f"cannot back {store.path} up to {target} before migrating it to schema "
                           f"{SCHEMA_VERSION}: {exc}; nothing was changed") from exc
    config = store.config()
    find_game = load_registry().game
    try:
        template = None if config is None else store.template(find_game(str(config.get("game"))))
    except RefereeError as exc:
        raise StorageError(f"{store.path} cannot be migrated to schema {SCHEMA_VERSION}: {exc}") from exc
    try:
        with store.db:
            store.db.execute("BEGIN IMMEDIATE")
            table = TABLES.split("CREATE TABLE IF NOT EXISTS games", 1)[1]
            store.db.execute("CREATE TABLE games_2" + table.rstrip().rstrip(";"))
            for old in Schema1(store.db, store.path).rows():
                if template is None:
                    raise StorageError(f"{store.path} holds games but no tournament configuration: it cannot be "
                                       "migrated")
                row = old.game
                body = _body(row.seed, row.seating, row.places, old.record, template, find_game)
                store.db.execute("INSERT INTO games_2 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                 (old.seq, old.key, old.seed, old.seating, old.places, len(row.faults),
                                  old.decisions, body, old.finished_at))
            store.db.execute("DROP TABLE games")
            store.db.execute("ALTER TABLE games_2 RENAME TO games")
            store.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    except sqlite3.Error as exc:
        raise translate(store.path, exc) from exc


def _body(seed: int, seating: tuple[str, ...], places: tuple[int, ...], data: dict[str, Any], template: Any,
          find_game: Any) -> bytes:
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
