"""The trick play shared by the two Kings games, ``koroli`` and ``koroli52`` (RULES.md C-9, KR-8, KR-9, K52-5,
K52-6), on the one trick engine :class:`referee.games.tricks.TrickState`.

In both games strength inside a suit is the natural rank order, which is also the canonical order, and a trick is
won by the highest trump, else the highest card of the led suit: the natural :class:`~referee.games.tricks.CardRules`
of the deal's trump (:func:`~referee.games.tricks.natural_rules`).

:class:`KingsState` keeps what a Kings position has besides its own phases: an explicit play order per trick (the
introduction leaves players out, the reign plays in title order), the tricks taken in the current deal (and when,
for the "reached first" tie-breaks), and what each seat knows about the places of cards in other hands (for the
leak-check resample, C-8).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...engine import Game
from ..cards import TrickTables, bits, narrate_card, remap
from ..tricks import TrickState, natural_rules

__all__ = ["KingsState", "narrate_trick"]


class KingsState(TrickState):
    """The trick play of one deal, the event log and the information functions of a Kings game.

    Subclasses set up a deal with :meth:`_new_deal`, start each trick with :meth:`_start_trick` (the seats in
    play order, the leader first), and are told of each finished trick through :meth:`_trick_won`.

    Log entries are ``(kind, seat, data)``. ``hand`` entries (a bitmask) are private to their seat; a subclass may
    add private kinds (the levy of ``koroli``) in :meth:`_render_own` and :meth:`_relabel_entry`, which
    :meth:`resample_hidden` uses to relabel what a seat cannot see.
    """

    #: Per seat: cards in other hands whose holder that seat knows (handed over, shown, or swapped).
    known: list[int]
    #: Cards in hands whose holder everyone knows (the shown trump card of ``koroli``).
    public: int
    trump: int | None  # the trump suit (0..3), or None in a no-trump deal
    lead_trump_tricks: int  # the first tricks of a deal whose leader must lead a trump if he can (KR-8)
    must_trump: bool  # a void player must play a trump if he holds one (K52-5)
    #: The trick counts of each finished deal (tour), in order.
    history: list[tuple[int | None, ...]]

    def _init_kings(self, game: Game, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int,
                    t: TrickTables, deck_orders: Iterable[Sequence[int]]) -> None:
        """The engine's fields (C-1), the deck tables ``t``, and no deal yet. ``deck_orders[k]`` (canonical
        indices, ``deck[0]`` first) replaces the k-th shuffle: hand-made deals for tests."""
        self._init_tricks(game, seats, seed, options, dealer, t, deck_orders)
        self.known = [0] * self.seats
        self.public = 0
        self.trump = None
        self.order: tuple[int, ...] = ()
        self.turn = 0
        self.rules = natural_rules(t.deck, None)
        self.tricks = [0] * self.seats
        self.wins: list[int] = []  # the winner of each trick of the deal, in order
        self.taken = 0  # the cards of the tricks finished in this deal
        self.relabel_from = 0  # the current deal's start in the log: older entries are never relabelled

    def _new_deal(self, hands: list[int], trump: int | None, public: int = 0) -> None:
        """Reset the per-deal trick state for freshly dealt ``hands``."""
        self.hands = hands
        self._set_trump(trump)
        self.public = public
        self.known = [0] * self.seats
        self.trick = []
        self.tricks = [0] * self.seats
        self.wins = []
        self.taken = 0
        self.relabel_from = len(self.log)

    def _set_trump(self, trump: int | None) -> None:
        """The deal's trump suit (None: no trump) and with it the rules of its tricks."""
        self.trump = trump
        self.rules = natural_rules(self.t.deck, trump)

    # ------------------------------------------------------------------------------------------- play

    def _start_trick(self, order: Sequence[int]) -> None:
        self.order = tuple(order)
        self.turn = 0
        self.trick = []

    def _playable(self) -> int:
        """The cards the seat to play may play (KR-8, K52-5)."""
        hand = self.hands[self.order[self.turn]]
        trumps = hand & self.rules.trumps
        if not self.trick:
            if trumps and len(self.wins) < self.lead_trump_tricks:
                return trumps
            return hand
        follow = self._follow(hand)
        if follow:
            return follow
        if trumps and self.must_trump:
            return trumps
        return hand

    def _play(self, card: int) -> None:
        """The seat to play plays ``card``; a full trick goes to its winner (KR-9, K52-6: the highest trump, else
        the highest card of the led suit) and :meth:`_trick_won` follows."""
        order, turn = self.order, self.turn
        self._add_to_trick(order[turn], card)
        self.turn = turn = turn + 1
        if turn < len(order):
            return
        trick = self.trick
        winner = order[self._trick_winner()]
        taken = self.taken
        for c in trick:
            taken |= 1 << c
        self.taken = taken
        self.tricks[winner] += 1
        self.wins.append(winner)
        self.log.append(("trick", winner, (len(self.wins), tuple(trick))))
        self.trick = []
        self._trick_won(winner)

    def _seat_at(self, position: int) -> int:
        return self.order[position]

    def _later(self) -> Sequence[int]:
        return self.order[self.turn + 1:]

    @abstractmethod
    def _trick_won(self, winner: int) -> None:
        """Continue after a finished trick: the next trick, or the end of the deal."""

    @property
    def deals_done(self) -> int:
        return len(self.history)

    def win_times(self, seat: int) -> list[int]:
        """The trick numbers (0-based, within the deal) of the tricks ``seat`` took, in order."""
        return [k for k, w in enumerate(self.wins) if w == seat]

    # ------------------------------------------------------------------------------------ engine API

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """The ``trick`` of every Kings game (``hand`` and ``play`` are the card and trick engines')."""
        if kind == "trick":
            number, cards = data
            text = self.t.texts
            return {"type": "trick", "winner": seat, "number": number, "cards": [text[c] for c in cards]}
        return super()._render_own(kind, seat, data, viewer)

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

    # ----------------------------------------------------------------------------------- resampling

    def _fixed(self, seat: int) -> int:
        """The cards in hands whose place ``seat`` knows: its own hand, the public ones, the ones it knows."""
        return self.hands[seat] | self.public | self.known[seat]

    def _hidden_cards(self, seat: int) -> list[int]:
        fixed = self._fixed(seat)
        return [c for s, h in enumerate(self.hands) if s != seat for c in bits(h & ~fixed)]

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        super()._relabel(seat, move)
        self.known = [k if s == seat else remap(k, move) for s, k in enumerate(self.known)]


def narrate_trick(event: Mapping[str, Any], own: Callable[[str, Any, Mapping[str, Any]], str | None]) -> str:
    """One event of a Kings game in plain words: the kinds every Kings game has here, the game's own kinds by
    ``own(kind, seat, event)``, and ``kind: {event}`` for a kind neither knows."""
    said = narrate_card(event)  # hand, play
    if said is not None:
        return said
    kind = event["type"]
    if kind == "trick":
        return f"seat {event['winner']} takes trick {event['number']} ({' '.join(event['cards'])})"
    said = own(kind, event.get("seat"), event)
    return said if said is not None else f"{kind}: {dict(event)}"
