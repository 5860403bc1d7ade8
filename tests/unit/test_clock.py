"""The time control (referee/clock.py): one TimeControl value, one Clock per bot, kept alike by in-process bots
(Clocked) and program bots (RemoteBot, whose side is in tests/unit/test_remote.py too)."""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo
from protocol.errors import BotStalled, BotTimeout
from protocol.wire import PROTOCOL_VERSIONS
from referee import remote
from referee.clock import LATENCY_GRACE, Clock, Clocked, TimeControl
from referee.remote import RemoteBot
from referee.transport import MockTransport

INFO = GameInfo(game="durak", options={}, seat=0, seats=2, teams=None, bot_seed=1)
LEGAL = [Action.parse("attack(7T)"), Action.parse("attack(9R)")]


def decision() -> Decision:
    return Decision(0, LEGAL, lambda: {"hand": ["7T", "9R"]})


# ------------------------------------------------------------------------------------------------ the value


def test_time_control_is_one_frozen_value_in_seconds() -> None:
    limits = TimeControl()
    assert (limits.move_time, limits.time_bank, limits.handshake_time, limits.stall_after) == (1.0, 0.0, 5.0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.move_time = 2.0  # type: ignore[misc]


def test_milliseconds_become_seconds_in_one_place() -> None:
    assert TimeControl.from_ms(250, 1500) == TimeControl(move_time=0.25, time_bank=1.5)
    assert TimeControl.from_ms(1000) == TimeControl()


# ------------------------------------------------------------------------------------------------ the clock


def test_the_bank_is_spent_only_beyond_the_move_limit_and_restored_each_game() -> None:
    clock = Clock(TimeControl(move_time=0.25, time_bank=1.0))
    assert clock.allowed == 1.25
    clock.spend(0.2)  # within the move limit: free
    assert clock.bank == 1.0
    clock.spend(0.75)
    assert clock.bank == pytest.approx(0.5) and clock.allowed == pytest.approx(0.75)
    clock.spend(5.0)  # never below empty
    assert clock.bank == 0.0 and clock.allowed == 0.25
    clock.new_game()
    assert clock.bank == 1.0


def test_stall_after_n_timeouts_in_a_row_and_an_answer_starts_the_count_again() -> None:
    clock = Clock(TimeControl(stall_after=2))
    late = BotTimeout("late")
    with pytest.raises(BotTimeout) as first:
        clock.on_timeout(late)
    assert first.value is late
    clock.answered()
    with pytest.raises(BotTimeout):
        clock.on_timeout(late)
    with pytest.raises(BotStalled, match="2 timeouts in a row") as stalled:
        clock.on_timeout(late)
    assert stalled.value.__cause__ is late
    clock.new_game()
    with pytest.raises(BotTimeout):
        clock.on_timeout(late)  # a new game counts from zero


def test_judge_allows_the_latency_grace() -> None:
    clock = Clock(TimeControl(move_time=0.1))
    clock.judge(0.1 + LATENCY_GRACE, 0.1)
    assert clock.timeouts_in_row == 0
    with pytest.raises(BotTimeout, match="answered after 200 ms, the limit is 100 ms"):
        clock.judge(0.2, 0.1)
    assert clock.timeouts_in_row == 1


# ------------------------------------------------------------------------------- both kinds of bot, alike
#
# The same story for an in-process bot and for a program: move 0.25 s, bank 1 s, a stall after 2 timeouts. The
# first answer takes 0.75 s (0.5 s from the bank), the second 1.0 s (late: only 0.75 s were left), the third
# 0.1 s (in time), then two late ones (a stall). A new game has the whole bank again.

THINK = [0.75, 1.0, 0.1, 2.0, 2.0]
LIMITS = TimeControl(move_time=0.25, time_bank=1.0, stall_after=2)


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


class Thinker(BotBase):
    """An in-process bot that thinks ``THINK[i]`` seconds of fake time for its i-th answer."""

    name = "thinker"

    def __init__(self, fake: FakeTime) -> None:
        super().__init__()
        self.fake = fake
        self.answers = 0

    def act(self, decision: Decision) -> Action:
        self.fake.now += THINK[self.answers % len(THINK)]
        self.answers += 1
        return decision.legal[0]


def in_process(fake: FakeTime) -> Clocked:
    return Clocked(Thinker(fake), time=LIMITS, now=fake.monotonic)


def program(fake: FakeTime, monkeypatch: pytest.MonkeyPatch) -> RemoteBot:
    """A program whose answer arrives after THINK[i] seconds, or never if that is beyond the receive deadline."""
    monkeypatch.setattr(remote, "time", types.SimpleNamespace(monotonic=fake.monotonic))
    asked = [0]

    def handle(message: dict[str, Any]) -> list[dict[str, Any]] | None:
        if message["type"] == "hello":
            return [{"type": "hello", "version": PROTOCOL_VERSIONS[-1], "name": "p"}]
        return None

    def connect() -> MockTransport:
        transport = MockTransport(handle)
        receive = transport.receive

        def timed_receive(deadline: float) -> dict[str, Any]:
            if transport.sent[-1]["type"] != "request":
                return receive(deadline)
            request = transport.sent[-1]
            fake.now += THINK[asked[0] % len(THINK)]
            asked[0] += 1
            if fake.now > deadline:
                raise BotTimeout("no answer before the deadline")
            return {"type": "action", "id": request["id"], "action": request["legal"][0]}

        transport.receive = timed_receive  # type: ignore[method-assign]
        return transport

    return RemoteBot(connect, name="p", time=LIMITS)


@pytest.mark.parametrize("kind", ["in-process", "program"])
def test_both_kinds_of_bot_keep_the_same_clock(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeTime()
    bot: Any = in_process(fake) if kind == "in-process" else program(fake, monkeypatch)
    bot.new_game(INFO)
    assert isinstance(bot.clock, Clock) and bot.clock.limits is LIMITS
    bot.act(decision())
    assert bot.clock.bank == pytest.approx(0.5)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    assert bot.clock.bank == 0.0  # a late answer spends the bank too
    bot.act(decision())  # in time: the count starts again
    with pytest.raises(BotTimeout):
        bot.act(decision())
    with pytest.raises(BotStalled, match="2 timeouts in a row"):
        bot.act(decision())
    bot.new_game(INFO)
    assert bot.clock.bank == 1.0 and bot.clock.timeouts_in_row == 0
