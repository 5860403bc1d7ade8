"""The referee's side of the wire (referee/remote.py), scripted with MockTransport: no processes here. The
handshake, new_game and act; the scripted bot is remote_script.Script. The timeouts, restarts, time bank, close
and pauses are in test_remote_connection.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from remote_script import (
    INFO,
    LEGAL_TEXTS,
    OBSERVATION,
    Script,
    decision,
    good_hello,
    make_bot,
    reply,
)

from protocol.bot import GameInfo
from protocol.errors import BotCrashed, BotTimeout, ProtocolViolation
from protocol.wire import PROTOCOL_VERSIONS

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
