"""What a bot is, seen from inside one process.

A bot is told a game starts (:class:`GameInfo`), is asked for decisions (:class:`Decision`) and is told the
result. The referee drives in-process bots directly through this interface; bots in other processes speak
the same thing over the wire (docs/PROTOCOL.md), and the SDK turns that back into these calls.

The observation of a decision is built only when a bot reads it, so a bot that does not look at it (like
``random``) costs nothing for it. It is valid only during :meth:`Bot.act`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .actions import Action

__all__ = ["Bot", "BotBase", "Decision", "GameInfo"]


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


class Decision:
    """One request to act: the seat, the legal actions (canonical order) and the seat's observation."""

    __slots__ = ("seat", "legal", "_observe", "_observation")

    def __init__(self, seat: int, legal: Sequence[Action], observe: Callable[[], dict[str, Any]]) -> None:
        self.seat = seat
        self.legal = legal
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
    """The in-process bot interface. ``act`` returns one of ``decision.legal`` (or its text); anything else
    is recorded as an ``illegal`` fault."""

    name: str

    def new_game(self, info: GameInfo) -> None: ...

    def act(self, decision: Decision) -> Action | str: ...

    def game_over(self, result: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


class BotBase:
    """Convenience base with no-op lifecycle methods; subclasses implement :meth:`act`."""

    name = "bot"

    def new_game(self, info: GameInfo) -> None:
        self.info = info

    def act(self, decision: Decision) -> Action | str:  # pragma: no cover - abstract
        raise NotImplementedError

    def game_over(self, result: Mapping[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass
