"""Framing and messages of the bot protocol (docs/PROTOCOL.md).

The stream in each direction is a bare sequence of msgpack maps: msgpack is self-delimiting, so no length
prefix is needed. Every message is a map with a ``type`` key. :class:`FrameDecoder` turns the bytes a peer
wrote into maps and enforces the bounds: a frame larger than ``max_frame`` is *oversized*; anything that is
not a msgpack map (text printed on stdout, garbage bytes, a bare number) is *malformed*.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack

from .errors import ProtocolViolation
from .faults import FaultKind

__all__ = [
    "PROTOCOL_VERSIONS",
    "MAX_FRAME",
    "MAX_DEPTH",
    "FrameDecoder",
    "Deferred",
    "pack",
    "packer",
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
#: A read of at most this many bytes, with nothing buffered before it, is first decoded in one call
#: (:class:`FrameDecoder`): a bot's reply is some 40 bytes.
_SMALL = 1024


def pack(message: dict[str, Any]) -> bytes:
    """One frame: the msgpack encoding of a map (str as str, bytes as bin)."""
    return msgpack.packb(message, use_bin_type=True)


def packer() -> Callable[[dict[str, Any]], bytes]:
    """A :func:`pack` of one's own, for a connection's frames: the same bytes, from one packer kept for every frame
    (``packb`` makes a new one each time). Not for use by two threads at once."""
    return msgpack.Packer(use_bin_type=True).pack  # type: ignore[no-any-return]


def _limits(max_frame: int) -> dict[str, Any]:
    """The decoding options every frame is read with: text as str, any map key, nothing longer than a frame."""
    return {"raw": False, "strict_map_key": False, "max_str_len": max_frame, "max_bin_len": max_frame,
            "max_array_len": max_frame, "max_map_len": max_frame}


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get back every complete map.

    Memory stays bounded: at most a few frames are ever buffered.

    With ``defer``, the value of that key of a frame (the SDK defers a request's ``observation``) is not decoded
    with the frame: it comes as a :class:`Deferred`, decoded under the same bounds when it is asked for, so a bot
    that never reads its observation (``random``) never pays for decoding it. The rest of the frame is checked as
    before; a frame that is not a well-formed map is decoded whole, for the same fault as without ``defer``.
    """

    def __init__(self, max_frame: int = MAX_FRAME, *, defer: str | None = None) -> None:
        self.max_frame = max_frame
        self.defer = defer
        self.sizes: list[int] = []  # the size in bytes of each map the last feed() returned, in order
        self._limits = _limits(max_frame)
        self._unpacker = msgpack.Unpacker(max_buffer_size=4 * max_frame, **self._limits)
        self._offset = 0
        self._fed = 0  # bytes fed to the unpacker: when _offset, the end of its last frame, is here, it holds none
        self._held = bytearray()  # with defer: the bytes fed and not yet returned as frames, from stream offset…
        self._held_at = 0  # …this one
        self._splitter: msgpack.Unpacker | None = None  # with defer: splits each frame around the deferred value

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return the maps they complete. :class:`ProtocolViolation` on bad data."""
        frames: list[dict[str, Any]] = []
        self.sizes = []
        if self.defer is None and len(data) <= _SMALL and self._fed == self._offset and len(data) <= self.max_frame:
            frame = self._whole(data)  # the usual read of a bot's reply: one small frame, nothing before it
            if frame is not None:
                self.sizes.append(len(data))
                return [frame]
        drain = self._drain if self.defer is None else self._drain_deferring
        if len(data) <= self.max_frame:  # one read's worth, the usual case: no slicing
            self._feed(data)
            drain(frames)
            return frames
        view = memoryview(data)
        for start in range(0, len(view), self.max_frame):  # slices, drained in turn: buffering stays bounded
            self._feed(view[start:start + self.max_frame])
            drain(frames)
        return frames

    def _whole(self, data: bytes) -> dict[str, Any] | None:
        """``data`` decoded in one call when it is exactly one well-formed map within the bounds; otherwise None
        (part of a frame, several, or bad data), and the streaming path decodes it, for the frames or the fault it
        finds: the same frames, the same faults, at half the cost of the streaming path's calls for a reply."""
        try:
            obj = msgpack.unpackb(data, **self._limits)
        except Exception:  # noqa: BLE001 - decoded again by the streaming path, which says what is wrong
            return None
        if type(obj) is not dict:
            return None
        flat = _SCALARS.issuperset(map(type, obj.values()))  # a reply's values are scalars: one level, not too deep
        return obj if flat or not too_deep(obj) else None

    def _feed(self, data: bytes | memoryview) -> None:
        try:
            self._unpacker.feed(data)
        except msgpack.BufferFull:
            raise ProtocolViolation(f"frame larger than {self.max_frame} bytes", kind=FaultKind.OVERSIZED) from None
        self._fed += len(data)
        if self.defer is not None:
            self._held += data

    def _drain_deferring(self, frames: list[dict[str, Any]]) -> None:
        """Find each complete frame's bytes (skipped, not decoded), then split it around the deferred value. A skip
        that runs out of data resumes where it stopped at the next feed: the frame begins where the last one ended,
        at ``_held_at``."""
        unpacker, held = self._unpacker, self._held
        while held:  # nothing held: no skip() to fail (its OutOfData would cost more than the frame's split)
            try:
                unpacker.skip()
            except msgpack.OutOfData:
                break
            except Exception:  # noqa: BLE001 - bad bytes: decoded whole, for the fault they are
                self._decode_whole(bytes(held))
                raise ProtocolViolation("undecodable msgpack data") from None  # pragma: no cover - raised above
            size = unpacker.tell() - self._held_at
            if size > self.max_frame:
                raise ProtocolViolation(f"frame of {size} bytes, larger than {self.max_frame}",
                                        kind=FaultKind.OVERSIZED)
            if size == len(held):  # the usual read: one whole frame, copied once
                frame = bytes(held)
                held.clear()
            else:
                frame = bytes(held[:size])
                del held[:size]
            self._held_at += size
            frames.append(self._split(frame))
            self.sizes.append(size)
        if len(held) > self.max_frame:  # what is left is one frame, begun and already too large
            raise ProtocolViolation(f"frame larger than {self.max_frame} bytes", kind=FaultKind.OVERSIZED)

    def _split(self, frame: bytes) -> dict[str, Any]:
        """A frame decoded but for the value of ``defer``, which becomes a :class:`Deferred` of its bytes."""
        unpacker = self._splitter  # one for every frame: each is read to its end, and a failed one replaced
        if unpacker is None:
            unpacker = self._splitter = msgpack.Unpacker(**self._limits)
        unpacker.feed(frame)
        start = unpacker.tell()
        message: dict[str, Any] = {}
        try:
            for _ in range(unpacker.read_map_header()):
                key = unpacker.unpack()
                if key == self.defer:
                    at = unpacker.tell() - start
                    unpacker.skip()
                    message[key] = Deferred(frame[at:unpacker.tell() - start], self.max_frame, MAX_DEPTH - 1)
                else:
                    message[key] = unpacker.unpack()
        except Exception:  # noqa: BLE001 - not a map, or bad data in it: decoded whole, for the fault it is
            self._splitter = None
            return self._decode_whole(frame)
        if too_deep(message):
            raise ProtocolViolation(f"arrays and maps nested more than {MAX_DEPTH} deep")
        return message

    def _decode_whole(self, data: bytes) -> dict[str, Any]:
        """``data``, one frame, decoded as without ``defer`` (so its faults are worded alike)."""
        frames = FrameDecoder(self.max_frame).feed(data)
        if len(frames) != 1:  # pragma: no cover - the data was one frame to skip(); decoding it raised
            raise ProtocolViolation("undecodable msgpack data")
        return frames[0]

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


class Deferred:
    """A value of a frame kept as its msgpack bytes (:class:`FrameDecoder` with ``defer``), decoded when asked for
    under the bounds of the frame it came in: ``max_frame`` and its place in the frame's nesting (``depth`` levels
    may remain)."""

    __slots__ = ("data", "_max_frame", "_depth")

    def __init__(self, data: bytes, max_frame: int, depth: int) -> None:
        self.data = data
        self._max_frame = max_frame
        self._depth = depth

    def decode(self) -> Any:
        """The value, a new one at each call; :class:`ProtocolViolation` if it is not msgpack or nests too deep."""
        try:
            value = msgpack.unpackb(self.data, **_limits(self._max_frame))
        except Exception as exc:  # noqa: BLE001 - msgpack raises a few unrelated types on bad input
            raise ProtocolViolation(f"undecodable msgpack data ({str(exc) or type(exc).__name__})") from exc
        if too_deep(value, self._depth):
            raise ProtocolViolation(f"arrays and maps nested more than {MAX_DEPTH} deep")
        return value


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
