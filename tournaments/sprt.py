"""The statistics of "is my new bot better?": paired deal scores and a sequential probability ratio test.

**Duplicate substitution.** On one deal the candidate sits in every seat in turn, the field's bots in the other
seats; then the baseline does the same, on the same deal, in the same seats, against the same bots. A seat's
*score* is its place turned into [0, 1]: ``(K − place) / (K − 1)`` at K seats (first 1, last 0, shared places as
the rules rank them). The deal's **paired score** is

    y = (1 + mean score of the candidate − mean score of the baseline) / 2        (0 ≤ y ≤ 1)

the share of the deal the candidate "won" against the baseline: the luck of the deal is in both terms and cancels.
With two seats and the baseline as the only opponent this is fastchess' and fishtest's game pair: the candidate
plays the deal from both seats against the baseline, and y is its pair score (0, ¼, ½, ¾ or 1: pentanomial).

**The hypotheses.** The candidate is ``elo`` stronger than the baseline when its expected paired score is the
logistic Elo score ``1 / (1 + 10^(−elo/400))``. H0: ``elo = elo0``; H1: ``elo = elo1``. At two seats against the
baseline itself this is the usual Elo difference of the two bots. With three to six seats, or with a field, it is
the Elo difference of a duplicate match in which, on every deal, the bot that did better in the same seats against
the same opponents scores the deal: "the candidate does better than the baseline against this field, by elo". In
team games the candidate and the baseline take one seat of a team (the field plays the partner), so a seat's place
is its team's, and the test measures a bot as a partner among the field's bots.

**The test** is the generalized SPRT with a normal approximation, as fishtest and fastchess compute it: with the
mean ``m`` and variance ``v`` of the n paired scores,

    LLR = n · (s1 − s0) · (2m − s0 − s1) / (2v)          s0, s1 the expected scores under H0 and H1

accepted H1 once LLR ≥ log((1 − β)/α), H0 once LLR ≤ log(β/(1 − α)). Paired scores are bounded and a deal's are
independent of another's, so their mean is close to normal after a few dozen deals; the model needs no draw rate
and holds for any number of seats, which a trinomial or pentanomial likelihood would not.

The variance is the sample variance with a prior worth :data:`PRIOR_DEALS` deals at ¼, the largest variance a score
in [0, 1] can have. Without it the first deals, often alike (a pair score of ½ when each bot wins one seat), make
the variance tiny and the LLR leap, and a test of equal bots accepts H1 far more often than α; benchmarks/sprt.py
measures the false positive rate and the power with this prior. The Elo estimate shrinks the score by one deal at ½
and keeps its interval inside (0, 1), so it stays finite and continuous near a 100 % score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from referee.errors import ConfigError

__all__ = ["Decision", "PRIOR_DEALS", "PairedScores", "Sprt", "SprtSettings", "deal_score", "elo_to_score", "llr",
           "score_to_elo", "seat_score", "substitution_score"]

#: The variance's prior: this many deals at variance ¼ (see the module's text).
PRIOR_DEALS = 1.0
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def elo_to_score(elo: float) -> float:
    """The logistic Elo model's expected score of a bot ``elo`` stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference of an expected score in (0, 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def llr(n: Any, total: Any, squares: Any, s0: float, s1: float) -> Any:
    """The LLR of H1 (expected paired score ``s1``) against H0 (``s0``) after ``n`` deals whose paired scores sum to
    ``total`` and their squares to ``squares``; arithmetic only, so that numpy arrays of many tests work too (the
    benchmark's). ``n`` must be positive."""
    mean = total / n
    variance = (squares - n * mean * mean + PRIOR_DEALS / 4) / (n + PRIOR_DEALS)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def seat_score(place: int, seats: int) -> float:
    """A place turned into [0, 1]: first 1, last 0 (C-10 places; shared places rank as the rules rank them)."""
    return (seats - place) / (seats - 1)


def deal_score(candidate_places: Sequence[int], baseline_places: Sequence[int], seats: int) -> float:
    """A deal's paired score from the candidate's place in each seat and the baseline's in the same seats."""
    if not candidate_places or len(candidate_places) != len(baseline_places):
        raise ValueError("a deal needs the candidate's and the baseline's places in the same seats")
    mine = sum(seat_score(p, seats) for p in candidate_places) / len(candidate_places)
    theirs = sum(seat_score(p, seats) for p in baseline_places) / len(baseline_places)
    return (1.0 + mine - theirs) / 2.0


def substitution_score(places: Mapping[str, Sequence[int]], deal: int, seats: int, field: int) -> float | None:
    """The paired score of one deal of a substitution schedule (:func:`tournaments.schedule.substitution`) from the
    places of its games by key; None while a game of the deal is missing. The candidate's place in seat s is from
    game ``c{s}``, the baseline's from ``b{s}`` (with no field: from the pair's other game, where the baseline sits
    in seat s)."""
    mine, theirs = [], []
    for s in range(seats):
        game = places.get(f"d{deal}.c{s}")
        other = places.get(f"d{deal}.c{(s + 1) % 2}" if field == 0 else f"d{deal}.b{s}")
        if game is None or other is None:
            return None
        mine.append(game[s])
        theirs.append(other[s])
    return deal_score(mine, theirs, seats)


@dataclass
class PairedScores:
    """Running sums of paired scores in [0, 1]: their count, mean and (regularized) variance."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, y: float) -> None:
        if not 0.0 <= y <= 1.0:
            raise ValueError(f"a paired score is in [0, 1], got {y}")
        self.n += 1
        self.total += y
        self.squares += y * y

    def extend(self, ys: Iterable[float]) -> None:
        for y in ys:
            self.add(y)

    @property
    def mean(self) -> float:
        """The mean paired score (½ before the first deal)."""
        return self.total / self.n if self.n else 0.5

    @property
    def variance(self) -> float:
        """The variance of one paired score, with the prior of :data:`PRIOR_DEALS` deals at ¼ (never 0)."""
        mean = self.mean
        return (self.squares - self.n * mean * mean + PRIOR_DEALS / 4) / (self.n + PRIOR_DEALS)

    def elo(self) -> tuple[float, float, float]:
        """The estimated Elo difference and its 95 % interval (low, high). The score is shrunk by one deal at ½,
        the interval's ends kept a quarter of a deal inside (0, 1): finite, and continuous near a full score."""
        mean = (self.total + 0.5) / (self.n + 1)
        error = math.sqrt(self.variance / (self.n + 1))
        edge = 0.25 / (self.n + 1)
        low, high = max(mean - Z95 * error, edge), min(mean + Z95 * error, 1 - edge)
        return score_to_elo(mean), score_to_elo(low), score_to_elo(high)


class Decision(StrEnum):
    """What the test says: H1 (the candidate is ``elo1`` better), H0 (it is not: ``elo0``), or not yet."""

    H1 = "H1"
    H0 = "H0"
    PENDING = "pending"


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses (Elo differences) and error rates; :meth:`check` says what is wrong in one line."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def check(self) -> None:
        if not self.elo1 > self.elo0:
            raise ConfigError(f"--elo1 must be above --elo0 (got elo0 {self.elo0:g}, elo1 {self.elo1:g})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ConfigError(f"--{name} must be between 0 and 0.5 (exclusive), got {value:g}")
        for name, value in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -2000 <= value <= 2000:
                raise ConfigError(f"--{name} must be between -2000 and 2000 Elo, got {value:g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(β / (1 − α))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 − β) / α)."""
        return math.log((1.0 - self.beta) / self.alpha)


class Sprt:
    """The sequential test over paired deal scores (see the module's text for the model)."""

    def __init__(self, settings: SprtSettings, scores: PairedScores | None = None) -> None:
        settings.check()
        self.settings = settings
        self.scores = scores or PairedScores()
        self.s0 = elo_to_score(settings.elo0)
        self.s1 = elo_to_score(settings.elo1)

    def add(self, y: float) -> Decision:
        self.scores.add(y)
        return self.decision

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far (0 before the first deal)."""
        scores = self.scores
        return llr(scores.n, scores.total, scores.squares, self.s0, self.s1) if scores.n else 0.0

    @property
    def decision(self) -> Decision:
        llr = self.llr
        if llr >= self.settings.upper:
            return Decision.H1
        if llr <= self.settings.lower:
            return Decision.H0
        return Decision.PENDING
