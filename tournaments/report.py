"""The tournament table: ratings, per-entrant statistics, the crosstable and two-seat head-to-heads.

A table can be partial (an interrupted or running tournament): it says how many games are ``played`` of the
``scheduled``. Since the schedule is played round by round, a prefix is a fair sample. An entrant without a game
yet is *unrated*: no rating and no interval (``None``), ranked after every rated entrant; the fit rates only the
entrants that played, centred at 1500 among them.

The rows are read once, as they come (``Store.games()`` streams them): the table keeps a count per distinct
(seating, places), the faults and the deal pairs in flight, so its memory does not grow with the number of games.
Only ``--bootstrap`` keeps something per game: two integers (its pattern and its deal, 8 bytes).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.errors import StorageError
from referee.plugins import Registry

from .config import TournamentConfig
from .ratings import HeadToHeads, Placing, bootstrap_patterns, fit
from .storage import GameRow, Store

__all__ = ["CROSSTABLE_SCORE", "Report", "build_report", "interval_source", "stored_report"]

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


def _stranger(key: str | None, seating: Sequence[str]) -> StorageError:
    """A stored game that seats someone who is not an entrant: a damaged (or forged) row, one line."""
    where = f"game {key!r:.40}" if key is not None else "a stored game"
    return StorageError(f"{where} seats {', '.join(repr(n)[:40] for n in seating)}: not all entrants of this "
                        "tournament (the row is damaged)")


def build_report(entrants: Sequence[str], rows: Iterable[GameRow], *, teams: Sequence[Sequence[int]] | None = None,
                 bootstrap_samples: int = 0, seed: int = 0, scheduled: int | None = None,
                 counted: Mapping[tuple[tuple[str, ...], tuple[int, ...]], int] | None = None,
                 faulted: Mapping[str, int] | None = None) -> Report:
    """The table of ``rows``, the games stored so far, in ``seq`` order (a stream, read once); ``scheduled``: the
    games of the whole schedule (the table is partial while fewer are stored). ``counted``: games counted already,
    by (seating, places), with ``faulted`` their faults per entrant (a league keeps them as its games finish, and
    passes no rows): the table is the same, but its head-to-head rows have no deal pairs of them."""
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    Game = tuple[tuple[str, ...], tuple[int, ...]]  # (seating, places), by name
    counts: dict[Game, int] = dict(counted or {})  # game → how often, in order of first appearance
    faults = [(faulted or {}).get(name, 0) for name in entrants]
    two_seats = True
    h2h = HeadToHeads()
    who: dict[tuple[str, ...], tuple[int, ...]] = {}  # a seating by entrant index

    def seated(names: tuple[str, ...]) -> tuple[int, ...]:
        seating = who.get(names)
        if seating is None:
            seating = who[names] = tuple(index[name] for name in names)
        return seating

    # A deal is a run of one seed: under duplicate deals every rotation of a deck shares its seed, and the schedule
    # numbers them consecutively. A deal's games of one pair of bots are a deal pair when they are two (the pair's
    # games by deal, as head_to_head groups them); an SPRT with a field plays several pairs on one deck. Deals are
    # counted by their two games (all a deal pair needs); --bootstrap keeps each game's pattern (its index in
    # ``patterns``) and deal.
    two_game_deals: dict[tuple[Game, Game], int] = {}
    deal: int | None = None
    deals = -1
    run: list[Game] = []  # the games of the deal being read (a few: its rotations)
    pattern_of, deal_of = array("i"), array("i")
    patterns: dict[Game, int] = {}

    def close(run: list[Game]) -> None:
        if len(run) == 2:
            pairs: Iterable[list[Game]] = (run,)
        else:
            by_pair: dict[frozenset[str], list[Game]] = {}
            for one in run:
                by_pair.setdefault(frozenset(one[0]), []).append(one)
            pairs = by_pair.values()
        for games in pairs:
            if len(games) == 2:
                both = (games[0], games[1])
                two_game_deals[both] = two_game_deals.get(both, 0) + 1

    for _, key, deck, seating, places, row_faults, _ in rows:  # GameRow, unpacked: the cheapest read of its fields
        game = (seating, places)
        counts[game] = counts.get(game, 0) + 1
        if row_faults:
            for fault in row_faults:
                if seating[fault.seat] not in index:
                    raise _stranger(key, seating)
                faults[index[seating[fault.seat]]] += 1
        if deck == deal:
            run.append(game)
        else:
            if len(run) > 1:
                close(run)
            deal, deals, run = deck, deals + 1, [game]
        if bootstrap_samples:
            pattern_of.append(patterns.setdefault(game, len(patterns)))
            deal_of.append(deals)
    if len(run) > 1:
        close(run)
    for names, _ in counts:
        if not all(name in index for name in names):
            raise _stranger(None, names)
    for (one, other), count in two_game_deals.items():
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
                                        np.frombuffer(pattern_of, dtype=np.intc).astype(np.intp),
                                        np.frombuffer(deal_of, dtype=np.intc).astype(np.intp),
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
    config = TournamentConfig.from_dict(store.config() or {})
    game = registry.game(config.game)
    teams = game.teams(config.seats)
    league = config.extra.league is not None  # a league has no schedule: it is never complete, its seed never shown
    scheduled = None if league else config.scheduled(teams)
    report = build_report(config.entrants, store.games(), teams=teams,  # streamed: the rows are read once
                          bootstrap_samples=bootstrap_samples, seed=config.seed, scheduled=scheduled)
    if not report.partial and not league:
        report.seed = config.seed  # shown once every deal is played: until then it would tell the deals to come
    return report
