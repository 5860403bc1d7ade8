"""The bot SDK (protocol/sdk.py): run_bot served over os.pipe() pairs in a thread, run() in one subprocess, and
the lazily parsed LegalActions.

The referee side of each test writes frames into the bot's stdin pipe and reads its answers with a bounded
wait, so a broken SDK fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import random
import select
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Mapping
from typing import Any

import msgpack
import pytest

from protocol import sdk
from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo
from protocol.errors import ParseError, ProtocolViolation
from protocol.sdk import LegalActions, run_bot
from protocol.wire import PROTOCOL_VERSIONS, FrameDecoder, pack

WAIT = 5.0


class Recorder(BotBase):
    """Answers every request with ``choice(decision)`` (default: the last legal action) and records all calls."""

    name = "recorder"

    def __init__(self, choice: Any = None) -> None:
        self.choice = choice
        self.calls: list[tuple[str, Any]] = []
        self.observations: list[dict[str, Any]] = []
        self.legals: list[Any] = []

    def new_game(self, info: GameInfo) -> None:
        self.calls.append(("new_game", info))

    def act(self, decision: Decision) -> Action:
        self.calls.append(("act", decision.seat))
        self.legals.append(decision.legal)
        self.observations.append(decision.observation)
        if self.choice is not None:
            return self.choice(decision)
        return decision.legal[len(decision.legal) - 1]

    def game_over(self, result: Mapping[str, Any]) -> None:
        self.calls.append(("game_over", dict(result)))

    def close(self) -> None:
        self.calls.append(("close", None))


class Peer:
    """The referee's end of two pipes, with run_bot serving the bot's end in a thread."""

    def __init__(self, bot: BotBase, games: list[str] | None = None) -> None:
        self.bot_in, self.to_bot = os.pipe()
        self.from_bot, self.bot_out = os.pipe()
        self.decoder = FrameDecoder()
        self.pending: list[dict[str, Any]] = []
        self.outcome: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._serve, args=(bot, games), daemon=True)
        self.thread.start()

    def _serve(self, bot: BotBase, games: list[str] | None) -> None:
        try:
            self.outcome["code"] = run_bot(bot, games=games, stdin=self.bot_in, stdout=self.bot_out)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.outcome["error"] = exc

    def send(self, *messages: dict[str, Any]) -> None:
        os.write(self.to_bot, b"".join(pack(m) for m in messages))

    def send_raw(self, data: bytes) -> None:
        os.write(self.to_bot, data)

    def receive(self, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.from_bot], [], [], max(0.0, left))
            if not ready:
                raise AssertionError(f"no frame from the bot within {timeout} s (outcome: {self.outcome})")
            data = os.read(self.from_bot, 65536)
            if not data:
                raise AssertionError(f"the bot closed its output (outcome: {self.outcome})")
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    def nothing_more(self, wait: float = 0.1) -> bool:
        if self.pending:
            return False
        ready, _, _ = select.select([self.from_bot], [], [], wait)
        return not ready

    def end_input(self) -> None:
        os.close(self.to_bot)
        self.to_bot = -1

    def finish(self) -> int:
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), "run_bot did not return"
        assert "error" not in self.outcome, repr(self.outcome.get("error"))
        return self.outcome["code"]

    def close(self) -> None:
        for fd in (self.to_bot, self.bot_in, self.from_bot, self.bot_out):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.thread.join(WAIT)

    def handshake(self, versions: list[int] | None = None) -> dict[str, Any]:
        self.send({"type": "hello", "versions": list(PROTOCOL_VERSIONS) if versions is None else versions,
                   "referee": "test"})
        return self.receive()


@pytest.fixture
def peers() -> Any:
    made: list[Peer] = []

    def make(bot: BotBase | None = None, games: list[str] | None = None) -> Peer:
        peer = Peer(bot or Recorder(), games)
        made.append(peer)
        return peer

    yield make
    for peer in made:
        peer.close()


def request(id: int, legal: list[str], observation: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "request", "id": id, "observation": observation or {"hand": []}, "legal": legal,
            "deadline_ms": 1000}


NEW_GAME = {"type": "new_game", "game": "durak", "options": {"perevodnoy": True}, "seat": 1, "seats": 2,
            "teams": None, "bot_seed": 99, "game_no": 1}

# ------------------------------------------------------------------------------------------------ handshake


def test_hello_picks_the_common_version_and_names_the_bot(peers: Any) -> None:
    peer = peers(Recorder(), games=["durak"])
    answer = peer.handshake([0, *PROTOCOL_VERSIONS, max(PROTOCOL_VERSIONS) + 1])
    assert answer == {"type": "hello", "version": max(PROTOCOL_VERSIONS), "name": "recorder", "games": ["durak"]}


def test_hello_picks_the_highest_common_version(peers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk, "PROTOCOL_VERSIONS", (1, 2, 3))
    peer = peers()
    assert peer.handshake([4, 2, 1])["version"] == 2
    peer.send({"type": "bye"})
    assert peer.finish() == 0


def test_hello_games_default_to_none(peers: Any) -> None:
    assert peers().handshake()["games"] is None


@pytest.mark.parametrize("versions", [[max(PROTOCOL_VERSIONS) + 1], [], [0, 99]])
def test_no_common_version_sends_error_and_returns_2(peers: Any, versions: list[int]) -> None:
    peer = peers()
    answer = peer.handshake(versions)
    assert answer["type"] == "error"
    assert isinstance(answer["message"], str) and "version" in answer["message"]
    assert peer.finish() == 2


def test_hello_without_versions_is_refused(peers: Any) -> None:
    peer = peers()
    peer.send({"type": "hello", "referee": "old"})
    assert peer.receive()["type"] == "error"
    assert peer.finish() == 2


# ------------------------------------------------------------------------------------------------ game flow


def test_request_is_answered_with_the_same_id(peers: Any) -> None:
    bot = Recorder()
    peer = peers(bot)
    peer.handshake()
    peer.send(NEW_GAME)
    observation = {"hand": ["7T", "9R"], "trump": "K", "events": []}
    peer.send(request(17, ["attack(7T)", "attack(9R)"], observation))
    assert peer.receive() == {"type": "action", "id": 17, "action": "attack(9R)"}
    peer.send(request(18, ["take"]))
    assert peer.receive() == {"type": "action", "id": 18, "action": "take"}
    assert bot.observations[0] == observation
    assert isinstance(bot.legals[0], LegalActions)
    assert [("act", 1), ("act", 1)] == [c for c in bot.calls if c[0] == "act"]  # the seat from new_game


def test_new_game_and_game_over_reach_the_bot(peers: Any) -> None:
    bot = Recorder()
    peer = peers(bot)
    peer.handshake()
    peer.send({**NEW_GAME, "teams": [[0, 2], [1, 3]], "seats": 4, "seat": 3})
    peer.send({"type": "game_over", "result": {"places": [1, 2, 1, 2]}})
    peer.send({"type": "bye"})
    assert peer.finish() == 0
    kinds = [c[0] for c in bot.calls]
    assert kinds == ["new_game", "game_over", "close"]
    info = bot.calls[0][1]
    assert (info.game, info.seat, info.seats, info.bot_seed) == ("durak", 3, 4, 99)
    assert info.teams == ((0, 2), (1, 3))
    assert dict(info.options) == {"perevodnoy": True}
    assert bot.calls[1][1] == {"places": [1, 2, 1, 2]}


def test_string_choice_is_sent_as_is(peers: Any) -> None:
    peer = peers(Recorder(choice=lambda d: "take"))
    peer.handshake()
    peer.send(request(3, ["attack(7T)", "take"]))
    assert peer.receive() == {"type": "action", "id": 3, "action": "take"}


def test_unknown_messages_are_ignored(peers: Any) -> None:
    bot = Recorder()
    peer = peers(bot)
    peer.send({"type": "ping"}, {"no_type": True}, {"type": "log", "text": "x"})
    answer = peer.handshake()
    assert answer["type"] == "hello"
    peer.send({"type": "future_thing", "payload": [1, 2, 3]}, request(5, ["pass"]), {"type": "noise"})
    assert peer.receive() == {"type": "action", "id": 5, "action": "pass"}
    assert peer.nothing_more()  # nothing was answered to the unknown messages
    assert bot.calls == [("act", 0)]


def test_several_frames_in_one_write_are_all_handled(peers: Any) -> None:
    peer = peers()
    peer.send({"type": "hello", "versions": list(PROTOCOL_VERSIONS)}, NEW_GAME, request(1, ["take"]),
              request(2, ["pass", "take"]))
    assert peer.receive()["type"] == "hello"
    assert peer.receive() == {"type": "action", "id": 1, "action": "take"}
    assert peer.receive() == {"type": "action", "id": 2, "action": "take"}


def test_frames_split_byte_by_byte_are_handled(peers: Any) -> None:
    peer = peers()
    data = pack({"type": "hello", "versions": list(PROTOCOL_VERSIONS)}) + pack(request(9, ["take"]))
    for i in range(len(data)):
        peer.send_raw(data[i:i + 1])
    assert peer.receive()["type"] == "hello"
    assert peer.receive() == {"type": "action", "id": 9, "action": "take"}


def test_bye_returns_0(peers: Any) -> None:
    bot = Recorder()
    peer = peers(bot)
    peer.handshake()
    peer.send({"type": "bye"})
    assert peer.finish() == 0
    assert bot.calls == [("close", None)]


def test_end_of_input_returns_0(peers: Any) -> None:
    peer = peers()
    peer.handshake()
    peer.send(request(1, ["take"]))
    assert peer.receive()["id"] == 1
    peer.end_input()
    assert peer.finish() == 0


def test_end_of_input_before_hello_returns_0(peers: Any) -> None:
    peer = peers()
    peer.end_input()
    assert peer.finish() == 0


def test_run_with_a_function_in_a_subprocess() -> None:
    # run() serves fds 0/1 of a real process; a stray print() must land on stderr, not in the protocol stream.
    script = textwrap.dedent("""
        from protocol.sdk import run

        def act(observation, legal):
            print("thinking about", len(legal), "actions")
            takes = [a for a in legal if a.kind == "take"]
            return takes[0] if takes else legal[0]

        raise SystemExit(run(act, name="stubborn", games=["durak"]))
    """)
    stream = b"".join(pack(m) for m in (
        {"type": "hello", "versions": list(PROTOCOL_VERSIONS)}, NEW_GAME,
        request(1, ["attack(7T)", "take"]), request(2, ["attack(7T)"]), {"type": "bye"}))
    proc = subprocess.run([sys.executable, "-c", script], input=stream, capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    frames = FrameDecoder().feed(proc.stdout)
    assert frames == [
        {"type": "hello", "version": max(PROTOCOL_VERSIONS), "name": "stubborn", "games": ["durak"]},
        {"type": "action", "id": 1, "action": "take"},
        {"type": "action", "id": 2, "action": "attack(7T)"},
    ]
    assert b"thinking about 2 actions" in proc.stderr


# ------------------------------------------------------------------------------------------------ LegalActions


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = Action.parse

    def counting(text: str) -> Action:
        calls.append(text)
        return original(text)

    monkeypatch.setattr(Action, "parse", staticmethod(counting))
    return calls


TEXTS = ["attack(7T)", "attack(7T,7K)", "take", "pass"]


def fresh_texts(n: int) -> list[str]:
    """Action texts never seen before in this process (the SDK may cache parsed texts across requests)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    token = "".join(random.choice(letters) for _ in range(12))
    return [f"probe_{token}_{letters[i]}" for i in range(n)]


def test_legal_actions_parse_lazily(parse_calls: list[str]) -> None:
    texts = fresh_texts(4)
    legal = LegalActions(list(texts))
    assert len(legal) == 4
    assert parse_calls == []  # nothing parsed to know the length
    assert legal[2] == Action(texts[2])
    assert parse_calls == [texts[2]]
    assert legal[2] is legal[2]  # parsed once
    assert parse_calls == [texts[2]]


def test_legal_actions_texts_need_no_parsing(parse_calls: list[str]) -> None:
    legal = LegalActions(list(TEXTS))
    assert legal.texts == TEXTS
    assert parse_calls == []


def test_legal_actions_index_and_iteration() -> None:
    legal = LegalActions(list(TEXTS))
    expected = [Action.parse(t) for t in TEXTS]
    assert list(legal) == expected
    assert [a.text for a in legal] == TEXTS
    assert legal[0] == expected[0] and legal[-1] == expected[-1]
    assert legal[1:3] == expected[1:3]
    assert legal[::-1] == expected[::-1]
    assert Action("take") in legal
    assert legal.index(Action("pass")) == 3
    assert legal[0].kind == "attack" and len(legal[1].cards) == 2
    with pytest.raises(IndexError):
        legal[4]


def test_legal_actions_bad_text_fails_only_when_touched() -> None:
    legal = LegalActions(["take", "not an action!"])
    assert len(legal) == 2
    assert legal[0] == Action("take")
    with pytest.raises(ParseError):
        legal[1]


def test_legal_actions_empty() -> None:
    legal = LegalActions([])
    assert len(legal) == 0 and list(legal) == []


def test_bot_that_reads_only_one_action_parses_only_that_one(peers: Any, parse_calls: list[str]) -> None:
    texts = fresh_texts(5)
    peer = peers(Recorder(choice=lambda d: d.legal[0]))
    peer.handshake()
    peer.send(request(1, texts))
    assert peer.receive()["action"] == texts[0]
    assert parse_calls == [texts[0]]


def request_with_broken_observation(id: int) -> bytes:
    """A request whose observation is a string of invalid UTF-8."""
    good = pack({"type": "request", "id": id, "observation": "xx", "legal": ["take"], "deadline_ms": 1000})
    return good.replace(b"\xa2xx", b"\xa2\xff\xfe")


def test_a_frame_from_the_referee_that_is_not_a_map_is_a_protocol_violation(peers: Any) -> None:
    peer = peers(Recorder())
    peer.handshake()
    peer.send_raw(msgpack.packb(7))
    peer.thread.join(WAIT)
    error = peer.outcome.get("error")
    assert isinstance(error, ProtocolViolation) and "not a map: int" in str(error)


def test_a_request_the_sdk_cannot_decode_is_a_protocol_violation(peers: Any) -> None:
    peer = peers(Recorder())
    peer.handshake()
    peer.send(NEW_GAME)
    peer.send_raw(request_with_broken_observation(6))
    peer.thread.join(WAIT)
    error = peer.outcome.get("error")
    assert isinstance(error, ProtocolViolation) and "undecodable" in str(error)


# ------------------------------------------------------------------------------------------------ the deadline


def test_run_bot_gives_the_decision_the_requests_deadline(peers: Any) -> None:
    bot = Recorder()
    seen: list[Any] = []
    bot.choice = lambda d: (seen.append(d.deadline), d.legal[0])[1]
    peer = peers(bot)
    peer.handshake()
    before = time.monotonic()
    peer.send({**request(1, ["take"]), "deadline_ms": 1234})
    peer.receive()
    peer.send({**request(2, ["take"]), "deadline_ms": 700, "bank_ms": 200})
    peer.receive()
    first, second = seen
    assert (first.deadline_ms, first.bank_ms) == (1234, None)  # protocol 1 announces only the sum
    assert (second.deadline_ms, second.bank_ms) == (700, 200)
    assert before <= first.received <= time.monotonic()
    assert 0 < first.remaining_ms() <= 1234
    assert first.remaining_ms(first.received + 2.0) == 1234 - 2000  # late is negative


@pytest.mark.parametrize("deadline_ms", [None, "1000", True, 1.5, [1000]])
def test_a_request_without_an_integer_deadline_gives_none(peers: Any, deadline_ms: Any) -> None:
    seen: list[Any] = []
    peer = peers(Recorder(choice=lambda d: (seen.append(d.deadline), d.legal[0])[1]))
    peer.handshake()
    message = {**request(1, ["take"]), "deadline_ms": deadline_ms, "bank_ms": "x"}
    if deadline_ms is None:
        del message["deadline_ms"]
    peer.send(message)
    assert peer.receive()["action"] == "take"
    assert seen == [None]


def function_bot_stream() -> bytes:
    return b"".join(pack(m) for m in (
        {"type": "hello", "versions": list(PROTOCOL_VERSIONS)}, NEW_GAME,
        {**request(1, ["attack(7T)", "take"]), "deadline_ms": 250}, {"type": "bye"}))


@pytest.mark.parametrize("signature, expected", [
    ("act(observation, legal, deadline)", "250 True"),
    ("act(observation, legal, deadline=None)", "250 True"),
    ("act(observation, legal)", "two"),
    ("act(observation, legal, *rest)", "two"),  # *args is not a third parameter: called the old way
])
def test_run_passes_the_deadline_to_a_function_that_takes_three(signature: str, expected: str) -> None:
    script = textwrap.dedent(f"""
        import sys
        from protocol.sdk import run

        def {signature}:
            args = locals()
            if "deadline" in args and args["deadline"] is not None:
                d = args["deadline"]
                print(d.deadline_ms, 0 < d.remaining_ms() <= 250, file=sys.stderr)
            else:
                print("two", file=sys.stderr)
            return legal[-1]

        raise SystemExit(run(act, name="timed"))
    """)
    proc = subprocess.run([sys.executable, "-c", script], input=function_bot_stream(), capture_output=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    assert FrameDecoder().feed(proc.stdout)[1] == {"type": "action", "id": 1, "action": "take"}
    assert proc.stderr.decode().strip() == expected


def test_a_callable_without_a_signature_is_called_the_old_way() -> None:
    assert sdk._takes_deadline(max) is False  # a builtin: inspect cannot tell, so two arguments
    assert sdk._takes_deadline(lambda observation, legal, deadline: None) is True


def test_hello_declares_seats_and_options_only_when_given() -> None:
    stream = pack({"type": "hello", "versions": list(PROTOCOL_VERSIONS)})
    script = ("from protocol.sdk import run\n"
              "raise SystemExit(run(lambda o, l: l[0], name='p', games=['durak'], seats=[2],"
              " options={'durak': {'transfer': (True,)}}))\n")
    proc = subprocess.run([sys.executable, "-c", script], input=stream, capture_output=True, timeout=30)
    assert FrameDecoder().feed(proc.stdout) == [{"type": "hello", "version": max(PROTOCOL_VERSIONS), "name": "p",
                                                 "games": ["durak"], "seats": [2],
                                                 "options": {"durak": {"transfer": [True]}}}]


def test_hello_declares_nothing_more_by_default(peers: Any) -> None:
    assert set(peers().handshake()) == {"type", "version", "name", "games"}
