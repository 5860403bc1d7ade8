"""What a bot is, seen from inside one process.

A bot is told a game starts (:class:`GameInfo`), is asked for decisions (:class:`Decision`) and is told the
result. The referee drives in-process bots directly through this interface; bots in other processes speak
the same thing over the wire (docs/PROTOCOL.md), and the SDK turns that back into these calls.

The observation of a decision is built only when a bot reads it, so a bot that does not look at it (like
``random``) costs nothing for it. It is valid only during :meth:`Bot.act`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .actions import Action

__all__ = ["Answer", "Bot", "BotBase", "Deadline", "Decision", "GameInfo", "HasStderr", "NOTE_LIMIT",
           "stderr_taker"]

#: The most characters of a bot's note on one decision that are kept; the rest is cut, with a mark that says so.
NOTE_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a bot learns when a game starts.

    ``bot_seed`` is derived from the game's seed by a one-way hash, so a bot can be reproducible without
    learning the deal.
    """

    game: str
    options: Mapping[str, Any]
    seat: int
    seats: int
    teams: tuple[tuple[int, ...], ...] | None = None
    bot_seed: int = 0


@dataclass(frozen=True, slots=True)
class Deadline:
    """The time a decision may take, as its ``request`` announced it (docs/PROTOCOL.md section 8).

    ``deadline_ms`` is the move limit plus what is left of the seat's time bank; ``bank_ms`` is what is left of the
    bank alone where the request says so (None where it does not: protocol 1's referee announces only the sum);
    ``received`` is :func:`time.monotonic` when the request was read, so :meth:`remaining_ms` counts down from it.
    """

    deadline_ms: int
    bank_ms: int | None = None
    received: float = 0.0

    def remaining_ms(self, now: float | None = None) -> float:
        """Milliseconds left of ``deadline_ms`` at ``now`` (default: :func:`time.monotonic`); negative when late."""
        return self.deadline_ms - ((time.monotonic() if now is None else now) - self.received) * 1000


@dataclass(frozen=True, slots=True)
class Answer:
    """An action with the bot's own words on it (docs/PROTOCOL.md, the reply's ``debug``): ``act`` may return one
    instead of the bare action. The note is kept with the decision in the game's record (at most
    :data:`NOTE_LIMIT` characters) and shown beside it in the replay viewer; it changes nothing in the game."""

    action: Action | str
    note: str = ""


class Decision:
    """One request to act: the seat, the legal actions (canonical order), the seat's observation and, where the
    referee announced one, the :class:`Deadline` (None for an in-process bot, which the referee times itself)."""

    __slots__ = ("seat", "legal", "deadline", "_observe", "_observation")

    def __init__(self, seat: int, legal: Sequence[Action], observe: Callable[[], dict[str, Any]],
                 deadline: Deadline | None = None) -> None:
        self.seat = seat
        self.legal = legal
        self.deadline = deadline
        self._observe = observe
        self._observation: dict[str, Any] | None = None

    @property
    def observation(self) -> dict[str, Any]:
        """The seat's observation in wire form (RULES.md C-8), built on first access."""
        if self._observation is None:
            self._observation = self._observe()
        return self._observation


@runtime_checkable
class Bot(Protocol):
    """The in-process bot interface. ``act`` returns one of ``decision.legal`` (or its text), or an :class:`Answer`
    holding one with a note; anything else is recorded as an ``illegal`` fault."""

    name: str

    def new_game(self, info: GameInfo) -> None: ...

    def act(self, decision: Decision) -> Action | str | Answer: ...

    def game_over(self, result: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class HasStderr(Protocol):
    """A bot whose standard error a game's record keeps (optional): a program bot (the referee's ``RemoteBot``), or
    an in-process bot with such a method (its own code: what it returns is checked)."""

    def take_stderr(self) -> str: ...


def stderr_taker(bot: object) -> Callable[[], str] | None:
    """``bot``'s stderr accessor if it is a :class:`HasStderr`, else None. Found by its attribute, as
    ``isinstance(bot, HasStderr)`` would find it, for a fraction of the cost: a runtime-checkable protocol's
    ``isinstance`` takes about 17 µs, which per decision was more than a game's own work."""
    try:
        take = getattr(bot, "take_stderr", None)
    except Exception:  # noqa: BLE001 - an accessor that fails is its bot's code: as good as none
        return None
    return take if callable(take) else None


class BotBase:
    """Convenience base with no-op lifecycle methods; subclasses implement :meth:`act`."""

    name = "bot"

    def new_game(self, info: GameInfo) -> None:
        self.info = info

    def act(self, decision: Decision) -> Action | str | Answer:  # pragma: no cover - abstract
        raise NotImplementedError

    def game_over(self, result: Mapping[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass
