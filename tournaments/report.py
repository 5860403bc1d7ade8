"""The tournament table: ratings, per-entrant statistics, the crosstable and two-seat head-to-heads.

A table can be partial (an interrupted or running tournament): it says how many games are ``played`` of the
``scheduled``. Since the schedule is played round by round, a prefix is a fair sample. An entrant without a game
yet is *unrated*: no rating and no interval (``None``), ranked after every rated entrant; the fit rates only the
entrants that played, centred at 1500 among them.

The rows are read once, as they come: the table is computed from their tallies (tournaments/tally.py: a count per
distinct (seating, places), the faults and the deal pairs), so its memory does not grow with the number of games;
a stored tournament's are counted in one lean SQL scan (:func:`stored_report`). Only ``--bootstrap`` keeps something
per game: two integers (its pattern and its deal, 8 bytes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.plugins import Registry

from .config import TournamentConfig
from .ratings import HeadToHeads, Placing, bootstrap_patterns, fit
from .storage import GameRow, Store
from .tally import Tallies, tally, tally_rows

__all__ = ["CROSSTABLE_SCORE", "Report", "build_report", "interval_source", "report_of",
           "stored_report", "stored_table"]

#: What a crosstable cell is, wherever the crosstable is shown (the terminal table, the HTML report).
CROSSTABLE_SCORE = "score: wins + ½ draws, of the games both played"


@dataclass
class Report:
    entrants: list[str]
    games: int
    rows: list[dict[str, Any]]  # one per entrant, best first
    ahead: list[list[float | None]]  # ahead[i][j]: share of shared games where i finished ahead of j
    score: list[list[float | None]]  # score[i][j]: i's score against j, (ahead + ½ tied) / shared games
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
            "crosstable": {"bots": self.entrants, "ahead": self.ahead, "score": self.score},
            "head_to_head": self.head_to_head,
        }


def interval_source(head_to_head: Sequence[dict[str, Any]]) -> str:
    """What the head-to-head rows' "Elo diff" ± is and where it comes from: the deal pairs of the rows with any
    (``pairs`` > 0), the single games of the others (``pairs`` 0, printed ``-``)."""
    paired = [h["pairs"] > 0 for h in head_to_head]
    if all(paired):
        return "95% interval, from the deal pairs"
    if not any(paired):
        return "95% interval, from the games (no deal pairs)"
    return "95% interval, from the deal pairs, or the games where pairs is -"


def build_report(entrants: Sequence[str], rows: Iterable[GameRow], *, teams: Sequence[Sequence[int]] | None = None,
                 bootstrap_samples: int = 0, seed: int = 0, scheduled: int | None = None) -> Report:
    """The table of ``rows``, the games stored so far, in ``seq`` order (a stream, read once); ``scheduled``: the
    games of the whole schedule (the table is partial while fewer are stored)."""
    tallies = tally_rows(entrants, rows, bootstrap=bootstrap_samples > 0)
    return report_of(entrants, tallies, teams=teams, bootstrap_samples=bootstrap_samples, seed=seed,
                     scheduled=scheduled)


def report_of(entrants: Sequence[str], tallies: Tallies, *, teams: Sequence[Sequence[int]] | None = None,
              bootstrap_samples: int = 0, seed: int = 0, scheduled: int | None = None) -> Report:
    """The table of the games ``tallies`` counted (:mod:`tournaments.tally`; with ``bootstrap_samples``, counted
    with ``bootstrap``)."""
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    counts, faults, patterns = tallies.counts, tallies.faults, tallies.patterns
    two_seats = True
    h2h = HeadToHeads()
    who: dict[tuple[str, ...], tuple[int, ...]] = {}  # a seating by entrant index

    def seated(names: tuple[str, ...]) -> tuple[int, ...]:
        seating = who.get(names)
        if seating is None:
            seating = who[names] = tuple(index[name] for name in names)
        return seating

    for (one, other), count in tallies.two_game_deals.items():
        h2h.deal([(seated(one[0]), one[1]), (seated(other[0]), other[1])], count)
    played = [0] * n
    place_sum = [0] * n
    first = [0] * n
    last = [0] * n
    ahead = [[0] * n for _ in range(n)]
    tied = [[0] * n for _ in range(n)]
    shared = [[0] * n for _ in range(n)]
    for (names, places), count in counts.items():
        players = seated(names)
        two_seats = two_seats and len(players) == 2
        h2h.add(players, places, count)
        worst = max(places)
        for seat, e in enumerate(players):
            played[e] += count
            place_sum[e] += places[seat] * count
            first[e] += count * (places[seat] == 1)
            last[e] += count * (places[seat] == worst and min(places) != worst)
            for other_seat, o in enumerate(players):
                if o != e:
                    shared[e][o] += count
                    ahead[e][o] += count * (places[seat] < places[other_seat])
                    tied[e][o] += count * (places[seat] == places[other_seat])
    rated = [i for i in range(n) if played[i]]  # the fit rates the entrants that played, centred among them
    ratings: list[float | None] = [None] * n
    cis: list[float | None] = [None] * n
    if counts:
        compact = {entrants[e]: k for k, e in enumerate(rated)}

        def placing(names: tuple[str, ...], places: tuple[int, ...]) -> Placing:
            return tuple(compact[name] for name in names), places

        if bootstrap_samples:
            result = bootstrap_patterns(len(rated), [placing(*game) for game in patterns],
                                        np.frombuffer(tallies.pattern_of, dtype=np.intc).astype(np.intp),
                                        np.frombuffer(tallies.deal_of, dtype=np.intc).astype(np.intp),
                                        samples=bootstrap_samples, seed=seed, teams=teams)
        else:
            result = fit(len(rated), Counter({placing(*game): count for game, count in counts.items()}),
                         teams=teams)
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
    # The crosstable's score: a game finished ahead 1, in the same place (a draw; partners in a team game) ½.
    score = [[round((ahead[i][j] + tied[i][j] / 2) / shared[i][j], 4) if shared[i][j] else None for j in range(n)]
             for i in range(n)]
    pairs = []
    if counts and two_seats:
        for a in range(n):
            for b in range(a + 1, n):
                h = h2h.result(a, b)
                if h.games:
                    elo, err = h.elo()
                    low, high = h.interval()
                    pairs.append({"bot": entrants[a], "opponent": entrants[b], "games": h.games, "wins": h.wins,
                                  "draws": h.draws, "losses": h.losses, "score": round(h.score, 4),
                                  "elo": round(elo, 1), "elo_error": round(err, 1), "los": round(h.los(), 4),
                                  "pairs": h.pair_count, "elo_low": round(low, 1), "elo_high": round(high, 1)})
    return Report(list(entrants), sum(counts.values()), table, share, score, pairs, scheduled=scheduled)


def stored_report(store: Store, registry: Registry, bootstrap_samples: int) -> Report:
    """The table of the tournament ``store`` holds, as far as it is played (what ``table`` prints)."""
    return stored_table(store, registry, bootstrap_samples)[0]


def stored_table(store: Store, registry: Registry, bootstrap_samples: int,
                 marks: Sequence[int] = ()) -> tuple[Report, Tallies]:
    """:func:`stored_report`, and the tallies it is computed from (with ``marks``, their snapshots: tally_rows)."""
    config = TournamentConfig.from_dict(store.config() or {})
    game = registry.game(config.game)
    teams = game.teams(config.seats)
    league = config.extra.league is not None  # a league has no schedule: it is never complete, its seed never shown
    scheduled = None if league else config.scheduled(teams)
    tallies = tally(config.entrants, store, bootstrap=bootstrap_samples > 0, marks=marks)
    report = report_of(config.entrants, tallies, teams=teams, bootstrap_samples=bootstrap_samples, seed=config.seed,
                       scheduled=scheduled)
    if not report.partial and not league:
        report.seed = config.seed  # shown once every deal is played: until then it would tell the deals to come
    return report, tallies
