"""Ratings (tournaments/ratings.py): the whole-pool Plackett-Luce fit, its intervals, head-to-head statistics
and the live openskill ratings.

The fit is checked against independent references, never against itself:

- ``choix.opt_rankings`` (rankings without ties), with the same Gaussian prior. Our prior is θ ~ N(0, σ²) with
  σ = ``prior_elo`` / ELO, a penalty of θ²/(2σ²) per entrant; choix's objective adds ``alpha · Σ θ²`` (see
  ``choix.opt.Top1Fcts.objective``), so ``alpha = 1 / (2σ²)``;
- a direct maximisation (scipy) of the likelihood the module documents for ties and teams: a finishing order
  read group by group, every member of a group of m tied units contributing ``s_i − log Σ_{left} e^{s_j}``
  (Breslow), a unit's strength s being the sum of its members' θ.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import choix
import numpy as np
import pytest
from openskill.models import PlackettLuce
from scipy.optimize import minimize

from tournaments.ratings import ELO, HeadToHead, LiveRatings, bootstrap, fit, head_to_head, wilson

Z95 = 1.959964
TEAMS = ((0, 2), (1, 3))
Game = tuple[tuple[int, ...], tuple[int, ...]]


# ------------------------------------------------------------------------------------- data and references


def pl_games(strengths: Sequence[float], count: int, seats: int, seed: int) -> list[Game]:
    """Plackett-Luce games: a random table and seating, the order drawn with Gumbel noise (no ties)."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=float)
    games: list[Game] = []
    for _ in range(count):
        seating = rng.choice(len(theta), size=seats, replace=False)
        keys = theta[seating] + rng.gumbel(size=seats)
        order = np.argsort(-keys)
        places = np.empty(seats, dtype=int)
        places[order] = np.arange(1, seats + 1)
        games.append((tuple(int(e) for e in seating), tuple(int(p) for p in places)))
    return games


def to_rankings(games: Sequence[Game]) -> list[tuple[int, ...]]:
    """choix's ranking data: the entrants of a game, best first (games without ties only)."""
    rankings = []
    for seating, places in games:
        assert len(set(places)) == len(places)
        rankings.append(tuple(e for _, e in sorted(zip(places, seating, strict=True))))
    return rankings


def centred_theta(ratings: np.ndarray) -> np.ndarray:
    return (np.asarray(ratings) - 1500.0) / ELO


def alpha_for(prior_elo: float) -> float:
    sigma = prior_elo / ELO
    return 1.0 / (2.0 * sigma**2)


def breslow_reference(n: int, games: Sequence[Game], *, prior_elo: float = 1000.0,
                      teams: Sequence[Sequence[int]] | None = None) -> np.ndarray:
    """The documented model, maximised directly: returns the MAP θ (not centred)."""
    stages: Counter = Counter()  # (the units left, the units chosen now) → how often; a unit: its members
    for seating, places in games:
        if teams:
            units = [tuple(sorted(seating[s] for s in team)) for team in teams]
            unit_places = [places[team[0]] for team in teams]
        else:
            units = [(e,) for e in seating]
            unit_places = list(places)
        left = sorted(range(len(units)), key=lambda u: units[u])
        for place in sorted(set(unit_places)):
            chosen = [u for u in left if unit_places[u] == place]
            stages[(tuple(units[u] for u in left), tuple(units[u] for u in chosen))] += 1
            left = [u for u in left if unit_places[u] != place]
    prior = 1.0 / (prior_elo / ELO) ** 2

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value = 0.5 * prior * theta @ theta
        grad = prior * theta
        for (left, chosen), count in stages.items():
            s = np.array([theta[list(unit)].sum() for unit in left])
            top = s.max()
            p = np.exp(s - top) / np.exp(s - top).sum()
            value += count * (len(chosen) * (top + math.log(np.exp(s - top).sum()))
                              - sum(theta[list(unit)].sum() for unit in chosen))
            for unit, share in zip(left, p, strict=True):
                grad[list(unit)] += count * len(chosen) * share
            for unit in chosen:
                grad[list(unit)] -= count
        return value, grad

    result = minimize(objective, np.zeros(n), jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 10_000})
    assert np.abs(objective(result.x)[1]).max() < 1e-5, result  # at the optimum, whatever BFGS reports
    return result.x


# ------------------------------------------------------------------------------ the fit against references


@pytest.mark.parametrize("prior_elo", [1000.0, 100.0])  # the default, and a prior that matters
def test_fit_matches_choix_on_rankings_without_ties(prior_elo: float) -> None:
    truth = [0.9, 0.4, 0.0, -0.3, -0.8, 0.2]
    games = pl_games(truth, 150, 3, seed=20) + pl_games(truth, 60, 2, seed=21) + pl_games(truth, 30, 5, seed=22)
    ours = fit(6, games, prior_elo=prior_elo)
    data = to_rankings(games)
    alpha = alpha_for(prior_elo)
    params = choix.opt_rankings(6, data, alpha=alpha, tol=1e-9)
    reference = params - params.mean()
    np.testing.assert_allclose(centred_theta(ours.rating), reference, atol=1e-4)
    # the intervals: the inverse of choix's Hessian of the same penalised objective, centred like the ratings
    hessian = choix.opt.Top1Fcts.from_rankings(data, alpha).hessian(params)
    centre = np.eye(6) - 1.0 / 6
    cov = centre @ np.linalg.inv(hessian) @ centre.T
    np.testing.assert_allclose(ours.ci, Z95 * ELO * np.sqrt(np.diag(cov)), rtol=1e-4)


def test_fit_matches_the_documented_likelihood_without_ties() -> None:
    # the scipy reference agrees with choix where both apply, so it can stand in for it where choix cannot
    games = pl_games([0.5, 0.0, -0.5, 1.0], 150, 3, seed=3)
    theta = breslow_reference(4, games)
    params = choix.opt_rankings(4, to_rankings(games), alpha=alpha_for(1000.0), tol=1e-9)
    np.testing.assert_allclose(theta - theta.mean(), params - params.mean(), atol=1e-5)
    np.testing.assert_allclose(centred_theta(fit(4, games).rating), theta - theta.mean(), atol=1e-4)


def test_fit_matches_the_documented_likelihood_with_ties() -> None:
    # ties everywhere: for first place, for last place (a group that is left over), whole-table draws
    games: list[Game] = [
        ((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (1, 1, 3)), ((2, 0, 1), (1, 2, 2)), ((0, 3), (1, 1)),
        ((3, 1), (1, 2)), ((2, 3, 0, 1), (1, 2, 2, 4)), ((1, 0, 3), (2, 2, 2)), ((0, 2), (1, 2)),
        ((3, 2, 1), (1, 1, 2)), ((1, 3), (1, 1)), ((0, 1), (2, 1)), ((2, 3), (2, 1)),
    ] * 3 + pl_games([0.4, 0.1, -0.2, -0.3], 60, 3, seed=5)
    theta = breslow_reference(4, games)
    np.testing.assert_allclose(centred_theta(fit(4, games).rating), theta - theta.mean(), atol=1e-4)


def test_draws_pull_two_ratings_together() -> None:
    # one win and a hundred draws is nearly an even match (Breslow: a draw is the tied pair chosen together);
    # the one win alone is worth hundreds of Elo against the prior
    games: list[Game] = [((0, 1), (1, 2))] + [((0, 1), (1, 1)), ((1, 0), (1, 1))] * 50
    ratings = fit(2, games).rating
    theta = breslow_reference(2, games)
    assert ratings[0] > ratings[1]
    assert ratings[0] - ratings[1] < 20, ratings
    assert ratings[0] - ratings[1] == pytest.approx(ELO * (theta[0] - theta[1]), abs=0.05)
    alone = fit(2, games[:1]).rating
    assert alone[0] - alone[1] > 200


def test_fit_recovers_known_strengths() -> None:
    truth = np.array([1.2, 0.6, 0.0, -0.4, -1.4])
    games = pl_games(truth, 4000, 3, seed=7)
    result = fit(5, games)
    expected = 1500 + ELO * (truth - truth.mean())
    assert list(np.argsort(-result.rating)) == [0, 1, 2, 3, 4]
    # within three standard errors (the 95% half-width is 1.96 of them) and a few dozen Elo
    assert np.all(np.abs(result.rating - expected) < 3 * result.ci / Z95), (result.rating, expected, result.ci)
    assert np.all(np.abs(result.rating - expected) < 40)
    assert result.rating.mean() == pytest.approx(1500.0)
    assert result.iterations < 100


# --------------------------------------------------------------------------------------------------- ties


def test_a_symmetric_tie_data_set_gives_equal_ratings() -> None:
    cyclic: list[Game] = [((0, 1, 2), (1, 1, 3)), ((1, 2, 0), (1, 1, 3)), ((2, 0, 1), (1, 1, 3))] * 10
    np.testing.assert_allclose(fit(3, cyclic).rating, [1500.0] * 3, atol=1e-6)
    draws: list[Game] = [((0, 1), (1, 1)), ((1, 2), (1, 1)), ((2, 0), (1, 1))] * 10
    np.testing.assert_allclose(fit(3, draws).rating, [1500.0] * 3, atol=1e-6)


def test_partners_in_every_tie_get_equal_ratings() -> None:
    games: list[Game] = [((0, 1, 2), (1, 1, 3)), ((2, 1, 0), (3, 1, 1)), ((1, 2), (1, 2)), ((2, 0), (2, 1))] * 8
    ratings = fit(3, games).rating
    assert ratings[0] == pytest.approx(ratings[1], abs=1e-6)
    assert ratings[0] > ratings[2]


# -------------------------------------------------------------------------------------------------- prior


def test_an_unbeaten_entrant_stays_finite() -> None:
    games: list[Game] = [((0, 1), (1, 2)), ((2, 0), (2, 1)), ((0, 1, 2), (1, 2, 3))] * 20
    games += pl_games([0.0, 0.0, 0.0], 30, 2, seed=1)
    games = [g for g in games if 0 not in g[0] or g[1][g[0].index(0)] == 1]  # entrant 0 never loses
    result = fit(3, games)
    assert np.all(np.isfinite(result.rating)) and np.all(np.isfinite(result.ci))
    assert np.argmax(result.rating) == 0
    assert result.rating[0] < 1500 + 3000  # the prior holds it
    weaker = fit(3, games, prior_elo=200.0)  # a tighter prior holds it closer
    assert 1500 < weaker.rating[0] < result.rating[0]


# ---------------------------------------------------------------------------------------------- intervals


def test_intervals_halve_with_four_times_the_games() -> None:
    games = pl_games([0.5, 0.0, -0.5, 0.2], 400, 3, seed=11)
    one, four = fit(4, games), fit(4, games * 4)
    np.testing.assert_allclose(four.ci / one.ci, 0.5, rtol=0.02)
    fresh = fit(4, pl_games([0.5, 0.0, -0.5, 0.2], 1600, 3, seed=12))  # new games, not copies
    np.testing.assert_allclose(fresh.ci / one.ci, 0.5, rtol=0.15)


def test_bootstrap_intervals_are_close_to_the_information_matrix_on_a_big_sample() -> None:
    games = pl_games([0.6, 0.1, -0.2, -0.5], 3000, 3, seed=13)
    info = fit(4, games)
    boot = bootstrap(4, games, samples=300, seed=2)
    np.testing.assert_allclose(boot.rating, info.rating)
    np.testing.assert_allclose(boot.ci, info.ci, rtol=0.2)
    assert np.all(boot.ci > 0)
    again = bootstrap(4, games, samples=300, seed=2)
    np.testing.assert_array_equal(again.ci, boot.ci)  # seeded


def test_bootstrap_with_a_deal_per_game_is_the_bootstrap_over_games() -> None:
    games = pl_games([0.4, 0.0, -0.4], 600, 2, seed=5)
    plain = bootstrap(3, games, samples=50, seed=3)
    own = bootstrap(3, games, samples=50, seed=3, deals=[f"deal{i}" for i in range(len(games))])
    np.testing.assert_array_equal(own.ci, plain.ci)


def test_bootstrap_over_deals_sees_duplicate_luck_cancel() -> None:
    # Equal entrants 0 and 1, and a deck that decides the game: the seat with the good cards always wins. Under
    # duplicate deals each deck is played both ways round, so each deal is one win each: resampling deals
    # always gives a level score; resampling games does not, because it splits the two halves of a deal.
    rng = np.random.default_rng(4)
    games, deals = [], []
    for deal in range(400):
        lucky = int(rng.integers(0, 2))  # the seat dealt the winning hand
        for seating in ((0, 1), (1, 0)):
            games.append((seating, (1, 2) if lucky == 0 else (2, 1)))
            deals.append(deal)
    by_game = bootstrap(2, games, samples=200, seed=1)
    by_deal = bootstrap(2, games, samples=200, seed=1, deals=deals)
    np.testing.assert_allclose(by_deal.rating, [1500.0, 1500.0])
    assert np.all(by_game.ci > 8)  # 800 coin flips: the difference ±24 Elo, each rating ±12 about the mean
    np.testing.assert_allclose(by_deal.ci, 0.0, atol=1e-6)


def test_bootstrap_needs_one_deal_per_game() -> None:
    games = pl_games([0.2, -0.2], 10, 2, seed=1)
    with pytest.raises(ValueError, match="9 deals given for 10 games"):
        bootstrap(2, games, samples=5, deals=list(range(9)))


# ------------------------------------------------------------------------------------------ head to head

# entrant 0 against 1: 6 wins, 2 draws, 2 losses, in both seats; games of other pairs and tables are ignored
H2H: list[Game] = (
    [((0, 1), (1, 2))] * 3 + [((1, 0), (2, 1))] * 3 + [((0, 1), (1, 1)), ((1, 0), (1, 1))]
    + [((0, 1), (2, 1)), ((1, 0), (1, 2))]
    + [((0, 2), (1, 2)), ((2, 1), (1, 2)), ((0, 1, 2), (3, 1, 2))]
)


def test_head_to_head_counts_and_scores() -> None:
    h = head_to_head(H2H, 0, 1)
    assert (h.a, h.b, h.wins, h.draws, h.losses, h.games) == (0, 1, 6, 2, 2, 10)
    assert h.score == pytest.approx(0.7)
    back = head_to_head(H2H, 1, 0)
    assert (back.wins, back.draws, back.losses) == (2, 2, 6)
    assert back.score == pytest.approx(0.3)


def elo_of(score: float) -> float:
    return 400 * math.log10(score / (1 - score))


def test_head_to_head_elo_and_los_against_hand_computed_values() -> None:
    h = head_to_head(H2H, 0, 1)  # no deals: every game on its own, scores 6 × 1, 2 × ½, 2 × 0
    assert h.pair_count == 0
    # variance with a prior of one game at ¼: (Σy² − n·m² + ¼) / (n + 1) = (6.5 − 4.9 + 0.25) / 11 = 0.168182
    # Elo of the score shrunk by one game at ½: (7 + ½) / 11 = 0.681818 → 400·log10(0.681818/0.318182) = 132.40
    # interval: 0.681818 ± 1.959964·√(0.168182/11) = 0.681818 ± 0.242351 → Elo −42.27 … +434.36, ± 238.32
    # LOS (issue 34: from the same mean and error as the interval): Φ((0.681818 − ½) / √(0.168182/11))
    #   = Φ(0.181818 / 0.123651) = Φ(1.470413) = 0.929277
    shrunk, half = 7.5 / 11, Z95 * math.sqrt(1.85 / 11 / 11)
    elo, margin = h.elo()
    assert elo == pytest.approx(elo_of(shrunk)) and elo == pytest.approx(132.397, abs=1e-2)
    assert h.interval() == pytest.approx((elo_of(shrunk - half), elo_of(shrunk + half)))
    assert h.interval() == pytest.approx((-42.27, 434.36), abs=0.02)
    assert margin == pytest.approx(238.32, abs=0.02)
    assert h.score == pytest.approx(0.7)  # the plain mean: the shrinking is the Elo estimate's
    assert h.los() == pytest.approx(0.929277, abs=1e-6)
    back = head_to_head(H2H, 1, 0)
    assert back.elo() == pytest.approx((-elo, margin))
    assert back.los() == pytest.approx(1 - 0.929277, abs=1e-6)


# Entrant 0 against 1 by deal: a deal played from both seats is a pair (pentanomial), scored for 0.
PAIRED: list[Game] = [
    ((0, 1), (1, 2)), ((1, 0), (2, 1)),  # deal 0: two wins, pair score 1
    ((0, 1), (1, 2)), ((1, 0), (1, 2)),  # deal 1: a win and a loss, ½
    ((0, 1), (1, 1)), ((1, 0), (2, 1)),  # deal 2: a draw and a win, ¾
    ((1, 0), (1, 1)), ((0, 1), (2, 1)),  # deal 3: a draw and a loss, ¼ (the seat-1 game first)
    ((0, 1), (1, 2)),                    # deal 4: its other game not played yet: W/D/L only
    ((0, 1), (1, 2)), ((0, 1), (1, 2)),  # deal 5: the same seating twice is not a pair
    ((0, 2), (1, 2)),                    # deal 0 again, another pair of bots: ignored
]
PAIRED_DEALS = [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 0]


def test_head_to_head_on_deal_pairs_against_a_hand_computation() -> None:
    h = head_to_head(PAIRED, 0, 1, PAIRED_DEALS)
    assert (h.wins, h.draws, h.losses, h.games, h.pair_count) == (7, 2, 2, 11, 4)  # W/D/L still count games
    # pair scores 1, ½, ¾, ¼: mean 0.625; variance (1.875 − 4·0.625² + ¼) / 5 = 0.1125
    # Elo of (2.5 + ½) / 5 = 0.6: 400·log10(1.5) = 70.44; interval 0.6 ± 1.959964·√(0.1125/5) = 0.6 ± 0.293995
    assert h.score == pytest.approx(0.625)
    elo, margin = h.elo()
    assert elo == pytest.approx(elo_of(0.6)) and elo == pytest.approx(70.437, abs=1e-3)
    low, high = h.interval()
    assert (low, high) == pytest.approx((elo_of(0.6 - Z95 * 0.15), elo_of(0.6 + Z95 * 0.15)))
    assert margin == pytest.approx((high - low) / 2)
    back = head_to_head(PAIRED, 1, 0, PAIRED_DEALS)
    assert (back.wins, back.losses, back.pair_count) == (2, 7, 4)
    assert back.score == pytest.approx(0.375) and back.elo() == pytest.approx((-elo, margin))
    # without deals, or with a deal of its own per game, there are no pairs: the figures of the single games
    for alone in (head_to_head(PAIRED, 0, 1), head_to_head(PAIRED, 0, 1, list(range(len(PAIRED))))):
        assert alone.pair_count == 0 and alone.score == pytest.approx(8 / 11)


def test_an_incomplete_pair_alone_gives_the_figures_of_its_games() -> None:
    h = head_to_head([((0, 1), (1, 2))], 0, 1, [7])
    assert h.pair_count == 0 and h.score == 1.0
    assert h.elo() == HeadToHead(0, 1, 1, 0, 0).elo()


def synthetic(wins: int, draws: int, losses: int, paired: bool) -> HeadToHead:
    """W/D/L over 100 games; ``paired``: as 50 deal pairs, the draws and losses each in a pair with a win (the
    arrangement of the 96/2/2 and 96/1/3 rows of docs/TOURNAMENTS.md), the other pairs won twice."""
    if not paired:
        return HeadToHead(0, 1, wins, draws, losses)
    assert wins + draws + losses == 100 and draws + losses <= 50
    games: list[Game] = []
    deals: list[int] = []
    second = [(1, 1)] * draws + [(1, 2)] * losses  # seat 1 is entrant 0's: (1, 1) a draw, (1, 2) a loss
    for deal in range(50):
        games += [((0, 1), (1, 2)), ((1, 0), second[deal] if deal < len(second) else (2, 1))]
        deals += [deal, deal]
    h = head_to_head(games, 0, 1, deals)
    assert (h.wins, h.draws, h.losses, h.pair_count) == (wins, draws, losses, 50)
    return h


@pytest.mark.parametrize("paired", [False, True])
def test_head_to_head_is_finite_ordered_and_continuous_near_a_full_score(paired: bool) -> None:
    rows = [synthetic(*wdl, paired) for wdl in [(100, 0, 0), (99, 1, 0), (96, 2, 2), (96, 1, 3)]]
    elos = [h.elo() for h in rows]
    intervals = [h.interval() for h in rows]
    assert all(math.isfinite(x) for e in elos for x in e) and all(math.isfinite(x) for i in intervals for x in i)
    assert [e for e, _ in elos] == sorted((e for e, _ in elos), reverse=True)  # a better result, a higher Elo
    assert len({e for e, _ in elos}) == 4  # 100/0/0 above 99/1/0 (they were equal, the 100 % bound)
    assert [low for low, _ in intervals] == sorted((low for low, _ in intervals), reverse=True)
    for (_, one), (_, other) in zip(elos, elos[1:], strict=False):
        assert 0.7 < one / other < 1.4  # the ± does not jump between neighbouring results
    # 96/1/3 next to 96/2/2: the ± were 469 and 182 (a 100 % interval end switched formulas); now within 15 %
    assert abs(elos[3][1] - elos[2][1]) < 0.15 * elos[2][1]
    assert all(low < e < high for (e, _), (low, high) in zip(elos, intervals, strict=True))


@pytest.mark.parametrize("paired", [False, True])
def test_head_to_head_moves_smoothly_as_losses_turn_into_wins(paired: bool) -> None:
    sweep = [synthetic(100 - losses, 0, losses, paired) for losses in range(0, 21)]
    elos = [h.elo() for h in sweep]
    assert [e for e, _ in elos] == sorted((e for e, _ in elos), reverse=True)
    steps = [one[0] - other[0] for one, other in zip(elos, elos[1:], strict=False)]
    # the Elo scale is steepest at 100 %, so the steps shrink away from it, each by a bounded factor: no cliff
    assert steps == sorted(steps, reverse=True) and all(a < 2.5 * b for a, b in zip(steps, steps[1:], strict=False))
    # the ± rises from the full score (its variance is the prior's alone) and then falls, no neighbour far off:
    # one turn at most (the old formula's went 243, 200, 345, 229 at 2, 3, 4, 5 losses)
    margins = [m for _, m in elos]
    signs = [b > a for a, b in zip(margins, margins[1:], strict=False)]
    assert sum(x != y for x, y in zip(signs, signs[1:], strict=False)) <= 1 and signs[-1] is False
    assert all(1 / 1.6 < a / b < 1.6 for a, b in zip(margins, margins[1:], strict=False))


@pytest.mark.parametrize(("wdl", "pairs", "games"), [
    ((100, 0, 0), "+802 ± 157", "+921 ± 156"), ((99, 1, 0), "+730 ± 176", "+800 ± 198"),
    ((96, 2, 2), "+556 ± 242", "+578 ± 274"), ((96, 1, 3), "+534 ± 240", "+554 ± 263")])
def test_the_figures_docs_tournaments_quotes(wdl: tuple[int, int, int], pairs: str, games: str) -> None:
    assert "{:+.0f} ± {:.0f}".format(*synthetic(*wdl, True).elo()) == pairs
    assert "{:+.0f} ± {:.0f}".format(*synthetic(*wdl, False).elo()) == games


def test_head_to_head_edge_cases() -> None:
    none = head_to_head(H2H, 1, 2)
    assert (none.wins, none.draws, none.losses) == (0, 0, 1)
    assert none.los() == pytest.approx(0.5 * (1 + math.erf(-1 / math.sqrt(2))))
    empty = HeadToHead(0, 1, 0, 0, 0)
    assert empty.score == 0.5 and empty.los() == 0.5
    assert empty.elo() == (0.0, math.inf) and empty.interval() == (-math.inf, math.inf)
    even = HeadToHead(0, 1, 3, 4, 3)
    assert even.elo()[0] == 0.0 and even.los() == pytest.approx(0.5)
    only_draws = HeadToHead(0, 1, 0, 5, 0)
    assert only_draws.score == 0.5 and only_draws.los() == 0.5 and only_draws.elo()[0] == 0.0
    perfect = HeadToHead(0, 1, 10, 0, 0)
    elo, margin = perfect.elo()  # the score shrunk by one game at ½: 10.5 / 11
    assert elo == pytest.approx(elo_of(10.5 / 11))
    # the variance is the prior's alone, ¼ / 11; the interval's top stays a quarter of a game inside 1
    low, high = perfect.interval()
    assert low == pytest.approx(elo_of(10.5 / 11 - Z95 * math.sqrt(0.25 / 11 / 11)))
    assert high == pytest.approx(elo_of(1 - 0.25 / 11))
    assert math.isfinite(margin) and margin == pytest.approx((high - low) / 2)
    assert HeadToHead(0, 1, 0, 0, 10).elo() == pytest.approx((-elo, margin))


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(10, 10)
    assert (low, high) == pytest.approx((10 / (10 + Z95**2), 1.0))
    low, high = wilson(30, 100)  # p = 0.3: centre (30 + z²/2) / (100 + z²), half-width z·sqrt(21 + z²/4) / (100 + z²)
    centre, half = (30 + Z95**2 / 2) / (100 + Z95**2), Z95 * math.sqrt(21 + Z95**2 / 4) / (100 + Z95**2)
    assert (low, high) == pytest.approx((centre - half, centre + half))


# ------------------------------------------------------------------------------------------- live ratings


def test_live_ratings_are_keyed_by_name_and_the_stronger_leads() -> None:
    live = LiveRatings(["strong", "middle", "weak"])
    assert set(live.ratings) == {"strong", "middle", "weak"}
    start = live.ratings["strong"].mu
    live.update(["weak", "strong"], [2, 1])  # seat order does not matter: places follow the seats
    assert live.ratings["strong"].mu > start > live.ratings["weak"].mu
    assert live.ratings["middle"].mu == start
    for seating, places in pl_games([2.0, 0.0, -2.0], 60, 3, seed=4):
        live.update([["strong", "middle", "weak"][e] for e in seating], list(places))
    name, score = live.leader()
    assert name == "strong"
    assert score == pytest.approx(live.ratings["strong"].ordinal())
    assert live.ratings["strong"].mu > live.ratings["middle"].mu > live.ratings["weak"].mu


@pytest.mark.parametrize("tau", [0.0, 0.3])
@pytest.mark.parametrize(("seats", "teams"), [(2, None), (3, None), (4, None), (4, TEAMS)])
def test_live_ratings_are_openskills_rate_to_the_last_bit(tau: float, seats: int,
                                                          teams: tuple[tuple[int, ...], ...] | None) -> None:
    # LiveRatings computes PlackettLuce.rate itself (rate's checks and deep copies cost more than the main process
    # can spend per game): the same numbers, bit for bit, over a long run with ties, for teams too
    rng = np.random.default_rng(seats)
    names = [f"b{i}" for i in range(6)]
    live = LiveRatings(names, tau=tau)
    model = PlackettLuce(tau=tau)
    expected = {name: model.rating(name=name) for name in names}
    for _ in range(1500):
        seating = [names[i] for i in rng.permutation(6)[:seats]]
        places = ([int(p) for p in rng.integers(1, seats + 1, seats)] if teams is None else
                  list(((1, 2, 1, 2), (2, 1, 2, 1), (1, 1, 1, 1))[int(rng.integers(0, 3))]))
        live.update(seating, places, teams)
        groups = [[seating[s] for s in team] for team in teams] if teams else [[name] for name in seating]
        ranks = [float(places[team[0]]) for team in teams] if teams else [float(p) for p in places]
        new = model.rate([[expected[n] for n in g] for g in groups], ranks=ranks)
        for group, rated in zip(groups, new, strict=True):
            expected.update(zip(group, rated, strict=True))
    assert [(live.ratings[n].mu, live.ratings[n].sigma) for n in names] == [
        (expected[n].mu, expected[n].sigma) for n in names]
    assert live.leader() == max(((n, r.ordinal()) for n, r in expected.items()), key=lambda x: x[1])


def test_live_ratings_of_teams_move_partners_together() -> None:
    live = LiveRatings(["a", "b", "c", "d"])
    start = live.ratings["a"].mu
    live.update(["a", "b", "c", "d"], [1, 2, 1, 2], TEAMS)
    assert live.ratings["a"].mu > start and live.ratings["c"].mu > start
    assert live.ratings["b"].mu < start and live.ratings["d"].mu < start
    assert live.ratings["a"].mu == pytest.approx(live.ratings["c"].mu)


# --------------------------------------------------------------------------------------------- team games


def team_games(strengths: Sequence[float], count: int, seed: int) -> list[Game]:
    """2v2 games (partners in seats 0, 2 and 1, 3): a team's strength is the sum of its members'."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=float)
    games: list[Game] = []
    for _ in range(count):
        seating = tuple(int(e) for e in rng.choice(len(theta), size=4, replace=False))
        a = theta[seating[0]] + theta[seating[2]]
        b = theta[seating[1]] + theta[seating[3]]
        first_wins = rng.random() < 1 / (1 + math.exp(b - a))
        games.append((seating, (1, 2, 1, 2) if first_wins else (2, 1, 2, 1)))
    return games


def test_team_games_rate_the_strong_player_above_his_partners() -> None:
    games = team_games([1.5, 0.0, 0.0, 0.0, 0.0, 0.0], 1500, seed=9)
    result = fit(6, games, teams=TEAMS)
    best = int(np.argmax(result.rating))
    assert best == 0
    others = np.delete(result.rating, 0)
    assert np.all(result.rating[0] - others > result.ci[0])
    assert others.max() - others.min() < 2 * result.ci[1:].max()  # the others are alike
    # and the team-sum likelihood, maximised independently
    theta = breslow_reference(6, games, teams=TEAMS)
    np.testing.assert_allclose(centred_theta(result.rating), theta - theta.mean(), atol=1e-4)


def test_team_games_ignore_seat_order_within_a_team() -> None:
    games = team_games([1.0, 0.5, 0.0, -0.5], 200, seed=10)
    swapped = [((s[2], s[3], s[0], s[1]), (p[2], p[3], p[0], p[1])) for s, p in games]
    np.testing.assert_allclose(fit(4, games, teams=TEAMS).rating, fit(4, swapped, teams=TEAMS).rating, atol=1e-6)
