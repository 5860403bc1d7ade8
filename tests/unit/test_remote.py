"""The referee's side of the wire (referee/remote.py), scripted with MockTransport: no processes here.

A :class:`Script` plays the bot: it answers the handshake and each request the way a test asks, and every
connection RemoteBot opens is kept so a test can see what was sent on each one and whether it was closed.
Time is faked where it matters (the time bank), by replacing ``time`` in ``referee.remote``.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from protocol.errors import BotCrashed, BotStalled, BotTimeout, ProtocolViolation
from protocol.wire import PROTOCOL_VERSIONS
from referee import remote
from referee.clock import TimeControl
from referee.remote import LATENCY_GRACE, RemoteBot
from referee.transport import MockTransport

Reply = list[dict[str, Any]] | Exception | None
LEGAL_TEXTS = ["attack(7T)", "attack(7T,7K)", "attack(9R)"]
OBSERVATION = {"hand": ["7T", "7K", "9R"], "trump": "K", "stock": 20, "events": [{"type": "deal"}]}
INFO = GameInfo(game="durak", options={"perevodnoy": False}, seat=1, seats=2, teams=None, bot_seed=42)


def good_hello(version: int = PROTOCOL_VERSIONS[-1]) -> dict[str, Any]:
    return {"type": "hello", "version": version, "name": "scripted", "games": ["durak", "kazaki"]}


class Script:
    """The bot side. ``on_hello``: the frames sent back to a hello. ``answers``: one entry per request, in order
    (a list of frames, an exception to raise, a callable of the request, or None for silence); when they run out
    the bot answers every request with the first legal action."""

    def __init__(self, on_hello: Reply = None, answers: list[Any] | None = None) -> None:
        self.on_hello = [good_hello()] if on_hello is None else on_hello
        self.answers = list(answers or [])
        self.transports: list[MockTransport] = []
        self.requests: list[dict[str, Any]] = []
        self.clock: FakeClock | None = None

    def connect(self) -> MockTransport:
        transport = MockTransport(self.handle)
        self.transports.append(transport)
        return transport

    def handle(self, message: dict[str, Any]) -> list[dict[str, Any]] | None:
        kind = message["type"]
        if kind == "hello":
            if isinstance(self.on_hello, Exception):
                raise self.on_hello
            return self.on_hello
        if kind == "request":
            self.requests.append(message)
            if not self.answers:
                return [{"type": "action", "id": message["id"], "action": message["legal"][0]}]
            answer = self.answers.pop(0)
            if callable(answer) and not isinstance(answer, Exception):
                answer = answer(message)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return None

    @property
    def transport(self) -> MockTransport:
        return self.transports[-1]

    def sent_types(self, index: int = -1) -> list[str]:
        return [m["type"] for m in self.transports[index].sent]


def reply(text: str | None = None, *, stale: int = 0, **extra: Any) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    """An answer to the request it is given: its id (minus ``stale``) and ``text`` (default: its first legal)."""

    def answer(message: dict[str, Any]) -> list[dict[str, Any]]:
        frame = {"type": "action", "id": message["id"] - stale,
                 "action": message["legal"][0] if text is None else text, **extra}
        return [frame]

    return answer


def make_bot(script: Script, *, referee: str = "referee", **limits: Any) -> RemoteBot:
    """A RemoteBot of ``script``; ``limits`` are the fields of its TimeControl (move time 0.25 s, handshake 1 s)."""
    limits.setdefault("move_time", 0.25)
    limits.setdefault("handshake_time", 1.0)
    return RemoteBot(script.connect, name="remote", time=TimeControl(**limits), referee=referee)


def decision(texts: list[str] = LEGAL_TEXTS, observation: dict[str, Any] = OBSERVATION) -> Decision:
    return Decision(1, [Action.parse(t) for t in texts], lambda: observation)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(remote, "time", types.SimpleNamespace(monotonic=fake.monotonic))
    return fake


# ------------------------------------------------------------------------------------------------ handshake


def test_handshake_records_version_name_and_games() -> None:
    script = Script()
    bot = make_bot(script, referee="referee/9.9")
    bot.start()
    assert bot.starts == 1
    assert bot.alive
    assert bot.version == PROTOCOL_VERSIONS[-1]
    assert bot.bot_name == "scripted"
    assert bot.games == ["durak", "kazaki"]
    assert script.transport.sent == [{"type": "hello", "versions": list(PROTOCOL_VERSIONS), "referee": "referee/9.9"}]


def test_hello_without_games_means_any_game() -> None:
    script = Script(on_hello=[{"type": "hello", "version": 1, "name": "n"}])
    bot = make_bot(script)
    bot.start()
    assert bot.games is None and bot.bot_name == "n"


def test_new_game_starts_the_bot_when_needed() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    assert bot.starts == 1
    assert script.sent_types() == ["hello", "new_game"]


@pytest.mark.parametrize("version", [0, max(PROTOCOL_VERSIONS) + 1, 99, "1", None, True, 1.0])
def test_hello_with_a_version_not_offered_is_a_violation(version: Any) -> None:
    script = Script(on_hello=[{"type": "hello", "version": version, "name": "n"}])
    bot = make_bot(script)
    with pytest.raises(ProtocolViolation) as info:
        bot.start()
    assert info.value.kind == "malformed"
    assert not bot.alive and not script.transport.alive  # the connection was dropped


@pytest.mark.parametrize("hello", [
    pytest.param({"type": "hello", "version": 1}, id="no-name"),
    pytest.param({"type": "hello", "version": 1, "name": ""}, id="empty-name"),
    pytest.param({"type": "hello", "version": 1, "name": "n", "games": "durak"}, id="games-not-a-list"),
    pytest.param({"type": "hello", "version": 1, "name": "n", "games": [1]}, id="games-not-ids"),
])
def test_bad_hello_fields_are_violations(hello: dict[str, Any]) -> None:
    bot = make_bot(Script(on_hello=[hello]))
    with pytest.raises(ProtocolViolation):
        bot.start()
    assert not bot.alive


def test_error_reply_to_hello_is_a_crash() -> None:
    script = Script(on_hello=[{"type": "error", "message": "no common protocol version"}])
    bot = make_bot(script)
    with pytest.raises(BotCrashed) as info:
        bot.start()
    assert "no common protocol version" in str(info.value)
    assert not bot.alive and not script.transport.alive


def test_no_hello_is_a_timeout() -> None:
    script = Script(on_hello=[])
    bot = make_bot(script)
    with pytest.raises(BotTimeout):
        bot.start()
    assert not bot.alive and not script.transport.alive


def test_crash_during_handshake_is_a_crash() -> None:
    bot = make_bot(Script(on_hello=BotCrashed("bot closed its stdout (exit code 1)")))
    with pytest.raises(BotCrashed):
        bot.start()
    assert not bot.alive


def test_unknown_messages_before_hello_are_ignored() -> None:
    script = Script(on_hello=[{"type": "log", "text": "booting"}, {"type": "ready"}, {"no-type": 1}, good_hello()])
    bot = make_bot(script)
    bot.start()
    assert bot.bot_name == "scripted"


def test_action_before_hello_is_ignored() -> None:
    script = Script(on_hello=[{"type": "action", "id": 1, "action": "take"}, good_hello()])
    bot = make_bot(script)
    bot.start()
    assert bot.version == 1


def test_failed_start_is_reraised_at_next_new_game_then_retried() -> None:
    # check_supports() probes bots before the game; a failure there is reported when the game starts.
    script = Script(on_hello=[])
    bot = make_bot(script)
    bot.probe()
    assert not bot.alive
    with pytest.raises(BotTimeout):
        bot.new_game(INFO)
    assert bot.starts == 1  # the error of that start, not a second attempt
    script.on_hello = [good_hello()]
    bot.new_game(INFO)
    assert bot.starts == 2 and bot.alive


def test_start_failing_inside_new_game_is_reported_once() -> None:
    # A start that fails *inside* new_game is that game's fault; the next game tries a fresh process
    # instead of reporting the same old failure again without starting anything.
    script = Script(on_hello=[])
    bot = make_bot(script)
    with pytest.raises(BotTimeout):
        bot.new_game(INFO)
    assert bot.starts == 1
    script.on_hello = [good_hello()]
    bot.new_game(INFO)
    assert bot.starts == 2
    assert bot.alive


# ------------------------------------------------------------------------------------------------ new_game


def test_new_game_message_fields() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    assert script.transport.sent[-1] == {
        "type": "new_game", "game": "durak", "options": {"perevodnoy": False}, "seat": 1, "seats": 2,
        "teams": None, "bot_seed": 42, "game_no": 1,
    }
    teams = GameInfo(game="kozel", options={}, seat=3, seats=4, teams=((0, 2), (1, 3)), bot_seed=7)
    bot.new_game(teams)
    assert script.transport.sent[-1] == {
        "type": "new_game", "game": "kozel", "options": {}, "seat": 3, "seats": 4, "teams": [[0, 2], [1, 3]],
        "bot_seed": 7, "game_no": 2,
    }
    assert bot.starts == 1  # one process for both games


# ------------------------------------------------------------------------------------------------ act


def test_act_sends_a_request_and_returns_the_reply_text() -> None:
    # The text, not the legal Action with it: only the engine resolves a reply's text (the game loop asks it).
    script = Script(answers=[reply("attack(7T,7K)"), reply("attack(9R)")])
    bot = make_bot(script, move_time=0.25)
    bot.new_game(INFO)
    d = decision()
    action = bot.act(d)
    assert type(action) is str and action == d.legal[1].text
    first = script.requests[0]
    assert first == {"type": "request", "id": first["id"], "observation": OBSERVATION, "legal": LEGAL_TEXTS,
                     "deadline_ms": 250, "bank_ms": 0}
    d2 = decision()
    assert bot.act(d2) == d2.legal[2].text
    assert script.requests[1]["id"] > first["id"]  # every request has a fresh id
    assert script.sent_types() == ["hello", "new_game", "request", "request"]


def test_request_ids_keep_growing_across_games() -> None:
    script = Script()
    bot = make_bot(script)
    bot.new_game(INFO)
    bot.act(decision())
    bot.game_over({"places": [1, 2]})
    bot.new_game(INFO)
    bot.act(decision())
    ids = [r["id"] for r in script.requests]
    assert ids[1] > ids[0]


def test_reply_with_a_stale_id_is_skipped() -> None:
    script = Script(answers=[lambda m: reply("attack(9R)", stale=1)(m) + reply("attack(7T)")(m)])
    bot = make_bot(script)
    bot.new_game(INFO)
    d = decision()
    assert bot.act(d) == d.legal[0].text


def test_reply_with_a_future_or_missing_id_is_skipped() -> None:
    answer = [{"type": "action", "action": "attack(9R)"}, {"type": "action", "id": "1", "action": "attack(9R)"}]
    script = Script(answers=[lambda m: [*answer, {"type": "action", "id": m["id"] + 5, "action": "attack(9R)"},
                                        *reply("attack(7T)")(m)]])
    bot = make_bot(script)
    bot.new_game(INFO)
    d = decision()
    assert bot.act(d) == d.legal[0].text


@pytest.mark.parametrize("odd", [True, 1.0])
def test_an_id_of_true_or_1_0_is_not_the_id_1(odd: Any) -> None:
    # Python has True == 1.0 == 1; the wire does not: such a reply answers nothing and the request times out.
    script = Script(answers=[[{"type": "action", "id": odd, "action": "attack(9R)"}]])
    bot = make_bot(script, move_time=0.05)
    bot.new_game(INFO)
    with pytest.raises(BotTimeout):
        bot.act(decision())
    assert script.requests[0]["id"] == 1


def test_an_answer_sent_before_its_request_is_not_its_answer() -> None:
    # With request 1's answer the bot also "answers" request 2 (it guessed the id); request 2 gets a real answer.
    script = Script(answers=[lambda m: reply()(m) + [{"type": "action", "id": m["id"] + 1, "action": "attack(9R)"}],
                             reply("attack(7T,7K)")])
    bot = make_bot(script)
    bot.new_game(INFO)
    bot.act(decision())
    d = decision()
    assert bot.act(d) == d.legal[1].text


def test_unknown_messages_between_replies_are_ignored() -> None:
    script = Script(answers=[lambda m: [{"type": "log", "text": "thinking"}, {"type": "ping"}, {"x": 1},
                                        *reply("attack(7T,7K)")(m)]])
    bot = make_bot(script)
    bot.new_game(INFO)
    d = decision()
    assert bot.act(d) == d.legal[1].text


def test_unknown_keys_in_the_reply_are_ignored() -> None:
    script = Script(answers=[reply("attack(9R)", comment="easy", depth=3)])
    bot = make_bot(script)
    bot.new_game(INFO)
    d = decision()
    assert bot.act(d) == d.legal[2].text


@pytest.mark.parametrize("text", ["attack(AS)", "take", "", "attack(7t)", "garbage("])
def test_illegal_text_is_returned_as_a_plain_string(text: str) -> None:
    script = Script(answers=[reply(text)])
    bot = make_bot(script)
    bot.new_game(INFO)
    result = bot.act(decision())
    assert type(result) is str and result == text
    assert bot.alive  # an illegal answer is not a reason to drop the process


@pytest.mark.parametrize("frame", [
    pytest.param({"type": "action"}, id="missing"),
    pytest.param({"type": "action", "action": 3}, id="int"),
    pytest.param({"type": "action", "action": None}, id="nil"),
    pytest.param({"type": "action", "action": b"take"}, id="bin"),
    pytest.param({"type": "action", "action": ["take"]}, id="list"),
])
def test_reply_without_an_action_string_is_malformed(frame: dict[str, Any]) -> None:
    script = Script(answers=[lambda m: [{**frame, "id": m["id"]}]])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(ProtocolViolation) as info:
        bot.act(decision())
    assert info.value.kind == "malformed"
    assert not bot.alive and not script.transport.alive


@pytest.mark.parametrize("error", [
    BotCrashed("bot closed its stdout (exit code 1)"),
    ProtocolViolation("undecodable msgpack data"),
    ProtocolViolation("frame larger than 65536 bytes", kind="oversized"),
])
def test_transport_errors_propagate_and_drop_the_connection(error: Exception) -> None:
    script = Script(answers=[error])
    bot = make_bot(script)
    bot.new_game(INFO)
    with pytest.raises(type(error)) as info:
        bot.act(decision())
    assert info.value.kind == error.kind  # type: ignore[attr-defined]
    assert not bot.alive and not script.transport.alive
    with pytest.raises(BotCrashed):
        bot.act(decision())  # not asked again on a dead connection


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
