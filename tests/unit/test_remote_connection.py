"""The referee's side of the wire (referee/remote.py), scripted with MockTransport: no processes here. Timeouts,
restarts, the time bank, close and the pauses between requests; the scripted bot is remote_script.Script.
Time is faked where it matters (the time bank), by replacing ``time`` in ``referee.remote``.
"""

from __future__ import annotations

import types
from typing import Any

import pytest
from remote_script import (
    INFO,
    LEGAL_TEXTS,
    FakeClock,
    Script,
    decision,
    make_bot,
    reply,
)

from protocol.errors import BotCrashed, BotStalled, BotTimeout
from referee import remote
from referee.remote import LATENCY_GRACE
from referee.transport import MockTransport


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(remote, "time", types.SimpleNamespace(monotonic=fake.monotonic))
    return fake


# ------------------------------------------------------------------------------------------------ timeouts


def test_three_timeouts_in_a_row_stall_and_close_the_transport() -> None:
    script = Script(answers=[None, None, None])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    assert bot.alive  # a single timeout keeps the process
    with pytest.raises(BotTimeout):
        bot.act(decision())
    with pytest.raises(BotStalled) as info:
        bot.act(decision())
    assert info.value.kind == "stall"
    assert not bot.alive and not script.transport.alive


def test_stall_after_is_configurable() -> None:
    script = Script(answers=[None])
    bot = make_bot(script, stall_after=1)
    bot.new_game(INFO)
    with pytest.raises(BotStalled):
        bot.act(decision())


def test_an_answer_resets_the_timeout_count() -> None:
    script = Script(answers=[None, None, reply(), None, None, None])
    bot = make_bot(script)
    bot.new_game(INFO)
    for _ in range(2):
        with pytest.raises(BotTimeout):
            bot.act(decision())
    assert bot.act(decision()) == LEGAL_TEXTS[0]
    for _ in range(2):
        with pytest.raises(BotTimeout):
            bot.act(decision())
    with pytest.raises(BotStalled):
        bot.act(decision())


def test_a_new_game_resets_the_timeout_count() -> None:
    script = Script(answers=[None, None, None])
    bot = make_bot(script)
    bot.new_game(INFO)
    for _ in range(2):
        with pytest.raises(BotTimeout):
            bot.act(decision())
    bot.game_over({})
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    assert bot.starts == 1


def test_late_answer_to_a_timed_out_request_is_ignored() -> None:
    # Request 1 times out; the answer to it arrives with request 2 and must not be taken for answer 2.
    script = Script(answers=[None, lambda m: reply("attack(9R)", stale=1)(m) + reply("attack(7T,7K)")(m)])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    d = decision()
    assert bot.act(d) == d.legal[1].text


# ------------------------------------------------------------------------------------------------ restarts


def test_after_a_crash_the_next_game_starts_a_new_connection() -> None:
    script = Script(answers=[BotCrashed("bot closed its stdout (exit code 1)")])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(BotCrashed):
        bot.act(decision())
    assert bot.starts == 1 and not script.transports[0].alive
    bot.game_over({})
    bot.new_game(INFO)
    assert bot.starts == 2 and len(script.transports) == 2
    assert script.sent_types(1) == ["hello", "new_game"]
    assert script.transports[1].sent[1]["game_no"] == 2  # game_no keeps counting over a restart
    assert bot.act(decision()) == LEGAL_TEXTS[0]
    first, second = (r["id"] for r in script.requests)
    assert second > first  # request ids do not restart with the process


def test_after_a_stall_the_next_game_starts_a_new_connection() -> None:
    script = Script(answers=[None, None, None])
    bot = make_bot(script)
    bot.new_game(INFO)
    for _ in range(3):
        with pytest.raises((BotTimeout, BotStalled)):
            bot.act(decision())
    bot.new_game(INFO)
    assert bot.starts == 2 and bot.alive


def test_a_dead_transport_is_replaced_at_new_game() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    script.transport.close()  # the process went away between games
    bot.new_game(INFO)
    assert bot.starts == 2 and script.sent_types(1) == ["hello", "new_game"]


def test_a_bot_that_exits_cleanly_after_new_game_was_written_rejoins_without_a_fault() -> None:
    """The race of a bot that exits after each game: the referee finds it alive and writes new_game into the pipe,
    and the process is gone by the first request. It left cleanly (status 0) before answering anything in this
    game, so a fresh process joins this game (as when the write of new_game fails), with no fault."""
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    bot.act(decision())
    bot.game_over({})
    bot.new_game(INFO)  # written while the process was still exiting
    script.transport.exit_code = 0
    script.transport.close()  # …and now it is gone
    assert bot.act(decision()) == LEGAL_TEXTS[0]
    assert bot.starts == 2 and script.sent_types(1) == ["hello", "new_game", "request"]


def test_a_bot_that_died_with_an_error_before_its_first_request_is_a_crash() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    script.transport.exit_code = 1
    script.transport.close()
    with pytest.raises(BotCrashed):
        bot.act(decision())
    assert bot.starts == 1 and not bot.alive


def test_a_healthy_bot_keeps_one_connection() -> None:
    script = Script()
    bot = make_bot(script)
    for _ in range(3):
        bot.new_game(INFO)
        bot.act(decision())
        bot.game_over({"places": [1, 2]})
    assert bot.starts == 1 and len(script.transports) == 1
    assert script.sent_types() == ["hello"] + ["new_game", "request", "game_over"] * 3


def test_game_over_sends_the_result() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    bot.game_over({"places": [2, 1], "faults": []})
    assert script.transport.sent[-1] == {"type": "game_over", "result": {"places": [2, 1], "faults": []}}


def test_game_over_to_a_dead_bot_is_silent() -> None:
    script = Script(answers=[BotCrashed("gone")])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(BotCrashed):
        bot.act(decision())
    bot.game_over({})  # no error
    assert script.sent_types(0)[-1] == "request"


def test_stderr_of_a_dropped_connection_is_kept() -> None:
    script = Script(answers=[BotCrashed("gone")])
    bot = make_bot(script)
    bot.new_game(INFO)
    script.transport.stderr = "Traceback: boom\n"
    with pytest.raises(BotCrashed):
        bot.act(decision())
    assert bot.take_stderr() == "Traceback: boom\n"
    assert bot.take_stderr() == ""


# ------------------------------------------------------------------------------------------------ time bank


class TimedScript(Script):
    """Each request's write takes ``write`` seconds of fake time (a full pipe); then the bot thinks for ``spend``
    seconds while the referee waits, and answers (or stays silent with ``None``)."""

    def __init__(self, clock: FakeClock, spends: list[tuple[float, bool]], write: float = 0.0) -> None:
        super().__init__()
        self.clock = clock
        self.spends = spends
        self.write = write
        self.thinking = 0.0
        self.receive_deadlines: list[float] = []
        self.send_times: list[float] = []  # when each request's write completed

    def connect(self) -> MockTransport:
        transport = super().connect()
        original = transport.receive

        def receive(deadline: float) -> dict[str, Any]:
            self.receive_deadlines.append(deadline)
            assert self.clock is not None
            self.clock.now += self.thinking
            self.thinking = 0.0
            if self.clock.now > deadline:
                raise BotTimeout("no answer before the deadline")
            return original(deadline)

        transport.receive = receive  # type: ignore[method-assign]
        return transport

    def handle(self, message: dict[str, Any]) -> list[dict[str, Any]] | None:
        if message["type"] != "request":
            return super().handle(message)
        assert self.clock is not None
        self.clock.now += self.write
        self.requests.append(message)
        self.send_times.append(self.clock.now)
        self.thinking, answers = self.spends.pop(0)
        return reply()(message) if answers else None


def deadlines_ms(script: Script) -> list[int]:
    return [r["deadline_ms"] for r in script.requests]


def test_without_a_bank_every_request_gets_move_time(clock: FakeClock) -> None:
    script = TimedScript(clock, [(0.1, True), (0.2, True), (0.05, True)])
    bot = make_bot(script, move_time=0.25)
    bot.new_game(INFO)
    for _ in range(3):
        bot.act(decision())
    assert deadlines_ms(script) == [250, 250, 250]


def test_time_bank_is_spent_only_beyond_move_time(clock: FakeClock) -> None:
    # move 0.25 s, bank 1 s: 0.125 s costs nothing; 0.75 s costs 0.5 s; then 0.75 s (all it is allowed) costs the
    # remaining 0.5 s.
    script = TimedScript(clock, [(0.125, True), (0.75, True), (0.75, True), (0.125, True), (0.125, True)])
    bot = make_bot(script, move_time=0.25, time_bank=1.0)
    bot.new_game(INFO)
    for _ in range(4):
        bot.act(decision())
    assert deadlines_ms(script) == [1250, 1250, 750, 250]
    bot.game_over({})
    bot.new_game(INFO)  # the bank is per game
    bot.act(decision())
    assert deadlines_ms(script)[-1] == 1250


def test_receive_deadline_is_the_allowed_time_plus_grace(clock: FakeClock) -> None:
    script = TimedScript(clock, [(0.75, True), (0.125, True)])
    bot = make_bot(script, move_time=0.25, time_bank=1.0)
    bot.new_game(INFO)
    bot.act(decision())
    bot.act(decision())
    assert script.receive_deadlines[-2] == pytest.approx(script.send_times[0] + 1.25 + LATENCY_GRACE)
    assert script.receive_deadlines[-1] == pytest.approx(script.send_times[1] + 0.75 + LATENCY_GRACE)


def test_the_clock_starts_when_the_request_is_written(clock: FakeClock) -> None:
    # PROTOCOL.md section 8: a slow write (the bot's stdin pipe was full) is not the bot's time. Each write takes
    # 0.4 s, more than the 0.25 s move limit; the bot then answers in 0.1 s: in time, and no bank is spent.
    script = TimedScript(clock, [(0.1, True), (0.1, True)], write=0.4)
    bot = make_bot(script, move_time=0.25, time_bank=1.0)
    bot.new_game(INFO)
    bot.act(decision())
    bot.act(decision())
    assert deadlines_ms(script) == [1250, 1250]
    assert script.receive_deadlines[-1] == pytest.approx(script.send_times[-1] + 1.25 + LATENCY_GRACE)


def test_a_timeout_spends_the_time_bank(clock: FakeClock) -> None:
    # The bot used its whole allowance (move time + bank) without answering: the bank is gone.
    script = TimedScript(clock, [(1.25 + LATENCY_GRACE, False), (0.125, True)])
    bot = make_bot(script, move_time=0.25, time_bank=1.0)
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    bot.act(decision())
    assert deadlines_ms(script) == [1250, 250]


# ------------------------------------------------------------------------------------------------ close


def test_close_sends_bye_and_closes() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    transport = script.transport
    bot.close()
    assert transport.sent[-1] == {"type": "bye"}
    assert not transport.alive and not bot.alive
    bot.close()  # twice is harmless
    assert [m["type"] for m in transport.sent].count("bye") == 1


def test_close_before_start_does_nothing() -> None:
    script = Script()
    bot = make_bot(script)
    bot.close()
    assert script.transports == []


def test_close_after_a_crash_sends_nothing() -> None:
    script = Script(answers=[BotCrashed("gone")])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(BotCrashed):
        bot.act(decision())
    bot.close()
    assert "bye" not in script.sent_types(0)


# ------------------------------------------------------------------------------- no pondering (PROTOCOL.md 8)


def test_a_bot_is_paused_from_its_answer_to_its_next_request() -> None:
    """Issue 33: the bot runs only while asked. The request goes into the pipe of the paused bot, which is then
    resumed (one wake-up); once its answer is read it is idle (frozen after a grace while the referee waits for
    another bot: tests/integration/test_fair_play.py), and paused at the end of the game, until its next request."""
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    assert script.transport.paused
    bot.act(decision())
    bot.act(decision())
    bot.game_over({"places": [1, 2]})
    assert script.transport.paused
    assert script.transport.log == ["hello", "pause", "new_game", "request", "resume", "idle", "request", "resume",
                                    "idle", "game_over", "pause"]
    transport = script.transport
    bot.close()  # a ProcessTransport's close() thaws the bot to let it leave (check 7.1 holds it to that)
    assert transport.log[-1] == "bye"


def test_a_bot_that_times_out_is_idle_too() -> None:
    script = Script(answers=[None])  # silent: a timeout
    bot = make_bot(script, move_time=0.01)
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    assert script.transport.log[-3:] == ["request", "resume", "idle"]
