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
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.actions import Action

from ..engine import State, Worlds

__all__ = ["Node", "Outcome", "rewards_at", "rewards_of", "search"]


class Node:
    """A tree node: the action that led here was played by ``seat``; ``total`` sums that seat's rewards."""

    __slots__ = ("children", "visits", "avail", "total", "seat")

    def __init__(self, seat: int) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.seat = seat


@dataclass(frozen=True, slots=True)
class Outcome:
    """A search's choice (its text), the iterations (playouts) it ran, its time, the root's visit counts, the
    mean reward of each visited root action and the paired check's figures."""

    text: str
    iterations: int
    seconds: float
    visits: dict[str, int]
    means: dict[str, float]
    #: the paired check (``pair`` > 0), when it ran: pairs played, the mean difference (the tree's choice less the
    #: guide's) and its standard error
    check: tuple[int, float, float] | None = None


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


def search(worlds: Worlds, legal: Sequence[Action], rng: random.Random, *, seconds: float, iterations: int,
           exploration: float, pool: int, teams: Sequence[Sequence[int]] | None, epsilon: float = 1.0,
           first: float = 0.0, keep: str | None = None, margin: float = 0.0, pair: float = 0.0,
           deal: bool = False, policy: float = 0.0, flat: bool = False,
           clock: Callable[[], float] = time.perf_counter) -> Outcome:
    """Search the decision whose legal actions are ``legal`` (the same in every world) for at most ``seconds``
    (0: no limit) and ``iterations`` (0: no limit; one of them must be set), with UCB1's ``exploration`` constant.
    ``pool`` > 0: the k-th world is drawn at iteration k² (so n iterations play on about √n worlds, at most
    ``pool``), the other iterations play on a copy of one drawn before, in turn; 0: a world is drawn for every
    iteration (sampling a world costs far more than copying one: docs/ISMCTS.md). ``epsilon`` < 1: MAST playouts
    (that share of random actions, the others the best mean reward of the seat's action so far); 1: random ones.
    ``keep``: a guide's choice (the text of a legal action), played unless the search's own choice has a mean
    reward above it by more than ``margin`` standard errors (rewards lie in [0, 1], so an action of n visits has a
    standard error of at most 0.5/√n); a guide's action the search never tried is played.
    ``pair`` > 0 (with ``keep``): that share of the budget decides between the guide's action and the tree's choice
    instead, by paired playouts: both actions on the same world, each played on with the same random numbers, so
    that the deal's luck cancels out of their difference; the tree's choice is played if its mean reward beats the
    guide's by more than ``margin`` standard errors of the paired differences (docs/ISMCTS.md, "The guide").
    ``deal``: playouts stop at the end of the deal in play (:attr:`State.deals_done`), and the places the deal
    gave (:meth:`State.deal_places`) are their rewards; else they go on to the end of the game.
    ``policy``: the share of playout moves that take the game's own playout action (:meth:`State.playout_action`),
    the others as ``first`` says. ``flat``: no tree (``exploration``, ``pool``, ``pair`` and ``epsilon`` unused):
    each world drawn plays every legal action out, with the same random numbers, the budget counted in whole worlds
    (at least one); the best mean reward is the choice, checked against ``keep`` as the pairs do (:func:`_flat`). A
    game without copies is searched by the tree instead.
    ``rng`` drives everything: at a fixed iteration budget, the same ``rng`` state gives the same choice."""
    start = clock()
    deadline = start + seconds if seconds > 0 else math.inf
    limit = iterations if iterations > 0 else math.inf
    if flat:
        outcome = _flat(worlds, legal, rng, start, deadline, limit, teams, first, keep, margin, deal, policy, clock)
        if outcome is not None:
            return outcome
    paired = keep is not None and pair > 0.0
    tree_deadline = start + seconds * (1.0 - pair) if paired and seconds > 0 else deadline
    tree_limit = max(1, math.ceil(iterations * (1.0 - pair))) if paired and iterations > 0 else limit
    root = Node(-1)
    drawn: list[State] = []
    rand = rng.random
    log, sqrt = math.log, math.sqrt
    seats = 0
    mast: list[dict[str, list[float]]] = []  # per seat: action text -> [reward total, count] over all playouts
    done = 0
    stop = math.inf  # the deals_done at which playouts stop (deal): the end of the deal in play

    def world() -> State:
        """The next determinization: the k-th world is drawn at iteration k² (at most ``pool``, the other iterations
        play on copies of those in turn), or every time without a pool."""
        nonlocal pool
        if pool > 0 and (len(drawn) >= pool or len(drawn) ** 2 > done):
            return drawn[done % len(drawn)].clone()  # type: ignore[attr-defined, no-any-return]
        state = worlds.sample(rng)
        if pool > 0:
            if not hasattr(state, "clone"):
                pool = 0  # a game without copies: a fresh world every time
            else:
                drawn.append(state)
                state = state.clone()  # type: ignore[attr-defined]
        return state

    while done < tree_limit and (done == 0 or clock() < tree_deadline):
        state = world()
        if not mast:
            seats = state.seats
            mast = [{} for _ in range(seats)]
            if deal:
                stop = state.deals_done + 1
        node = root
        path = [root]
        played: list[tuple[int, str]] = []
        # selection and expansion: down the tree while every legal action of this world has a child
        while True:
            actions = state.legal_actions()
            if not actions or (deal and state.deals_done >= stop):
                break
            children = node.children
            untried = [a for a in actions if a.text not in children]
            if untried:
                action = untried[int(rand() * len(untried))]
                child = Node(state.to_act)  # type: ignore[arg-type]
                children[action.text] = child
                for a in actions:  # availability: the others were legal here too
                    other = children[a.text] if a is not action and a.text in children else None
                    if other is not None:
                        other.avail += 1
                played.append((child.seat, action.text))
                state.apply(action)
                path.append(child)
                break
            best = None
            best_score = -1.0
            for a in actions:
                child = children[a.text]
                child.avail += 1
                score = child.total / child.visits + exploration * sqrt(log(child.avail) / child.visits)
                if score > best_score:
                    best, best_score = a, score
            assert best is not None
            node = children[best.text]
            played.append((node.seat, best.text))
            state.apply(best)
            path.append(node)
        if epsilon >= 1.0:  # playout: the game's own action, C-7's first legal one or a random one, to the end
            over = _play_out(state, rand, first, policy, stop)
        else:  # MAST: mostly the action with the best mean reward for its seat so far, else a random one
            actions = state.legal_actions()
            while actions and state.deals_done < stop:
                mover = state.to_act
                if len(actions) == 1:
                    action = actions[0]
                elif rand() < epsilon:
                    action = actions[int(rand() * len(actions))]
                else:
                    values = mast[mover]  # type: ignore[index]
                    action = actions[0]
                    best_value = -1.0
                    for a in actions:
                        stat = values.get(a.text)
                        value = stat[0] / stat[1] if stat is not None else 1.0
                        if value > best_value:
                            action, best_value = a, value
                played.append((mover, action.text))  # type: ignore[arg-type]
                state.apply(action)
                actions = state.legal_actions()
            over = not actions
        rewards = rewards_at(state, teams, over)
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                visited.total += rewards[visited.seat]
        if epsilon < 1.0:
            for mover, text in played:
                stat = mast[mover].get(text)
                if stat is None:
                    mast[mover][text] = [rewards[mover], 1.0]
                else:
                    stat[0] += rewards[mover]
                    stat[1] += 1.0
        done += 1
    visits = {a.text: root.children[a.text].visits for a in legal if a.text in root.children}
    text = max(visits, key=lambda t: (visits[t], root.children[t].total)) if visits else legal[0].text
    means = {t: root.children[t].total / n for t, n in visits.items() if n}
    check: tuple[int, float, float] | None = None
    if keep is not None and text != keep:
        if paired and hasattr(state, "clone"):  # a game without copies cannot pair: the tree's statistics decide
            seat = next(iter(root.children.values())).seat
            pairs, total, squares = 0, 0.0, 0.0
            while done + 2 <= limit and clock() < deadline:
                base = world()
                stream = rng.getrandbits(64)
                diff = 0.0
                for chosen, sign in ((text, 1.0), (keep, -1.0)):
                    state = base.clone()  # type: ignore[attr-defined]
                    state.apply(next(a for a in state.legal_actions() if a.text == chosen))
                    over = _play_out(state, random.Random(stream).random, first, policy, stop)  # the same numbers
                    diff += sign * rewards_at(state, teams, over)[seat]
                pairs += 1
                total += diff
                squares += diff * diff
                done += 2
            check = _paired(pairs, total, squares)
            if not _beats(check, margin):
                text = keep
        else:
            held = root.children.get(keep)
            if held is None or held.visits == 0:
                text = keep
            else:
                best_node = root.children[text]
                spread = 0.5 * math.sqrt(1 / best_node.visits + 1 / held.visits)
                if best_node.total / best_node.visits - held.total / held.visits <= margin * spread:
                    text = keep
    return Outcome(text, done, clock() - start, visits, means, check)


def _flat(worlds: Worlds, legal: Sequence[Action], rng: random.Random, start: float, deadline: float, limit: float,
          teams: Sequence[Sequence[int]] | None, first: float, keep: str | None, margin: float, deal: bool,
          policy: float, clock: Callable[[], float]) -> Outcome | None:
    """The flat variant (``flat``): every legal action played out on every world drawn, with the same random numbers,
    so that each world's luck is in every action's reward alike; the move is the best mean reward, or the guide's
    action ``keep`` unless the best beats it by more than ``margin`` standard errors of their paired differences.
    None for a game without copies (the tree searches it instead)."""
    texts = [a.text for a in legal]
    k = len(texts)
    totals = [0.0] * k
    held = texts.index(keep) if keep in texts else -1
    diffs = [0.0] * k  # per action: the sum of its reward less the guide's, world by world, and their squares
    squares = [0.0] * k
    n = done = 0
    rewards = [0.0] * k
    while done == 0 or (done + k <= limit and clock() < deadline):
        base = worlds.sample(rng)
        if not hasattr(base, "clone"):
            return None
        seat = base.to_act
        stop = base.deals_done + 1 if deal else math.inf
        stream = rng.getrandbits(64)
        by_text = {a.text: a for a in base.legal_actions()}
        for i, text in enumerate(texts):
            state = base.clone()  # type: ignore[attr-defined]
            state.apply(by_text[text])
            over = _play_out(state, random.Random(stream).random, first, policy, stop)
            rewards[i] = rewards_at(state, teams, over)[seat]  # type: ignore[index]
            totals[i] += rewards[i]
        if held >= 0:
            for i in range(k):
                d = rewards[i] - rewards[held]
                diffs[i] += d
                squares[i] += d * d
        n += 1
        done += k
    means = {t: totals[i] / n for i, t in enumerate(texts)}
    best = max(range(k), key=lambda i: totals[i])
    check: tuple[int, float, float] | None = None
    if held >= 0 and best != held:
        check = _paired(n, diffs[best], squares[best])
        if not _beats(check, margin):
            best = held
    return Outcome(texts[best], done, clock() - start, {t: n for t in texts}, means, check)


def _paired(pairs: int, total: float, squares: float) -> tuple[int, float, float]:
    """The paired check's figures from ``pairs`` differences (the tree's or best choice's reward less the guide's,
    on the same world) with sum ``total`` and sum of squares ``squares``: the pairs, their mean and its standard
    error (infinite below two pairs)."""
    mean = total / pairs if pairs else 0.0
    spread = math.sqrt(max(squares / pairs - mean * mean, 0.0) / (pairs - 1)) if pairs > 1 else math.inf
    return pairs, mean, spread


def _beats(check: tuple[int, float, float], margin: float) -> bool:
    """Whether the paired differences put the challenger above the guide's action by more than ``margin`` standard
    errors."""
    _, mean, spread = check
    return mean > margin * spread


def _play_out(state: State, rand: Callable[[], float], first: float, policy: float, stop: float) -> bool:
    """Play ``state`` to the end of the game, or until ``stop`` deals are done: the game's playout action
    (:meth:`State.playout_action`) with probability ``policy``, else C-7's first legal action with probability
    ``first``, else a uniformly random one. Whether the game is over."""
    actions = state.legal_actions()
    if policy > 0.0:
        choose = state.playout_action
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


def rewards_at(state: State, teams: Sequence[Sequence[int]] | None, over: bool) -> list[float]:
    """The seats' rewards where a playout stopped: the game's places once it is ``over``, else the places of the
    deal that has just finished."""
    places = state.result().places if over else state.deal_places()
    return rewards_of(places, teams)
