"""What the tests of the referee's side of the wire (referee/remote.py) share: the scripted bot they talk to.

A :class:`Script` plays the bot: it answers the handshake and each request the way a test asks, and every
connection RemoteBot opens is kept so a test can see what was sent on each one and whether it was closed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from protocol.wire import PROTOCOL_VERSIONS
from referee.clock import TimeControl
from referee.remote import RemoteBot
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
