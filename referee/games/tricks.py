"""The one trick engine of :mod:`referee.games`: every trick game (the Kozel family, the Kings family, and a new
one) builds on :class:`TrickState` (RULES.md C-9).

Representation, as in every card engine here: a card is its canonical index in the deck (C-4), a hand is a bitmask
over those indices, and every one-card action (``play(c)``, ``take_card(c)``, ``give(c)``) is built once per deck
(:class:`.cards.TrickTables`). Strength is a :class:`CardRules`: each card has an *effective suit* (its natural
suit, or :data:`TRUMP`) and a *power*, so the winner of any trick of these games is "the highest trump, else the
highest card of the led effective suit". The Kings games use the natural arrangement (:func:`natural_rules`: the
trump suit, if any, is the trump class, and power is the rank); the Kozel games list their trump-class cards
(permanent trumps, special jacks) and a plain rank order.

:class:`TrickState` keeps the hands, the trick in play (cards in play order), the table of actions and the rules of
the deal; it plays a card to the trick, finds the trick's winner, the cards that follow the led suit, and renders
the ``play`` event. How a trick is led and closed (play order, scoring, what follows) is the family's:
:class:`referee.games.koroli.base.KingsState` (an explicit play order, tricks counted) and
:class:`referee.games.kozel.base.KozelTrickState` (clockwise from the leader, card points, drawing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.cards import Deck

from .cards import CardState, TrickTables, bits

__all__ = ["TRUMP", "EFFECTIVE_SUITS", "CardRules", "natural_rules", "TrickState"]

TRUMP = 4  # the effective suit of trumps; 0..3 are the natural suits
EFFECTIVE_SUITS = ("C", "D", "H", "S", "trump")


class CardRules:
    """Effective suits, strengths and card points of one trump arrangement (C-9).

    ``trumps`` lists the trump-class cards weakest first; every other card is ranked inside its natural suit by
    ``plain`` (ranks weakest first). ``points`` gives the card points of a rank (none by default).
    """

    def __init__(self, deck: Deck, trumps: Sequence[str], plain: Sequence[int],
                 points: Mapping[int, int] | None = None) -> None:
        n = len(deck)
        order = {rank: k for k, rank in enumerate(plain)}
        index = {text: i for i, text in enumerate(deck.texts)}
        self.eff = [deck.suit_of(i) for i in range(n)]
        self.power = [order.get(card.rank, -1) for card in deck.cards]
        for k, text in enumerate(trumps):
            self.eff[index[text]] = TRUMP
            self.power[index[text]] = 100 + k  # above every plain card
        if min(self.power) < 0:
            raise ValueError("every card must be a trump or have a rank of the plain order")
        self.eff_mask = [sum(1 << i for i in range(n) if self.eff[i] == s) for s in range(5)]
        self.trumps = self.eff_mask[TRUMP]
        #: per card: the cards that beat it when it is the best card of a trick (higher of its effective suit, and
        #: every trump if it is none)
        self.beaten_by = [sum(1 << j for j in range(n) if self.eff[j] == self.eff[i] and self.power[j] > self.power[i])
                          | (self.trumps if self.eff[i] != TRUMP else 0) for i in range(n)]
        by_rank = points or {}
        self.points = [by_rank.get(card.rank, 0) for card in deck.cards]

    def winner(self, cards: Sequence[int]) -> int:
        """The position (in play order) of the card that wins ``cards``: the highest trump if any was played,
        else the highest card of the led effective suit; cards of other suits never win."""
        eff, power = self.eff, self.power
        led = eff[cards[0]]
        best, best_power = 0, power[cards[0]]
        for i in range(1, len(cards)):
            card = cards[i]
            e = eff[card]
            if (e == TRUMP or e == led) and power[card] > best_power:
                best, best_power = i, power[card]
        return best

    def hand_points(self, hand: int) -> int:
        return sum(self.points[c] for c in bits(hand))


@cache
def natural_rules(deck: Deck, trump: int | None) -> CardRules:
    """The natural arrangement: inside a suit the rank order (the canonical order, C-4), and the cards of the suit
    ``trump`` (0..3; None: no trump) the trump class (KR-9, K52-6)."""
    trumps = [] if trump is None else [t for i, t in enumerate(deck.texts) if deck.suit_of(i) == trump]
    return CardRules(deck, trumps, deck.ranks)


@cache
def _teams(game: Any, seats: int) -> tuple[tuple[int, ...], ...]:
    """Each seat's team (C-2) in ``game`` with ``seats`` players: its partners and itself, or () without teams."""
    teams = game.teams(seats) or ()
    return tuple(next((tuple(t) for t in teams if s in t), ()) for s in range(seats))


class TrickState(CardState):
    """The base of every trick game: hands, the trick in play, the action tables ``t`` and the ``rules`` of the
    deal.

    A family sets ``t`` and ``hands`` by :meth:`_init_tricks` and ``rules`` for each deal, plays a card by
    :meth:`_add_to_trick`, and closes a trick with :meth:`_trick_winner` (the winning position in play order).
    Log entries are ``(kind, seat, data)``; this class renders ``play``, :class:`.cards.CardState` ``hand``.
    """

    t: TrickTables
    rules: CardRules
    trick: list[int]  # the cards of the trick in play, in play order

    def _init_tricks(self, game: Any, seats: int, seed: int, options: dict[str, Any], dealer: int,
                     t: TrickTables, deck_orders: Iterable[Sequence[int]] = ()) -> None:
        """The engine's fields (C-1), the deck tables ``t``, empty hands and no trick. ``deck_orders`` (canonical
        indices) replace the first shuffles, in turn: hand-made deals for tests."""
        self._init_engine(game, seats, seed, options, dealer, deck_orders)
        self.t = t
        self.hands = [0] * seats
        self.trick = []

    def _add_to_trick(self, seat: int, card: int) -> None:
        """``seat`` plays ``card`` from its hand to the trick (logged as ``play``)."""
        self.hands[seat] &= ~(1 << card)
        self.trick.append(card)
        self.log.append(("play", seat, card))

    def _trick_winner(self) -> int:
        """C-9: the position (in play order) of the card that wins the trick in play."""
        return self.rules.winner(self.trick)

    def _follow(self, hand: int) -> int:
        """The cards of ``hand`` of the led effective suit (0 when the trick is empty or it cannot follow)."""
        if not self.trick:
            return 0
        rules = self.rules
        return hand & rules.eff_mask[rules.eff[self.trick[0]]]

    #: Whether a player who holds a card of the led effective suit must play one (C-9; not in ``kozel``, KO-8).
    must_follow = True

    def _seat_at(self, position: int) -> int:
        """The seat that plays (or played) the ``position``-th card of the trick in play."""
        raise NotImplementedError

    def _later(self) -> Sequence[int]:
        """The seats that play to the trick in play after the seat to act, in order."""
        raise NotImplementedError

    def playout_action(self, actions: Sequence[Action], rand: Callable[[], float]) -> Action:
        """Playouts (docs/ENGINE.md, "Playouts"), on the hands of the world played: of the cards that would take the
        trick so far and that no opponent still to play could beat, the lowest (a lead too: a card nobody could
        beat); else, following, the lowest card (nothing wasted on a trick it cannot keep, nor on its partner's that
        holds); else a random lead. "Lowest" is by strength: a trump above every plain card, a card of the led suit
        above a discard. Actions other than ``play`` are drawn at random."""
        if len(actions) == 1:
            return actions[0]
        if actions[0].kind != "play":
            return actions[int(rand() * len(actions))]
        rules, card_at, trick = self.rules, self.t.card_at, self.trick
        eff, power, beaten_by = rules.eff, rules.power, rules.beaten_by
        team = _teams(self.game, self.seats)[self.to_act]  # type: ignore[index]
        rivals = [self.hands[s] for s in self._later() if s not in team]
        led = eff[trick[0]] if trick else -1
        at = rules.winner(trick) if trick else -1
        # no card of ours is needed when the partner's card already holds the trick
        keeps = not (trick and self._seat_at(at) in team and self._holds(trick[at], led, rivals))
        lowest = keeper = None
        low = kept = 10_000
        for action in actions:
            card = card_at[id(action)]
            e = eff[card]
            value = power[card] + (2000 if e == TRUMP else 1000 if e == led or led < 0 else 0)
            if value < low:
                lowest, low = action, value
            if keeps and value < kept and (not trick or (1 << card) & beaten_by[trick[at]]) \
                    and self._holds(card, led if trick else e, rivals):
                keeper, kept = action, value
        if keeper is not None:
            return keeper
        if trick:
            assert lowest is not None
            return lowest
        return actions[int(rand() * len(actions))]

    def _holds(self, card: int, suit: int, rivals: Sequence[int]) -> bool:
        """Whether none of the hands ``rivals`` could beat ``card``, the best card of a trick led in effective suit
        ``suit``. A rival plays a card of that suit when he holds one and must (:attr:`must_follow`); the games'
        rarer limits (an ace rule, a forced ruff) are left out."""
        threat = self.rules.beaten_by[card]
        suited = self.rules.eff_mask[suit] if self.must_follow else 0
        for hand in rivals:
            if ((hand & suited) or hand) & threat:
                return False
        return True

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        if kind == "play":
            return {"type": "play", "seat": seat, "card": self.t.texts[data]}
        return super()._render_own(kind, seat, data, viewer)
