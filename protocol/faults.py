"""Faults (RULES.md C-7): one fault as a value, and the fault kinds it carries.

Both sides of the wire share it: the referee records faults, and a bot sees them in ``game_over``'s result. A kind
is a :class:`~enum.StrEnum`, so ``FaultKind.TIMEOUT == "timeout"`` and every JSON output writes the plain word.

The kinds live beside the errors that carry them (:class:`protocol.errors.FaultKind`, handed on from here). Adding a
kind is one member there (its value, whether it ends the bot's part in the game, whether the bot answered) plus the
code that raises it: the runner reads :attr:`FaultKind.ends_process`, the replay viewer :attr:`FaultKind.answered`,
and every reader of a stored fault accepts any member.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import FaultKind, ParseError

__all__ = ["FAULT_KINDS", "Fault", "FaultKind", "fault_words"]

#: Every kind's word, in the order of the members (filters and menus list them so).
FAULT_KINDS: tuple[str, ...] = tuple(str(kind) for kind in FaultKind)


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
        if not isinstance(data, Mapping):
            raise ParseError("a fault must be an object {seat, kind, decision, message}")
        seat, decision, message = data.get("seat"), data.get("decision"), data.get("message", "")
        if type(seat) is not int or type(decision) is not int or not isinstance(message, str):
            raise ParseError("a fault must be an object {seat, kind, decision, message} with whole numbers for "
                             "seat and decision")
        return cls(seat, FaultKind.parse(data.get("kind")), decision, message)


def fault_words(faults: Iterable[Fault]) -> list[str]:
    """A game's faults in short, for people: per seat and kind in the order they first happened, how many and the
    first's decision (``seat 1 illegal ×49, the first at decision 0``): a bot playing on under ``--on-fault continue``
    may fault at every move."""
    first: dict[tuple[int, str], int] = {}
    count: dict[tuple[int, str], int] = {}
    for f in faults:
        key = f.seat, str(f.kind)
        first.setdefault(key, f.decision)
        count[key] = count.get(key, 0) + 1
    return [f"seat {seat} {kind}" + (f" ×{count[seat, kind]}, the first" if count[seat, kind] > 1 else "")
            + f" at decision {d}" for (seat, kind), d in first.items()]
