"""The JavaScript example bot (bots/examples/js/bot.js) against the real referee, over real pipes (docs/PROTOCOL.md).

Needs ``node`` and the bot's ``node_modules``. Without them the tests are skipped, except under CI (the environment
variable ``CI`` is set), where they fail: run ``npm ci --prefix bots/examples/js`` first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from bots.heuristic import HeuristicBot
from bots.random import RandomBot
from protocol.wire import FrameDecoder, pack
from referee.clock import TimeControl
from referee.match import play_game
from referee.plugins import load_registry
from referee.remote import RemoteBot
from referee.transport import ProcessTransport

ROOT = Path(__file__).resolve().parents[2]
JS_DIR = ROOT / "bots" / "examples" / "js"
BOT_JS = JS_DIR / "bot.js"
ARGV = ["node", str(BOT_JS)]


@pytest.fixture(autouse=True, scope="module")
def _need_node() -> None:
    missing = []
    if shutil.which("node") is None:
        missing.append("the 'node' program")
    if not (JS_DIR / "node_modules" / "@msgpack" / "msgpack").is_dir():
        missing.append(f"{JS_DIR.relative_to(ROOT)}/node_modules")
    if missing:
        message = f"JS bot tests need {' and '.join(missing)}: run 'npm ci --prefix bots/examples/js'"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


class RecordingTransport(ProcessTransport):
    """A real process transport that counts requests and answers and remembers the exit code at close."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv, cwd=str(ROOT))
        self.requests = 0
        self.answers = 0
        self.exit_code: int | None = None
        self.close_seconds: float | None = None

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self.requests += message.get("type") == "request"
        super().send(message, deadline)

    def receive(self, deadline: float) -> dict[str, Any]:
        message = super().receive(deadline)
        self.answers += message.get("type") == "action"
        return message

    def close(self, grace: float = 0.0) -> int | None:
        start = time.monotonic()
        self.exit_code = super().close(grace)
        self.close_seconds = time.monotonic() - start
        return self.exit_code


def test_js_bot_plays_many_games_in_one_process_and_exits_on_bye() -> None:
    registry = load_registry()
    transports: list[RecordingTransport] = []

    def connect() -> RecordingTransport:
        transports.append(RecordingTransport(ARGV))
        return transports[-1]

    js = RemoteBot(connect, name="js", time=TimeControl(move_time=2.0))
    # (game, options, the other bots, the JS bot's seat): durak 2 and 3 seats, perevodnoy, kazaki with 4.
    plan: list[tuple[str, dict[str, object], list[Any], int]] = [
        ("durak", {}, [HeuristicBot()], 1),
        ("durak", {}, [HeuristicBot()], 0),
        ("durak", {}, [RandomBot(), HeuristicBot()], 2),
        ("durak", {"transfer": True}, [HeuristicBot(), RandomBot()], 1),
        ("kazaki", {}, [HeuristicBot(), RandomBot(), HeuristicBot()], 0),
        ("kazaki", {"transfer": True}, [RandomBot(), HeuristicBot(), RandomBot()], 3),
    ]
    try:
        for number, (game_id, options, others, seat) in enumerate(plan, start=1):
            bots = [*others[:seat], js, *others[seat:]]
            record = play_game(registry.game(game_id), bots, seed=100 + number, options=options)
            where = f"game {number} ({game_id} {len(bots)} seats {options})"
            assert record.faults == (), where
            assert record.result.to_dict()["faults"] == [], where
            assert not record.result.aborted, where
            assert sorted(record.result.places) == sorted(record.result.rule_places), where
            assert len(record.result.places) == len(bots), where
            assert record.decisions == len(record.actions) > 0, where
            assert record.options["transfer"] is bool(options.get("transfer", False)), where
            assert f"game {number}: {game_id}, seat {seat} of {len(bots)}" in record.stderr.get(seat, ""), where
        # One process served every game, and answered every request it was sent.
        assert js.starts == 1 and len(transports) == 1
        transport = transports[0]
        assert transport.requests == transport.answers > 0
        assert (js.version, js.bot_name, js.games) == (1, "js-example", ["durak", "kazaki"])
        assert js.alive
    finally:
        js.close()
    # bye: the bot exited by itself, with status 0, well before the referee's 2 s grace ran out.
    assert transport.exit_code == 0
    assert transport.close_seconds is not None and transport.close_seconds < 2.0


def _handshake(transport: ProcessTransport, versions: list[int]) -> dict[str, Any]:
    transport.send({"type": "hello", "versions": versions, "referee": "test"}, time.monotonic() + 5)
    return transport.receive(time.monotonic() + 10)


def test_js_bot_ignores_unknown_messages_and_exits_at_end_of_input() -> None:
    transport = ProcessTransport(ARGV, cwd=str(ROOT))
    try:
        reply = _handshake(transport, [1, 7])
        assert reply == {"type": "hello", "version": 1, "name": "js-example", "games": ["durak", "kazaki"]}
        deadline = time.monotonic() + 5
        transport.send({"type": "from_the_future", "x": [1, 2]}, deadline)
        transport.send({"type": "new_game", "game": "durak", "options": {}, "seat": 0, "seats": 2, "teams": None,
                        "bot_seed": 2**64 - 1, "game_no": 1, "new_key": True}, deadline)
        transport.send({"type": "request", "id": 41, "observation": {"trump": "H"}, "deadline_ms": 1000,
                        "legal": ["defend(7D,9H)", "defend(7D,8D)", "transfer(7S)", "take"]}, deadline)
        assert transport.receive(deadline) == {"type": "action", "id": 41, "action": "defend(7D,8D)",
                                                   "debug": "the cheapest cover"}
        transport.send({"type": "request", "id": 42, "observation": {"trump": "H"}, "deadline_ms": 1000,
                        "legal": ["throw_in(7S)", "pass"]}, deadline)
        assert transport.receive(deadline) == {"type": "action", "id": 42, "action": "pass", "debug": "declines"}
        transport.proc.stdin.close()  # type: ignore[union-attr]  # end of input: the referee is gone
        assert transport.proc.wait(5) == 0
    finally:
        transport.close()


def test_js_bot_refuses_a_referee_without_a_common_version() -> None:
    transport = ProcessTransport(ARGV, cwd=str(ROOT))
    try:
        reply = _handshake(transport, [99])
        assert reply["type"] == "error" and "no common protocol version" in reply["message"]
        assert transport.proc.wait(5) == 2
    finally:
        transport.close()


def test_referee_play_with_js_bot_from_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "referee", "play", "durak", "--bot", "heuristic",
         "--bot", f"cmd:node {BOT_JS.relative_to(ROOT)}", "--seed", "1", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["game"] == "durak" and not summary["aborted"]
    assert [seat["faults"] for seat in summary["seats"]] == [[], []]
    assert summary["seats"][1]["bot"] == "bot"
    assert "connected to referee/" in summary["seats"][1]["stderr"]


def test_js_bot_frames_are_plain_msgpack_maps() -> None:
    """What the bot writes decodes with the referee's own decoder, frame by frame, and nothing else is on stdout."""
    hello = pack({"type": "hello", "versions": [1], "referee": "test"})
    bye = pack({"type": "bye"})
    request = pack({"type": "request", "id": 1, "observation": {}, "legal": ["take"], "deadline_ms": 500})
    done = subprocess.run(ARGV, input=hello + request + bye, capture_output=True, timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    frames = FrameDecoder().feed(done.stdout)
    assert [f["type"] for f in frames] == ["hello", "action"]
    assert frames[1] == {"type": "action", "id": 1, "action": "take", "debug": "nothing covers it"}
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(done.stdout)
    assert len(list(unpacker)) == 2 and unpacker.tell() == len(done.stdout)  # no stray byte after the frames
