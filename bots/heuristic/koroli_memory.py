"""What the ``heuristic`` bot remembers of a ``koroli`` or ``koroli52`` game, and the card codes it counts in.

The observation carries only the events since the seat's previous request (RULES.md C-8), so the cards played in
the current deal, the voids they showed and where handed-over or swapped cards went are remembered from one
decision to the next: a :class:`SeatMemory` per seat, held in the :class:`Memory` that a bot object keeps for the
game it is playing (``HeuristicBot`` makes a new one at ``new_game`` and drops it at ``game_over``, so nothing
outlives a game and nothing is shared between bots). The memory is checked against each observation and ignored
when it does not match, so a hand-made position is played from what it shows.

Cards are codes ``suit << 4 | rank`` (suit 0..3 in C D H S order, rank 2..14).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.cards import STANDARD_SUITS, Card

__all__ = ["Memory", "SeatMemory"]

_SUIT = {s: i for i, s in enumerate(STANDARD_SUITS)}
ACE = 14


def _card_code(card: Card) -> int:
    """A card as ``suit << 4 | rank`` (suit 0..3 in C D H S order, rank 2..14)."""
    return _SUIT[card.suit] << 4 | card.rank


def _code(text: str) -> int:
    """A wire card text as a code (Card.parse remembers the texts it parsed)."""
    return _card_code(Card.parse(text))


def _action_card(action: Action) -> int:
    arg = action.args[0]
    return _card_code(arg) if isinstance(arg, Card) else _code(str(arg))


@cache
def _deck(game: str, seats: int) -> frozenset[int]:
    """The cards of a deal: 36 (6..A) in koroli; 52 (2..A) in koroli52, without 2C for 3 players (K52-2)."""
    low = 6 if game == "koroli" else 2
    cards = {s << 4 | r for s in range(4) for r in range(low, ACE + 1)}
    if game == "koroli52" and seats == 3:
        cards.discard(2)  # 2C
    return frozenset(cards)



# --------------------------------------------------------------------------------------------- memory


class SeatMemory:
    """What one seat has seen of the current deal (or tour), built from the events of its observations."""

    __slots__ = ("seat", "n", "deal", "complete", "played", "known", "voids", "hand", "trump", "led",
                 "origin", "rejected")

    def __init__(self, seat: int, n: int) -> None:
        self.seat = seat
        self.n = n
        self.reset(None)

    def reset(self, deal: int | None) -> None:
        n = self.n
        self.deal = deal
        self.complete = deal is not None  # seen from the deal's first event
        self.played: set[int] = set()
        self.known: list[set[int]] = [set() for _ in range(n)]  # cards known to be in another seat's hand
        self.voids: list[set[int]] = [set() for _ in range(n)]  # suits a seat is known to lack
        self.hand: set[int] = set()
        self.trump: int | None = None
        self.led: int | None = None  # the led suit of the trick in progress
        self.origin = list(range(n))  # koroli52: whose dealt hand each seat holds now
        self.rejected: set[int] = set()  # koroli52: dealt hands that an asker gave away this tour

    def update(self, events: Iterable[dict[str, Any]], must_trump: bool) -> None:
        me = self.seat
        for ev in events:
            kind = ev.get("type")
            if kind in ("deal", "tour"):
                self.reset(ev.get("deal", ev.get("tour")))
            elif kind == "play":
                seat, card = ev["seat"], _code(ev["card"])
                self.played.add(card)
                self.hand.discard(card)
                if 0 <= seat < self.n:
                    self.known[seat].discard(card)
                    suit = card >> 4
                    if self.led is None:
                        self.led = suit
                    elif suit != self.led:
                        self.voids[seat].add(self.led)
                        if must_trump and self.trump is not None and suit != self.trump:
                            self.voids[seat].add(self.trump)  # K52-5: a void player trumps if he can
            elif kind == "trick":
                self.led = None
            elif kind == "hand" and ev.get("seat") == me:
                self.hand = {_code(c) for c in ev["cards"]}
            elif kind == "received" and ev.get("seat") == me:
                self.hand = {_code(c) for c in ev["cards"]}
            elif kind == "trump":
                named = ev.get("suit")
                self.trump = _SUIT.get(named) if named else None
                holder = ev.get("holder")
                if "card" in ev and holder is not None and holder != me and 0 <= holder < self.n:
                    self.known[holder].add(_code(ev["card"]))  # KR-7: the dealer holds the shown card
            elif kind == "levy":
                self._levy(ev)
                if not ev.get("trump") and self.trump is not None and 0 <= ev.get("from", -1) < self.n:
                    self.voids[ev["from"]].add(self.trump)  # KR-12: the Peasant had no trump
            elif kind == "give":
                peasant = ev.get("to")
                self._hand_over(ev["seat"], peasant, ev.get("card"))
                if self.trump is not None and peasant is not None and 0 <= peasant < self.n:
                    given = ev.get("card")
                    if given is None or _code(given) >> 4 == self.trump:
                        self.voids[peasant].discard(self.trump)  # the card given back may be a trump
            elif kind == "swap":
                self._swap(*ev["seats"])

    def _levy(self, ev: dict[str, Any]) -> None:
        """KR-12: a levy we may not see is the Peasant's highest trump if it was a trump levy: when we saw his
        hand, we still know it but for that card."""
        peasant = ev.get("from")
        if ev.get("card") is None and ev.get("trump") and self.trump is not None and peasant is not None:
            trumps = [c for c in self.known[peasant] if c >> 4 == self.trump] if 0 <= peasant < self.n else []
            if trumps:
                self.known[peasant].discard(max(trumps))
                return
        self._hand_over(peasant, ev["seat"], ev.get("card"))

    def _hand_over(self, giver: int | None, receiver: int | None, card: str | None) -> None:
        """KR-12: a card handed from ``giver`` to ``receiver``. Hidden from us, it makes what we knew of the
        giver's hand unreliable."""
        if giver is None or receiver is None:
            return
        if card is None:
            if 0 <= giver < self.n:
                self.known[giver] = set()
            return
        code = _code(card)
        if 0 <= giver < self.n:
            self.known[giver].discard(code)
        if 0 <= receiver < self.n and receiver != self.seat:
            self.known[receiver].add(code)

    def current(self, deal: Any) -> bool:
        """The memory covers the whole of this deal (or tour)."""
        return self.complete and self.deal == deal

    def _swap(self, asker: int, target: int) -> None:
        """K52-11: a whole-hand swap; the asker gave his hand away. Each of the two knows the other's new hand."""
        me, known, origin = self.seat, self.known, self.origin
        self.rejected.add(origin[asker])
        origin[asker], origin[target] = origin[target], origin[asker]
        if me in (asker, target):
            other = target if me == asker else asker
            known[other] = set(self.hand)  # my old hand; my new one comes with the "received" event
        else:
            known[asker], known[target] = known[target], known[asker]


class Memory:
    """What one bot remembers of the game it is playing: a :class:`SeatMemory` for each seat it is asked to act
    for (one, unless a single bot object sits in several seats), so at most one per seat of the game."""

    __slots__ = ("_seats",)

    def __init__(self) -> None:
        self._seats: dict[int, SeatMemory] = {}

    def seat(self, seat: int, n: int) -> SeatMemory:
        """The memory of ``seat`` in a game of ``n`` seats (a fresh one the first time)."""
        mem = self._seats.get(seat)
        if mem is None or mem.n != n:
            mem = self._seats[seat] = SeatMemory(seat, n)
        return mem
