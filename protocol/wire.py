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
    "frame_unpacker",
    "pack",
    "packer",
    "hello",
    "new_game",
    "request",
    "game_over",
    "bye",
    "hello_problems",
    "MAX_DECLARED_SEATS",
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


def frame_unpacker(max_frame: int) -> msgpack.Unpacker:
    """A streaming msgpack decoder under the bounds of every frame read (:func:`_limits`), buffering a few frames at
    most: :class:`FrameDecoder`'s, and the SDK's for the referee's frames."""
    return msgpack.Unpacker(max_buffer_size=4 * max_frame, **_limits(max_frame))


def _limits(max_frame: int) -> dict[str, Any]:
    """The decoding options every frame is read with: text as str, any map key, nothing longer than a frame."""
    return {"raw": False, "strict_map_key": False, "max_str_len": max_frame, "max_bin_len": max_frame,
            "max_array_len": max_frame, "max_map_len": max_frame, "max_ext_len": max_frame}


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get back every complete map.

    Memory stays bounded: at most a few frames are ever buffered.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self.sizes: list[int] = []  # the size in bytes of each map the last feed() returned, in order
        self._limits = _limits(max_frame)
        self._unpacker = frame_unpacker(max_frame)
        self._offset = 0
        self._fed = 0  # bytes fed to the unpacker: when _offset, the end of its last frame, is here, it holds none
        self._scan: _Scan | None = None  # the headers of the unfinished frame, walked so far
        self._partial = bytearray()  # the unfinished frame's bytes…
        self._partial_at = -1  # …which begins at this stream offset

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return the maps they complete. :class:`ProtocolViolation` on bad data."""
        frames: list[dict[str, Any]] = []
        self.sizes = []
        if len(data) <= _SMALL and self._fed == self._offset and len(data) <= self.max_frame:
            frame = self._whole(data)  # the usual read of a bot's reply: one small frame, nothing before it
            if frame is not None:
                self.sizes.append(len(data))
                return [frame]
        if len(data) <= self.max_frame:  # one read's worth, the usual case: no slicing
            self._feed(data)
            self._drain(frames)
            if self._fed != self._offset:  # a frame begun and not finished
                self._check_unfinished(data)
            return frames
        view = memoryview(data)
        for start in range(0, len(view), self.max_frame):  # slices, drained in turn: buffering stays bounded
            piece = view[start:start + self.max_frame]
            self._feed(piece)
            self._drain(frames)
            if self._fed != self._offset:
                self._check_unfinished(piece)
        return frames

    def _check_unfinished(self, data: bytes | memoryview) -> None:
        """Walk the headers of the frame the unpacker is still waiting for (its bytes end ``data``): a header that
        announces more than the frame may hold is ``oversized`` at once, not when (if ever) the bytes it announces
        arrive. Only unfinished frames are walked, each byte once."""
        pending = self._fed - self._offset
        if self._partial_at == self._offset:  # the same frame as after the last read
            self._partial += data
        elif pending <= len(data):  # a frame that began in this read
            self._partial = bytearray(data[len(data) - pending:])
            self._partial_at = self._offset
        else:  # pragma: no cover - every read that leaves a frame unfinished comes here
            return
        self._walk(self._partial, self._offset)

    def _walk(self, data: bytearray, at: int) -> None:
        """Walk ``data``, the bytes so far of the unfinished frame at stream offset ``at`` (:class:`_Scan`), unless
        they are too few to matter."""
        if _harmless(data, self.max_frame):
            return
        if self._scan is None or self._scan.at != at:
            self._scan = _Scan(at, self.max_frame)
        self._scan.walk(data)

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

    def _drain(self, frames: list[dict[str, Any]]) -> None:
        unpacker = self._unpacker
        while True:
            try:
                obj = next(unpacker)  # StopIteration when out of data: cheaper than unpack()'s OutOfData
            except StopIteration:
                break
            except msgpack.StackError:  # deeper than msgpack's own stack (1,024 levels)
                raise _too_deep() from None
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
            if too_deep(obj):  # first: nothing that recurses (repr, ==) may touch a value nested 1,000 deep
                raise _too_deep()
            if not isinstance(obj, dict):
                raise ProtocolViolation(f"expected a msgpack map, got {_describe(obj)}")
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
    over without a Python loop. Every frame a bot sends goes through here, so this is on the path of each decision
    (a durak request: 65 → 13 µs). Only the values of a map are walked: its keys cannot
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


def _too_deep() -> ProtocolViolation:
    return ProtocolViolation(f"arrays and maps nested more than {MAX_DEPTH} deep")


#: The headers of msgpack's first bytes 0xc4 … 0xdf: (bytes of the length that follows the first byte, bytes the
#: value has beyond its header and that length, what the length counts). ``str``, ``bin``, ``ext``: the bytes of the
#: body (ext: plus its type byte); ``array``, ``map``: the items; ``None``: no length (a number of fixed size).
_HEADS: dict[int, tuple[int, int, str | None]] = {
    0xc4: (1, 0, "bin"), 0xc5: (2, 0, "bin"), 0xc6: (4, 0, "bin"),
    0xc7: (1, 1, "ext"), 0xc8: (2, 1, "ext"), 0xc9: (4, 1, "ext"),
    0xca: (0, 4, None), 0xcb: (0, 8, None), 0xcc: (0, 1, None), 0xcd: (0, 2, None), 0xce: (0, 4, None),
    0xcf: (0, 8, None), 0xd0: (0, 1, None), 0xd1: (0, 2, None), 0xd2: (0, 4, None), 0xd3: (0, 8, None),
    0xd4: (0, 2, None), 0xd5: (0, 3, None), 0xd6: (0, 5, None), 0xd7: (0, 9, None), 0xd8: (0, 17, None),
    0xd9: (1, 0, "str"), 0xda: (2, 0, "str"), 0xdb: (4, 0, "str"),
    0xdc: (2, 0, "array"), 0xdd: (4, 0, "array"), 0xde: (2, 0, "map"), 0xdf: (4, 0, "map"),
}


#: Every byte but the first bytes of a header with a length of 16 or 32 bits.
_PLAIN = bytes(b for b in range(256) if b not in (0xc5, 0xc6, 0xc8, 0xc9) and b < 0xda)


def _harmless(data: bytes | bytearray, max_frame: int) -> bool:
    """Can the first bytes of a frame, ``data``, not announce more than ``max_frame``, whatever they are? At C speed,
    so that the usual unfinished frame (a reply split over two reads) is not walked: with no byte of a 16- or 32-bit
    length, each byte announces at most 256 more (a str8's body, a fixmap's 30 items). A body's bytes are counted
    too, so this may say no when the walk would find nothing."""
    return len(data) * 257 <= max_frame and not data.translate(None, _PLAIN)


def _article(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


class _Scan:
    """The headers of one unfinished frame (it begins at stream offset ``at``), walked as its bytes arrive, each
    byte once: where the walk stopped, the body it is skipping, and the items each open array or map still owes.
    Every item takes a byte at least, so the frame's size is at least what has arrived, plus the body being skipped,
    plus a byte for each item owed: beyond ``max_frame`` it is ``oversized`` at once, whatever a header announced
    (a str32 of 4 GiB, an array32 of 4 G items). What is not msgpack (0xc1) stops the walk: the decoder says what it
    is when it gets there. The bytes of a body are not looked at (UTF-8 is the decoder's), and neither is the depth:
    that is the decoded frame's (:func:`too_deep`), where a later value of a key replaces an earlier one whatever
    its depth, so that a frame is judged alike in one read or byte by byte (msgpack stops at 1,024 levels)."""

    __slots__ = ("at", "max_frame", "pos", "skip", "open", "owed")

    def __init__(self, at: int, max_frame: int) -> None:
        self.at = at
        self.max_frame = max_frame
        self.pos = 0  # the next header begins here (or the body being skipped ends at pos + skip)
        self.skip = 0
        self.open: list[int] = []  # items still to begin, of each open array or map, outermost first
        self.owed = 0  # their sum

    def walk(self, buf: bytes | bytearray) -> None:
        """Go on from where the last walk stopped, to the end of ``buf`` (the frame's bytes so far)."""
        pos, skip, open_, owed, end = self.pos, self.skip, self.open, self.owed, len(buf)
        try:
            while True:
                if skip:  # a value's body, or the rest of a number
                    if pos + skip > end:
                        skip -= end - pos
                        pos = end
                        return
                    pos += skip
                    skip = 0
                    while open_ and not open_[-1]:  # the value ends: so do the arrays and maps it was the last of
                        open_.pop()
                    if not open_:
                        return  # the frame is complete: the decoder has it
                if pos >= end:
                    return
                start, first = pos, buf[pos]
                length, items = 0, 0
                if first <= 0x7f or first >= 0xe0 or first in (0xc0, 0xc2, 0xc3):
                    what: str | None = None
                    pos += 1
                elif first <= 0x9f:
                    what, length = ("map" if first <= 0x8f else "array"), first & 0x0f
                    pos += 1
                elif first <= 0xbf:
                    what, length = "str", first & 0x1f
                    pos += 1
                    skip = length
                elif first == 0xc1:
                    return  # not msgpack: the decoder says so when it gets there
                else:
                    width, extra, what = _HEADS[first]
                    if pos + 1 + width > end:
                        return  # the length is not all here yet
                    length = int.from_bytes(buf[pos + 1:pos + 1 + width], "big") if width else 0
                    pos += 1 + width
                    skip = extra if what in (None, "array", "map") else length + extra
                if open_:  # one item fewer owed to the array or map it is in
                    open_[-1] -= 1
                    owed -= 1
                if what in ("array", "map"):
                    items = 2 * length if what == "map" else length
                    open_.append(items)
                    owed += items
                if pos + skip + owed > self.max_frame:
                    counted = "items" if items else "bytes"
                    announced = f" ({_article(str(what))} header at byte {start} announces {length} {counted})"
                    raise ProtocolViolation(f"frame larger than {self.max_frame} bytes"
                                            f"{announced if what and length else ''}", kind=FaultKind.OVERSIZED)
                if not skip:
                    while open_ and not open_[-1]:
                        open_.pop()
                    if not open_:
                        return
        finally:
            self.pos, self.skip, self.owed = pos, skip, owed


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


def request(*, id: int, observation: dict[str, Any], legal: list[str], deadline_ms: int,
            bank_ms: int = 0) -> dict[str, Any]:
    return {"type": "request", "id": id, "observation": observation, "legal": legal, "deadline_ms": deadline_ms,
            "bank_ms": bank_ms}


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
        problems.append(f"games {_short(games)} is neither nil nor an array of strings")
    seats, options = reply.get("seats"), reply.get("options")
    if seats is not None and not (isinstance(seats, list) and seats
                                  and all(_is_int(n) and 1 <= n <= MAX_DECLARED_SEATS for n in seats)):
        problems.append(f"seats {_short(seats)} is neither nil nor a non-empty array of seat counts "
                        f"(integers 1 to {MAX_DECLARED_SEATS})")
    if options is not None and not _options_declaration(options):
        problems.append(f"options {_short(options)} is neither nil nor a map of game ids to maps of option names "
                        f"to non-empty arrays of values (bool, int or str)")
    return problems


#: The largest seat count a hello may declare (no game has nearly as many).
MAX_DECLARED_SEATS = 64


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _options_declaration(options: object) -> bool:
    """Is ``options`` a hello's declaration: game id → (nil, or option name → non-empty array of bool/int/str)?"""
    if not isinstance(options, dict):
        return False
    for game, per_option in options.items():
        if not isinstance(game, str):
            return False
        if per_option is None:
            continue
        if not isinstance(per_option, dict):
            return False
        for name, values in per_option.items():
            if not (isinstance(name, str) and isinstance(values, list) and values
                    and all(isinstance(v, bool | int | str) for v in values)):
                return False
    return True


def _short(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters: a bot's value in a one-line message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
