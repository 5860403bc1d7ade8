"""Cards as values (RULES.md C-3, C-4).

A card is written rank then suit: ``10D``, ``QC``, ``6C`` for the standard deck, and ``7T`` for the
Cossacks-Robbers deck (ranks ``0``-``9``, suits ``K R T F``). The two suit alphabets are disjoint, so one
text form covers every deck the referee knows. The text is also the card's wire form.

Inside a game engine cards are small integers (their canonical index within the deck, C-4); a
:class:`Deck` maps those indices to :class:`Card` values and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .errors import ParseError

__all__ = ["Card", "Deck", "KAZAKI_SUITS", "STANDARD_SUITS", "SUIT_NAMES", "SUIT_SYMBOLS", "rank_text", "parse_cards"]

#: Suit letters in canonical order (C-4).
STANDARD_SUITS = "CDHS"
KAZAKI_SUITS = "KRTF"
#: How a suit is drawn and named for people (C-3): the standard suits' symbols, and the emblems of the four kinds of
#: the Cossacks-Robbers deck (kittens a circle, roosters a triangle, turtles a square, fish a cross).
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660",
                "K": "\u25cf", "R": "\u25b2", "T": "\u25a0", "F": "\u271a"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades",
              "K": "kittens", "R": "roosters", "T": "turtles", "F": "fish"}

_FACE = {11: "J", 12: "Q", 13: "K", 14: "A"}
_PARSED: dict[str, Card] = {}  # only valid texts get in: at most the 92 cards
_FACE_VALUE = {text: value for value, text in _FACE.items()}


def rank_text(rank: int, suit: str) -> str:
    """The text of a numeric rank: ``11`` is ``J`` in the standard deck; Cossacks ranks are digits."""
    if suit in KAZAKI_SUITS:
        return str(rank)
    return _FACE.get(rank) or str(rank)


@dataclass(frozen=True, slots=True)
class Card:
    """One card. ``rank`` is numeric (standard: 2..14 with J=11 … A=14; Cossacks: 0..9)."""

    rank: int
    suit: str

    def __str__(self) -> str:
        return rank_text(self.rank, self.suit) + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``7T``, ``10D`` or ``QC``; raise :class:`ParseError` on anything else.

        Cards are immutable values and there are only 92 of them, so parsed texts are remembered."""
        card = _PARSED.get(text) if isinstance(text, str) else None
        if card is None:
            card = cls._parse(text)
            _PARSED[text] = card
        return card

    @classmethod
    def _parse(cls, text: str) -> Card:
        if not isinstance(text, str) or len(text) < 2 or not text.isascii():
            raise ParseError(f"invalid card: {text!r}")
        rank_part, suit = text[:-1], text[-1]
        if suit in KAZAKI_SUITS:
            if len(rank_part) == 1 and rank_part.isdigit():
                return cls(int(rank_part), suit)
        elif suit in STANDARD_SUITS:
            if rank_part in _FACE_VALUE:
                return cls(_FACE_VALUE[rank_part], suit)
            if rank_part.isdigit() and 2 <= int(rank_part) <= 10 and rank_part[0] != "0":
                return cls(int(rank_part), suit)
        raise ParseError(f"invalid card: {text!r} (expected rank then suit, like 7T, 10D or QC)")


def _interned(rank: int, suit: str) -> Card:
    """The card ``Card.parse`` gives for its text, or a new one when it has no wire form (a plugin's deck may hold
    ranks or suits the wire does not write: they stay cards, compared by their fields)."""
    try:
        return Card.parse(rank_text(rank, suit) + suit)
    except ParseError:
        return Card(rank, suit)


def parse_cards(texts: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    """Parse several cards at once."""
    return tuple(Card.parse(t) for t in texts)


class Deck:
    """The cards one game is played with, in canonical order (C-4).

    ``deck.cards[i]`` is the card with canonical index ``i``; ``deck.index(card)`` is the inverse.
    """

    def __init__(self, suits: str, ranks: range | tuple[int, ...]) -> None:
        self.suits = suits
        self.ranks = tuple(ranks)
        # The parsed cards themselves where a card has a wire form: one object per card in a process, so that a
        # game's cards and those a bot parses from the wire are found in a dict or set by identity.
        self.cards: tuple[Card, ...] = tuple(_interned(r, s) for s in suits for r in self.ranks)
        self._index = {card: i for i, card in enumerate(self.cards)}
        self.texts: tuple[str, ...] = tuple(str(c) for c in self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __repr__(self) -> str:
        return f"Deck({self.suits!r}, {self.ranks[0]}..{self.ranks[-1]})"

    @cached_property
    def ranks_per_suit(self) -> int:
        return len(self.ranks)

    def index(self, card: Card) -> int:
        """The canonical index of ``card``; :class:`ParseError` if this deck has no such card."""
        try:
            return self._index[card]
        except KeyError:
            raise ParseError(f"card {card} is not in this deck") from None

    def suit_of(self, i: int) -> int:
        """Suit index (0..3) of the card with canonical index ``i``."""
        return i // len(self.ranks)

    def rank_of(self, i: int) -> int:
        """Rank position (0 = lowest) of the card with canonical index ``i``."""
        return i % len(self.ranks)
