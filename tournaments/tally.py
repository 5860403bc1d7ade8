"""What a tournament table is computed from, counted from the stored games: each distinct (seating, places), the
faults per entrant and, for the deal pairs, each distinct deal of two games of one pair of bots (docs/TOURNAMENTS.md,
"A million games"). Memory grows with the entrants and the distinct outcomes, not with the games.

:func:`tally_rows` counts a stream of :class:`~tournaments.rows.GameRow` (each row decoded and checked).
:func:`tally_store` counts a schema-2 database's games in SQL order without decoding each row: it reads two short
columns a game (the seed and the seating and places texts), counts the distinct deals by their texts, and decodes
and checks each distinct text once; the faults come from the rows that have any. Where a row is not as this referee
writes it (a seed not in canonical decimal, a text that does not decode, a game seating a stranger) it gives up
(None), and the caller reads the rows one by one, which names the damaged row, as ever.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import islice

from referee.errors import StorageError

from .columns import translate
from .storage import GameRow, Store

__all__ = ["Game", "Tallies", "tally", "tally_rows", "tally_store"]

#: A game as the table counts it: (seating, places), by name.
Game = tuple[tuple[str, ...], tuple[int, ...]]
#: How many distinct deals :func:`tally_store` holds before it adds them to the tallies (memory stays bounded).
DEALS_HELD = 4096


@dataclass
class Tallies:
    """The stored games, counted. ``counts``: game → how often, in order of first appearance (the fit sums its
    stages in this order); ``faults``: per entrant index; ``two_game_deals``: the deal pairs' (first game, second
    game) → how often; with ``bootstrap``, each game's pattern (its index in ``patterns``) and deal."""

    counts: dict[Game, int] = field(default_factory=dict)
    faults: list[int] = field(default_factory=list)
    two_game_deals: dict[tuple[Game, Game], int] = field(default_factory=dict)
    patterns: dict[Game, int] = field(default_factory=dict)
    pattern_of: array = field(default_factory=lambda: array("i"))
    deal_of: array = field(default_factory=lambda: array("i"))
    #: with ``marks``, the games of each prefix of them: (its length, its games counted as ``counts`` counts them)
    snapshots: list[tuple[int, dict[Game, int]]] = field(default_factory=list)

    def close(self, run: Sequence[Game], count: int = 1) -> None:
        """The games of one deal (``count`` deals that went alike): its games of one pair of bots are a deal pair
        when they are two (an SPRT with a field plays several pairs on one deck)."""
        if len(run) < 2:
            return
        if len(run) == 2:
            pairs: Iterable[Sequence[Game]] = (run,)
        else:
            by_pair: dict[frozenset[str], list[Game]] = {}
            for one in run:
                by_pair.setdefault(frozenset(one[0]), []).append(one)
            pairs = by_pair.values()
        for games in pairs:
            if len(games) == 2:
                both = (games[0], games[1])
                self.two_game_deals[both] = self.two_game_deals.get(both, 0) + count


def stranger(key: str | None, seating: Sequence[str]) -> StorageError:
    """A stored game that seats someone who is not an entrant: a damaged (or forged) row, one line."""
    where = f"game {key!r:.40}" if key is not None else "a stored game"
    return StorageError(f"{where} seats {', '.join(repr(n)[:40] for n in seating)}: not all entrants of this "
                        "tournament (the row is damaged)")


def tally_rows(entrants: Sequence[str], rows: Iterable[GameRow], *, bootstrap: bool = False,
               marks: Sequence[int] = ()) -> Tallies:
    """The tallies of ``rows`` in ``seq`` order (a stream, read once). A deal is a run of one seed: under duplicate
    deals every rotation of a deck shares its seed, and the schedule numbers them consecutively. ``marks``: the
    lengths of the prefixes to snapshot (ascending)."""
    index = {name: i for i, name in enumerate(entrants)}
    tallies = Tallies(faults=[0] * len(entrants))
    counts, faults, patterns = tallies.counts, tallies.faults, tallies.patterns
    deal: int | None = None
    deals = -1
    run: list[Game] = []  # the games of the deal being read (a few: its rotations)
    read, snap = 0, iter(marks)
    mark = next(snap, None)
    for _, key, deck, seating, places, row_faults, _ in rows:  # GameRow, unpacked: the cheapest read of its fields
        game = (seating, places)
        read += 1
        if read == mark:
            tallies.snapshots.append((read, {**counts, game: counts.get(game, 0) + 1}))
            mark = next(snap, None)
        counts[game] = counts.get(game, 0) + 1
        if row_faults:
            for fault in row_faults:
                if seating[fault.seat] not in index:
                    raise stranger(key, seating)
                faults[index[seating[fault.seat]]] += 1
        if deck == deal:
            run.append(game)
        else:
            tallies.close(run)
            deal, deals, run = deck, deals + 1, [game]
        if bootstrap:
            tallies.pattern_of.append(patterns.setdefault(game, len(patterns)))
            tallies.deal_of.append(deals)
    tallies.close(run)
    for names, _ in counts:
        if not all(name in index for name in names):
            raise stranger(None, names)
    return tallies


class _Unlike(Exception):
    """A row is not as this referee writes it: read the rows one by one instead."""


def tally_store(entrants: Sequence[str], store: Store, marks: Sequence[int] = ()) -> Tallies | None:
    """The tallies of the games of ``store`` (schema 2), or None when a row is not as this referee writes it (then
    :func:`tally_rows` of ``store.games()`` gives them, or the error naming the row). ``marks``: as tally_rows."""
    if store.old is not None:
        return None
    try:
        return _tally_store(entrants, store, marks)
    except _Unlike:
        return None
    except sqlite3.Error as exc:
        raise translate(store.path, exc) from exc


def _tally_store(entrants: Sequence[str], store: Store, marks: Sequence[int]) -> Tallies:
    index = {name: i for i, name in enumerate(entrants)}
    tallies = Tallies(faults=[0] * len(entrants))
    decoded: dict[str, Game] = {}  # a game's text (seating, newline, places) → the game

    def game_of(text: str) -> Game:
        game = decoded.get(text)
        if game is None:
            if type(text) is not str or text.count("\n") != 1:
                raise _Unlike
            seating, _, places = text.partition("\n")
            try:  # the seq and key only name a damaged row: there is none here (any is read again, one by one)
                names, placed = store.columns.seating(0, "", seating), store.columns.places(0, "", places)
            except StorageError:
                raise _Unlike from None
            if len(names) != len(placed) or not all(name in index for name in names):
                raise _Unlike
            game = decoded[text] = (names, placed)
        return game

    counts, faults = tallies.counts, tallies.faults
    faulted: dict[int, GameRow] = {}  # the games with a fault of the deals being added, by seq

    def fetch(items: Iterable[str | int]) -> None:
        """Read the games with a fault (an int: its seq) among ``items``, each checked as ``games()`` checks it."""
        seqs = [item for item in items if type(item) is int]
        try:
            for start in range(0, len(seqs), 900):  # an SQLite before 3.32 takes at most 999 parameters
                for row in store.games(seqs=seqs[start:start + 900]):
                    faulted[row.seq] = row
        except StorageError:
            raise _Unlike from None

    def game_at(item: str | int, count: int = 0) -> Game:
        """The game of a text, or of a game with a fault (its seq), whose faults count ``count`` times."""
        if type(item) is not int:
            return game_of(item)  # type: ignore[arg-type]
        row = faulted.get(item)  # type: ignore[arg-type]
        if row is None or not all(name in index for name in row.seating):
            raise _Unlike
        for fault in row.faults:
            faults[index[row.seating[fault.seat]]] += count
        return row.seating, row.places

    def add(runs: dict[tuple[str | int, ...], int]) -> None:
        fetch(item for items in runs for item in items)
        for items, count in runs.items():
            run = [game_at(item, count) for item in items]
            for game in run:
                counts[game] = counts.get(game, 0) + count
            tallies.close(run, count)
        runs.clear()
        faulted.clear()

    # A deal is a run of one seed in seq order. Its games' texts (a JSON array a text, so without a newline), or for
    # a game with a fault its seq (read whole, later), are counted by distinct deal: the loop below does the least a
    # game, and the rest is done once per distinct deal.
    rows = iter(store.db.execute("SELECT seed, CASE WHEN faults = 0 THEN seating || char(10) || places ELSE seq END "
                                 "FROM games ORDER BY seq"))
    runs: dict[tuple[str | int, ...], int] = {}
    deal: object = None
    run: list[str | int] = []
    read = 0
    for mark in (*marks, None):  # read up to each mark, then snapshot, without a test a game
        for seed, text in (rows if mark is None else islice(rows, mark - read)):
            if seed == deal:
                run.append(text)
                continue
            if run:
                texts = tuple(run)
                runs[texts] = runs.get(texts, 0) + 1
                if len(runs) == DEALS_HELD:
                    add(runs)
            # canonical decimal: equal texts are equal seeds (int() would read "01", " 1" or "1_0" too)
            if not (type(seed) is str and seed.isdigit() and seed.isascii() and (seed[0] != "0" or seed == "0")):
                raise _Unlike
            deal, run = seed, [text]
        if mark is not None:
            add(runs)
            snapshot = dict(counts)
            fetch(run)
            for game in [game_at(item) for item in run]:  # the deal being read, so far
                snapshot[game] = snapshot.get(game, 0) + 1
            read = sum(snapshot.values())
            if read == mark:  # else the games ended before it
                tallies.snapshots.append((mark, snapshot))
    if run:
        texts = tuple(run)
        runs[texts] = runs.get(texts, 0) + 1
    add(runs)
    return tallies


def tally(entrants: Sequence[str], store: Store, *, bootstrap: bool = False, marks: Sequence[int] = ()) -> Tallies:
    """The tallies of every game of ``store``: by :func:`tally_store`'s one scan where it can (not ``bootstrap``,
    which needs each game), else read row by row (:func:`tally_rows`, which names a damaged row)."""
    found = None if bootstrap else tally_store(entrants, store, marks)
    return found if found is not None else tally_rows(entrants, store.games(), bootstrap=bootstrap, marks=marks)
