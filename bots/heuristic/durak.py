"""The ``heuristic`` bot's play for the durak family: ``kazaki`` and ``durak`` (RULES.md section 2).

It remembers nothing between decisions: every choice is made from the legal actions and the observation
(hand, trump, stock size, table). The rules of thumb are the ones a casual player uses:

* attack with the lowest non-trump rank, the whole set of it at once; keep trumps;
* defend with the cheapest card that beats (non-trump before trump, low before high); take instead when the
  defence would spend high or several trumps while the stock is still large;
* transfer (perevodnoy) when a plain card of the table rank is cheaper than the defence;
* throw in low non-trump cards; throw high cards only once the stock is empty; never throw trumps;
* after a take, withdraw a thrown-in trump or high card rather than hand it to the taker;
* demand a redeal only when the five-of-a-suit is a weak non-trump suit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from protocol.actions import Action
from protocol.bot import Decision
from protocol.cards import KAZAKI_SUITS, Card

__all__ = ["GAMES", "choose"]

GAMES = frozenset({"kazaki", "durak"})

#: The stock is "large" (the game is young) while it holds at least this many cards; then a high trump is
#: worth more than a few extra cards in hand, which can still be shed later.
LARGE_STOCK = 10
#: The most cards a defender takes rather than spend a trump it wants to keep.
TAKE_AT_MOST = 4

_card = Card.parse  # wire-form card texts; Card.parse remembers what it parsed


class _View:
    """How much cards are worth in one observation: the trump suit, the rank scale and the stock size."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.trump: str = obs["trump"]
        self.stock: int = obs["stock"]
        if self.trump in KAZAKI_SUITS:
            self.low, self.ranks = 0, 10  # kazaki: 0..9
        else:
            self.low, self.ranks = 6, 9  # durak: 6..A
        self.table = obs["table"]
        self._obs = obs

    @property
    def hand(self) -> list[Card]:
        """The cards in hand (only a redeal's choice looks at them)."""
        return [_card(text) for text in self._obs["hand"]]

    @property
    def late(self) -> bool:
        """The stock is empty: every card still held counts against us."""
        return self.stock == 0

    @property
    def early(self) -> bool:
        return self.stock >= LARGE_STOCK

    def is_trump(self, card: Card) -> bool:
        return card.suit == self.trump

    def pos(self, card: Card) -> int:
        """0 for the lowest rank of the deck, ``ranks - 1`` for the highest."""
        return card.rank - self.low

    def value(self, card: Card) -> int:
        """Strength on one scale: every trump is worth more than every plain card."""
        return self.pos(card) + (self.ranks if self.is_trump(card) else 0)

    def is_high(self, card: Card) -> bool:
        """The top third of the ranks (durak: Q K A; kazaki: 7 8 9)."""
        return self.pos(card) >= self.ranks - 3

    def is_low(self, card: Card) -> bool:
        """The lower half of the ranks (durak: 6 7 8 9; kazaki: 0 .. 4)."""
        return self.pos(card) < (self.ranks + 1) // 2


def choose(decision: Decision) -> Action:
    """The heuristic's action for a ``kazaki`` or ``durak`` decision (always one of ``decision.legal``); the
    observation is not read for a forced move."""
    legal = decision.legal
    if len(legal) == 1:
        return legal[0]
    kinds = {action.kind for action in legal}
    handler = _handler(kinds)
    if handler is None:
        return legal[0]
    obs = decision.observation
    return handler(legal, _View(obs), obs)


def _handler(kinds: set[str]) -> Callable[[Sequence[Action], _View, dict[str, Any]], Action] | None:
    """Which decision this is, told by the kinds of the legal actions (KZ-12)."""
    if "attack" in kinds:
        return _attack
    if "take" in kinds:
        return _defend
    if "throw_in" in kinds:
        return _throw_in
    if "withdraw" in kinds:
        return _withdraw
    if "demand_redeal" in kinds:
        return _redeal
    return None


# ------------------------------------------------------------------------------------------ attack


def _attack(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """The lowest non-trump rank, all of its plain cards at once; trumps only when nothing else is left.

    With the stock empty, bigger sets come first: shedding cards is what wins the endgame.
    """

    def key(action: Action) -> tuple[int, ...]:
        cards = action.cards
        trumps = sum(view.is_trump(c) for c in cards)
        rank = view.pos(cards[0])
        if view.late:
            return (trumps, -len(cards), rank)
        return (trumps, rank, -len(cards))

    return min(legal, key=key)


# ----------------------------------------------------------------------------------------- defence


def _defend(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """Cover with the cheapest plan, transfer when that is cheaper, take when covering costs too much."""
    take = next(a for a in legal if a.kind == "take")
    uncovered = [_card(e["card"]) for e in view.table if e["cover"] is None]
    options: dict[Card, list[Card]] = {a: [] for a in uncovered}  # the covers of each attack card
    defends: dict[Card, list[Action]] = {a: [] for a in uncovered}  # and the actions, in the same order
    for action in legal:
        if action.kind == "defend":
            attack, cover = action.cards
            options[attack].append(cover)
            defends[attack].append(action)
    plan = _cover_plan(options, view)
    transfer = _cheap_transfer(legal, plan, view)
    if transfer is not None:
        return transfer
    if plan is None or _should_take(plan, view):
        return take
    # The plan is fixed and the order does not change it: cover the strongest attack card first.
    attack = max(plan, key=view.value)
    return defends[attack][options[attack].index(plan[attack])]


def _should_take(plan: dict[Card, Card], view: _View) -> bool:
    """Take rather than spend a high trump, or two trumps, while the stock is large and the table small."""
    if not view.early:
        return False
    trumps = [c for c in plan.values() if view.is_trump(c)]
    costly = any(view.is_high(c) for c in trumps) or len(trumps) >= 2
    pickup = sum(1 + (e["cover"] is not None) for e in view.table)
    return costly and pickup <= TAKE_AT_MOST


def _cheap_transfer(legal: Sequence[Action], plan: dict[Card, Card] | None, view: _View) -> Action | None:
    """A transfer with plain cards only, when the defence would need a trump (or is impossible) or when
    the transfer cards are low: passing the attack on sheds cards without spending any cover."""
    best = None
    for action in legal:
        if action.kind != "transfer" or any(view.is_trump(c) for c in action.cards):
            continue
        if best is None or len(action.cards) > len(best.cards):
            best = action
    if best is None:
        return None
    needs_trump = plan is None or any(view.is_trump(c) for c in plan.values())
    if needs_trump or all(view.is_low(c) for c in best.cards):
        return best
    return None


# -------------------------------------------------------------------------------------- throw-ins


def _throw_in(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """The lowest acceptable card, or pass. Early only low plain cards; once the stock is empty any plain
    card (shedding wins); never a trump while the opponents can still use it."""
    candidates = [a for a in legal if a.kind == "throw_in" and _may_throw(a.cards[0], view)]
    if not candidates:
        return _pass(legal)
    return min(candidates, key=lambda a: view.value(a.cards[0]))


def _may_throw(card: Card, view: _View) -> bool:
    if view.is_trump(card):
        return False
    if view.late:
        return True
    return view.is_low(card) or (not view.early and not view.is_high(card))


def _withdraw(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """Take back a thrown-in trump or high card rather than hand it to the taker (KZ-17 step 2)."""
    card = next(a for a in legal if a.kind == "withdraw").cards[0]
    keep = view.is_trump(card) or (view.is_high(card) and not view.late)
    return next(a for a in legal if a.kind == "withdraw") if keep else _pass(legal)


# ------------------------------------------------------------------------------------------ redeal


def _redeal(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """Demand a redeal (KZ-6) only when the five-of-a-suit is a weak non-trump suit."""
    for suit in {c.suit for c in view.hand}:
        cards = [c for c in view.hand if c.suit == suit]
        if len(cards) >= 5 and suit != view.trump and _weak(cards, view):
            return next(a for a in legal if a.kind == "demand_redeal")
    return _pass(legal)


def _weak(cards: Iterable[Card], view: _View) -> bool:
    """A suit holding is weak when its cards are low on average."""
    ranks = [view.pos(c) for c in cards]
    return sum(ranks) < len(ranks) * (view.ranks - 1) / 2


def _cover_plan(options: dict[Card, list[Card]], view: _View) -> dict[Card, Card] | None:
    """Which hand card covers which uncovered attack card, or None if they cannot all be covered.

    Greedy: the attack cards with the fewest possible covers choose first (the strongest first on a tie),
    each taking its cheapest unused card that beats it.
    """
    plan: dict[Card, Card] = {}
    used: set[Card] = set()
    order = sorted(options, key=lambda a: (len(options[a]), -view.value(a)))
    for attack in order:
        free = [c for c in options[attack] if c not in used]
        if not free:
            return None
        cover = min(free, key=view.value)
        plan[attack] = cover
        used.add(cover)
    return plan


def _pass(legal: Sequence[Action]) -> Action:
    return next(a for a in legal if a.kind == "pass")
