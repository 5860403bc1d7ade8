"""The tree of single-observer ISMCTS (Cowling, Powley and Whitehouse 2012) for one decision, in the steps of every
iteration: draw a world (:meth:`TreeSearch.world`), select down the tree and expand one untried action
(:meth:`~TreeSearch.descend`, :meth:`~TreeSearch.select`, :meth:`~TreeSearch.expand`), play out (a
:class:`~.playouts.Playout`) and back up (:meth:`~TreeSearch.back_up`); then the choice, checked against a guide's
action (:meth:`~TreeSearch.decide`)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from protocol.actions import Action

from ..engine import State, Worlds
from .outcome import Budget, Check, Differences, SearchOutcome, beats
from .playouts import Moves, Playout, Rollout

__all__ = ["Node", "TreeSearch"]


class Node:
    """A tree node: the action that led here was played by ``seat``; ``total`` sums that seat's rewards."""

    __slots__ = ("children", "visits", "avail", "total", "seat")

    def __init__(self, seat: int) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.seat = seat


class TreeSearch:
    """One tree, its nodes keyed by action text: the searching seat's information sets at the root, and below it the
    actions of every seat as they were played in the worlds drawn so far.

    ``pool`` > 0: the k-th world is drawn at iteration k² (at most ``pool``), the other iterations play on a copy of
    one drawn before, in turn; 0: a world is drawn every iteration. ``exploration``: UCB1's constant. ``playout``
    values the positions the tree reaches; ``rollout`` plays the paired check's playouts. ``deal``: playouts (and the
    descent) stop at the end of the deal in play. ``rng`` drives everything."""

    def __init__(self, worlds: Worlds, rng: random.Random, *, exploration: float, pool: int, playout: Playout,
                 rollout: Rollout, deal: bool) -> None:
        self.worlds = worlds
        self.rng = rng
        self.rand = rng.random
        self.exploration = exploration
        self.pool = pool
        self.playout = playout
        self.rollout = rollout
        self.deal = deal
        self.root = Node(-1)
        self.drawn: list[State] = []  # the pool's worlds
        self.done = 0  # iterations so far (a pair counts two)
        self.stop = math.inf  # the deals_done at which playouts stop (deal): the end of the deal in play

    # ------------------------------------------------------------------------------------------ the iterations

    def run(self, budget: Budget) -> None:
        """Iterate while ``budget`` allows (at least once)."""
        while self.done == 0 or budget.allows(self.done):
            self.iterate()

    def iterate(self) -> None:
        """One iteration: a world, down the tree, a playout, the rewards backed up."""
        state = self.world()
        if self.done == 0 and self.deal:
            self.stop = state.deals_done + 1
        path, moves = self.descend(state)
        rewards = self.playout.evaluate(state, self.rand, self.stop, moves)
        self.back_up(path, moves, rewards)
        self.done += 1

    def world(self) -> State:
        """The next determinization: the k-th world is drawn at iteration k² (at most ``pool``, the other iterations
        play on copies of those in turn), or every time without a pool."""
        drawn = self.drawn
        if self.pool > 0 and (len(drawn) >= self.pool or len(drawn) ** 2 > self.done):
            return drawn[self.done % len(drawn)].clone()
        state = self.worlds.sample(self.rng)
        if self.pool > 0:
            drawn.append(state)
            state = state.clone()
        return state

    def descend(self, state: State) -> tuple[list[Node], Moves]:
        """Selection and expansion: down the tree by UCB1 while every legal action of this world has a child, then
        one untried action added (none at the end of the game or of the deal). The nodes passed and the moves."""
        node = self.root
        path = [node]
        moves: Moves = []
        deal, stop = self.deal, self.stop
        while True:
            actions = state.legal_actions()
            if not actions or (deal and state.deals_done >= stop):
                return path, moves
            untried = [a for a in actions if a.text not in node.children]
            if untried:
                action, node = self.expand(node, actions, untried, state.to_act)
            else:
                action, node = self.select(node, actions)
            moves.append((node.seat, action.text))
            state.apply(action)
            path.append(node)
            if untried:
                return path, moves

    def expand(self, node: Node, actions: Sequence[Action], untried: Sequence[Action],
               seat: int | None) -> tuple[Action, Node]:
        """A random untried action of ``seat`` and its new child; the others' availability counted."""
        action = untried[int(self.rand() * len(untried))]
        child = Node(seat)  # type: ignore[arg-type]
        children = node.children
        children[action.text] = child
        for a in actions:  # availability: the others were legal here too
            other = children[a.text] if a is not action and a.text in children else None
            if other is not None:
                other.avail += 1
        return action, child

    def select(self, node: Node, actions: Sequence[Action]) -> tuple[Action, Node]:
        """UCB1 among the children of the actions legal in this world (each one's availability counted): the first
        of the highest score."""
        children, exploration = node.children, self.exploration
        log, sqrt = math.log, math.sqrt
        best = None
        best_score = -1.0
        for a in actions:
            child = children[a.text]
            child.avail += 1
            score = child.total / child.visits + exploration * sqrt(log(child.avail) / child.visits)
            if score > best_score:
                best, best_score = a, score
        assert best is not None
        return best, children[best.text]

    def back_up(self, path: list[Node], moves: Moves, rewards: Sequence[float]) -> None:
        """Each node passed gets the reward of the seat that played its action; the playout learns."""
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                visited.total += rewards[visited.seat]
        self.playout.back_up(moves, rewards)

    # ------------------------------------------------------------------------------------------ the choice

    def decide(self, legal: Sequence[Action], budget: Budget, keep: str | None, margin: float,
               paired: bool) -> SearchOutcome:
        """The root's most visited legal action (the higher total on a tie), or the guide's action ``keep`` unless
        the choice beats it by more than ``margin`` standard errors: of paired playouts on the rest of ``budget``
        when ``paired``, else of the tree's own statistics."""
        children = self.root.children
        visits = {a.text: children[a.text].visits for a in legal if a.text in children}
        text = max(visits, key=lambda t: (visits[t], children[t].total)) if visits else legal[0].text
        means = {t: children[t].total / n for t, n in visits.items() if n}
        check: Check | None = None
        if keep is not None and text != keep:
            if paired:
                check = self.pair_off(text, keep, budget)
                if not beats(check, margin):
                    text = keep
            elif not self.beats_by_the_tree(text, keep, margin):
                text = keep
        return SearchOutcome(text, self.done, budget.elapsed(), visits, means, check)

    def pair_off(self, text: str, keep: str, budget: Budget) -> Check:
        """Paired playouts while ``budget`` allows two more: ``text`` and ``keep`` on the same world, each played
        on with the same random numbers; the differences of the root's seat's rewards."""
        seat = next(iter(self.root.children.values())).seat
        differences = Differences()
        while budget.allows(self.done, 2):
            world = self.world()
            stream = self.rng.getrandbits(64)
            ours = self.rollout.after(world, text, stream, self.stop)[seat]
            differences.add(ours - self.rollout.after(world, keep, stream, self.stop)[seat])
            self.done += 2
        return differences.check()

    def beats_by_the_tree(self, text: str, keep: str, margin: float) -> bool:
        """Whether the tree's mean reward of ``text`` beats that of ``keep`` by more than ``margin`` standard errors
        (rewards lie in [0, 1], so a mean of n visits has a standard error of at most 0.5/√n); never a ``keep`` the
        tree never tried."""
        children = self.root.children
        held = children.get(keep)
        if held is None or held.visits == 0:
            return False
        best = children[text]
        spread = 0.5 * math.sqrt(1 / best.visits + 1 / held.visits)
        return best.total / best.visits - held.total / held.visits > margin * spread
