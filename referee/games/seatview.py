"""Reading one seat's view (:data:`referee.engine.View`: its observation at each of its decisions, then the position
now; docs/ENGINE.md "Sampling worlds"): the part every world sampler shares, before each reads its game's events into
the constraints of its deal (and :mod:`referee.games.deals` solves them).

Every failure is a :class:`~referee.errors.RecordError` made by the caller's ``fail`` from a reason, so that each
game keeps one wording for all the ways a view may not fit it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import RecordError

__all__ = ["Fail", "read_view", "card_of", "mask_of"]

#: Makes the error for a view that does not fit, from the reason.
Fail = Callable[[str], RecordError]


def read_view(view: Sequence[Mapping[str, Any]], game_id: str, seats: int, seat: int, fail: Fail, *,
              first: str | None = "deal") -> tuple[list[Mapping[str, Any]], list[int], Mapping[str, Any]]:
    """The view's events in order, the index of the observation that brought each, and the last observation. Every
    observation must be ``seat``'s of a ``seats``-seat ``game_id`` game, with a list of events; the first event must
    be of type ``first`` (unless None)."""
    if not view:
        raise fail("the view is empty (it holds at least the observation at the start)")
    events: list[Mapping[str, Any]] = []
    origins: list[int] = []
    for k, obs in enumerate(view):
        if not isinstance(obs, Mapping) or not isinstance(obs.get("events"), list):
            raise fail(f"observation {k} of the view is not an object with a list of events")
        if obs.get("game") != game_id or obs.get("seat") != seat or obs.get("seats") != seats:
            raise fail(f"observation {k} is of {obs.get('game')} seat {obs.get('seat')} of {obs.get('seats')}, "
                       f"not {game_id} seat {seat} of {seats}")
        events.extend(obs["events"])
        origins.extend(k for _ in obs["events"])
    if first is not None and (not events or not isinstance(events[0], Mapping) or events[0].get("type") != first):
        raise fail(f"the view does not start at the {first}")
    return events, origins, view[-1]


def card_of(index: Mapping[str, int], text: object, fail: Fail) -> int:
    """The canonical index of the card ``text`` (``index``: the texts of the cards the game may show)."""
    if not isinstance(text, str) or text not in index:
        raise fail(f"{text!r} is not a card of the deck")
    return index[text]


def mask_of(index: Mapping[str, int], texts: object, fail: Fail) -> int:
    """The bitmask of the cards ``texts`` (a list of card texts)."""
    if not isinstance(texts, list):
        raise fail(f"not a list of cards: {texts!r}")
    out = 0
    for text in texts:
        out |= 1 << card_of(index, text, fail)
    return out
