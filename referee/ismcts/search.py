"""Single-observer Information Set MCTS (SO-ISMCTS; Cowling, Powley and Whitehouse 2012) over sampled worlds.

One tree, its nodes keyed by action text: the searching seat's information sets at the root, and below it the actions of
every seat as they were played in the worlds drawn so far. Each iteration takes a new determinization (a world of
:meth:`referee.engine.Worlds.sample`, or a copy of one from a small pool drawn once per move), walks the tree with UCB1
over the actions legal in *this* world (the availability count of a child is how often it was legal when its parent was
reached, so rarely-legal actions are not under-explored), expands one untried action, plays on to the end of the game,
or of the deal in play (the game's playout action, C-7's first legal action or a random one, or by MAST), and backs the
rewards up: each node gets the reward of the seat that played its action (multi-player ISMCTS: every seat plays for
itself, partners for their team). The move is the root's most visited legal action, unless a guide's action is given:
then paired playouts (or the tree's own statistics) decide between the two. The flat variant (``flat``) has no tree:
every legal action is played out on every world drawn, so that all of them are compared on the same worlds. Nothing
here sees the real game: only worlds and the engine API.

The shape is that of OpenSpiel's ``ismcts.py``: one :class:`~.settings.Settings` value instead of keywords, the tree
in small steps (:class:`.tree.TreeSearch`: a world, select, expand, play out, back up, decide), playout policies as
objects (:mod:`.playouts`, like OpenSpiel's evaluators) and worlds copied by :meth:`referee.engine.State.clone`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from protocol.actions import Action

from ..engine import Worlds
from .flat import flat_search
from .outcome import Budget, SearchOutcome
from .playouts import Mast, Rollout, rewards_at, rewards_of
from .settings import Settings
from .tree import Node, TreeSearch

__all__ = ["Node", "SearchOutcome", "rewards_at", "rewards_of", "search"]


def search(worlds: Worlds, legal: Sequence[Action], rng: random.Random, settings: Settings, *, seconds: float,
           teams: Sequence[Sequence[int]] | None, keep: str | None = None,
           clock: Callable[[], float] = time.perf_counter) -> SearchOutcome:
    """Search the decision whose legal actions are ``legal`` (the same in every world) under ``settings`` (those of
    :meth:`Settings.for_game`; docs/ISMCTS.md, "Settings") for at most ``seconds`` (0: the iterations alone; one of
    them must be set), the budget's time left. ``teams``: the partners, who share their rewards. ``keep``: a guide's
    choice (the text of a legal action), played unless the search's own choice beats it by more than ``guide``
    standard errors: of ``pair``'s share of the budget spent on paired playouts (both actions on the same world, each
    played on with the same random numbers, so that the deal's luck cancels out of their difference), else of the
    tree's own statistics; a guide's action the tree never tried is played. ``flat``: no tree (:mod:`.flat`).
    ``rng`` drives everything: at a fixed iteration budget, the same ``rng`` state gives the same choice."""
    budget = Budget.of(seconds, settings.iterations, clock)
    rollout = Rollout(teams, settings.first or 0.0, settings.policy or 0.0)
    margin = settings.guide or 0.0
    if settings.flat:
        return flat_search(worlds, legal, rng, budget, rollout, deal=bool(settings.deal), keep=keep, margin=margin)
    paired = keep is not None and settings.pair > 0.0
    playout = Mast(teams, settings.epsilon) if settings.epsilon < 1.0 else rollout  # MAST, or the pairs' own
    tree = TreeSearch(worlds, rng, exploration=settings.c, pool=settings.pool, playout=playout, rollout=rollout,
                      deal=bool(settings.deal))
    tree.run(budget.share(1.0 - settings.pair) if paired else budget)
    return tree.decide(legal, budget, keep, margin, paired)
