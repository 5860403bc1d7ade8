"""The paired deal score and the sequential test of tournaments/sprt.py: worked examples (issues 14 and 34) and
the published test vectors of fastchess (app/tests/sprt_test.cpp) and OpenBench (OpenBench/stats.py)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.errors import ConfigError
from tournaments.schedule import BASELINE, CANDIDATE, substitution, substitution_size
from tournaments.sprt import (
    NELO,
    Model,
    Outcomes,
    PairedScores,
    Sprt,
    SprtDecision,
    SprtSettings,
    compare,
    deal_score,
    elo_to_score,
    llr,
    score_to_elo,
    substitution_score,
)


def test_a_comparison_is_who_finished_ahead() -> None:
    assert [compare(1, 2), compare(2, 2), compare(3, 1)] == [1.0, 0.5, 0.0]


def test_a_two_seat_deal_is_fastchess_game_pair() -> None:
    """Two seats, the baseline as the opponent: each game compares the two; the pair score is pentanomial."""
    assert deal_score([1, 1], [2, 2]) == 1.0  # won from both seats
    assert deal_score([1, 2], [2, 1]) == 0.5  # each won one: the deal's luck decided
    assert deal_score([1, 1], [2, 1]) == 0.75  # a win and a draw
    assert deal_score([2, 2], [1, 1]) == 0.0
    with pytest.raises(ValueError):
        deal_score([1, 2], [1])


def test_a_deal_won_from_every_seat_is_a_deal_won_at_any_seats_and_in_team_games() -> None:
    """Issue 34: one place better in every seat at 4 seats wins the deal (it scored 2/3 before), and a team game
    won from every seat by the candidate's team and lost by the baseline's scores 1 (it scored 5/6 before)."""
    assert deal_score([1, 2, 3, 3], [2, 3, 4, 4]) == 1.0
    assert deal_score([1, 1, 1, 1], [3, 3, 3, 3]) == 1.0  # a team game: places 1 (won) and 3 (lost)
    assert deal_score([1, 3, 1, 3], [3, 3, 3, 1]) == 0.625  # won 2, level 1, lost 1 of 4 seats: 2.5 / 4
    # at K seats a paired score is a multiple of 1/(2K): the test's categories
    assert deal_score([1, 2, 2], [2, 2, 1]) * 6 == pytest.approx(3)


def test_elo_and_score_are_inverse() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -5.0, 0.0, 5.0, 250.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)


# fastchess app/tests/sprt_test.cpp: Stats(wins, losses, draws) and Stats(LL, LD, WL, DD, WD, WW), α = β = 0.05
TRINOMIAL = [((36433, 36027, 68692), Model.NORMALIZED, 0, 2, 0.92), ((10871, 10650, 20431), Model.NORMALIZED, -1.75,
                                                                     0.25, 2.30),
             ((21404, 21184, 40708), Model.LOGISTIC, 0.5, 2.5, -1.57),
             ((57433, 57030, 106593), Model.LOGISTIC, 0, 2, -2.59)]
PENTANOMIAL = [((365, 16618, 36029, 200, 16974, 390), Model.NORMALIZED, 0, 2, 2.25),
               ((127, 4883, 10311, 401, 5150, 104), Model.NORMALIZED, -1.75, 0.25, 3.01),
               ((223, 9863, 20279, 1000, 10037, 246), Model.LOGISTIC, 0.5, 2.5, -3.07),
               ((871, 26175, 55003, 980, 26678, 821), Model.LOGISTIC, 0, 2, -4.98)]


def hypotheses(model: Model, elo0: float, elo1: float, pair: bool) -> tuple[float, float]:
    if model is Model.NORMALIZED:
        scale = math.sqrt(2) if pair else 1.0
        return elo0 * scale / NELO, elo1 * scale / NELO
    return elo_to_score(elo0), elo_to_score(elo1)


@pytest.mark.parametrize(("wdl", "model", "elo0", "elo1", "expected"), TRINOMIAL)
def test_the_trinomial_llr_is_fastchess(wdl: tuple[int, int, int], model: Model, elo0: float, elo1: float,
                                        expected: float) -> None:
    wins, losses, draws = wdl
    h0, h1 = hypotheses(model, elo0, elo1, pair=False)
    assert float(llr([losses, draws, wins], h0, h1, model)) == pytest.approx(expected, rel=0.01, abs=0.005)


@pytest.mark.parametrize(("penta", "model", "elo0", "elo1", "expected"), PENTANOMIAL)
def test_the_pentanomial_llr_is_fastchess(penta: tuple[int, ...], model: Model, elo0: float, elo1: float,
                                          expected: float) -> None:
    ll, ld, wl, dd, wd, ww = penta
    h0, h1 = hypotheses(model, elo0, elo1, pair=True)
    assert float(llr([ll, ld, wl + dd, wd, ww], h0, h1, model)) == pytest.approx(expected, rel=0.01, abs=0.005)


def test_the_pentanomial_llr_is_openbench() -> None:
    """OpenBench/stats.py's own example: PentanomialSPRT((39, 8843, 26675, 9240, 44), 0.5, 2.5) = 2.94168 (its
    normalized pentanomial test, run on those counts)."""
    h0, h1 = hypotheses(Model.NORMALIZED, 0.5, 2.5, pair=True)
    assert float(llr([39, 8843, 26675, 9240, 44], h0, h1, Model.NORMALIZED)) == pytest.approx(2.94168, abs=1e-4)


def test_the_llr_never_favours_h1_when_h0_is_the_observed_mean() -> None:
    """Under H0 at the observed mean the constrained MLE is the observed distribution itself, which no other
    distribution beats: the LLR is ≤ 0. (fastchess's vector "normalized trinomial 3", 16,700 draws and nothing
    else, expects +2.97: its fixed-point loop stops at a change of 1e-4, before the MLE; this one converges.)"""
    h0, h1 = hypotheses(Model.NORMALIZED, 0, 5, pair=False)
    assert float(llr([0, 16700, 0], h0, h1, Model.NORMALIZED)) < 0
    assert float(llr([10, 30, 10], 0.5, elo_to_score(20))) < 0
    assert float(llr([10, 30, 10], elo_to_score(-20), 0.5)) > 0


def test_the_llr_works_on_many_tests_at_once() -> None:
    counts = np.array([[3, 5, 9, 2, 1], [0, 0, 4, 0, 0], [1, 8, 20, 9, 2]])
    one_by_one = [float(llr(row, 0.5, 0.53)) for row in counts]
    assert np.allclose(llr(counts, 0.5, 0.53), one_by_one)


def test_the_test_keeps_its_counts_by_score() -> None:
    outcomes = Outcomes(8)  # 4 seats: multiples of ⅛
    for y in (0.5, 0.625, 1.0, 0.5):
        outcomes.add(y)
    assert outcomes.counts == [0, 0, 0, 0, 2, 1, 0, 0, 1] and outcomes.n == 4
    assert outcomes.scores().mean == pytest.approx(0.65625)
    with pytest.raises(ValueError):
        outcomes.add(0.3)  # not a multiple of ⅛


def test_the_bounds_are_walds() -> None:
    settings = SprtSettings(elo0=0, elo1=5, alpha=0.05, beta=0.05)
    assert settings.lower == pytest.approx(-2.944439) and settings.upper == pytest.approx(2.944439)
    skewed = SprtSettings(elo0=0, elo1=5, alpha=0.01, beta=0.2)
    assert skewed.lower == pytest.approx(math.log(0.2 / 0.99)) and skewed.upper == pytest.approx(math.log(0.8 / 0.01))


def test_the_test_stops_when_the_llr_crosses_a_bound() -> None:
    """A candidate that wins three deals in four: H1 is accepted on the first deal whose LLR reaches the upper
    bound, and not one deal before."""
    test = Sprt(SprtSettings(elo0=0, elo1=50))
    decisions = []
    for k in range(400):
        decisions.append(test.add(1.0 if k % 4 else 0.0))
        if decisions[-1] is not SprtDecision.PENDING:
            break
    assert decisions[-1] is SprtDecision.H1
    assert test.llr >= test.settings.upper
    before = Sprt(SprtSettings(elo0=0, elo1=50))
    for k in range(len(decisions) - 1):
        before.add(1.0 if k % 4 else 0.0)
    assert before.llr < before.settings.upper


@pytest.mark.parametrize("model", list(Model))
def test_equal_bots_end_in_h0(model: Model) -> None:
    test = Sprt(SprtSettings(elo0=0, elo1=20, model=model))
    k = 0
    while test.decision is SprtDecision.PENDING and k < 100_000:
        test.add((0.25, 0.5, 0.75, 0.5)[k % 4])  # mean ½: elo 0
        k += 1
    assert test.decision is SprtDecision.H0


def test_the_first_alike_deals_do_not_decide() -> None:
    """Ten deals at ½ (each bot won one seat) are little evidence: the test stays open, its LLR finite."""
    test = Sprt(SprtSettings(elo0=0, elo1=20))
    for _ in range(10):
        test.add(0.5)
    assert test.decision is SprtDecision.PENDING and math.isfinite(test.llr)


def test_the_docs_example_no_longer_accepts_after_five_deal_pairs() -> None:
    """Issue 34: docs/TOURNAMENTS.md's example accepted H1 (0, 50) after 5 deal pairs at LLR 3.98 under the
    normal approximation; the multinomial test is still pending there (fastchess: 0.67)."""
    test = Sprt(SprtSettings(elo0=0, elo1=50))
    for _ in range(5):
        test.add(1.0)
    assert test.decision is SprtDecision.PENDING and 0 < test.llr < test.settings.upper


def test_the_elo_estimate_stays_finite_and_continuous_at_a_full_score() -> None:
    def estimate(ys: list[float]) -> tuple[float, float, float]:
        scores = PairedScores()
        scores.extend(ys)
        return scores.elo()

    all_won = estimate([1.0] * 100)
    nearly = estimate([1.0] * 99 + [0.75])
    assert all(math.isfinite(v) for v in all_won) and all_won[1] < all_won[0] <= all_won[2]
    assert abs(all_won[0] - nearly[0]) < 150 and nearly[1] < nearly[0] < nearly[2]
    even = estimate([0.25, 0.75] * 50)
    assert even[0] == pytest.approx(0.0) and even[1] == pytest.approx(-even[2])


@pytest.mark.parametrize("ys", [[0.5] * 90 + [0.75] * 10, [1.0] * 30 + [0.0] * 20, [0.75, 0.5, 0.25] * 7 + [1.0],
                                [0.25] * 3 + [0.5] * 40])
def test_the_los_agrees_with_the_interval(ys: list[float]) -> None:
    """Issue 34: the LOS comes from the same mean and error as the interval: above ½ exactly when the Elo is above
    0, above 97.5 % exactly when the whole interval is. 90 split pairs and 10 win-draw pairs: LOS 99.7 % (it was
    76.6 % from the single games), interval above 0."""
    scores = PairedScores()
    scores.extend(ys)
    elo, low, high = scores.elo()
    los = scores.los()
    assert (los > 0.5) == (elo > 0)
    assert (los > 0.975) == (low > 0) and (los < 0.025) == (high < 0)
    if ys[0] == 0.5:
        assert los > 0.99 and low > 0


@pytest.mark.parametrize(("settings", "message"), [
    (SprtSettings(elo0=5, elo1=5), "--elo1 must be above --elo0"),
    (SprtSettings(elo0=5, elo1=0), "--elo1 must be above --elo0"),
    (SprtSettings(alpha=0.0), "--alpha must be between 0 and 0.5"),
    (SprtSettings(alpha=0.5), "--alpha must be between 0 and 0.5"),
    (SprtSettings(beta=-0.1), "--beta must be between 0 and 0.5"),
    (SprtSettings(elo1=5000), "--elo1 must be between -2000 and 2000"),
])
def test_bad_settings_are_one_line(settings: SprtSettings, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Sprt(settings)


def test_a_paired_score_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError):
        PairedScores().add(1.5)


# ----------------------------------------------------------------------------------- the substitution schedule


@pytest.mark.parametrize(("seats", "field"), [(2, 1), (3, 2), (4, 3), (4, 5), (6, 5)])
def test_a_deal_puts_both_bots_in_every_seat_against_the_same_bots(seats: int, field: int) -> None:
    for deal in range(12):
        games = substitution(seats, field, seed=9, deal=deal)
        assert len(games) == substitution_size(seats, field) == 2 * seats
        assert len({g.seed for g in games}) == 1  # one deck for the whole deal
        by_key = {g.key: g.seating for g in games}
        for s in range(seats):
            mine, theirs = by_key[f"d{deal}.c{s}"], by_key[f"d{deal}.b{s}"]
            assert mine[s] == CANDIDATE and theirs[s] == BASELINE
            # the same field bots in the same other seats: only the tested bot changes
            assert [e for i, e in enumerate(mine) if i != s] == [e for i, e in enumerate(theirs) if i != s]
            assert all(e >= 2 for i, e in enumerate(mine) if i != s) and len(set(mine)) == seats
        assert [g.seq for g in games] == list(range(deal * 2 * seats, (deal + 1) * 2 * seats))


def test_the_field_rotates_so_every_bot_meets_every_seat() -> None:
    seen: set[tuple[int, int]] = set()
    for deal in range(40):
        for game in substitution(4, 5, seed=1, deal=deal):
            seen |= {(e, s) for s, e in enumerate(game.seating) if e >= 2}
    assert seen == {(e, s) for e in range(2, 7) for s in range(4)}


def test_without_a_field_two_seats_are_a_game_pair() -> None:
    games = substitution(2, 0, seed=3, deal=5)
    assert [(g.key, g.seating) for g in games] == [("d5.c0", (CANDIDATE, BASELINE)), ("d5.c1", (BASELINE, CANDIDATE))]
    with pytest.raises(ValueError):
        substitution(4, 0, seed=3, deal=0)
    with pytest.raises(ValueError):
        substitution(4, 2, seed=3, deal=0)


def test_a_deal_scores_from_its_stored_places() -> None:
    # a pair: the candidate won from seat 0 (places [1, 2]) and lost from seat 1 (places [1, 2]: the baseline won)
    pair = {"d0.c0": [1, 2], "d0.c1": [1, 2]}
    assert substitution_score(pair, 0, 2, 0) == 0.5
    assert substitution_score({"d0.c0": [1, 2], "d0.c1": [2, 1]}, 0, 2, 0) == 1.0
    assert substitution_score({"d0.c0": [1, 2]}, 0, 2, 0) is None  # the deal is not complete
    # three seats with a field: the candidate 1st everywhere, the baseline 3rd everywhere
    games = {f"d2.c{s}": [1 if i == s else 2 for i in range(3)] for s in range(3)}
    games |= {f"d2.b{s}": [3 if i == s else 1 for i in range(3)] for s in range(3)}
    assert substitution_score(games, 2, 3, 2) == 1.0
    del games["d2.b1"]
    assert substitution_score(games, 2, 3, 2) is None


# ------------------------------------------------------------------ the operating characteristic (issue 34, item 1)

#: The paired scores of a 3-seat deal between equal bots with a field (benchmarks/sprt_oc.py's "3 seats" at elo 0).
THREE_SEATS_EVEN = [0.0096, 0.0706, 0.2265, 0.3859, 0.2272, 0.0713, 0.0089]


def _realised_alpha(probs: list[float], settings: SprtSettings, tests: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    values = np.arange(len(probs)) / (len(probs) - 1)
    accepted = 0
    for _ in range(tests):
        test = Sprt(settings, resolution=len(probs) - 1)
        decision = SprtDecision.PENDING
        while decision is SprtDecision.PENDING:
            decision = test.add(float(rng.choice(values, p=np.asarray(probs) / sum(probs))))
        accepted += decision is SprtDecision.H1
    return accepted / tests


@pytest.mark.xfail(strict=True, reason="issue 34 item 1: at wide hypotheses and 3+ seats the realised alpha is "
                                       "about 0.01 (docs/benchmarks/sprt_oc.md)")
def test_a_wide_test_at_three_seats_errs_about_as_often_as_asked() -> None:
    """400 seeded tests of (0, 100) between equal bots at 3 seats: a realised alpha of 0.05 would be measured in
    [0.03, 0.07] (± 2 standard errors). Today's bounds give about 0.01: the test is stricter than asked."""
    assert 0.03 <= _realised_alpha(THREE_SEATS_EVEN, SprtSettings(elo0=0, elo1=100), 400, seed=34) <= 0.07


def _load_calibration() -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "sprt_calibration.py"
    spec = importlib.util.spec_from_file_location("sprt_calibration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_exact_walk_of_the_calibration_benchmark_is_gamblers_ruin() -> None:
    """benchmarks/sprt_calibration.py's dynamic program on a ±1 walk from 0 between −3 and +2: the probability of
    reaching +2 first is (1 − r³) / (1 − r⁵), r = q/p (gambler's ruin)."""
    walk_upper = _load_calibration().walk_upper
    for p in (0.5, 0.6, 0.3):
        q = 1 - p
        expected = 3 / 5 if p == 0.5 else (1 - (q / p) ** 3) / (1 - (q / p) ** 5)
        assert walk_upper(np.array([-1.0, 1.0]), np.array([q, p]), -3.0, 2.0) == pytest.approx(expected, abs=1e-6)
