"""The clock of a bot: how long it may take, and what being late costs (docs/PROTOCOL.md section 8).

:class:`Clocked` puts an in-process bot under the clock that :class:`referee.remote.RemoteBot` keeps for program
bots.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from protocol.actions import Action
from protocol.bot import Bot, Decision, GameInfo
from protocol.errors import BotStalled, BotTimeout

from .remote import LATENCY_GRACE

__all__ = ["Clocked"]


class Clocked:
    """An in-process bot under the clock of program bots (docs/PROTOCOL.md section 8): an answer later than the
    move limit plus what is left of the time bank, plus the latency grace, is a ``timeout`` (the runner plays the
    default action); the third timeout in a row is a ``stall``. Time beyond the move limit comes out of the bank,
    which is restored at every new game. It costs two clock reads per decision."""

    def __init__(self, bot: Bot, *, move_time: float, time_bank: float = 0.0, stall_after: int = 3,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``clock`` gives the seconds (a test passes one it moves itself)."""
        self.bot = bot
        self.clock = clock
        self.name = getattr(bot, "name", "?")
        self.move_time = move_time
        self.time_bank = time_bank
        self.stall_after = stall_after
        self._bank = time_bank
        self._timeouts_in_row = 0

    def new_game(self, info: GameInfo) -> None:
        self._bank = self.time_bank
        self._timeouts_in_row = 0
        self.bot.new_game(info)

    def act(self, decision: Decision) -> Action | str:
        allowed = self.move_time + self._bank
        start = self.clock()
        try:
            action = self.bot.act(decision)
        finally:
            used = self.clock() - start
            if self._bank and used > self.move_time:
                self._bank = max(0.0, self._bank - (used - self.move_time))
        if used > allowed + LATENCY_GRACE:
            self._timeouts_in_row += 1
            if self._timeouts_in_row >= self.stall_after:
                raise BotStalled(f"{self._timeouts_in_row} timeouts in a row")
            raise BotTimeout(f"answered after {used * 1000:.0f} ms, the limit is {allowed * 1000:.0f} ms")
        self._timeouts_in_row = 0
        return action

    def game_over(self, result: Mapping[str, Any]) -> None:
        self.bot.game_over(result)

    def close(self) -> None:
        self.bot.close()

    def __getattr__(self, name: str) -> Any:  # anything else the bot has (take_stderr, its own fields)
        if name == "bot":
            raise AttributeError(name)
        return getattr(self.bot, name)
