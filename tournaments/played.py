"""How far a tournament's schedule was played: the ``played`` row of ``meta``, which ``verify`` checks against.

Games finish in any order (workers, batches, a Dask cluster), so an interrupted run legitimately leaves keys
missing near where it stopped; a row deleted behind the referee's back leaves one missing anywhere. The two are
told apart by what the run itself wrote: with every commit of games, the run stores how many games of the order of
play, from its start, are all stored (the longest stored prefix). Every game of that prefix must be there; those
after it may be missing (played again by ``resume``).

The row is a JSON list of *claims*, one per schedule a run played: ``{"tables": T, "games": P}`` for a round robin
or gauntlet (the first ``P`` games, in the order of play, of the tournament's first ``T`` tables: a ladder's ``join``
appends tables, which leaves the earlier ones' order and keys as they were, so an older claim stays true), or
``{"games": P}`` for an SPRT (its deals in order). A claim only grows: a row deleted after it was claimed stays
claimed, and so is named. A database written before the row existed has none: nothing is claimed until its next run
commits a game.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

from referee.errors import StorageError

from .config import TournamentConfig
from .schedule import Pairing, Scheduled, round_robin
from .sprt_plan import SprtPlan

__all__ = ["META_KEY", "Claims", "PrefixTracker", "claimed", "merge", "order", "parse", "table_count"]

META_KEY = "played"

Claims = list[dict[str, int]]


def table_count(config: TournamentConfig) -> int:
    """How many tables the schedule of a round robin or gauntlet has."""
    tables = config.tables()
    return len(tables if tables is not None else round_robin(len(config.entrants), config.seats))


def _table_of(key: str) -> int:
    head = key.split(".", 1)[0]
    return int(head[1:]) if head[:1] == "t" and head[1:].isdigit() else -1


def order(config: TournamentConfig, teams: Pairing | None, tables: int | None) -> Iterator[Scheduled]:
    """The order of play a claim counts in: an SPRT's deals one after the other (``tables`` None), or the schedule of
    the first ``tables`` tables."""
    if config.extra.sprt is not None:
        plan = SprtPlan.of(config)
        return (job for deal in range(plan.max_deals) for job in plan.deal(config.deals_from, deal))
    return (job for job in config.jobs(teams) if tables is None or _table_of(job.key) < tables)


def parse(text: str | None, where: object) -> Claims:
    """The stored claims (none when the row is absent); StorageError, one line, when the row is damaged."""
    if text is None:
        return []
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        value = None
    ok = isinstance(value, list) and all(
        isinstance(c, dict) and set(c) <= {"tables", "games"} and "games" in c
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in c.values()) for c in value)
    if not ok:
        raise StorageError(f"{where}: the stored record of the games played (meta '{META_KEY}') is damaged: "
                           f"{str(text)[:80]!r}")
    return list(value)


def merge(claims: Claims, claim: Mapping[str, int]) -> Claims:
    """``claims`` with ``claim`` added: a claim over the same tables keeps the larger count."""
    same = [c for c in claims if c.get("tables") == claim.get("tables")]
    if same and same[0]["games"] >= claim["games"]:
        return claims
    return [c for c in claims if c.get("tables") != claim.get("tables")] + [dict(claim)]


def claimed(config: TournamentConfig, teams: Pairing | None, claims: Claims) -> Iterator[Scheduled]:
    """Every game the claims say is stored (a game claimed twice comes twice)."""
    for claim in claims:
        yield from islice(order(config, teams, claim.get("tables")), claim["games"])


class PrefixTracker:
    """The longest stored prefix of an order of play, as games arrive: ``claim()`` is what a commit stores."""

    def __init__(self, keys: Iterable[str], stored: set[str], tables: int | None) -> None:
        self._keys = iter(keys)
        self._stored = set(stored)
        self._tables = tables
        self.games = 0
        self._next: str | None = None
        self._advance()

    def _advance(self) -> None:
        while True:
            if self._next is None:
                self._next = next(self._keys, None)
                if self._next is None:
                    return
            if self._next not in self._stored:
                return
            self._stored.discard(self._next)  # counted: the set keeps only the games ahead of the prefix
            self.games += 1
            self._next = None

    def add(self, key: str) -> None:
        self._stored.add(key)
        if key == self._next:
            self._advance()

    def claim(self) -> dict[str, Any]:
        return {"games": self.games} if self._tables is None else {"tables": self._tables, "games": self.games}
