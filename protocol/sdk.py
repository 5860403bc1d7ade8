"""The Python SDK for bots: write a function, the SDK speaks the protocol.

A complete bot::

    from protocol.sdk import run

    def act(observation, legal):
        # observation: the wire-form dict of docs/WIRE.md; legal: the legal actions (canonical order)
        takes = [a for a in legal if a.kind == "take"]
        return takes[0] if takes else legal[0]

    if __name__ == "__main__":
        raise SystemExit(run(act, name="stubborn"))

:func:`run` does the handshake, answers every request with the function's choice (an Action or its text),
ignores unknown messages and exits on ``bye`` or end of input. Each frame is decoded whole, at once, by msgpack's C
decoder: cheaper than setting the observation aside until it is read, even for a bot that never reads it. A function
with a third parameter, ``act(observation, legal, deadline)``, is also given the request's
:class:`~protocol.bot.Deadline` (``deadline_ms``, and :meth:`~protocol.bot.Deadline.remaining_ms` counting down from
when the request was read); one with two is called as before. Anything the bot prints goes to stderr, so it cannot
corrupt the protocol stream. :func:`run_bot` does the same for an object with the in-process :class:`~protocol.bot.Bot`
interface (the built-in bots use it: ``python -m bots.random``).
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .actions import Action
from .bot import Answer, Bot, BotBase, Deadline, Decision, GameInfo
from .errors import ProtocolViolation
from .wire import PROTOCOL_VERSIONS, frame_unpacker, packer

__all__ = ["Answer", "run", "run_bot", "LegalActions"]

_MAX_INCOMING = 16 * 1024 * 1024  # referee frames (observations) are far smaller


_PARSED: dict[str, Action] = {}  # action texts repeat from request to request; parse each once
_PARSED_CAP = 50_000


def _parse(text: str) -> Action:
    action = _PARSED.get(text)
    if action is None:
        action = Action.parse(text)
        if len(_PARSED) < _PARSED_CAP:
            _PARSED[text] = action
    return action


class LegalActions(Sequence[Action]):
    """The legal actions of a request, parsed only when looked at."""

    __slots__ = ("texts", "_parsed")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._parsed: list[Action | None] = [None] * len(texts)

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.texts)))]
        action = self._parsed[i]
        if action is None:
            action = self._parsed[i] = _parse(self.texts[i])
        return action

    def __iter__(self) -> Iterator[Action]:
        return (self[i] for i in range(len(self.texts)))


def _takes_deadline(act: Callable[..., Any]) -> bool:
    """Does ``act`` take a third positional parameter (the :class:`Deadline`)? ``*args`` does not count: a bot
    written for two arguments keeps getting two."""
    try:
        parameters = inspect.signature(act).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: called the old way
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


class _FunctionBot(BotBase):
    def __init__(self, act: Callable[..., Action | str | Answer], name: str) -> None:
        self.name = name
        self._act = act
        self._with_deadline = _takes_deadline(act)

    def act(self, decision: Decision) -> Action | str | Answer:
        if self._with_deadline:
            return self._act(decision.observation, decision.legal, decision.deadline)
        return self._act(decision.observation, decision.legal)


def run(act: Callable[..., Action | str | Answer], *, name: str, games: list[str] | None = None,
        seats: list[int] | None = None, options: dict[str, dict[str, list[Any]]] | None = None) -> int:
    """Run a bot given as a function ``act(observation, legal) -> action`` until the referee is done; a function
    ``act(observation, legal, deadline)`` is also given the request's :class:`~protocol.bot.Deadline`.

    ``games``, ``seats`` and ``options`` are what the bot's hello declares it plays (docs/PROTOCOL.md 5.2; None:
    any): game ids, seat counts, and by game the values of the options it plays (``{"durak": {"transfer": [True]}}``).

    Returns the exit status: 0, or 2 when the referee offers no protocol version this SDK speaks.
    """
    return run_bot(_FunctionBot(act, name), games=games, seats=seats, options=options)


def run_bot(bot: Bot, *, games: list[str] | None = None, seats: list[int] | None = None,
            options: dict[str, dict[str, list[Any]]] | None = None, stdin: int = 0, stdout: int = 1) -> int:
    """Serve one referee over the file descriptors ``stdin``/``stdout`` with an in-process bot; ``games``,
    ``seats`` and ``options`` go into its hello as :func:`run` says.

    Returns the exit status (0, or 2 when there is no common protocol version)."""
    if stdout == 1:
        stdout = os.dup(1)
        sys.stdout = sys.stderr  # stray prints must not corrupt the protocol stream
    pack, write = packer(), os.write

    def send(message: dict[str, Any]) -> None:
        data = pack(message)
        while (written := write(stdout, data)) < len(data):  # a pipe may take a large frame in parts
            data = data[written:]

    declared: dict[str, Any] = {"games": games}
    if seats is not None:  # sent only when given: a bot that declares nothing sends the hello it always sent
        declared["seats"] = list(seats)
    if options is not None:
        declared["options"] = {game: {key: list(values) for key, values in per_game.items()}
                               for game, per_game in options.items()}
    # The referee is the bot's trusted counterpart: its frames are read by msgpack's C decoder alone, under the SDK's
    # bounds (the referee's FrameDecoder checks far more, of the bots' frames). Decoded whole, at once: cheaper than
    # setting the observation aside until it is read (as this SDK did), even for a bot that never reads it.
    unpacker = frame_unpacker(_MAX_INCOMING)
    read, feed, monotonic, seat = os.read, unpacker.feed, time.monotonic, 0
    while data := read(stdin, 1 << 16):
        try:
            feed(data)
            messages = list(unpacker)
        except Exception as exc:  # noqa: BLE001 - msgpack raises a few unrelated types on bad input
            raise ProtocolViolation(f"the referee sent undecodable msgpack data ({str(exc) or type(exc).__name__})") \
                from None
        for message in messages:
            if type(message) is not dict:
                raise ProtocolViolation(f"the referee sent a frame that is not a map: {type(message).__name__}")
            kind = message.get("type")
            if kind == "request":
                received = monotonic()
                observation, deadline_ms = message.get("observation"), message.get("deadline_ms")
                if type(deadline_ms) is int:  # the referee always sends one; bank_ms since protocol 1's clock
                    bank_ms = message.get("bank_ms")
                    deadline = Deadline(deadline_ms, bank_ms if type(bank_ms) is int else None, received)
                else:
                    deadline = None
                choice = bot.act(Decision(seat, LegalActions(message.get("legal") or []),
                                          observation.copy if type(observation) is dict else dict, deadline))
                action: Action | str | Answer = choice
                note = None
                if type(choice) is Answer:
                    action, note = choice.action, choice.note
                reply = {"type": "action", "id": message.get("id"),
                         "action": action.text if isinstance(action, Action) else str(action)}
                if note:
                    reply["debug"] = str(note)
                send(reply)
            elif kind == "new_game":
                seat = int(message.get("seat", 0))
                teams = message.get("teams")
                bot.new_game(GameInfo(
                    game=str(message.get("game")), options=message.get("options") or {}, seat=seat,
                    seats=int(message.get("seats", 0)),
                    teams=tuple(tuple(t) for t in teams) if teams else None,
                    bot_seed=int(message.get("bot_seed", 0)),
                ))
            elif kind == "game_over":
                bot.game_over(message.get("result") or {})
            elif kind == "hello":
                offered = [v for v in message.get("versions", []) if v in PROTOCOL_VERSIONS]
                if not offered:
                    send({"type": "error", "message": f"no common protocol version (I speak "
                                                      f"{list(PROTOCOL_VERSIONS)}, offered "
                                                      f"{message.get('versions')})"})
                    return 2
                send({"type": "hello", "version": max(offered), "name": bot.name, **declared})
            elif kind == "bye":
                bot.close()
                return 0
            # unknown message types are ignored (docs/PROTOCOL.md)
    return 0  # end of input: the referee is gone
