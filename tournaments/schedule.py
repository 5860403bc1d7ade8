"""The schedule of a round-robin tournament: a pure, deterministic function of its configuration.

With B entrants and tables of K seats the schedule has, for every K-subset of the field (a *table*), every
seat rotation of that table, N deals each:

- **duplicate** (the default for card games): each deal (deck seed) is played under every rotation of the
  same table, so every entrant holds every hand of that deal once and the luck of the deal cancels;
- **no duplicate**: every (table, rotation, game) gets a deal of its own.

Team games (``teams`` given): for every K-subset, every way to split it into the game's teams, each played
under every rotation that moves the partnership round the table; partners change from table to table, so
individuals can be rated. A game is identified by its ``key``, which is stable across runs: resuming skips
the keys already stored.

**Rounds, not tables.** The games are played round by round: deal 0 of every table under every rotation, then
deal 1, and so on. So any prefix of a run, an interrupted one too, is a fair sample: every entrant has played about
as many games as every other, at every table, and the live leader means something. A game's ``seq`` numbers it
within its table (tables, then deals, then seatings), the order of the stored rows; it does not depend on the
order of play, so databases written when tournaments were played table by table resume as they are.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any

from referee.rng import derive_seed

__all__ = ["CANDIDATE", "BASELINE", "Pairing", "Scheduled", "Table", "deal_seed", "gauntlet", "joining", "round_robin",
           "schedule", "schedule_shape", "schedule_size", "substitution", "substitution_size", "tables_of"]


@dataclass(frozen=True, slots=True)
class Scheduled:
    """One game of the schedule: ``seating[s]`` is the entrant index in seat s."""

    key: str
    seq: int
    seed: int
    seating: tuple[int, ...]


Pairing = tuple[tuple[int, ...], ...]


def deal_seed(tournament_seed: int, table: int, deal: int) -> int:
    """The deck seed of one deal: a hash of the tournament seed and the deal's place in the schedule."""
    return derive_seed(tournament_seed, table, deal, sep="/")


def _seatings(table: Sequence[int], teams: Pairing | None) -> list[tuple[int, ...]]:
    """The seatings of one table: its K rotations; for team games, every team split times its rotations."""
    k = len(table)
    if not teams:
        return [tuple(table[(i + r) % k] for i in range(k)) for r in range(k)]
    seatings: list[tuple[int, ...]] = []
    seen: set[frozenset[frozenset[int]]] = set()
    for perm in permutations(table):
        split = frozenset(frozenset(perm[s] for s in team) for team in teams)
        if split in seen:
            continue
        seen.add(split)
        seatings.extend(tuple(perm[(i + r) % k] for i in range(k)) for r in range(k))
    return seatings


Table = tuple[int, ...]


def round_robin(entrants: int, seats: int) -> list[Table]:
    """Every K-subset of the entrants, in lexicographic order (table ``t`` of the keys is the t-th)."""
    return list(combinations(range(entrants), seats))


def gauntlet(field: int, candidates: Sequence[int], seats: int) -> list[Table]:
    """A gauntlet's tables: each candidate with every (K−1)-subset of the field (entrants ``0 … field−1``); the
    field does not play among itself, nor a candidate with another."""
    return [tuple(sorted((*others, c))) for c in candidates for others in combinations(range(field), seats - 1)]


def joining(entrants: int, new: Sequence[int], seats: int, among: Sequence[int] | None = None) -> list[Table]:
    """The tables a ladder adds when the entrants ``new`` join: every K-subset of ``among`` (default: all
    ``entrants``) that holds at least one of them, in lexicographic order. Appended after the tables already played,
    they leave every stored game's key and deal as they were."""
    joined = set(new)
    pool = range(entrants) if among is None else sorted(among)
    return [table for table in combinations(pool, seats) if joined & set(table)]


def tables_of(entrants: int, seats: int, stages: Sequence[Sequence[Any]] | None) -> list[Table] | None:
    """The tables of a tournament from its stored ``stages`` (None: the round robin of all entrants).

    ``["round_robin", N]``: every K-subset of entrants 0 … N−1. ``["gauntlet", F, C]``: entrants 0 … F−1 are the
    field, F … F+C−1 the candidates (:func:`gauntlet`). ``["join", BEFORE, AFTER]``: a ladder's step, entrants
    BEFORE … AFTER−1 joined: in a round robin the tables that hold one of them (:func:`joining`), in a gauntlet
    they are candidates too. Each stage's tables follow the earlier stages', so stored keys never change.
    :class:`ValueError` for stages that do not describe ``entrants`` entrants."""
    if not stages:
        return None
    kind, *sizes = stages[0]
    if kind == "round_robin" and len(sizes) == 1:
        tables, field_size = round_robin(int(sizes[0]), seats), None
        count = int(sizes[0])
    elif kind == "gauntlet" and len(sizes) == 2:
        field_size, candidates = int(sizes[0]), int(sizes[1])
        tables = gauntlet(field_size, range(field_size, field_size + candidates), seats)
        count = field_size + candidates
    else:
        raise ValueError(f"unknown first stage {list(stages[0])!r}")
    for stage in stages[1:]:
        if len(stage) != 3 or stage[0] != "join" or int(stage[1]) != count or int(stage[2]) <= count:
            raise ValueError(f"stage {list(stage)!r} does not follow {count} entrants")
        new = range(count, int(stage[2]))
        count = int(stage[2])
        tables += joining(count, new, seats) if field_size is None else gauntlet(field_size, new, seats)
    if count != entrants:
        raise ValueError(f"the stages describe {count} entrants, not {entrants}")
    return tables


def schedule(entrants: int, seats: int, games: int, *, seed: int, duplicate: bool = True,
             teams: Pairing | None = None, tables: Sequence[Table] | None = None) -> Iterator[Scheduled]:
    """Every game of the tournament in the order of play: round by round (deals, then tables, then seatings);
    ``seq`` numbers the games table by table (tables, then deals, then seatings). ``tables``: the tables to play
    (default: the round robin of all entrants)."""
    chosen = round_robin(entrants, seats) if tables is None else tables
    tables_seatings = [_seatings(table, teams) for table in chosen]
    per_table = games * len(tables_seatings[0]) if tables_seatings else 0
    for deal in range(games):
        for t, seatings in enumerate(tables_seatings):
            for r, seating in enumerate(seatings):
                if duplicate:
                    deck = deal_seed(seed, t, deal)
                else:
                    deck = deal_seed(seed, t, deal * len(seatings) + r)
                yield Scheduled(f"t{t}.d{deal}.r{r}", t * per_table + deal * len(seatings) + r, deck, seating)


def schedule_shape(entrants: int, seats: int, teams: Pairing | None = None,
                   tables: Sequence[Table] | None = None) -> tuple[int, int]:
    """(tables, seatings per table): one round of the schedule plays every table under every seating once, and a
    tournament of N deals (``--games N``) is N rounds."""
    return (math.comb(entrants, seats) if tables is None else len(tables)), len(_seatings(tuple(range(seats)), teams))


def schedule_size(entrants: int, seats: int, games: int, teams: Pairing | None = None,
                  tables: Sequence[Table] | None = None) -> int:
    """How many games the schedule holds: tables × seatings × deals."""
    count, seatings = schedule_shape(entrants, seats, teams, tables)
    return count * seatings * games


# ------------------------------------------------------------------------------------- duplicate substitution

#: Entrant indices of a substitution schedule: the candidate, the baseline, then the field.
CANDIDATE, BASELINE = 0, 1


def substitution_size(seats: int, field: int) -> int:
    """Games per deal of :func:`substitution`: 2 for a pair (two seats, no field), else 2 · seats."""
    return 2 if field == 0 else 2 * seats


def substitution(seats: int, field: int, *, seed: int, deal: int) -> list[Scheduled]:
    """The games of one deal of an SPRT (tournaments/sprt.py): the candidate (entrant 0) in every seat, the field's
    bots (entrants 2 …) in the other seats, then the baseline (entrant 1) in the same seats against the same bots in
    the same places, all on one deck. With two seats and no field the baseline is the opponent: two games, the
    candidate in each seat (fastchess' game pair).

    The field's bots keep their order round the table as the tested seat moves, so every seat sees the same
    neighbours; from deal to deal the (K−1)-subset of the field and its order rotate, so each field bot meets every
    seat. Keys ``d{deal}.c{seat}`` and ``d{deal}.b{seat}``; ``seq`` numbers deal by deal."""
    deck = deal_seed(seed, 0, deal)
    per_deal = substitution_size(seats, field)
    if field == 0:
        if seats != 2:
            raise ValueError("without a field, a substitution schedule is for two seats")
        return [Scheduled(f"d{deal}.c{s}", deal * per_deal + s, deck,
                          (CANDIDATE, BASELINE) if s == 0 else (BASELINE, CANDIDATE)) for s in range(2)]
    if field < seats - 1:
        raise ValueError(f"{seats} seats need a field of at least {seats - 1} bots, got {field}")
    subsets = list(combinations(range(2, 2 + field), seats - 1))
    chosen = subsets[deal % len(subsets)]
    turn = (deal // len(subsets)) % (seats - 1)
    others = chosen[turn:] + chosen[:turn]
    games: list[Scheduled] = []
    for tested, label in ((CANDIDATE, "c"), (BASELINE, "b")):
        order = (tested, *others)  # round the table, from the tested seat
        for s in range(seats):
            seating = tuple(order[(i - s) % seats] for i in range(seats))
            games.append(Scheduled(f"d{deal}.{label}{s}", deal * per_deal + len(games), deck, seating))
    return games
