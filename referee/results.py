"""The result of one played game (RULES.md C-10) as a value: what the runner returns, records hold, the worker
stores and the tournament table reads.

:meth:`GameResult.to_dict` is the result object of WIRE.md ("The result object"): the same keys in the same order
as every record file, ``--json`` output, database row and ``game_over`` message has carried; :meth:`from_dict`
reads it back and checks it, so a damaged result is one :class:`RecordError` line, never a ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ParseError
from protocol.faults import Fault

from .errors import RecordError

__all__ = ["GameResult", "REQUIRED"]

#: The fields every stored result carries (RECORDS.md, "Compare the result"); the others may be left out.
REQUIRED = ("places", "finishing_order", "scores", "aborted")
#: The referee's own fields, in the order the result object writes them; the game's own fields follow.
_FIELDS = ("game", "n", "places", "rule_places", "finishing_order", "rule_finishing_order", "scores", "faults",
           "aborted")

Order = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class GameResult:
    """A game's result after the fault policy (C-7, C-10).

    ``places``/``finishing_order`` are after the policy, ``rule_places``/``rule_finishing_order`` what the rules
    alone gave. ``extra`` holds the game's own fields (``loser``, ``draw``, ``teams``, ``winner_team``, ``roles``,
    …) in the game's order. A result the runner built has every field; one read from a record file may lack
    ``game``, ``n``, ``rule_places`` and ``rule_finishing_order`` (None: not stored, RECORDS.md).
    """

    game: str | None
    n: int | None
    places: tuple[int, ...]
    rule_places: tuple[int, ...] | None
    finishing_order: Order
    rule_finishing_order: Order | None
    scores: tuple[Any, ...]
    faults: tuple[Fault, ...] = ()
    aborted: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        return len(self.places)

    def to_dict(self) -> dict[str, Any]:
        """The result object (WIRE.md), JSON-ready; a field that was not stored stays out."""
        data: dict[str, Any] = {
            "game": self.game,
            "n": self.n,
            "places": list(self.places),
            "rule_places": None if self.rule_places is None else list(self.rule_places),
            "finishing_order": [list(g) for g in self.finishing_order],
            "rule_finishing_order": (None if self.rule_finishing_order is None
                                     else [list(g) for g in self.rule_finishing_order]),
            "scores": list(self.scores),
            "faults": [f.to_dict() for f in self.faults],
            "aborted": self.aborted,
        }
        for name in ("game", "n", "rule_places", "rule_finishing_order"):
            if data[name] is None:
                del data[name]
        return {**data, **self.extra}

    @classmethod
    def from_dict(cls, data: Any, what: str = "the result") -> GameResult:
        """Read a result object back; :class:`RecordError` names the first missing or mistyped field, in words
        that start with ``what`` ("the record's result")."""
        if not isinstance(data, Mapping):
            raise RecordError(f"{what} must be an object")
        for name in REQUIRED:
            if name not in data:
                raise RecordError(f"{what} has no {name!r} field")

        def bad(name: str, kind: str) -> RecordError:
            return RecordError(f"{what} field {name!r} must be {kind}")

        places = _ints(data["places"]) if isinstance(data["places"], list) else None
        if places is None:
            raise bad("places", "a list of whole numbers")
        seats = len(places)
        n = data.get("n", seats)
        if type(n) is not int or n != seats:
            raise bad("n", f"the number of seats ({seats}, one place each)")
        game = data.get("game", "")
        if not isinstance(game, str):
            raise bad("game", "a game id")
        rule_places = data.get("rule_places", list(places))
        rule_places = _ints(rule_places) if isinstance(rule_places, list) else None
        if rule_places is None or len(rule_places) != seats:
            raise bad("rule_places", f"a list of {seats} whole numbers")
        order, rule_order = (_order(data.get(name, [])) for name in ("finishing_order", "rule_finishing_order"))
        if order is None:
            raise bad("finishing_order", "a list of lists of seats")
        if rule_order is None:
            raise bad("rule_finishing_order", "a list of lists of seats")
        scores = data["scores"]
        if not isinstance(scores, list) or len(scores) != seats:
            raise bad("scores", f"a list of {seats} scores, one per seat")
        if type(data["aborted"]) is not bool:
            raise bad("aborted", "true or false")
        faults = data.get("faults", [])
        try:
            if not isinstance(faults, list):
                raise ParseError("not a list")
            typed = tuple(Fault.from_dict(f) for f in faults)
        except ParseError as exc:
            raise RecordError(f"{what} field 'faults' must be a list of {{seat, kind, decision, message}} objects "
                              f"({exc})") from exc
        return cls(
            game=game if "game" in data else None,
            n=n if "n" in data else None,
            places=places,
            rule_places=rule_places if "rule_places" in data else None,
            finishing_order=order,
            rule_finishing_order=rule_order if "rule_finishing_order" in data else None,
            scores=tuple(scores),
            faults=typed,
            aborted=data["aborted"],
            extra={k: v for k, v in data.items() if k not in _FIELDS},
        )


def _ints(values: Sequence[Any]) -> tuple[int, ...] | None:
    return tuple(values) if all(type(v) is int for v in values) else None


def _order(value: Any) -> Order | None:
    """A finishing order (groups of seats, best first), or None when it is not one."""
    if not isinstance(value, list) or not all(isinstance(g, list) for g in value):
        return None
    groups = [_ints(g) for g in value]
    return None if any(g is None for g in groups) else tuple(g for g in groups if g is not None)
