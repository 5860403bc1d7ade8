"""``heuristic``: a rule-of-thumb player for every built-in game.

One module per game family, each offering ``GAMES`` and a ``choose`` function: :mod:`.durak` (``kazaki`` and
``durak``, RULES.md section 2), :mod:`.kozel` (the three Kozel games, sections 3-5) and :mod:`.koroli` (the two
Kings games, sections 6 and 7). :class:`HeuristicBot` hands each decision to the family of its game; games no
module plays get the first legal action.

The durak and Kozel play remembers nothing between decisions. The Kings play counts cards: the bot keeps a
:class:`~.koroli.Memory` of the game it is playing, made at ``new_game`` and dropped at ``game_over``, so the
memory is the bot object's own and never outlives the game.

``python -m bots.heuristic`` runs the same bot as a program over the protocol (docs/PROTOCOL.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo

from . import durak, koroli, kozel

__all__ = ["HeuristicBot", "PLAYS"]

#: Every game the heuristic plays.
PLAYS = durak.GAMES | kozel.GAMES | koroli.GAMES


class HeuristicBot(BotBase):
    """Plays every built-in game by rules of thumb; the first legal action in any other game."""

    name = "heuristic"

    def __init__(self) -> None:
        self._memory: koroli.Memory | None = None  # the Kings games' card counting, for the current game

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self._memory = koroli.Memory()

    def game_over(self, result: Mapping[str, Any]) -> None:
        self._memory = None

    def act(self, decision: Decision) -> Action:
        info = getattr(self, "info", None)
        game = info.game if info is not None else decision.observation.get("game")
        # Even a forced move goes to its family: the Kings play learns from the observation's events.
        if game in koroli.GAMES:
            return koroli.choose(decision, info, self._memory)
        if game in kozel.GAMES:
            return kozel.choose(decision, info)
        if game in durak.GAMES:
            return durak.choose(decision)
        return decision.legal[0]
