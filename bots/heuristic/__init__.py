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

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo

__all__ = ["FAMILY", "HeuristicBot", "PLAYS"]

#: The family module (of this package) that plays each game: imported when a game of it starts, so registering
#: the bot (every command does) imports none of them. Each module's ``GAMES`` says the same (tests/unit/test_bots.py).
FAMILY = {"kazaki": "durak", "durak": "durak", "kozel": "kozel", "kozel-hvaleny": "kozel", "kozel-nn": "kozel",
          "koroli": "koroli", "koroli52": "koroli"}
#: Every game the heuristic plays.
PLAYS = frozenset(FAMILY)


def _family(game: object) -> Any:
    name = FAMILY.get(game) if isinstance(game, str) else None
    return import_module(f"{__name__}.{name}") if name is not None else None


class HeuristicBot(BotBase):
    """Plays every built-in game by rules of thumb; the first legal action in any other game."""

    name = "heuristic"

    def __init__(self) -> None:
        self._memory: Any = None  # the Kings games' card counting (koroli.Memory), for the current game
        self._game: str | None = None
        self._choose: Callable[[Decision], Action] = self._first

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self._choose = self._chooser(info.game, info)

    def game_over(self, result: Mapping[str, Any]) -> None:
        self._memory = None

    def act(self, decision: Decision) -> Action:
        if getattr(self, "info", None) is None:  # asked without new_game: the observation names the game
            game = decision.observation.get("game")
            if game != self._game:
                self._choose = self._chooser(game, None)
        # Even a forced move goes to its family: the Kings play learns from the observation's events.
        return self._choose(decision)

    def _chooser(self, game: Any, info: GameInfo | None) -> Callable[[Decision], Action]:
        self._game = game
        family = _family(game)
        self._memory = family.Memory() if FAMILY.get(game) == "koroli" else None
        if family is None:
            return self._first
        if FAMILY[game] == "koroli":
            return lambda decision: family.choose(decision, info, self._memory)
        if FAMILY[game] == "kozel":
            return lambda decision: family.choose(decision, info)
        return family.choose  # type: ignore[no-any-return]

    @staticmethod
    def _first(decision: Decision) -> Action:
        return decision.legal[0]
