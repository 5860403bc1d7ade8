"""The paired deal score and the sequential test of tournaments/sprt.py, against worked examples (issue 14)."""

from __future__ import annotations

import math

import pytest

from referee.errors import ConfigError
from tournaments.schedule import BASELINE, CANDIDATE, substitution, substitution_size
from tournaments.sprt import (
    Decision,
    PairedScores,
    Sprt,
    SprtSettings,
    deal_score,
    elo_to_score,
    score_to_elo,
    seat_score,
    substitution_score,
)


def test_a_place_scores_one_for_first_and_zero_for_last() -> None:
    assert [seat_score(p, 4) for p in (1, 2, 3, 4)] == [1.0, pytest.approx(2 / 3), pytest.approx(1 / 3), 0.0]
    assert [seat_score(p, 2) for p in (1, 2)] == [1.0, 0.0]
    assert seat_score(2, 4) == seat_score(2, 4)  # "1224": both seconds score alike


def test_a_two_seat_deal_is_fastchess_game_pair() -> None:
    """Two seats, the baseline as the opponent: the candidate's pair score (pentanomial: 0, ¼, ½, ¾, 1)."""
    # the candidate wins from both seats, so the baseline (its opponent) loses from both
    assert deal_score([1, 1], [2, 2], 2) == 1.0
    assert deal_score([1, 2], [2, 1], 2) == 0.5  # each wins one: the deal's luck decided
    assert deal_score([2, 2], [1, 1], 2) == 0.0
    # against a field: the candidate won one seat and lost one, the baseline lost both
    assert deal_score([1, 2], [2, 2], 2) == 0.75


def test_a_four_seat_deal_pairs_the_same_seats() -> None:
    # the candidate 1st, 2nd, 2nd, 4th from seats 0-3; the baseline 2nd, 3rd, 4th, 4th from the same seats
    y = deal_score([1, 2, 2, 4], [2, 3, 4, 4], 4)
    mine = (1 + 2 / 3 + 2 / 3 + 0) / 4
    theirs = (2 / 3 + 1 / 3 + 0 + 0) / 4
    assert y == pytest.approx((1 + mine - theirs) / 2)
    with pytest.raises(ValueError):
        deal_score([1, 2], [1], 2)


def test_elo_and_score_are_inverse() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -5.0, 0.0, 5.0, 250.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)


def test_the_llr_of_a_worked_example() -> None:
    """100 deals: 40 at ¾, 30 at ½, 30 at ¼; elo0 0, elo1 20. By hand: mean 0.525; the variance with the prior of
    one deal at ¼ is (31.875 − 100·0.525² + 0.25) / 101 = 0.0451733; s1 = 1/(1 + 10^(−0.05)) = 0.5287506;
    LLR = 100 · 0.0287506 · (1.05 − 1.0287506) / (2 · 0.0451733) = 0.67621."""
    test = Sprt(SprtSettings(elo0=0, elo1=20))
    for y, count in ((0.75, 40), (0.5, 30), (0.25, 30)):
        for _ in range(count):
            test.add(y)
    assert test.scores.mean == pytest.approx(0.525)
    assert test.scores.variance == pytest.approx(0.0451733, abs=1e-7)
    assert test.llr == pytest.approx(0.67621, abs=1e-5)
    assert test.decision is Decision.PENDING


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
        if decisions[-1] is not Decision.PENDING:
            break
    assert decisions[-1] is Decision.H1
    assert test.llr >= test.settings.upper
    before = Sprt(SprtSettings(elo0=0, elo1=50))
    for k in range(len(decisions) - 1):
        before.add(1.0 if k % 4 else 0.0)
    assert before.llr < before.settings.upper


def test_equal_bots_end_in_h0() -> None:
    test = Sprt(SprtSettings(elo0=0, elo1=20))
    k = 0
    while test.decision is Decision.PENDING and k < 100_000:
        test.add((0.25, 0.5, 0.75, 0.5)[k % 4])  # mean ½: elo 0
        k += 1
    assert test.decision is Decision.H0


def test_the_first_alike_deals_do_not_decide() -> None:
    """Ten deals at ½ (each bot won one seat) are no evidence: the prior keeps the variance from vanishing."""
    test = Sprt(SprtSettings(elo0=0, elo1=20))
    for _ in range(10):
        test.add(0.5)
    assert test.decision is Decision.PENDING and math.isfinite(test.llr)


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
