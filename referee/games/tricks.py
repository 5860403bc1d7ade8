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

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

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

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        if kind == "play":
            return {"type": "play", "seat": seat, "card": self.t.texts[data]}
        return super()._render_own(kind, seat, data, viewer)
