"""The statistics of "is my new bot better?": paired deal scores and a sequential probability ratio test.

**Duplicate substitution.** On one deal the candidate sits in every seat in turn, the field's bots in the other
seats; then the baseline does the same, on the same deal, in the same seats, against the same bots. With two seats
and no field the baseline itself is the opponent: the candidate plays the deal from both seats against it.

**One scale: who finished ahead.** Every figure compares the candidate's place with the baseline's: 1 when the
candidate finished ahead, ½ when level, 0 when behind. Where the two meet (two seats, no field) the comparison is
their game; where they do not (a field), it is the candidate's place in seat s against the baseline's place in
seat s on the same deal against the same opponents (a team game: their teams' places). A deal's **paired score**
``y`` is the mean of its comparisons, one per seat:

    y = mean over seats s of compare(candidate's place from seat s, baseline's place in the same comparison)

so a deal the candidate wins from every seat scores 1, in team games too, and y is a multiple of 1/(2K) at K
seats (two seats: 0, ¼, ½, ¾, 1, the pentanomial game pair of fastchess and fishtest).

**Elo.** The candidate is ``elo`` stronger when its expected paired score is ``1 / (1 + 10^(−elo/400))``: the
odds that it finishes ahead of the baseline are 10^(elo/400) to 1, as in the ratings table (where a rating gap is
the odds of finishing ahead in a game) and in chess. The normalized Elo (``--model normalized``) reads the same
scores per unit of their spread: ``nElo = (m − ½) / (σ·√2) · 800 / ln 10`` for a paired score of mean m and
standard deviation σ (the game pair's normalization of fishtest and fastchess, here for a deal at any seats).

**The test** is the generalized SPRT on the multinomial of paired scores, as fastchess and fishtest compute it for
trinomial and pentanomial counts (M. Van den Bergh, "Comments on normalized Elo"): under each hypothesis the
maximum-likelihood distribution on the 2K + 1 possible scores with that expected score (logistic) or that
normalized Elo (normalized), the LLR the log-likelihood ratio of the two at the observed counts. An empty count
is taken as 0.001, so that every expected score is possible from the first deal on. H1 is accepted once
LLR ≥ log((1 − β)/α) − ρσ, H0 once LLR ≤ log(β/(1 − α)) + ρσ: Wald's bounds moved in by the expected overshoot of
a random walk whose steps have the standard deviation σ (Siegmund's correction, ρ = 0.5826; σ is estimated from
the counts, and the move is at most half a bound). A test of close hypotheses takes small steps, keeps Wald's
bounds and errs as often as asked. One of wide hypotheses decides in a few dozen deals or fewer and errs less often
than asked (at 3 or more seats and in team games a realised α or β of 0.000-0.025 for 0.05): in the first deals
the maximum-likelihood fits follow the few counts seen and absorb much of the evidence, which no overshoot
correction of the bounds models (benchmarks/sprt_calibration.py). benchmarks/sprt_oc.py measures the error rates
and the deals it takes on simulated streams at 2-6 seats and in team games; docs/benchmarks/sprt_oc.md has the
figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from referee.errors import ConfigError

__all__ = ["SprtDecision", "Model", "Outcomes", "PairedScores", "Sprt", "SprtSettings", "compare", "deal_score",
           "elo_to_score", "llr", "llr_and_step", "score_to_elo", "substitution_score"]

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054
#: What an empty count of a paired score counts as (fastchess, fishtest): every expected score stays possible.
EMPTY = 1e-3
#: Elo points per unit of the normalized t (800 / ln 10).
NELO = 800 / math.log(10)
#: Siegmund's constant −ζ(½)/√(2π): a random walk with steps of standard deviation σ crosses a bound by about ρσ.
RHO = 0.5826


class Model(StrEnum):
    """What an Elo of the hypotheses means: the expected score (logistic) or the score per unit of spread."""

    LOGISTIC = "logistic"
    NORMALIZED = "normalized"


def elo_to_score(elo: float) -> float:
    """The logistic Elo model's expected score of a bot ``elo`` stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference of an expected score in (0, 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def compare(mine: int, theirs: int) -> float:
    """One comparison of places (C-10: 1 is first; shared places are equal): 1 ahead, ½ level, 0 behind."""
    return 1.0 if mine < theirs else 0.0 if mine > theirs else 0.5


def deal_score(mine: Sequence[int], theirs: Sequence[int]) -> float:
    """A deal's paired score: the mean of the comparisons of the candidate's places with the baseline's."""
    if not mine or len(mine) != len(theirs):
        raise ValueError("a deal needs the candidate's and the baseline's places, as many of each")
    return sum(compare(a, b) for a, b in zip(mine, theirs, strict=True)) / len(mine)


def substitution_score(places: Mapping[str, Sequence[int]], deal: int, seats: int, field: int) -> float | None:
    """The paired score of one deal of a substitution schedule (:func:`tournaments.schedule.substitution`) from the
    places of its games by key; None while a game of the deal is missing. The candidate's place in seat s is from
    game ``c{s}``; it is compared with the baseline's place in seat s of game ``b{s}``, or with no field with the
    baseline's own place in the same game (its opponent)."""
    mine, theirs = [], []
    for s in range(seats):
        game = places.get(f"d{deal}.c{s}")
        other = game if field == 0 else places.get(f"d{deal}.b{s}")
        if game is None or other is None:
            return None
        mine.append(game[s])
        theirs.append(other[1 - s] if field == 0 else other[s])
    return deal_score(mine, theirs)


# ------------------------------------------------------------------------------------------ the multinomial LLR


def _theta(probs: Any, phi: Any) -> Any:
    """The θ of the constrained maximum-likelihood distribution ``p_i = p̂_i / (1 + θ φ_i)``: the root of
    f(θ) = Σ p̂_i φ_i / (1 + θ φ_i), which falls from +∞ to −∞ between −1/max φ and −1/min φ. Newton's method
    from 0, a step that leaves the bracket taken as bisection; any leading axes are independent problems."""
    import numpy as np

    low = -1.0 / phi.max(axis=-1)
    high = -1.0 / phi.min(axis=-1)
    theta = np.zeros(low.shape)
    for _ in range(100):
        q = 1.0 + theta[..., None] * phi
        f = (probs * phi / q).sum(axis=-1)
        slope = -(probs * (phi / q) ** 2).sum(axis=-1)
        low = np.where(f > 0, theta, low)
        high = np.where(f < 0, theta, high)
        step = theta - f / slope
        inside = (step > low) & (step < high)
        new = np.where(inside, step, (low + high) / 2)
        if np.all(np.abs(new - theta) <= 1e-10 * (1.0 + np.abs(theta))):
            return new
        theta = new
    return theta


def _mle_logistic(values: Any, probs: Any, s: float) -> Any:
    import numpy as np

    phi = np.broadcast_to(values - s, probs.shape)
    return probs / (1.0 + _theta(probs, phi)[..., None] * phi)


def _mle_normalized(values: Any, probs: Any, t: float) -> Any:
    """The most likely distribution with (μ − ½) / σ = t, by the fixed point of Van den Bergh's section 4.1,
    started from the uniform distribution."""
    import numpy as np

    p = np.full(probs.shape, 1.0 / probs.shape[-1])
    for _ in range(200):
        mu = (p * values).sum(axis=-1, keepdims=True)
        sigma = np.sqrt((p * (values - mu) ** 2).sum(axis=-1, keepdims=True))
        phi = values - 0.5 - 0.5 * t * sigma * (1.0 + ((values - mu) / sigma) ** 2)
        new = probs / (1.0 + _theta(probs, phi)[..., None] * phi)
        done = np.abs(new - p).max() < 1e-9
        p = new
        if done:
            break
    return p


def llr(counts: Any, s0: float, s1: float, model: Model = Model.LOGISTIC) -> Any:
    """The generalized LLR of H1 against H0 after ``counts[..., j]`` paired scores of value j / (N − 1) (N the
    last axis: 3 trinomial, 5 pentanomial, 2K + 1 at K seats). Logistic: s0, s1 are the expected scores;
    normalized: the normalized t of each hypothesis (nElo · √2 / (800 / ln 10)). Arrays of many tests work at
    once (the benchmark's)."""
    return llr_and_step(counts, s0, s1, model)[0]


def llr_and_step(counts: Any, s0: float, s1: float, model: Model = Model.LOGISTIC) -> tuple[Any, Any]:
    """:func:`llr`, and the standard deviation of one deal's step of it (its log-likelihood ratio at the two
    maximum-likelihood distributions, over the observed distribution): the size of the LLR's jumps."""
    import numpy as np  # here: the stored-game commands import this module, and most of them test nothing

    counts = np.where(np.asarray(counts, dtype=float) > 0, counts, EMPTY)
    total = counts.sum(axis=-1)
    probs = counts / total[..., None]
    values = np.linspace(0.0, 1.0, counts.shape[-1])
    mle = _mle_normalized if model is Model.NORMALIZED else _mle_logistic
    steps = np.log(mle(values, probs, s1)) - np.log(mle(values, probs, s0))
    mean = (probs * steps).sum(axis=-1)
    spread = np.sqrt((probs * (steps - mean[..., None]) ** 2).sum(axis=-1))
    return total * mean, spread


@dataclass
class Outcomes:
    """How many deals ended on each paired score j / resolution (resolution 2K at K seats): the test's data."""

    resolution: int
    counts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [0] * (self.resolution + 1)

    def add(self, y: float) -> None:
        j = round(y * self.resolution)
        if not 0 <= j <= self.resolution or abs(j - y * self.resolution) > 1e-9:
            raise ValueError(f"a paired score is a multiple of 1/{self.resolution} in [0, 1], got {y}")
        self.counts[j] += 1

    @property
    def n(self) -> int:
        return sum(self.counts)

    def scores(self) -> PairedScores:
        """The same deals as running sums (for the estimate and its interval)."""
        values = [j / self.resolution for j in range(self.resolution + 1)]
        return PairedScores(self.n, sum(c * v for c, v in zip(self.counts, values, strict=True)),
                            sum(c * v * v for c, v in zip(self.counts, values, strict=True)))


@dataclass
class PairedScores:
    """Running sums of paired scores in [0, 1]: their count, mean and variance, and the estimates from them."""

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
        """The variance of one paired score, with a prior of one deal at ¼ (the largest a score in [0, 1] can
        have): never 0, so the interval of a few alike deals is not a point."""
        mean = self.mean
        return (self.squares - self.n * mean * mean + 0.25) / (self.n + 1)

    def _shrunk(self) -> tuple[float, float]:
        """The mean shrunk by one deal at ½, and its standard error."""
        return (self.total + 0.5) / (self.n + 1), math.sqrt(self.variance / (self.n + 1))

    def elo(self) -> tuple[float, float, float]:
        """The estimated Elo difference and its 95 % interval (low, high). The score is shrunk by one deal at ½,
        the interval's ends kept a quarter of a deal inside (0, 1): finite, and continuous near a full score."""
        mean, error = self._shrunk()
        edge = 0.25 / (self.n + 1)
        low, high = max(mean - Z95 * error, edge), min(mean + Z95 * error, 1 - edge)
        return score_to_elo(mean), score_to_elo(low), score_to_elo(high)

    def los(self) -> float:
        """The likelihood of superiority, P(the expected score is above ½), from the same shrunk mean and error as
        :meth:`elo`: above ½ exactly when the Elo is above 0, above 97.5 % exactly when the interval is above 0."""
        mean, error = self._shrunk()
        return 0.5 * (1.0 + math.erf((mean - 0.5) / (error * math.sqrt(2.0))))


class SprtDecision(StrEnum):
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
    model: Model = Model.LOGISTIC

    @classmethod
    def given(cls, elo0: float, elo1: float, alpha: float, beta: float, model: str) -> SprtSettings:
        """The settings a user gave (``--model`` as text), checked: ConfigError in one line otherwise."""
        if model not in {m.value for m in Model}:
            raise ConfigError(f"--model must be logistic or normalized, got {model!r}")
        settings = cls(elo0, elo1, alpha, beta, Model(model))
        settings.check()
        return settings

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
        """Wald's bound at or below which H0 is accepted: log(β / (1 − α))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's bound at or above which H1 is accepted: log((1 − β) / α)."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def hypotheses(self) -> tuple[float, float]:
        """H0 and H1 as :func:`llr` takes them: expected scores (logistic), or normalized t values (normalized:
        nElo · √2 / (800 / ln 10), a deal normalized as a game pair)."""
        if self.model is Model.NORMALIZED:
            return self.elo0 * math.sqrt(2) / NELO, self.elo1 * math.sqrt(2) / NELO
        return elo_to_score(self.elo0), elo_to_score(self.elo1)

    def bounds(self, step: Any) -> tuple[Any, Any]:
        """Wald's bounds moved in by the expected overshoot ρσ of an LLR whose steps have the standard deviation
        ``step`` (Siegmund's corrected approximation), by at most half their size. A test that decides in a few
        dozen deals of large steps lands past its bound and errs less often than α and β, at the cost of deals;
        this narrows the gap at two seats and leaves most of it at more (docs/benchmarks/sprt_oc.md)."""
        import numpy as np

        lower, upper = self.lower, self.upper
        return (lower - np.maximum(lower / 2, -RHO * step), upper - np.minimum(upper / 2, RHO * step))


class Sprt:
    """The sequential test over the deals' paired scores (see the module's text for the model)."""

    def __init__(self, settings: SprtSettings, resolution: int = 4) -> None:
        settings.check()
        self.settings = settings
        self.outcomes = Outcomes(resolution)
        self.h0, self.h1 = settings.hypotheses
        self._known: tuple[float, float, float] | None = None  # _state() until the next deal

    def add(self, y: float) -> SprtDecision:
        self.outcomes.add(y)
        self._known = None
        return self.decision

    @property
    def scores(self) -> PairedScores:
        """The deals so far as running sums: the Elo estimate and its interval."""
        return self.outcomes.scores()

    def _state(self) -> tuple[float, float, float]:
        """The LLR so far and the bounds it is held to now (0 and Wald's before the first deal)."""
        if not self.outcomes.n:
            return 0.0, self.settings.lower, self.settings.upper
        if self._known is None:
            ratio, step = llr_and_step(self.outcomes.counts, self.h0, self.h1, self.settings.model)
            lower, upper = self.settings.bounds(step)
            self._known = float(ratio), float(lower), float(upper)
        return self._known

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far (0 before the first deal)."""
        return self._state()[0]

    @property
    def bounds(self) -> tuple[float, float]:
        """The bounds the LLR is held to now: Wald's, moved in by the expected overshoot (SprtSettings.bounds)."""
        return self._state()[1:]

    @property
    def decision(self) -> SprtDecision:
        llr, lower, upper = self._state()
        if llr >= upper:
            return SprtDecision.H1
        if llr <= lower:
            return SprtDecision.H0
        return SprtDecision.PENDING
