"""Ratings: live openskill updates during a run, and the final whole-pool Plackett-Luce fit.

**Live** (:class:`LiveRatings`): openskill's Plackett-Luce model, one update per finished game, keyed by
entrant name. τ is set in the model's constructor: the package ignores ``tau=0`` passed to ``rate()``.

**Final** (:func:`fit`): the maximum-likelihood Plackett-Luce strengths over all games at once. A game's
finishing order is read group by group: the best group is chosen from all the players of the table, the
next from those left, and so on. Tied players (one group) are handled as Breslow does for Cox models: each
member of a group of size m contributes ``θ_i`` against ``m · log Σ_{j left} e^{θ_j}``. A Gaussian prior
``θ ~ N(0, σ²)`` (σ = ``prior_elo`` Elo) keeps an unbeaten entrant finite. Newton's method on the
log-posterior; 95% intervals from the inverse of the information matrix (or a bootstrap over whole games).
Ratings are on the Elo scale (``400 / ln 10`` per unit of θ) and centred at 1500.

Team games: a team's strength is the sum of its members' θ (openskill's "team sum"), so the individuals of a
team share the team's place in the likelihood.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from openskill.models import PlackettLuce

from .sprt import PairedScores, deal_score

__all__ = ["LiveRatings", "Fit", "fit", "bootstrap", "bootstrap_patterns", "ELO", "head_to_head", "HeadToHead",
           "HeadToHeads", "wilson"]

ELO = 400 / math.log(10)  # Elo points per unit of log-strength
CENTRE = 1500.0

#: One game for the fit: the entrants per seat and the place per seat (optionally the seats' teams).
Placing = tuple[tuple[int, ...], tuple[int, ...]]


class LiveRatings:
    """openskill Plackett-Luce ratings, updated game by game.

    :meth:`update` is ``PlackettLuce.rate`` with ranks (no scores, weights, balance or sigma limit: the model as
    constructed here), computed here in the model's own order of operations: ``rate`` checks its arguments and deep
    copies every rating, 20–40 µs a game, and the main process, which stores up to tens of thousands of games a
    second, updates these once per game. tests/unit/test_ratings.py holds the two to the last bit."""

    def __init__(self, names: Sequence[str], *, tau: float = 0.0) -> None:
        self.model = PlackettLuce(tau=tau)  # τ here: the package ignores tau=0 passed to rate()
        self.ratings = {name: self.model.rating(name=name) for name in names}

    def update(self, seating: Sequence[str], places: Sequence[int],
               teams: Sequence[Sequence[int]] | None = None) -> None:
        ratings = self.ratings
        if teams:
            self._rate([[ratings[seating[s]] for s in team] for team in teams], [places[team[0]] for team in teams])
        else:
            self._rate([[ratings[name]] for name in seating], places)

    def _rate(self, teams: list[list[Any]], ranks: Sequence[int]) -> None:
        """``self.model.rate(teams, ranks=ranks)``, its new ratings written into the rating objects given."""
        model = self.model
        tau_squared = model.tau * model.tau
        sqrt, exp = math.sqrt, math.exp
        order = sorted(range(len(teams)), key=ranks.__getitem__)  # rate() sorts the teams by rank, stably
        rank = [int(float(ranks[t])) for t in order]
        # per team, in rank order: its players' (mu, sigma with τ), the team's mu and sigma²
        players = [[(p.mu, sqrt(p.sigma * p.sigma + tau_squared)) for p in teams[t]] for t in order]
        team_mu, team_sigma_squared = [], []
        for members in players:
            if len(members) == 1:
                team_mu.append(members[0][0] + 0.0)
                team_sigma_squared.append(members[0][1] ** 2 + 0.0)
                continue
            mu_summed = sigma_squared_summed = 0.0
            for mu, sigma in sorted(members, key=lambda m: m[0] - 3.0 * m[1], reverse=True):  # by ordinal
                mu_summed += mu
                sigma_squared_summed += sigma ** 2
            team_mu.append(mu_summed)
            team_sigma_squared.append(sigma_squared_summed)
        k = len(order)
        beta_squared = model.beta ** 2
        collective = 0.0
        for sigma_squared in team_sigma_squared:
            collective += sigma_squared + beta_squared
        c = sqrt(collective)
        exp_mu = [exp(mu / c) for mu in team_mu]
        # the ranks are sorted: the teams at or below q's rank are those from the first of its rank group on
        first = [rank.index(r) for r in rank]
        sum_q = []
        for q in range(k):
            total = 0.0
            for i in range(first[q], k):
                total += exp_mu[i]
            sum_q.append(total)
        a = [rank.count(r) for r in rank]
        kappa, c_squared = model.kappa, c ** 2
        for i in range(k):
            omega = delta = 0.0
            mine, last = exp_mu[i], first[i] + a[i]  # the teams ranked at or above i: 0 … last − 1
            for q in range(last):
                share = mine / sum_q[q]
                delta += share * (1 - share) / a[q]
                if q == i:
                    omega += (1 - share) / a[q]
                else:
                    omega -= share / a[q]
            sigma_squared = team_sigma_squared[i]
            omega *= sigma_squared / c
            delta *= sigma_squared / c_squared
            delta *= sqrt(sigma_squared) / c  # the model's default gamma
            for rating, (mu, sigma) in zip(teams[order[i]], players[i], strict=True):
                part = sigma ** 2 / sigma_squared
                rating.mu = mu + part * omega
                rating.sigma = sigma * sqrt(max(1 - part * delta, kappa))

    def leader(self) -> tuple[str, float]:
        name = max(self.ratings, key=lambda n: self.ratings[n].ordinal())
        return name, self.ratings[name].ordinal()


@dataclass(frozen=True)
class Fit:
    """Final ratings: ``rating[i]`` (Elo, centred at 1500) and ``ci[i]``, the 95% half-width."""

    rating: np.ndarray
    ci: np.ndarray
    iterations: int


Stage = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


def _stages_of(game: Placing, teams: Sequence[Sequence[int]] | None) -> list[Stage]:
    """The likelihood stages of one game: (the units still in, the group chosen now), best group first."""
    seating, places = game
    if teams:  # a team is one unit whose strength is the sum of its members'
        units = [tuple(sorted(seating[s] for s in team)) for team in teams]
        unit_places = [places[team[0]] for team in teams]
    else:
        units = [(p,) for p in seating]
        unit_places = list(places)
    order = sorted(range(len(units)), key=lambda u: unit_places[u])
    left = [units[u] for u in order]
    stages = []
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and unit_places[order[j]] == unit_places[order[i]]:
            j += 1
        if len(left) > 1:  # the last unit left over carries no information
            stages.append((tuple(sorted(left)), tuple(sorted(units[u] for u in order[i:j]))))
        left = [units[u] for u in order[j:]]
        i = j
    return stages


def _stages(games: Iterable[Placing] | Counter[Placing], teams: Sequence[Sequence[int]] | None) -> Counter:
    """Count the distinct likelihood stages over all games (or a Counter of them): stage → how often."""
    stages: Counter = Counter()
    for game, count in (games if isinstance(games, Counter) else Counter(games)).items():
        for stage in _stages_of(game, teams):
            stages[stage] += count
    return stages


Compiled = list[tuple[np.ndarray, np.ndarray, int]]


def _compile(n: int, stages: Iterable[Stage]) -> Compiled:
    """Each stage as (membership of the units still in, membership of the chosen group, group size)."""
    compiled = []
    for risk, group in stages:
        r = np.zeros((len(risk), n))
        for k, unit in enumerate(risk):
            r[k, list(unit)] = 1.0  # a unit's strength: the sum of its members' θ
        g = np.zeros(n)
        for unit in group:
            g[list(unit)] += 1.0
        compiled.append((r, g, len(group)))
    return compiled


def _newton(n: int, compiled: Compiled, counts: Sequence[float], prior: float,
            max_iter: int = 100) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise the log-posterior (stage i seen ``counts[i]`` times); return θ, the information matrix and the
    iterations used."""
    theta = np.zeros(n)
    info = np.eye(n) * prior
    iteration = 0
    while iteration < max_iter:
        iteration += 1
        grad = -prior * theta
        info = np.eye(n) * prior
        for (r, g, m), c in zip(compiled, counts, strict=True):
            if not c:
                continue
            s = r @ theta
            w = np.exp(s - s.max())
            p = w / w.sum()
            e = r.T @ p  # expected membership of the chosen unit
            grad += c * (g - m * e)
            cov = (r.T * p) @ r - np.outer(e, e)
            info += c * m * cov
        step = np.linalg.solve(info, grad)
        theta += step
        if np.abs(step).max() < 1e-9:
            break
    return theta, info, iteration


def fit(n: int, games: Iterable[Placing] | Counter[Placing], *, teams: Sequence[Sequence[int]] | None = None,
        prior_elo: float = 1000.0) -> Fit:
    """The whole-pool Plackett-Luce fit of ``n`` entrants (indices 0..n-1), from the games or a Counter of them
    (game → how often: what a table of a million games holds, since identical games are fitted once)."""
    prior = (ELO / prior_elo) ** 2
    stages = _stages(games, teams)
    theta, info, iterations = _newton(n, _compile(n, stages), list(stages.values()), prior)
    centre = np.eye(n) - 1.0 / n  # ratings are reported relative to the field's mean
    cov = centre @ np.linalg.inv(info) @ centre.T
    rating = CENTRE + ELO * (centre @ theta)
    ci = 1.959964 * ELO * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return Fit(rating, ci, iterations)


def bootstrap(n: int, games: Sequence[Placing], *, samples: int = 200, seed: int = 0,
              teams: Sequence[Sequence[int]] | None = None, prior_elo: float = 1000.0,
              deals: Sequence[Hashable] | None = None) -> Fit:
    """Ratings from :func:`fit`, with 95% intervals from a bootstrap over whole deals (percentiles).

    ``deals[i]`` names the deal of game i (its deck seed): a resample draws deals with replacement and keeps
    every game of a drawn deal, so under duplicate deals the rotations of one deck stay together and the
    interval sees that their luck cancels. Without ``deals`` every game is a deal of its own.
    """
    patterns: dict[Placing, int] = {}
    pattern_of = np.array([patterns.setdefault(game, len(patterns)) for game in games], dtype=np.intp)
    deal_ids: dict[Hashable, int] = {}
    deal_of = np.array([deal_ids.setdefault(d, len(deal_ids)) for d in (range(len(games)) if deals is None
                                                                         else deals)], dtype=np.intp)
    if len(deal_of) != len(games):
        raise ValueError(f"{len(deal_of)} deals given for {len(games)} games")
    return bootstrap_patterns(n, list(patterns), pattern_of, deal_of, samples=samples, seed=seed, teams=teams,
                              prior_elo=prior_elo)


def bootstrap_patterns(n: int, patterns: Sequence[Placing], pattern_of: np.ndarray, deal_of: np.ndarray, *,
                       samples: int = 200, seed: int = 0, teams: Sequence[Sequence[int]] | None = None,
                       prior_elo: float = 1000.0) -> Fit:
    """:func:`bootstrap` of games given compactly: game i is ``patterns[pattern_of[i]]``, of deal ``deal_of[i]``
    (deals numbered 0, 1, … in order of first appearance), so a million games cost two integer arrays."""
    pattern_games = np.bincount(pattern_of, minlength=len(patterns))
    base = fit(n, Counter({game: int(count) for game, count in zip(patterns, pattern_games, strict=True)}),
               teams=teams, prior_elo=prior_elo)
    prior = (ELO / prior_elo) ** 2
    deal_count = int(deal_of.max()) + 1 if len(deal_of) else 0
    # A resample's stage counts, linearly from its pattern counts: stage_of[k] counts pattern pair_pattern[k].
    stage_ids: dict[Stage, int] = {}
    pair_stage, pair_pattern = [], []
    for p, game in enumerate(patterns):
        for stage in _stages_of(game, teams):
            pair_stage.append(stage_ids.setdefault(stage, len(stage_ids)))
            pair_pattern.append(p)
    compiled = _compile(n, stage_ids)
    stage_of, pattern_pairs = np.array(pair_stage, dtype=np.intp), np.array(pair_pattern, dtype=np.intp)
    rng = np.random.default_rng(seed)
    draws = np.empty((samples, n))
    for k in range(samples):
        drawn = np.bincount(rng.integers(0, deal_count, deal_count), minlength=deal_count)
        pattern_counts = np.bincount(pattern_of, weights=drawn[deal_of], minlength=len(patterns))
        counts = np.bincount(stage_of, weights=pattern_counts[pattern_pairs], minlength=len(stage_ids))
        theta, _, _ = _newton(n, compiled, counts.tolist(), prior)
        draws[k] = ELO * (theta - theta.mean())
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return Fit(base.rating, (high - low) / 2, base.iterations)


@dataclass(frozen=True)
class HeadToHead:
    """Two-seat statistics of ``a`` against ``b``, as chess tournament tools print them.

    W/D/L count games. The score, the Elo difference and its interval come from :attr:`scores`: the deal pairs'
    pair scores when ``pairs`` holds any (a deal played from both seats, pentanomial: 0, ¼, ½, ¾, 1), otherwise
    each game's score (1, ½, 0: trinomial). Either way they are read as tournaments.sprt reads paired scores
    (:class:`~tournaments.sprt.PairedScores`: a variance prior of one deal at ¼, the score shrunk by one deal at ½),
    so the figures stay finite and continuous near a 100 % score."""

    a: int
    b: int
    wins: int
    draws: int
    losses: int
    pairs: PairedScores | None = None  # the complete deal pairs' scores for ``a``; None or empty: none complete

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pair_count(self) -> int:
        """The deal pairs the score and the Elo figures come from (0: they come from the single games)."""
        return self.pairs.n if self.pairs is not None else 0

    @property
    def scores(self) -> PairedScores:
        """The scores the figures come from: the deal pairs', or without any, the games' (1 win, ½ draw, 0 loss)."""
        if self.pairs is not None and self.pairs.n:
            return self.pairs
        return PairedScores(self.games, self.wins + 0.5 * self.draws, self.wins + 0.25 * self.draws)

    @property
    def score(self) -> float:
        """The mean of :attr:`scores` (½ without games)."""
        return self.scores.mean

    def interval(self) -> tuple[float, float]:
        """The 95 % interval of the Elo difference (low, high); (−inf, inf) without games."""
        if self.games == 0:
            return -math.inf, math.inf
        _, low, high = self.scores.elo()
        return low, high

    def elo(self) -> tuple[float, float]:
        """The Elo difference (of the score shrunk by one deal at ½) and its ± error: half the 95 % interval's
        width (the interval itself, not symmetric near 100 %, is :meth:`interval`)."""
        if self.games == 0:
            return 0.0, math.inf
        estimate, low, high = self.scores.elo()
        return estimate + 0.0, (high - low) / 2  # + 0.0: an even score is 0, not -0

    def los(self) -> float:
        """Likelihood of superiority: P(a is stronger than b), from the same scores, mean and error as the Elo and
        its interval (:meth:`tournaments.sprt.PairedScores.los`): the deal pairs' when there are any, else the
        games'. So it is above ½ exactly when the Elo is above 0, and above 97.5 % exactly when the interval is."""
        return self.scores.los() if self.games else 0.5


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``k`` successes in ``n`` trials (95% for the default z)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def head_to_head(games: Sequence[Placing], a: int, b: int, deals: Sequence[Hashable] | None = None) -> HeadToHead:
    """``a`` against ``b`` over their two-seat games (:class:`HeadToHeads` of these games, in this order).
    ``deals[i]`` names the deal of game i (its deck seed), and the games of a deal come one after another; without
    ``deals`` every game is a deal of its own."""
    tally = HeadToHeads()
    run: list[Placing] = []
    for i, game in enumerate(games):
        tally.add(*game)
        if deals is not None:
            if run and deals[i] != deals[i - 1]:
                tally.deal(run)
                run = []
            run.append(game)
    tally.deal(run)
    return tally.result(a, b)


@dataclass
class HeadToHeads:
    """The two-seat head-to-heads of every pair of entrants: memory for each pair of entrants, not for each game.

    W/D/L count games (:meth:`add`). A deal (:meth:`deal`: the games of one deck seed) of two games of the same two
    bots with the seats swapped is a deal pair, scored for the first of the two as tournaments.sprt scores a game
    pair (:func:`~tournaments.sprt.deal_score`); any other deal is no pair. The schedule numbers a deal's rotations
    consecutively (``seq``), so a stream of games in schedule order meets each deal as a run of one seed. A game
    without a partner (a partial tournament, or independent deals) counts in W/D/L only, unless no pair is complete
    at all."""

    _wdl: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # for the pair's first: W, D, L
    _pairs: dict[tuple[int, int], PairedScores] = field(default_factory=dict)  # for the pair's first

    def add(self, seating: Sequence[int], places: Sequence[int], count: int = 1) -> None:
        """``count`` games of this seating and places (of two seats: others are no head-to-head, ignored)."""
        if len(seating) != 2 or seating[0] == seating[1]:
            return
        x, y = seating
        pair = (x, y) if x < y else (y, x)
        wdl = self._wdl.get(pair)
        if wdl is None:
            wdl = self._wdl[pair] = [0, 0, 0]
        first, second = (places[0], places[1]) if x == pair[0] else (places[1], places[0])
        wdl[0 if first < second else 2 if first > second else 1] += count

    def deal(self, games: Sequence[Placing], count: int = 1) -> None:
        """The games of one deal (or of ``count`` deals that went alike): a deal pair when they are two games of two
        bots with the seats swapped."""
        if len(games) != 2:
            return
        (s1, p1), (s2, p2) = games
        if len(s1) != 2 or s1[0] == s1[1] or tuple(s1) != tuple(s2[::-1]):
            return
        pair = (s1[0], s1[1]) if s1[0] < s1[1] else (s1[1], s1[0])
        one, two = (p1, p2) if s1[0] == pair[0] else (p2, p1)  # one: the pair's first in seat 0
        scores = self._pairs.get(pair)
        if scores is None:
            scores = self._pairs[pair] = PairedScores()
        y = deal_score([one[0], two[1]], [one[1], two[0]])  # a multiple of ¼: the sums below are exact
        scores.n, scores.total, scores.squares = (scores.n + count, scores.total + count * y,
                                                  scores.squares + count * y * y)

    def result(self, a: int, b: int) -> HeadToHead:
        """``a`` against ``b``: their :class:`HeadToHead`."""
        pair = (a, b) if a < b else (b, a)
        wins, draws, losses = self._wdl.get(pair, [0, 0, 0])
        scores = self._pairs.get(pair)
        if scores is not None and pair[0] != a:  # scored for the pair's first: the other's score is 1 − it
            scores = PairedScores(scores.n, scores.n - scores.total, scores.n - 2 * scores.total + scores.squares)
        if pair[0] != a:
            wins, losses = losses, wins
        return HeadToHead(a, b, wins, draws, losses, scores if scores is not None and scores.n else None)
