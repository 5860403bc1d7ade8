"""``random``: a uniformly random legal action.

The bot never reads the observation (it is built lazily and costs time), so it is the cheapest opponent there
is. Its choices come from its own :class:`random.Random`, seeded from ``GameInfo.bot_seed`` at every game
start, so the same game seed gives the same play.
"""

from __future__ import annotations

import random

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo

__all__ = ["RandomBot"]


class RandomBot(BotBase):
    """Chooses uniformly among ``decision.legal``."""

    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self.rng = random.Random(info.bot_seed)

    def act(self, decision: Decision) -> Action:
        legal = decision.legal
        return legal[int(self.rng.random() * len(legal))]  # uniform: random() has 53 bits, len is small


if __name__ == "__main__":  # python -m bots.random: the same bot over the protocol (docs/PROTOCOL.md)
    from protocol.sdk import run_bot

    raise SystemExit(run_bot(RandomBot()))
