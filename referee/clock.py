"""The clock of a bot: how long it may take, and what being late costs (docs/PROTOCOL.md section 8).

- :class:`TimeControl`: the limits, one value from the command line to the bot (seconds; the command line and the
  tournament configuration hold milliseconds, converted by TimeControl alone: :meth:`TimeControl.from_ms`, and
  :meth:`TimeControl.override` for a bot's own settings).
- :class:`Clock`: one bot's bookkeeping under those limits: the bank restored each game, time beyond the move
  limit taken from it, ``stall_after`` timeouts in a row a stall. :class:`referee.remote.RemoteBot` (program bots)
  and :class:`Clocked` (in-process bots) both keep one, so the two kinds of bot are timed alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, NoReturn, Protocol, runtime_checkable

from protocol.actions import Action
from protocol.bot import Answer, Bot, Deadline, Decision, GameInfo
from protocol.errors import BotStalled, BotTimeout

__all__ = ["Clock", "Clocked", "KeepsClock", "LATENCY_GRACE", "MAX_MS", "TimeControl", "kept_clock"]

#: Added to every announced deadline for the pipe and scheduling latency, in seconds.
LATENCY_GRACE = 0.05

#: The longest time limit in ms a bot can be given (a poll() time-out is a C int).
MAX_MS = 2**31 - 1


@dataclass(frozen=True)
class TimeControl:
    """The time limits of every bot of a game, in seconds: the move limit, the time bank (extra time per game, spent
    when a move takes longer than the move limit), the handshake limit (hello, new_game, game_over) and the number of
    timeouts in a row that is a stall."""

    move_time: float = 1.0
    time_bank: float = 0.0
    handshake_time: float = 5.0
    stall_after: int = 3

    @classmethod
    def from_ms(cls, move_time_ms: int, time_bank_ms: int = 0) -> TimeControl:
        """The limits as the command line and the tournament configuration give them (milliseconds): the one place
        milliseconds become seconds, with :meth:`override`."""
        return cls(move_time=move_time_ms / 1000, time_bank=time_bank_ms / 1000)

    def override(self, *, move_time_ms: int | None = None, time_bank_ms: int | None = None) -> TimeControl:
        """These limits with a bot's own move limit and bank (milliseconds, as a SPEC's prefix gives them) where
        given: itself when neither is."""
        if move_time_ms is None and time_bank_ms is None:
            return self
        return replace(self, move_time=self.move_time if move_time_ms is None else move_time_ms / 1000,
                       time_bank=self.time_bank if time_bank_ms is None else time_bank_ms / 1000)


class Clock:
    """One bot's clock under a :class:`TimeControl`. It reads no time itself: the caller measures how long an answer
    took (from when its request was written, for a program) and reports it with :meth:`spend`."""

    def __init__(self, limits: TimeControl) -> None:
        self.limits = limits
        self.bank = limits.time_bank
        self.timeouts_in_row = 0
        #: the seconds the last move took, as :meth:`spend` was told (the game loop reads it for the record)
        self.used: float | None = None

    def new_game(self) -> None:
        """A new game: the bank full again, no timeouts counted."""
        self.bank = self.limits.time_bank
        self.timeouts_in_row = 0

    @property
    def allowed(self) -> float:
        """The seconds the next move may take: the move limit plus what is left of the bank."""
        return self.limits.move_time + self.bank

    def spend(self, used: float) -> None:
        """A move took ``used`` seconds (answered or not): what is beyond the move limit comes out of the bank."""
        self.used = used
        if self.bank and used > self.limits.move_time:
            self.bank = max(0.0, self.bank - (used - self.limits.move_time))

    def on_timeout(self, timeout: BotTimeout) -> NoReturn:
        """Count a timeout and raise it, or :class:`BotStalled` when it is the ``stall_after``-th in a row."""
        self.timeouts_in_row += 1
        if self.timeouts_in_row >= self.limits.stall_after:
            raise BotStalled(f"{self.timeouts_in_row} timeouts in a row") from timeout
        raise timeout

    def answered(self) -> None:
        """An answer in time: the count of timeouts in a row starts again."""
        self.timeouts_in_row = 0

    def judge(self, used: float, allowed: float) -> None:
        """Judge an answer that came after ``used`` seconds when ``allowed`` were allowed (:attr:`allowed` before the
        move): later than that plus the latency grace is a timeout (see :meth:`on_timeout`), else it is in time."""
        if used > allowed + LATENCY_GRACE:
            self.on_timeout(BotTimeout(f"answered after {used * 1000:.0f} ms, the limit is {allowed * 1000:.0f} ms"))
        self.answered()


@runtime_checkable
class KeepsClock(Protocol):
    """A bot that keeps its own :class:`Clock` (a program bot, an in-process bot under the time limits): the runner
    lets that clock time its answers instead of timing them itself."""

    clock: Clock


def kept_clock(bot: object) -> Clock | None:
    """The :class:`Clock` ``bot`` keeps if it is a :class:`KeepsClock`, else None; found by its attribute (as
    :func:`protocol.bot.stderr_taker` finds a stderr accessor: without a runtime-checkable protocol's slow
    ``isinstance``)."""
    clock = getattr(bot, "clock", None)
    return clock if isinstance(clock, Clock) else None


class Clocked:
    """An in-process bot under the clock of program bots (docs/PROTOCOL.md section 8): an answer later than the
    move limit plus what is left of the time bank, plus the latency grace, is a ``timeout`` (the runner plays the
    default action); the third timeout in a row is a ``stall``. Time beyond the move limit comes out of the bank,
    which is restored at every new game. It costs two clock reads per decision."""

    def __init__(self, bot: Bot, *, time: TimeControl, now: Callable[[], float] = time.monotonic) -> None:
        """``now`` gives the seconds (a test passes one it moves itself)."""
        self.bot = bot
        self.now = now
        self.name = getattr(bot, "name", "?")
        self.time = time
        self.clock = Clock(time)

    def new_game(self, info: GameInfo) -> None:
        self.clock.new_game()
        self.bot.new_game(info)

    def act(self, decision: Decision) -> Action | str | Answer:
        allowed = self.clock.allowed
        start = self.now()
        if decision.deadline is None:  # the clock a program bot's request announces (docs/PROTOCOL.md section 8)
            decision.deadline = Deadline(int(allowed * 1000), int(self.clock.bank * 1000), start)
        try:
            action = self.bot.act(decision)
        finally:
            used = self.now() - start
            self.clock.spend(used)
        self.clock.judge(used, allowed)
        return action

    def game_over(self, result: Mapping[str, Any]) -> None:
        self.bot.game_over(result)

    def close(self) -> None:
        self.bot.close()

    def __getattr__(self, name: str) -> Any:
        """Anything else the bot has: its own fields, and its stderr accessor if it has one
        (:class:`~protocol.bot.HasStderr`), so that the runner asks for a timed bot's stderr only where there can be
        some (not at every decision)."""
        if name == "bot":
            raise AttributeError(name)
        return getattr(self.bot, name)
