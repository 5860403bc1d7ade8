"""How the search values a position it has reached: a :class:`Playout` plays it on to the end of the game, or of the
deal in play, and gives every seat its reward there (the counterpart of OpenSpiel's evaluators).

:class:`Rollout` plays the game's own playout action, C-7's first legal action or a random one; :class:`Mast`
mostly the action of the best mean reward for its seat over the search's playouts so far, and learns from every
playout backed up. Rewards come from places (:func:`rewards_of`): 1 for first, 0 for last, partners sharing.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Sequence

from protocol.actions import Action

from ..engine import State

__all__ = ["Mast", "Moves", "Playout", "Rollout", "rewards_at", "rewards_of"]

#: The moves of one iteration, oldest first: (the seat that moved, the action's text).
Moves = list[tuple[int, str]]


def rewards_of(places: Sequence[int], teams: Sequence[Sequence[int]] | None) -> list[float]:
    """Each seat's reward from the places (C-10): (seats − place) / (seats − 1), 1 for first and 0 for last; in a team
    game every seat gets its team's mean, so partners want the same thing."""
    n = len(places)
    scale = 1.0 / (n - 1) if n > 1 else 1.0
    rewards = [(n - p) * scale for p in places]
    if teams:
        for team in teams:
            mean = sum(rewards[s] for s in team) / len(team)
            for s in team:
                rewards[s] = mean
    return rewards


def rewards_at(state: State, teams: Sequence[Sequence[int]] | None, over: bool) -> list[float]:
    """The seats' rewards where a playout stopped: the game's places once it is ``over``, else the places of the
    deal that has just finished."""
    places = state.result().places if over else state.deal_places()
    return rewards_of(places, teams)


class Playout(ABC):
    """A playout policy: plays a position on and rewards the seats there. ``teams``: the partners, who share their
    rewards."""

    def __init__(self, teams: Sequence[Sequence[int]] | None) -> None:
        self.teams = teams

    @abstractmethod
    def play(self, state: State, rand: Callable[[], float], stop: float, moves: Moves) -> bool:
        """Play ``state`` on with ``rand`` (uniform in [0, 1)) to the end of the game, or until ``stop`` deals are
        done (:attr:`State.deals_done`); a policy that learns adds its moves to ``moves``. Whether the game is
        over."""

    def evaluate(self, state: State, rand: Callable[[], float], stop: float, moves: Moves) -> list[float]:
        """Every seat's reward once ``state`` is played on (:meth:`play`)."""
        return rewards_at(state, self.teams, self.play(state, rand, stop, moves))

    def back_up(self, moves: Moves, rewards: Sequence[float]) -> None:  # noqa: B027 - a default, not abstract
        """Learn from one iteration: its ``moves`` (the tree's and the playout's) and the seats' ``rewards``. By
        default nothing."""


class Rollout(Playout):
    """The game's playout action (:meth:`State.playout_action`) with probability ``policy``, else C-7's first legal
    action with probability ``first``, else a uniformly random one (docs/ISMCTS.md, "Settings")."""

    def __init__(self, teams: Sequence[Sequence[int]] | None, first: float = 0.0, policy: float = 0.0) -> None:
        super().__init__(teams)
        self.first = first
        self.policy = policy

    def play(self, state: State, rand: Callable[[], float], stop: float, moves: Moves) -> bool:
        # each way draws its own random numbers (a ``first`` test per move, or none): the same numbers give the same
        # playout as ever, so a seed gives the same choice
        actions = state.legal_actions()
        first = self.first
        if self.policy > 0.0:
            policy, choose = self.policy, state.playout_action
            while actions and state.deals_done < stop:
                if rand() < policy:
                    state.apply(choose(actions, rand))
                else:
                    state.apply(actions[0] if rand() < first else actions[int(rand() * len(actions))])
                actions = state.legal_actions()
            return not actions
        if stop < math.inf:
            while actions and state.deals_done < stop:
                state.apply(actions[0] if rand() < first else actions[int(rand() * len(actions))])
                actions = state.legal_actions()
            return not actions
        if first > 0.0:
            while actions:
                state.apply(actions[0] if rand() < first else actions[int(rand() * len(actions))])
                actions = state.legal_actions()
        while actions:
            state.apply(actions[int(rand() * len(actions))])
            actions = state.legal_actions()
        return True

    def after(self, world: State, text: str, stream: int, stop: float) -> list[float]:
        """Every seat's reward when the action ``text`` is played on a copy of ``world`` and the copy is played on
        with the random numbers of ``stream``: two actions after the same world and stream share its luck (the
        paired check, the flat variant)."""
        state = world.clone()
        state.apply(state.parse_action(text))
        return self.evaluate(state, random.Random(stream).random, stop, [])


class Mast(Playout):
    """MAST (Move-Average Sampling): with probability ``epsilon`` a random action, else the one whose mean reward for
    the seat to move is the best over the search's iterations so far (an action never seen counts as 1)."""

    def __init__(self, teams: Sequence[Sequence[int]] | None, epsilon: float) -> None:
        super().__init__(teams)
        self.epsilon = epsilon
        #: per seat: action text -> [reward total, count] over every iteration backed up
        self.values: defaultdict[int, dict[str, list[float]]] = defaultdict(dict)

    def play(self, state: State, rand: Callable[[], float], stop: float, moves: Moves) -> bool:
        actions = state.legal_actions()
        while actions and state.deals_done < stop:
            mover = state.to_act
            assert mover is not None
            if len(actions) == 1:
                action = actions[0]
            elif rand() < self.epsilon:
                action = actions[int(rand() * len(actions))]
            else:
                action = self._best(self.values[mover], actions)
            moves.append((mover, action.text))
            state.apply(action)
            actions = state.legal_actions()
        return not actions

    @staticmethod
    def _best(values: dict[str, list[float]], actions: Sequence[Action]) -> Action:
        """The first of ``actions`` of the highest mean in ``values``."""
        best, best_value = actions[0], -1.0
        for a in actions:
            stat = values.get(a.text)
            value = stat[0] / stat[1] if stat is not None else 1.0
            if value > best_value:
                best, best_value = a, value
        return best

    def back_up(self, moves: Moves, rewards: Sequence[float]) -> None:
        values = self.values
        for mover, text in moves:
            stat = values[mover].get(text)
            if stat is None:
                values[mover][text] = [rewards[mover], 1.0]
            else:
                stat[0] += rewards[mover]
                stat[1] += 1.0

