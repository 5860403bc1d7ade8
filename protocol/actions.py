"""Actions as values.

An action is a kind and a flat tuple of arguments: cards, numbers (seats, bids) or suits. Its text form is
also its wire form (docs/WIRE.md)::

    attack(7K,7T)   defend(7T,9T)   throw_in(9R)   take   pass   exchange(2)   name_trump(none)

The kind says what the arguments mean (``defend(a,c)``: attack card, covering card); an unordered set of
cards is written in canonical order (``7K`` before ``7T``) (RULES.md C-4), so equal actions have equal text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import STANDARD_SUITS, Card
from .errors import ParseError

__all__ = ["Action", "Arg"]

Arg = Card | int | str
"""An action argument: a :class:`Card`, a number (seat, bid) or a suit letter / ``"none"``."""


def _parse_arg(token: str) -> Arg:
    if token.isascii() and token.isdigit():
        return int(token)
    if token == "none" or (len(token) == 1 and token in STANDARD_SUITS):
        return token
    return Card.parse(token)


@dataclass(frozen=True, slots=True, eq=False)
class Action:
    """One action. Equal actions have equal text, so equality and hashing use the (cached) text.

    Games emit legal actions already in canonical order (C-7); actions themselves are not ordered.
    """

    kind: str
    args: tuple[Arg, ...] = ()
    text: str = field(init=False, compare=False, repr=False)
    #: The card arguments, in order (made once: the engines' actions are made once and listed again and again,
    #: and bots read their cards at every decision).
    cards: tuple[Card, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        text = self.kind + ("(" + ",".join(map(str, self.args)) + ")" if self.args else "")
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "cards", tuple(a for a in self.args if isinstance(a, Card)) if self.args else ())

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Action):
            return self.text == other.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Action({self.text})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form; raise :class:`ParseError` naming the text on failure."""
        if not isinstance(text, str) or not text or not text.isascii():
            raise ParseError(f"invalid action: {text!r}")
        kind, paren, rest = text.partition("(")
        if not kind.replace("_", "").isalpha() or not kind.islower():
            raise ParseError(f"invalid action: {text!r} (expected kind(args), like attack(7T) or take)")
        if not paren:
            return cls(kind)
        if not rest.endswith(")") or rest == ")":
            raise ParseError(f"invalid action: {text!r} (unbalanced or empty parentheses)")
        try:
            action = cls(kind, tuple(_parse_arg(token) for token in rest[:-1].split(",")))
        except ParseError as exc:
            raise ParseError(f"invalid action: {text!r}: {exc}") from exc
        if action.text != text:  # one text per action: no spaces, no leading zeros
            raise ParseError(f"invalid action: {text!r} (the canonical form is {action.text!r})")
        return action
