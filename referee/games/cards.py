"""What the card engines of :mod:`referee.games` share: card bitmasks, one-card action tables, a state base.

Every engine represents a card by its canonical index in the deck (C-4) and a set of cards (a hand, the table, a
discard pile) by a bitmask over those indices. :func:`bits` lists a mask in canonical order, :func:`remap` relabels
one; :class:`CardIndex` lists the one-card actions of any set of cards in four look-ups; :class:`TrickTables`
holds, once per deck, the one-card actions of the trick games (``play(c)``,
``take_card(c)``, ``give(c)``) and their lists per hand; :class:`CardState` is the engine API the card games
implement alike: the legal-action cache, the card places, the resample, the ``hand`` and private-redeal-pass
events every card game logs, and the result template (:meth:`CardState.result`).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Generic, Self, TypeVar

from protocol.actions import Action
from protocol.cards import STANDARD_SUITS, Deck

from ..engine import Result, State
from ..errors import RulesError
from ..rng import SplitMix64

T = TypeVar("T")

__all__ = ["DECK36", "bits", "remap", "CardIndex", "TrickTables", "tables", "CardState", "narrate_card"]

#: The standard 36-card deck, 6 to ace (durak KZ-2, kozel-hvaleny KH-2, kozel-nn KN-2, koroli KR-2).
DECK36 = Deck(STANDARD_SUITS, range(6, 15))


def bits(mask: int) -> list[int]:
    """Indices of the set bits, ascending (canonical order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def remap(mask: int, move: Mapping[int, int]) -> int:
    """``mask`` with every card c replaced by ``move[c]`` (cards not in ``move`` stay)."""
    out = 0
    for c in bits(mask):
        out |= 1 << move.get(c, c)
    return out


class CardIndex(Generic[T]):
    """One item per card of a deck (its action of some kind, its text), indexed so that the items of any set of cards
    are four look-ups, already in canonical order (C-7): ``rows[s][m]`` holds the items of the cards of suit ``s``
    whose rank bits are ``m``."""

    __slots__ = ("rows", "ranks", "low")

    def __init__(self, items: Sequence[T], ranks: int) -> None:
        """``items[c]`` is the item of card ``c`` (canonical index) of a four-suit deck."""
        r = ranks
        self.rows = []
        for s in range(4):  # a mask's items: those of the mask without its highest card, then that card's
            row: list[tuple[T, ...]] = [()]
            for m in range(1, 1 << r):
                high = m.bit_length() - 1
                row.append(row[m ^ 1 << high] + (items[s * r + high],))
            self.rows.append(row)
        self.ranks = r
        self.low = (1 << r) - 1

    def select(self, mask: int) -> tuple[T, ...]:
        """The items of the cards of ``mask``, in canonical order (C-7)."""
        rows, r, low = self.rows, self.ranks, self.low
        return rows[0][mask & low] + rows[1][mask >> r & low] + rows[2][mask >> 2 * r & low] + rows[3][mask >> 3 * r]


class TrickTables:
    """Everything about a deck that a trick game needs and that never changes: suit masks and the per-card
    actions of ``kinds``, with a reverse map from each action to its card.

    ``index[kind]`` is the :class:`CardIndex` of the ``kind`` actions, so the actions of any set of cards are four
    look-ups (:meth:`select`). ``by_card[kind][c]`` is the ``kind`` action of card ``c``.
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
        #: The card of each action by the action object's identity, for ``_apply``: it always receives one of these
        #: prebuilt objects (State.apply hands over the legal object itself), and an int key hashes in C.
        self.card_at: dict[int, int] = {}
        self.by_card: dict[str, tuple[Action, ...]] = {}
        self.index: dict[str, CardIndex[Action]] = {}
        self.text_index = CardIndex(deck.texts, r)  # the card texts of a set of cards (observations, events)
        for kind in kinds:
            made = tuple(Action(kind, (card,)) for card in deck.cards)
            self.card_of.update((a, i) for i, a in enumerate(made))
            self.card_at.update((id(a), i) for i, a in enumerate(made))
            self.by_card[kind] = made
            self.index[kind] = CardIndex(made, r)

    def select(self, kind: str, mask: int) -> tuple[Action, ...]:
        """The ``kind`` actions of the cards of ``mask``, in canonical order (C-7)."""
        return self.index[kind].select(mask)


@cache
def tables(deck: Deck, kinds: tuple[str, ...]) -> TrickTables:
    """The :class:`TrickTables` of ``deck`` and ``kinds``, built once."""
    return TrickTables(deck, kinds)


class CardState(State):
    """The parts of the engine API that the card games implement alike.

    The legal actions are generated once per position by :meth:`_generate` and cached in ``_legal``, which
    :meth:`_apply` resets to None. Every card is in one place of :meth:`card_places` (conservation checks count
    them in :meth:`card_locations`). :meth:`clone` is the copy :meth:`resample_hidden` starts from.
    """

    rng: SplitMix64
    _legal: tuple[Action, ...] | None
    t: Any  # the deck's tables: ``t.texts`` are the card texts by canonical index
    hands: list[int]  # a bitmask of canonical indices per seat
    log: list[tuple[Any, ...]]
    relabel_from: int  # log index of the last (re)distribution of hidden cards: older entries are history
    #: Log kinds whose data is private to the entry's seat and may hold hidden cards, relabelled by
    #: :meth:`resample_hidden`: ``hand`` entries hold a bitmask, the others a tuple of cards.
    PRIVATE_KINDS: frozenset[str] = frozenset({"hand"})

    def _init_engine(self, game: Any, seats: int, seed: int, options: dict[str, Any], dealer: int,
                     deck_orders: Iterable[Sequence[int]] = ()) -> None:
        """The engine's fields (C-1), the seed's chance stream and an empty log. ``deck_orders`` (canonical
        indices, first dealt first) replace the first shuffles, in turn: hand-made deals for tests."""
        self.game = game
        self.seats = seats
        self.seed = seed
        self.options = options
        self.dealer = dealer
        self.rng = SplitMix64(seed)
        self.orders = [list(o) for o in deck_orders]
        self.log: list[tuple[Any, ...]] = []
        self._legal = None

    def _shuffled(self, cards: list[int]) -> list[int]:
        """C-5: one shuffle of ``cards`` (given in canonical order), unless a hand-made order is queued."""
        if self.orders:
            order = self.orders.pop(0)
            if sorted(order) != sorted(cards):
                raise ValueError(f"a hand-made deck order must be a permutation of {sorted(cards)}, got {order}")
            return order
        self.rng.shuffle(cards)
        return cards

    def _texts(self, mask: int) -> list[str]:
        """The texts of the cards of ``mask``, in canonical order (a hand in an observation or an event)."""
        return list(self.t.text_index.select(mask))

    def legal_actions(self) -> tuple[Action, ...]:
        if self._legal is None:
            self._legal = self._generate()
        return self._legal

    def apply(self, action: Action) -> None:
        """:meth:`State.apply`, the usual case first: ``action`` is one of the legal objects just listed."""
        legal = self._legal
        if legal is not None:
            for candidate in legal:
                if candidate is action:
                    self._apply(action)
                    return
        super().apply(action)  # the legal actions not listed yet, an equal action, or an illegal one

    @abstractmethod
    def _generate(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act, in canonical order (C-7)."""

    @abstractmethod
    def card_places(self) -> dict[str, list[int]]:
        """The canonical indices of the cards in each place (hands ``hand0``…, stock, table, discard…)."""

    def card_locations(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.card_places().items()}

    @property
    def deck_cards(self) -> list[int]:
        """The canonical indices of the cards this game is played with (:class:`~referee.engine.CardPlaces`): by
        default the whole deck."""
        return list(range(len(self.t.texts)))

    # -------------------------------------------------------------------------------- result, events

    def result(self) -> Result:
        """The rules' result (C-10) of a finished game, by :meth:`_result`; :class:`RulesError` before the end."""
        if self.to_act is not None:
            raise RulesError("the game is not over: there is no result yet")
        return self._result()

    @abstractmethod
    def _result(self) -> Result:
        """The result of the finished game: its finishing order, scores, whether it was aborted, its own fields."""

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        """One log entry ``(kind, seat, data)`` in wire form as ``viewer`` (None: the referee) may see it, None if
        he may not (C-8). The kinds every card game logs alike are rendered here: ``hand`` (a bitmask, only to its
        seat) and ``pass_redeal`` (a declined redeal offer: only the seat itself learns of it, C-8); the game's
        own kinds by :meth:`_render_own`."""
        kind, seat, data = entry
        if kind == "hand":
            if viewer is not None and viewer != seat:
                return None
            return {"type": "hand", "seat": seat, "cards": self._texts(data)}
        if kind == "pass_redeal":
            if viewer is not None and viewer != seat:
                return None  # C-8: nobody else learns of the offer
            return {"type": "pass", "seat": seat, "offer": "redeal"}
        return self._render_own(kind, seat, data, viewer)

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """A log entry of the game's own kinds in wire form (see :meth:`_render`). Each class renders its kinds
        and passes the others on to ``super()``; here, the last resort: ``{"type": kind, "seat": seat}`` (take,
        pass, demand_redeal …)."""
        return {"type": kind, "seat": seat}

    # ----------------------------------------------------------------------------------- resampling

    def _hidden_cards(self, seat: int) -> list[int]:
        """The cards whose places ``seat`` does not know: by default every card in the other hands."""
        return [c for s, h in enumerate(self.hands) if s != seat for c in bits(h)]

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        """Apply ``move`` to every place that may hold a hidden card: by default the other hands."""
        self.hands = [h if s == seat else remap(h, move) for s, h in enumerate(self.hands)]

    def _relabel_entry(self, entry: tuple[Any, ...], viewer: int, move: Mapping[int, int]) -> tuple[Any, ...]:
        """A log entry with the cards ``viewer`` cannot see relabelled by ``move``: the private kinds of the
        other seats."""
        kind, seat, data = entry
        if kind in self.PRIVATE_KINDS and seat != viewer:
            return (kind, seat, remap(data, move) if kind == "hand" else tuple(move.get(c, c) for c in data))
        return entry

    def resample_hidden(self, seat: int, rng: random.Random) -> Self:
        """A copy in which the cards whose places ``seat`` does not know are dealt anew among those places, each
        keeping its count; the log entries ``seat`` cannot see (since :attr:`relabel_from`) are relabelled the
        same way."""
        other = self.clone()
        hidden = self._hidden_cards(seat)
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        move = {a: b for a, b in zip(hidden, shuffled, strict=True) if a != b}
        if move:
            other._relabel(seat, move)
            start, log = self.relabel_from, self.log
            other.log = log[:start] + [self._relabel_entry(e, seat, move) for e in log[start:]]
        other._legal = None
        return other

    def clone(self) -> Self:
        """An independent copy: the same position, its own chance stream, its own lists (one level deep).

        This is a search's most frequent call, so it copies only what a move may change in place: every list
        attribute, and the rows of a list of lists (the durak table). The engines keep in their lists either only
        lists or only values never changed in place (ints, tuples), so the first item tells which. Everything
        else (ints, tuples, the deck's tables) is shared."""
        other = object.__new__(type(self))
        fields = self.__dict__.copy()
        for name, value in fields.items():
            if type(value) is list:
                fields[name] = [row[:] for row in value] if value and type(value[0]) is list else value[:]
        fields["rng"] = SplitMix64(self.rng.state)
        other.__dict__ = fields
        return other


def narrate_card(event: Mapping[str, Any]) -> str | None:
    """The events the card games share, in plain words: ``hand``, ``play``, ``draw``, ``demand_redeal`` and the
    private ``pass`` of a redeal offer; None for the others (each game narrates its own)."""
    kind = event["type"]
    seat = event.get("seat")
    if kind == "hand":
        return f"seat {seat} is dealt {' '.join(event['cards'])}"
    if kind == "play":
        return f"seat {seat} plays {event['card']}"
    if kind == "draw":
        cards = event.get("cards")
        shown = f" ({' '.join(cards)})" if cards else ""
        return f"seat {seat} draws {event['count']} card{'s' if event['count'] != 1 else ''}{shown}"
    if kind == "demand_redeal":
        return f"seat {seat} demands a redeal"
    if kind == "pass" and event.get("offer") == "redeal":
        return f"seat {seat} declines the redeal"
    return None
