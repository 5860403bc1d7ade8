"""The flat variant (``flat``, docs/ISMCTS.md "The flat variant"): no tree; every legal action is played out on every
world drawn, with the same random numbers, so that each world's luck is in every action's reward alike."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from protocol.actions import Action

from ..engine import Worlds
from .outcome import Budget, Check, Differences, SearchOutcome, beats
from .playouts import Rollout

__all__ = ["flat_search"]


def flat_search(worlds: Worlds, legal: Sequence[Action], rng: random.Random, budget: Budget, rollout: Rollout, *,
                deal: bool, keep: str | None, margin: float) -> SearchOutcome:
    """Whole worlds while ``budget`` allows one more (at least one; a world costs a playout per legal action), each
    action's playouts by ``rollout`` (to the end of the deal in play when ``deal``). The move is the best mean reward,
    or the guide's action ``keep`` unless the best beats it by more than ``margin`` standard errors of their paired
    differences, world by world."""
    texts = [a.text for a in legal]
    k = len(texts)
    totals = [0.0] * k
    held = texts.index(keep) if keep in texts else -1
    differences = [Differences() for _ in texts]  # per action: its reward less the guide's, world by world
    n = done = 0
    while done == 0 or budget.allows(done, k):
        world = worlds.sample(rng)
        seat = world.to_act
        assert seat is not None
        stop = world.deals_done + 1 if deal else math.inf
        stream = rng.getrandbits(64)
        rewards = [rollout.after(world, text, stream, stop)[seat] for text in texts]
        for i in range(k):
            totals[i] += rewards[i]
        if held >= 0:
            for i in range(k):
                differences[i].add(rewards[i] - rewards[held])
        n += 1
        done += k
    means = {t: totals[i] / n for i, t in enumerate(texts)}
    best = max(range(k), key=lambda i: totals[i])
    check: Check | None = None
    if held >= 0 and best != held:
        check = differences[best].check()
        if not beats(check, margin):
            best = held
    return SearchOutcome(texts[best], done, budget.elapsed(), {t: n for t in texts}, means, check)
