"""The tournament table: ratings, per-entrant statistics, the crosstable and two-seat head-to-heads.

A table can be partial (an interrupted or running tournament): it says how many games are ``played`` of the
``scheduled``. Since the schedule is played round by round, a prefix is a fair sample. An entrant without a game
yet is *unrated*: no rating and no interval (``None``), ranked after every rated entrant; the fit rates only the
entrants that played, centred at 1500 among them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .ratings import Placing, bootstrap, fit, head_to_head
from .storage import GameRow

__all__ = ["Report", "build_report"]


@dataclass
class Report:
    entrants: list[str]
    games: int
    rows: list[dict[str, Any]]  # one per entrant, best first
    ahead: list[list[float | None]]  # ahead[i][j]: share of shared games where i finished ahead of j
    head_to_head: list[dict[str, Any]]
    seed: int | None = None  # the tournament seed, set once every scheduled game is stored
    scheduled: int | None = None  # the games of the whole schedule; None: the rows are the whole tournament

    @property
    def played(self) -> int:
        return self.games

    @property
    def partial(self) -> bool:
        """Are games of the schedule still missing?"""
        return self.scheduled is not None and self.games < self.scheduled

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "played": self.games,
            "scheduled": self.scheduled if self.scheduled is not None else self.games,
            "partial": self.partial,
            "seed": self.seed,
            "ratings": self.rows,
            "crosstable": {"bots": self.entrants, "ahead": self.ahead},
            "head_to_head": self.head_to_head,
        }


def build_report(entrants: Sequence[str], rows: Sequence[GameRow], *, teams: Sequence[Sequence[int]] | None = None,
                 bootstrap_samples: int = 0, seed: int = 0, scheduled: int | None = None) -> Report:
    """The table of ``rows``, the games stored so far; ``scheduled``: the games of the whole schedule (the table is
    partial while fewer are stored)."""
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    games: list[Placing] = []
    played = [0] * n
    place_sum = [0.0] * n
    first = [0] * n
    last = [0] * n
    faults = [0] * n
    ahead = [[0] * n for _ in range(n)]
    shared = [[0] * n for _ in range(n)]
    for row in rows:
        seating = tuple(index[name] for name in row.seating)
        places = tuple(row.places)
        games.append((seating, places))
        worst = max(places)
        for seat, e in enumerate(seating):
            played[e] += 1
            place_sum[e] += places[seat]
            first[e] += places[seat] == 1
            last[e] += places[seat] == worst and min(places) != worst
            for other_seat, o in enumerate(seating):
                if o != e:
                    shared[e][o] += 1
                    ahead[e][o] += places[seat] < places[other_seat]
        for fault in row.faults:
            faults[seating[fault.seat]] += 1
    deals = [row.seed for row in rows]  # under duplicate deals, every rotation of a deck shares its seed
    rated = [i for i in range(n) if played[i]]  # the fit rates the entrants that played, centred among them
    ratings: list[float | None] = [None] * n
    cis: list[float | None] = [None] * n
    if games:
        compact = {e: k for k, e in enumerate(rated)}
        placings = [(tuple(compact[e] for e in seating), places) for seating, places in games]
        result = (bootstrap(len(rated), placings, samples=bootstrap_samples, seed=seed, teams=teams, deals=deals)
                  if bootstrap_samples else fit(len(rated), placings, teams=teams))
        for k, e in enumerate(rated):
            ratings[e], cis[e] = float(result.rating[k]), float(result.ci[k])
    # Best first; the unrated (no game yet) after every rated entrant, in entrant order.
    order = sorted(rated, key=lambda i: -(ratings[i] or 0.0)) + [i for i in range(n) if not played[i]]
    table = [
        {
            "rank": rank,
            "bot": entrants[i],
            "rating": round(rating, 1) if (rating := ratings[i]) is not None else None,
            "ci": round(ci, 1) if (ci := cis[i]) is not None else None,
            "games": played[i],
            "mean_place": round(place_sum[i] / played[i], 3) if played[i] else None,
            "first": round(first[i] / played[i], 4) if played[i] else None,
            "last": round(last[i] / played[i], 4) if played[i] else None,
            "faults": faults[i],
        }
        for rank, i in enumerate(order, 1)
    ]
    share = [[round(ahead[i][j] / shared[i][j], 4) if shared[i][j] else None for j in range(n)] for i in range(n)]
    pairs = []
    if games and all(len(s) == 2 for s, _ in games):
        for a in range(n):
            for b in range(a + 1, n):
                h = head_to_head(games, a, b, deals)
                if h.games:
                    elo, err = h.elo()
                    low, high = h.interval()
                    pairs.append({"bot": entrants[a], "opponent": entrants[b], "games": h.games, "wins": h.wins,
                                  "draws": h.draws, "losses": h.losses, "score": round(h.score, 4),
                                  "elo": round(elo, 1), "elo_error": round(err, 1), "los": round(h.los(), 4),
                                  "pairs": h.pair_count, "elo_low": round(low, 1), "elo_high": round(high, 1)})
    return Report(list(entrants), len(games), table, share, pairs, scheduled=scheduled)
