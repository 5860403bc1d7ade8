"""What the two searches (:mod:`.tree`, :mod:`.flat`) share: the :class:`Budget` they spend, the paired
:class:`Differences` that check a guide's action, and the :class:`SearchOutcome` they give back."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Budget", "Check", "Differences", "SearchOutcome", "beats"]

#: The paired check's figures: pairs played, the mean difference (the challenger's reward less the guide's action's)
#: and its standard error.
Check = tuple[int, float, float]


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """A search's choice (its text), the iterations (playouts) it ran, its time, the root's visit counts, the
    mean reward of each visited root action and the paired check's figures."""

    text: str
    iterations: int
    seconds: float
    visits: dict[str, int]
    means: dict[str, float]
    #: the paired check (``pair`` > 0), when it ran: pairs played, the mean difference (the tree's choice less the
    #: guide's) and its standard error
    check: Check | None = None


@dataclass(frozen=True, slots=True)
class Budget:
    """A search's budget: at most ``limit`` iterations (inf: none) and until ``deadline`` by ``clock`` (inf: none),
    counted from ``start``."""

    start: float
    deadline: float
    limit: float
    clock: Callable[[], float]
    seconds: float = 0.0
    iterations: int = 0

    @classmethod
    def of(cls, seconds: float, iterations: int, clock: Callable[[], float]) -> Budget:
        """From now: ``seconds`` (0: no limit) and ``iterations`` (0: no limit)."""
        start = clock()
        return cls(start, start + seconds if seconds > 0 else math.inf, iterations if iterations > 0 else math.inf,
                   clock, seconds, iterations)

    def share(self, part: float) -> Budget:
        """The first ``part`` of this budget (of its time and of its iterations, at least one)."""
        deadline = self.start + self.seconds * part if self.seconds > 0 else self.deadline
        limit = max(1, math.ceil(self.iterations * part)) if self.iterations > 0 else self.limit
        return Budget(self.start, deadline, limit, self.clock, self.seconds, self.iterations)

    def allows(self, done: int, cost: int = 1) -> bool:
        """Whether ``cost`` more iterations fit after ``done``, in number and in time."""
        return done + cost <= self.limit and self.clock() < self.deadline

    def elapsed(self) -> float:
        return self.clock() - self.start


class Differences:
    """Paired differences of rewards (the challenger's less the guide's action's, on the same world with the same
    random numbers, so that the world's luck cancels out): their count, sum and sum of squares."""

    __slots__ = ("pairs", "total", "squares")

    def __init__(self) -> None:
        self.pairs = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, difference: float) -> None:
        self.pairs += 1
        self.total += difference
        self.squares += difference * difference

    def check(self) -> Check:
        """The pairs, their mean and its standard error (infinite below two pairs)."""
        pairs, total = self.pairs, self.total
        mean = total / pairs if pairs else 0.0
        spread = math.sqrt(max(self.squares / pairs - mean * mean, 0.0) / (pairs - 1)) if pairs > 1 else math.inf
        return pairs, mean, spread


def beats(check: Check, margin: float) -> bool:
    """Whether the paired differences put the challenger above the guide's action by more than ``margin`` standard
    errors."""
    _, mean, spread = check
    return mean > margin * spread
