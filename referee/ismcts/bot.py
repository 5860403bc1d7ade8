"""``ismcts``: the Bot that searches (:mod:`.search`) over the worlds of its own view (docs/ISMCTS.md).

It keeps the observations of the current game as it was given them (``Decision.observation``, each with the events
since its previous decision: exactly the :data:`referee.engine.View` of the seat) and asks the game for the worlds
that fit them (:meth:`referee.engine.Game.worlds`) once per decision. It never sees the real state: it is a bot
behind :class:`protocol.bot.Bot` like any other, in-process or as a program (``python -m referee.ismcts``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from bots.heuristic import HeuristicBot
from protocol.actions import Action
from protocol.bot import BotBase, Deadline, Decision, GameInfo

from ..engine import Game
from ..games.plugin import builtin_games
from .search import search
from .settings import BY_GAME, GAME_DEFAULTS, SETTINGS, Settings

__all__ = ["BY_GAME", "DEADLINE_SHARE", "GAME_DEFAULTS", "IsmctsBot", "Settings", "SETTINGS", "search_seconds"]


#: The share of the time the referee's request leaves (its deadline) that a search may take at most, less
#: :data:`DEADLINE_RESERVE`: the rest is for the answer's way back, and for a worker whose core is shared (a
#: search counts wall time, which passes while the process waits for the core).
DEADLINE_SHARE = 0.75
DEADLINE_RESERVE = 0.02


def search_seconds(ms: int, spent: float, deadline: Deadline | None, now: float | None = None) -> float:
    """The seconds a search may run (0: no time limit, the iterations alone): what is left of ``ms`` (the bot's own
    budget, counted from the request) after the ``spent`` seconds, and never past :data:`DEADLINE_SHARE` of what the
    referee's ``deadline`` leaves ``now``. At least a microsecond: a search always runs one iteration."""
    left = ms / 1000 - spent if ms else math.inf
    if deadline is not None:
        left = min(left, deadline.remaining_ms(now) / 1000 * DEADLINE_SHARE - DEADLINE_RESERVE)
    return 0.0 if left == math.inf else max(left, 1e-6)


class IsmctsBot(BotBase):
    """Information Set MCTS over sampled worlds; ``settings`` as in :data:`SETTINGS` (texts or numbers).
    ``find_game`` turns a game id into its :class:`~referee.engine.Game` (default: the built-in games)."""

    name = "ismcts"
    #: the keys a SPEC may set (``ismcts:ms=50``); the registered factory (:mod:`.plugin`) says it to referee.botspec
    settings = SETTINGS

    def __init__(self, find_game: Callable[[str], Game] | None = None, **settings: object) -> None:
        self.config = Settings.parse(settings)
        self._find = find_game or (lambda game_id: builtin_games()[game_id])
        self.rng = random.Random(0)
        #: the guide (``guide`` > 0): heuristic, told every decision (its Kings play counts the cards it saw)
        self.guide: HeuristicBot | None = HeuristicBot() if self.config.guide != 0 else None
        self.game: Game | None = None
        self.view: list[dict[str, Any]] = []
        #: per game: moves searched, their iterations and seconds (the benchmarks read them)
        self.searched = 0
        self.iterations = 0
        self.seconds = 0.0

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self.rng = random.Random(info.bot_seed)
        self.game = self._find(info.game)
        self.view = []
        self.searched = self.iterations = 0
        self.seconds = 0.0
        if self.guide is not None:
            self.guide.new_game(info)

    def game_over(self, result: Mapping[str, Any]) -> None:
        if self.guide is not None:
            self.guide.game_over(result)

    def act(self, decision: Decision) -> Action:
        began = time.perf_counter()
        self.view.append(decision.observation)  # every observation, forced or not: the view is all of them
        legal = decision.legal
        hint = self.guide.act(decision).text if self.guide is not None else None
        if len(legal) == 1:
            return legal[0]
        assert self.game is not None, "act before new_game"
        info = self.info
        worlds = self.game.worlds(info.seats, info.seat, self.view, info.options)
        config = self.config.for_game(info.game)
        left = search_seconds(config.ms, time.perf_counter() - began, decision.deadline)
        outcome = search(worlds, legal, self.rng, config, seconds=left, teams=info.teams, keep=hint)
        self.searched += 1
        self.iterations += outcome.iterations
        self.seconds += outcome.seconds
        for action in legal:
            if action.text == outcome.text:
                return action
        return legal[0]  # pragma: no cover - the search only chooses among legal
