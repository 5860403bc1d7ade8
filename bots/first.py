"""``first``: always the first legal action in canonical order (RULES.md C-7).

Deterministic and free of state; useful as a baseline and for reproducing the referee's default action.
"""

from __future__ import annotations

from protocol.actions import Action
from protocol.bot import BotBase, Decision

__all__ = ["FirstBot"]


class FirstBot(BotBase):
    """Plays ``decision.legal[0]``."""

    name = "first"

    def act(self, decision: Decision) -> Action:
        return decision.legal[0]


if __name__ == "__main__":  # python -m bots.first: the same bot over the protocol (docs/PROTOCOL.md)
    from protocol.sdk import run_bot

    raise SystemExit(run_bot(FirstBot()))
