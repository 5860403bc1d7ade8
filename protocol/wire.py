"""Framing and messages of the bot protocol (docs/PROTOCOL.md).

The stream in each direction is a bare sequence of msgpack maps: msgpack is self-delimiting, so no length
prefix is needed. Every message is a map with a ``type`` key. :class:`FrameDecoder` turns the bytes a peer
wrote into maps and enforces the bounds: a frame larger than ``max_frame`` is *oversized*; anything that is
not a msgpack map (text printed on stdout, garbage bytes, a bare number) is *malformed*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from .errors import ProtocolViolation
from .faults import FaultKind

__all__ = [
    "PROTOCOL_VERSIONS",
    "MAX_FRAME",
    "MAX_DEPTH",
    "FrameDecoder",
    "pack",
    "hello",
    "new_game",
    "request",
    "game_over",
    "bye",
    "hello_problems",
    "answers",
    "too_deep",
]

#: The protocol versions this side speaks, newest last.
PROTOCOL_VERSIONS = (1,)
#: The largest frame a bot may send, in bytes (referee frames are small too, but not bounded by this).
MAX_FRAME = 64 * 1024
#: How deeply arrays and maps may nest in a bot's frame (the frame itself is level 1).
MAX_DEPTH = 32


def pack(message: dict[str, Any]) -> bytes:
    """One frame: the msgpack encoding of a map (str as str, bytes as bin)."""
    return msgpack.packb(message, use_bin_type=True)


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get back every complete map.

    Memory stays bounded: at most a few frames are ever buffered.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self.sizes: list[int] = []  # the size in bytes of each map the last feed() returned, in order
        self._unpacker = msgpack.Unpacker(
            raw=False, strict_map_key=False, max_buffer_size=4 * max_frame,
            max_str_len=max_frame, max_bin_len=max_frame, max_array_len=max_frame, max_map_len=max_frame,
        )
        self._offset = 0

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return the maps they complete. :class:`ProtocolViolation` on bad data."""
        frames: list[dict[str, Any]] = []
        self.sizes = []
        if len(data) <= self.max_frame:  # one read's worth, the usual case: no slicing
            self._feed(data)
            self._drain(frames)
            return frames
        view = memoryview(data)
        for start in range(0, len(view), self.max_frame):  # slices, drained in turn: buffering stays bounded
            self._feed(view[start:start + self.max_frame])
            self._drain(frames)
        return frames

    def _feed(self, data: bytes | memoryview) -> None:
        try:
            self._unpacker.feed(data)
        except msgpack.BufferFull:
            raise ProtocolViolation(f"frame larger than {self.max_frame} bytes", kind=FaultKind.OVERSIZED) from None

    def _drain(self, frames: list[dict[str, Any]]) -> None:
        unpacker = self._unpacker
        while True:
            try:
                obj = next(unpacker)  # StopIteration when out of data: cheaper than unpack()'s OutOfData
            except StopIteration:
                break
            except ValueError as exc:
                if "exceeds max" in str(exc):
                    raise ProtocolViolation(f"frame larger than {self.max_frame} bytes",
                                            kind=FaultKind.OVERSIZED) from None
                raise ProtocolViolation(f"undecodable msgpack data ({str(exc) or type(exc).__name__})") from exc
            except Exception as exc:  # noqa: BLE001 - msgpack raises a few unrelated types on bad input
                raise ProtocolViolation(f"undecodable msgpack data ({type(exc).__name__})") from exc
            end = unpacker.tell()
            size, self._offset = end - self._offset, end
            if size > self.max_frame:
                raise ProtocolViolation(f"frame of {size} bytes, larger than {self.max_frame}",
                                        kind=FaultKind.OVERSIZED)
            if not isinstance(obj, dict):
                raise ProtocolViolation(f"expected a msgpack map, got {_describe(obj)}")
            if too_deep(obj):
                raise ProtocolViolation(f"arrays and maps nested more than {MAX_DEPTH} deep")
            frames.append(obj)
            self.sizes.append(size)


def answers(reply: Mapping[str, Any], rid: int) -> bool:
    """Is ``reply`` the ``action`` answering request ``rid``? Its id must be that integer: ``true`` and ``1.0``
    equal 1 in Python, but are not the id 1 (docs/PROTOCOL.md section 6: such a reply is ignored)."""
    wire_id = reply.get("id")
    return reply.get("type") == "action" and type(wire_id) is int and wire_id == rid


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Do the arrays and maps of ``value`` (a decoded frame, or JSON) nest deeper than ``limit`` (``value`` is level
    1)? Walked without recursion, before anything (repr, ==, a check) recurses into it: msgpack decodes about 1,000
    levels, deeper than Python can repr.

    Walked a level at a time, keeping only the containers of each level; an array or map of scalars alone is passed
    over without a Python loop. Every frame a bot sends and every request the SDK reads goes through here, so this is
    on the path of each decision (a durak request: 65 → 13 µs). Only the values of a map are walked: its keys cannot
    be arrays or maps (msgpack and JSON both refuse such keys: unhashable, or not a string)."""
    if not isinstance(value, _NESTED):
        return limit < 1
    level: list[Any] = [value]
    depth = 1
    while level:
        if depth > limit:
            return True
        nested: list[Any] = []
        for obj in level:
            items = obj.values() if isinstance(obj, dict) else obj
            if not _SCALARS.issuperset(map(type, items)):  # at C speed: most arrays hold only scalars (cards)
                nested += [item for item in items if isinstance(item, _NESTED)]
        level = nested
        depth += 1
    return False


_NESTED = (dict, list, tuple)
_SCALARS = frozenset((str, int, float, bool, bytes, type(None)))


def _describe(obj: object) -> str:
    text = repr(obj)
    return f"{type(obj).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"


# ---------------------------------------------------------------------------- referee → bot messages


def hello(versions: tuple[int, ...] = PROTOCOL_VERSIONS, referee: str = "referee") -> dict[str, Any]:
    return {"type": "hello", "versions": list(versions), "referee": referee}


def new_game(*, game: str, options: dict[str, Any], seat: int, seats: int,
             teams: list[list[int]] | None, bot_seed: int, game_no: int) -> dict[str, Any]:
    return {"type": "new_game", "game": game, "options": options, "seat": seat, "seats": seats, "teams": teams,
            "bot_seed": bot_seed, "game_no": game_no}


def request(*, id: int, observation: dict[str, Any], legal: list[str], deadline_ms: int) -> dict[str, Any]:
    return {"type": "request", "id": id, "observation": observation, "legal": legal, "deadline_ms": deadline_ms}


def game_over(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "game_over", "result": result}


def bye() -> dict[str, Any]:
    return {"type": "bye"}


def hello_problems(reply: Mapping[str, Any], offered: Sequence[int], *, every_key: bool = False) -> list[str]:
    """What is wrong with a bot's hello (docs/PROTOCOL.md 5.2); empty when nothing is. The referee accepts a
    hello without ``games`` (any game); ``every_key`` also requires ``type``, ``version``, ``name`` and
    ``games`` to be present, as ``referee check`` does."""
    keys = ("type", "version", "name", "games") if every_key else ("version", "name")
    problems = [f"no '{key}' key" for key in keys if key not in reply]
    version, name, games = reply.get("version"), reply.get("name"), reply.get("games")
    if "version" in reply and (not isinstance(version, int) or isinstance(version, bool) or version not in offered):
        problems.append(f"version {version!r} is not one of the offered {list(offered)}")
    if "name" in reply and not (isinstance(name, str) and name):
        problems.append(f"name {name!r} is not a non-empty string")
    if games is not None and not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
        problems.append(f"games {games!r} is neither nil nor an array of strings")
    return problems
