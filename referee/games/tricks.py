"""The trick machinery shared by the two Kings games, ``koroli`` and ``koroli52`` (RULES.md C-9, KR-8, KR-9,
K52-5, K52-6).

Representation, as in :mod:`.durak`: a card is its canonical index in the deck (C-4), a hand is a bitmask over
those indices, and every card action (``play(c)``, ``take_card(c)``, ``give(c)``) is built once per deck. In both
games strength inside a suit is the natural rank order, which is also the canonical order, so "the highest card of
a suit" is simply the highest index, and a trick is won by the highest trump, else the highest card of the led
suit.

:class:`TrickState` keeps what a Kings position has besides its own phases: the hands, the trick in play, the
tricks taken in the current deal (and when, for the "reached first" tie-breaks), the event log of small tuples,
and what each seat knows about the places of cards in other hands (for the leak-check resample, C-8).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.cards import Deck

from ..engine import State
from ..rng import SplitMix64

__all__ = ["TrickTables", "TrickState", "bits", "remap", "tables", "narrate_trick"]


def bits(mask: int) -> list[int]:
    """Indices of the set bits, ascending (canonical order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class TrickTables:
    """Everything about a deck that a Kings game needs and that never changes: suit masks and the per-card
    actions of ``kinds``, with a reverse map from each action to its card.

    ``by_suit[kind][s][m]`` holds the ``kind`` actions of the cards of suit ``s`` whose rank bits are ``m``, so the
    actions of any set of cards are four look-ups, already in canonical order.
    """

    def __init__(self, deck: Deck, kinds: tuple[str, ...]) -> None:
        r = deck.ranks_per_suit
        self.deck = deck
        self.texts = deck.texts
        self.size = len(deck)
        self.ranks = r
        self.low = (1 << r) - 1
        self.suit_mask = [self.low << (s * r) for s in range(4)]
        self.card_of: dict[Action, int] = {}
        self.by_suit: dict[str, list[list[tuple[Action, ...]]]] = {}
        for kind in kinds:
            made = tuple(Action(kind, (card,)) for card in deck.cards)
            self.card_of.update((a, i) for i, a in enumerate(made))
            self.by_suit[kind] = [
                [tuple(made[s * r + k] for k in range(r) if m >> k & 1) for m in range(1 << r)] for s in range(4)
            ]

    def select(self, kind: str, mask: int) -> tuple[Action, ...]:
        """The ``kind`` actions of the cards of ``mask``, in canonical order (C-7)."""
        t, r, low = self.by_suit[kind], self.ranks, self.low
        return t[0][mask & low] + t[1][mask >> r & low] + t[2][mask >> 2 * r & low] + t[3][mask >> 3 * r]


@cache
def tables(deck: Deck, kinds: tuple[str, ...]) -> TrickTables:
    return TrickTables(deck, kinds)


class TrickState(State):
    """The trick play of one deal, the event log and the information functions of a Kings game.

    Subclasses set up a deal with :meth:`_new_deal`, start each trick with :meth:`_start_trick` (the seats in
    play order, the leader first), and are told of each finished trick through :meth:`_trick_won`.

    Log entries are ``(kind, seat, data)``. ``hand`` entries (a bitmask) are private to their seat; a subclass may
    add private kinds (the levy of ``koroli``) by extending :meth:`_render` and :meth:`_relabel_entry`, which
    :meth:`resample_hidden` uses to relabel what a seat cannot see.
    """

    t: TrickTables
    rng: SplitMix64
    log: list[tuple[Any, ...]]
    hands: list[int]
    #: Per seat: cards in other hands whose holder that seat knows (handed over, shown, or swapped).
    known: list[int]
    #: Cards in hands whose holder everyone knows (the shown trump card of ``koroli``).
    public: int
    trump: int | None  # the trump suit (0..3), or None in a no-trump deal
    lead_trump_tricks: int  # the first tricks of a deal whose leader must lead a trump if he can (KR-8)
    must_trump: bool  # a void player must play a trump if he holds one (K52-5)
    _legal: tuple[Action, ...] | None

    def _init_tricks(self, seed: int, deck_orders: Iterable[Sequence[int]]) -> None:
        self.rng = SplitMix64(seed)
        self.orders = [list(o) for o in deck_orders]
        self.log = []
        self.hands = [0] * self.seats
        self.known = [0] * self.seats
        self.public = 0
        self.trump = None
        self.order: tuple[int, ...] = ()
        self.turn = 0
        self.trick: list[int] = []
        self.tricks = [0] * self.seats
        self.wins: list[int] = []  # the winner of each trick of the deal, in order
        self.taken = 0  # the cards of the tricks finished in this deal
        self.deal_start = 0  # log index where the current deal begins: older entries are never relabelled
        self._legal = None

    def _shuffled(self, cards: list[int]) -> list[int]:
        """C-5: one shuffle of ``cards`` (given in canonical order), unless a hand-made order is queued."""
        if self.orders:
            order = self.orders.pop(0)
            if sorted(order) != cards:
                raise ValueError(f"a hand-made deck order must be a permutation of {cards}, got {order}")
            return order
        self.rng.shuffle(cards)
        return cards

    def _new_deal(self, hands: list[int], trump: int | None, public: int = 0) -> None:
        """Reset the per-deal trick state for freshly dealt ``hands``."""
        self.hands = hands
        self.trump = trump
        self.public = public
        self.known = [0] * self.seats
        self.trick = []
        self.tricks = [0] * self.seats
        self.wins = []
        self.taken = 0
        self.deal_start = len(self.log)

    # ------------------------------------------------------------------------------------------- play

    def _start_trick(self, order: Sequence[int]) -> None:
        self.order = tuple(order)
        self.turn = 0
        self.trick = []

    def _playable(self) -> int:
        """The cards the seat to play may play (KR-8, K52-5)."""
        t, hand, trump = self.t, self.hands[self.order[self.turn]], self.trump
        if not self.trick:
            if trump is not None and len(self.wins) < self.lead_trump_tricks and hand & t.suit_mask[trump]:
                return hand & t.suit_mask[trump]
            return hand
        follow = hand & t.suit_mask[self.trick[0] // t.ranks]
        if follow:
            return follow
        if self.must_trump and trump is not None and hand & t.suit_mask[trump]:
            return hand & t.suit_mask[trump]
        return hand

    def _winner_index(self) -> int:
        """KR-9, K52-6: the highest trump wins; without a trump, the highest card of the led suit."""
        r, trick, trump = self.t.ranks, self.trick, self.trump
        best = 0
        best_card = trick[0]
        best_suit = best_card // r
        for k in range(1, len(trick)):
            card = trick[k]
            suit = card // r
            if suit == best_suit:
                if card > best_card:
                    best, best_card = k, card
            elif suit == trump:
                best, best_card, best_suit = k, card, suit
        return best

    def _play(self, card: int) -> None:
        """The seat to play plays ``card``; a full trick goes to its winner and :meth:`_trick_won` follows."""
        seat = self.order[self.turn]
        self.hands[seat] &= ~(1 << card)
        self.trick.append(card)
        self.log.append(("play", seat, card))
        self.turn += 1
        if self.turn < len(self.order):
            return
        winner = self.order[self._winner_index()]
        for c in self.trick:
            self.taken |= 1 << c
        self.tricks[winner] += 1
        self.wins.append(winner)
        self.log.append(("trick", winner, (len(self.wins), tuple(self.trick))))
        self.trick = []
        self._trick_won(winner)

    @abstractmethod
    def _trick_won(self, winner: int) -> None:
        """Continue after a finished trick: the next trick, or the end of the deal."""

    def win_times(self, seat: int) -> list[int]:
        """The trick numbers (0-based, within the deal) of the tricks ``seat`` took, in order."""
        return [k for k, w in enumerate(self.wins) if w == seat]

    # ------------------------------------------------------------------------------------ engine API

    def legal_actions(self) -> tuple[Action, ...]:
        if self._legal is None:
            self._legal = self._generate()
        return self._legal

    @abstractmethod
    def _generate(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act, in canonical order (C-7)."""

    @property
    def log_size(self) -> int:
        return len(self.log)

    def events(self, since: int = 0, seat: int | None = None) -> list[dict[str, Any]]:
        out = []
        for entry in self.log[since:]:
            event = self._render(entry, seat)
            if event is not None:
                out.append(event)
        return out

    @abstractmethod
    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        """One log entry in wire form as ``viewer`` (None: the referee) may see it; None if he may not."""

    def _render_trick(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        """The kinds every Kings game logs: ``hand`` (only to its seat), ``play``, ``trick``; None otherwise."""
        kind, seat, data = entry
        text = self.t.texts
        if kind == "play":
            return {"type": "play", "seat": seat, "card": text[data]}
        if kind == "trick":
            number, cards = data
            return {"type": "trick", "winner": seat, "number": number, "cards": [text[c] for c in cards]}
        if kind == "hand" and (viewer is None or viewer == seat):
            return {"type": "hand", "seat": seat, "cards": [text[c] for c in bits(data)]}
        return None

    def _observe_trick(self) -> dict[str, Any]:
        """The public facts of the trick in play (C-9): its number, leader, cards so far and the seat to play."""
        text = self.t.texts
        playing = bool(self.order) and self.turn < len(self.order)
        return {
            "trick_number": len(self.wins) + 1 if playing else None,
            "leader": self.order[0] if playing else None,
            "play_order": list(self.order) if playing else [],
            "trick": [{"seat": self.order[k], "card": text[c]} for k, c in enumerate(self.trick)],
        }

    def card_places(self) -> dict[str, list[int]]:
        """Every card's place: the hands, the table (the trick in play) and ``taken`` (the finished tricks of
        the deal, or all of them once the game is over)."""
        places = {f"hand{s}": bits(h) for s, h in enumerate(self.hands)}
        places["table"] = sorted(self.trick)
        places["taken"] = bits(self.taken)
        return places

    def card_locations(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.card_places().items()}

    # ----------------------------------------------------------------------------------- resampling

    def clone(self) -> TrickState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.rng = SplitMix64(self.rng.state)
        for name, value in self.__dict__.items():
            if isinstance(value, list):
                setattr(other, name, [list(v) if isinstance(v, list) else v for v in value])
        return other

    def _fixed(self, seat: int) -> int:
        """The cards in hands whose place ``seat`` knows: its own hand, the public ones, the ones it knows."""
        return self.hands[seat] | self.public | self.known[seat]

    def _relabel_entry(self, entry: tuple[Any, ...], viewer: int, move: Mapping[int, int]) -> tuple[Any, ...]:
        """The entry with the cards ``viewer`` cannot see in it relabelled by ``move``: another seat's ``hand``.
        Subclasses add their own private kinds."""
        kind, seat, data = entry
        if kind == "hand" and seat != viewer:
            return (kind, seat, remap(data, move))
        return entry

    def _relabel_fields(self, move: Mapping[int, int]) -> None:
        """Relabel the subclass's own fields that may hold hidden cards."""

    def resample_hidden(self, seat: int, rng: random.Random) -> TrickState:
        """A copy in which the cards in other hands whose place ``seat`` does not know are dealt anew among
        those hands, each keeping its count. Log entries ``seat`` cannot see are relabelled the same way."""
        other = self.clone()
        fixed = self._fixed(seat)
        hidden = [c for s, h in enumerate(self.hands) if s != seat for c in bits(h & ~fixed)]
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        move = {a: b for a, b in zip(hidden, shuffled, strict=True) if a != b}
        if move:
            other.hands = [h if s == seat else remap(h, move) for s, h in enumerate(self.hands)]
            other.known = [k if s == seat else remap(k, move) for s, k in enumerate(self.known)]
            start, log = self.deal_start, self.log
            other.log = log[:start] + [self._relabel_entry(e, seat, move) for e in log[start:]]
            other._relabel_fields(move)
        other._legal = None
        return other


def remap(mask: int, move: Mapping[int, int]) -> int:
    """``mask`` with every card c replaced by ``move[c]`` (cards not in ``move`` stay)."""
    out = 0
    for c in bits(mask):
        out |= 1 << move.get(c, c)
    return out


def narrate_trick(event: Mapping[str, Any]) -> str | None:
    """The events every Kings game has, in plain words; None for the others."""
    kind = event["type"]
    if kind == "hand":
        return f"seat {event['seat']} is dealt {' '.join(event['cards'])}"
    if kind == "play":
        return f"seat {event['seat']} plays {event['card']}"
    if kind == "trick":
        return f"seat {event['winner']} takes trick {event['number']} ({' '.join(event['cards'])})"
    return None
