"""Faults (RULES.md C-7): the one list of fault kinds, and one fault as a value.

Both sides of the wire share it: the referee records faults, and a bot sees them in ``game_over``'s result. A kind
is a :class:`~enum.StrEnum`, so ``FaultKind.TIMEOUT == "timeout"`` and every JSON output writes the plain word.

Adding a kind is one member here (its value, and whether it ends the bot's part in the game) plus the code that
raises it: the error classes of :mod:`protocol.errors` carry their kind, the runner reads
:attr:`FaultKind.ends_process`, and every reader of a stored fault accepts any member.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Fault", "FaultKind"]


class FaultKind(StrEnum):
    """The kind of a fault (C-7). ``ends_process``: after this fault the bot is not asked again in this game (its
    default action plays the seat to the end) and a program bot's process is not trusted any more."""

    def __new__(cls, word: str, ends_process: bool) -> FaultKind:
        member = str.__new__(cls, word)
        member._value_ = word
        member._ends_process = ends_process  # type: ignore[attr-defined]
        return member

    #: an answer that is not in the legal list; asked again at its next decision
    ILLEGAL = "illegal", False
    #: no answer in time; asked again at its next decision
    TIMEOUT = "timeout", False
    #: three timeouts in a row, or a bot that stopped reading
    STALL = "stall", True
    #: an exception, or a dead process
    CRASH = "crash", True
    #: bad data on the wire: the stream cannot be trusted any more (C-7, "malformed and oversized are final")
    MALFORMED = "malformed", True
    #: a frame larger than the limit: the same as malformed
    OVERSIZED = "oversized", True

    @property
    def ends_process(self) -> bool:
        """C-7: True when the bot is not asked again in this game after this fault."""
        return bool(self._ends_process)  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, word: Any) -> FaultKind:
        """The kind named ``word``; :class:`ParseError` for anything else."""
        from .errors import ParseError  # errors.py imports this module for the kinds its classes carry

        for kind in cls:
            if kind.value == word:
                return kind
        raise ParseError(f"{word!r:.40} is not a fault kind (one of {', '.join(cls)})")


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault (C-7): the seat, its kind, the decision index (0-based) and a one-line message."""

    seat: int
    kind: FaultKind
    decision: int
    message: str = ""

    def __post_init__(self) -> None:
        if type(self.kind) is not FaultKind:  # a plain word ("crash") becomes its kind, or is refused
            object.__setattr__(self, "kind", FaultKind.parse(self.kind))

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": str(self.kind), "decision": self.decision, "message": self.message}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fault:
        """A fault from its JSON form; :class:`ParseError` (one line) for a missing or mistyped field."""
        from .errors import ParseError
        if not isinstance(data, Mapping):
            raise ParseError("a fault must be an object {seat, kind, decision, message}")
        seat, decision, message = data.get("seat"), data.get("decision"), data.get("message", "")
        if type(seat) is not int or type(decision) is not int or not isinstance(message, str):
            raise ParseError("a fault must be an object {seat, kind, decision, message} with whole numbers for "
                             "seat and decision")
        return cls(seat, FaultKind.parse(data.get("kind")), decision, message)
