"""The harness of ``referee check``: a bot program under test, every byte it reads and writes recorded.

- A :class:`Probe` is a :class:`~protocol.transport.ProcessTransport` that records each frame in both directions
  (its exact bytes, its decoded value, the time) in a :class:`Run`, and lets a :class:`Twist` change how the
  referee's side writes: re-encoded, split, joined, with extra messages or extra keys.
- Complete games are played by the real runner (:func:`referee.match.play_game`) with a
  :class:`~protocol.remote.RemoteBot` whose transport is a probe (:class:`Program`), so a bot is checked under the
  conditions of ``referee play``.
- A :class:`Session` holds what every case needs: the bot's command, the games it plays, the seed, and the runs
  (shared runs are played once and used by several cases).
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgpack

from protocol.bot import Bot
from protocol.errors import BotCrashed, BotError, BotTimeout, ConfigError, ProtocolViolation
from protocol.remote import RemoteBot
from protocol.transport import ProcessTransport
from protocol.wire import PROTOCOL_VERSIONS, FrameDecoder, answers, bye, hello, pack

from .. import __version__
from ..match import Fault, GameRecord, default_action, play_game
from ..plugins import Registry
from ..rng import derive_seed

__all__ = [
    "Event", "Run", "Probe", "Program", "Played", "Session", "Twist", "Reencode", "ExtraKeys", "UnknownTypes",
    "Split", "Joined", "Burst", "RemapIds", "HANDSHAKE_TIME", "MOVE_TIME", "SHORT_MOVE_TIME", "REFEREE",
    "EXIT_TIME", "unknown_message", "jsonable",
]

#: Time limits of the suite, in seconds (docs/PROTOCOL.md section 8; moves are shorter than ``referee play``'s).
HANDSHAKE_TIME = 5.0
MOVE_TIME = 0.5
SHORT_MOVE_TIME = 0.1
EXIT_TIME = 2.0
REFEREE = f"referee/{__version__}"
STDERR_KEPT = 4096  # characters of stderr kept per run for the report
#: Bytes of the bot's frames kept whole per run; later frames are kept shortened (see Run.add).
RECEIVED_KEPT = 64 * 1024

T = TypeVar("T")


# ------------------------------------------------------------------------------------------------ records


@dataclass
class Event:
    """One thing in a transcript. ``kind``: ``sent`` (referee → bot), ``received`` (bot → referee), ``garbage``
    (bot bytes that are not frames) or ``note``. ``t`` is in seconds from the start of the run."""

    t: float
    proc: int
    kind: str
    data: bytes = b""
    value: Any = None
    note: str = ""
    size: int = -1  # bytes on the wire (``data`` may be shortened); -1: len(data)

    def __post_init__(self) -> None:
        if self.size < 0:
            self.size = len(self.data)

    @property
    def type(self) -> Any:
        return self.value.get("type") if isinstance(self.value, dict) else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t_ms": round(self.t * 1000, 3), "proc": self.proc, "kind": self.kind}
        if self.kind in ("sent", "received", "garbage"):
            out["bytes"] = self.size
            out["hex"] = self.data.hex()
            if len(self.data) < self.size:
                out["shortened"] = True  # hex: its first bytes only; frame: long strings and containers cut
        if self.value is not None:
            out["frame"] = jsonable(self.value)
        if self.note:
            out["note"] = self.note
        return out


class Run:
    """The transcript of one scripted conversation with the bot (one process or several, one after the other)."""

    def __init__(self, name: str, session: Session) -> None:
        self.name = name
        self.session = session
        self.t0 = time.monotonic()
        self.events: list[Event] = []
        self.processes = 0
        self.exit_codes: list[int | None] = []
        self.stderr = ""
        self.stderr_bytes = 0
        self.ended_unanswered = False  # the bot ended before answering the suite's hello (see offer)
        self.games: list[dict[str, Any]] = []
        self.received_bytes = 0  # of the bot's frames, all of them
        self.shortened = 0  # frames kept shortened, beyond RECEIVED_KEPT
        self._kept = 0

    def now(self) -> float:
        return time.monotonic() - self.t0

    def add(self, proc: int, kind: str, data: bytes = b"", value: Any = None, note: str = "") -> Event:
        """Add an event. The bot's frames are kept whole up to RECEIVED_KEPT bytes per run; beyond that each is
        kept shortened (its first bytes, its value with long strings and containers cut), so what a check holds
        and reports does not grow with what a bot sends."""
        size = len(data)
        if kind == "received":
            self.received_bytes += size
            if self._kept + size > RECEIVED_KEPT:
                self.shortened += 1
                data, value = data[:64], _shorten(value)
            else:
                self._kept += size
        event = Event(self.now(), proc, kind, data, value, note, size)
        self.events.append(event)
        return event

    def note(self, text: str, proc: int = 0) -> None:
        self.add(proc or self.processes, "note", note=text)

    def add_stderr(self, text: str) -> None:
        self.stderr_bytes += len(text.encode("utf-8", "replace"))
        self.stderr = (self.stderr + text)[-STDERR_KEPT:]

    def probe(self, twist: Twist | None = None) -> Probe:
        """Start the bot once more, as process number ``processes``."""
        self.processes += 1
        return Probe(self, self.processes, twist or Twist())

    # -------------------------------------------------------------------------------- reading the transcript

    def sent(self, kind: str | None = None) -> list[Event]:
        return [e for e in self.events if e.kind == "sent" and (kind is None or e.type == kind)]

    def received(self) -> list[Event]:
        return [e for e in self.events if e.kind == "received"]

    def garbage(self) -> list[Event]:
        return [e for e in self.events if e.kind == "garbage"]

    def exchanges(self) -> list[tuple[Event, Event | None]]:
        """Each request with the first action that answered it (same process, same id), or None."""
        out = []
        for i, request in enumerate(self.events):
            if request.kind != "sent" or request.type != "request":
                continue
            answer = None
            for later in self.events[i + 1:]:
                if later.proc != request.proc:
                    continue
                if later.kind == "sent" and later.type == "request":
                    break
                if later.kind == "received" and answers(later.value, request.value["id"]):
                    answer = later
                    break
            out.append((request, answer))
        return out

    def latencies(self) -> list[float]:
        """Seconds from each request written to its answer read, for the answered requests."""
        return [answer.t - request.t for request, answer in self.exchanges() if answer is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "argv": self.session.argv,
            "seed": self.session.seed,
            "processes": self.processes,
            "exit_codes": self.exit_codes,
            "games": self.games,
            "stderr_bytes": self.stderr_bytes,
            "stderr_tail": self.stderr,
            "received_bytes": self.received_bytes,
            "shortened_frames": self.shortened,  # beyond the first RECEIVED_KEPT bytes of frames from the bot
            "transcript": [e.to_json() for e in self.events],
        }


def _shorten(value: Any) -> Any:
    """``value`` with strings and bytes over 64 cut (the rest named by its length and hash, so that two different
    long strings stay different) and containers cut at 16 items; the keys ``type``, ``id`` and ``action`` of a map
    always stay."""
    if isinstance(value, str | bytes) and len(value) > 64:
        raw = value.encode("utf-8", "replace") if isinstance(value, str) else value
        tail = f"… [{len(value)} long, sha256 {hashlib.sha256(raw).hexdigest()[:16]}]"
        return value[:64] + (tail if isinstance(value, str) else tail.encode())  # type: ignore[operator]
    if isinstance(value, dict):
        keys = [k for k in ("type", "id", "action") if k in value]
        keys += [k for k in list(value)[:16] if k not in keys]
        out = {k: _shorten(value[k]) for k in keys}
        if len(value) > len(keys):
            out["…"] = f"{len(value) - len(keys)} more keys"
        return out
    if isinstance(value, list | tuple):
        return [_shorten(v) for v in value[:16]] + ([f"… {len(value) - 16} more"] if len(value) > 16 else [])
    return value


def jsonable(value: Any) -> Any:
    """A decoded msgpack value as JSON: bin as ``{"$bin": hex}``, extension types as ``{"$ext": code, …}``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, msgpack.ExtType):  # a namedtuple: before the tuples
        return {"$ext": value.code, "data": value.data.hex()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bin": bytes(value).hex()}
    if isinstance(value, msgpack.Timestamp):
        return {"$timestamp": value.to_unix()}
    if isinstance(value, float) and value != value:
        return "NaN"
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


# ------------------------------------------------------------------------------------------------ the probe


class _Recorder(FrameDecoder):
    """The transport's frame decoder, which also records the exact bytes of each frame in the probe's run."""

    def __init__(self, probe: Probe) -> None:
        super().__init__()
        self.probe = probe
        self.buffer = bytearray()  # bytes not yet part of a recorded frame

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self.buffer += data
        try:
            frames = super().feed(data)
        except ProtocolViolation as exc:
            self.probe.run.add(self.probe.number, "garbage", bytes(self.buffer[:4096]), note=str(exc))
            self.buffer.clear()
            raise
        start = 0
        for frame, size in zip(frames, self.sizes, strict=True):
            self.probe.run.add(self.probe.number, "received", bytes(self.buffer[start:start + size]), frame)
            start += size
        del self.buffer[:start]
        return frames


class Probe(ProcessTransport):
    """A bot process whose every frame is recorded in ``run``; ``twist`` decides how the referee's frames are
    written."""

    def __init__(self, run: Run, number: int, twist: Twist) -> None:
        self.run = run
        self.number = number
        self.twist = twist
        super().__init__(run.session.argv, cwd=run.session.cwd, decoder=_Recorder(self),  # records what it writes
                         popen=run.session.popen)
        self._stash = ""
        self.exit_code: int | None = None
        run.note(f"started {' '.join(run.session.argv)} (pid {self.pid})", number)

    # ------------------------------------------------------------------------------------------ writing

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self.twist.send(self, message, deadline)

    def write(self, frames: Sequence[tuple[bytes, Any]], deadline: float, note: str = "") -> None:
        """Write frames (their bytes and the value they encode) in one write, then record them."""
        try:
            self.send_raw(b"".join(data for data, _ in frames), deadline)
        except BotError as exc:
            note = f"{note + '; ' if note else ''}not (completely) written: {exc}"
            raise
        finally:
            for data, value in frames:
                self.run.add(self.number, "sent", data, value, note)

    def receive(self, deadline: float) -> dict[str, Any]:
        return self.twist.receive(super().receive(deadline))

    # ------------------------------------------------------------------------------------------ watching

    def listen(self, seconds: float) -> str:
        """Read (and record) whatever the bot writes for ``seconds``: ``"quiet"``, ``"eof"`` or ``"garbage"``."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                super().receive(deadline)
            except BotTimeout:
                return "quiet"
            except BotCrashed:
                return "eof"
            except ProtocolViolation:
                return "garbage"

    def wait_exit(self, seconds: float) -> int | None:
        """Read the bot's stdout until it closes, then wait for the exit; the status, or None after ``seconds``."""
        deadline = time.monotonic() + seconds
        self.listen(seconds)  # until end of output, or garbage (the stream is lost then: just wait)
        try:
            self.exit_code = self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return None
        self.run.note(f"exited with status {self.exit_code}", self.number)
        return self.exit_code

    def close_stdin(self) -> None:
        """End of input for the bot (the referee went away)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.run.note("closed the bot's stdin (end of input)", self.number)

    # ------------------------------------------------------------------------------------------ stderr, end

    def _pull_stderr(self) -> None:
        text = ProcessTransport.take_stderr(self)
        if text:
            self.run.add_stderr(text)
            self._stash += text

    def take_stderr(self) -> str:
        self._pull_stderr()
        text, self._stash = self._stash, ""
        return text

    def close(self, grace: float = 0.0) -> int | None:
        code = super().close(grace)
        self._pull_stderr()
        if self.exit_code is None:
            self.exit_code = code
            self.run.note(f"exited with status {code}" if code is not None and code >= 0
                          else f"killed (signal {-code if code is not None else '?'})", self.number)
        self.run.exit_codes.append(self.exit_code)
        return code


# ------------------------------------------------------------------------------------------------ twists


class Twist:
    """How the referee's side writes frames and reads answers: the plain protocol, unless a subclass changes it.
    One instance per process."""

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        probe.write([(pack(message), message)], deadline)

    def receive(self, message: dict[str, Any]) -> dict[str, Any]:
        return message


class Reencode(Twist):
    """Every frame in a non-minimal (valid) msgpack encoding of one kind of value: ``int``, ``str`` or
    ``container``; the encodings cycle through every form that can hold the value."""

    def __init__(self, kind: str) -> None:
        self.encoder = NonMinimal(kind)

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        probe.write([(self.encoder.encode(message), message)], deadline, note=f"non-minimal {self.encoder.kind}s")


#: Extra keys with values of the types of version 1 (section 3), and with values of other msgpack types.
KEYS_V1: dict[str, Any] = {
    "x_check_text": "ignore me", "x_check_number": -7, "x_check_big": 2**64 - 1, "x_check_flag": True,
    "x_check_nil": None, "x_check_list": [1, "two", [3], {"four": 4}],
    "x_check_map": {"nested": {"deeper": ["x", 0]}, "n": 0},
}
KEYS_OTHER_TYPES: dict[str, Any] = {
    "x_check_float": 0.5, "x_check_bin": b"\x00\xffbytes", "x_check_ext": msgpack.ExtType(42, b"\x01\x02\x03"),
    "x_check_timestamp": msgpack.Timestamp(1, 0),
    "x_check_mixed": [-1.25, b"", msgpack.ExtType(7, b"")],
}


class ExtraKeys(Twist):
    """Unknown keys in every message, and in the maps inside it (observation, its events and table, result)."""

    def __init__(self, keys: dict[str, Any]) -> None:
        self.keys = keys

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        changed = {**message, **self.keys}
        observation = message.get("observation")
        if isinstance(observation, dict):
            changed["observation"] = {
                **observation, **self.keys,
                **{k: [{**e, **self.keys} if isinstance(e, dict) else e for e in observation[k]]
                   for k in ("events", "table") if isinstance(observation.get(k), list)},
            }
        if isinstance(message.get("result"), dict):
            changed["result"] = {**message["result"], **self.keys}
        probe.write([(pack(changed), changed)], deadline, note="unknown keys added")


_UNKNOWN_TYPES = ("x_check_unknown", "ping", "notice")


def unknown_message(n: int, padding: int = 0) -> dict[str, Any]:
    """A message of a type no version-1 bot knows."""
    return {"type": _UNKNOWN_TYPES[n % len(_UNKNOWN_TYPES)], "n": n, "data": {"list": [1, "a", None], "ok": True},
            **({"padding": "x" * padding} if padding else {})}


class UnknownTypes(Twist):
    """An unknown message before every message after the handshake."""

    def __init__(self) -> None:
        self.n = 0

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        if message.get("type") != "hello":
            self.n += 1
            unknown = unknown_message(self.n)
            probe.write([(pack(unknown), unknown)], deadline, note="unknown message type")
        super().send(probe, message, deadline)


class Split(Twist):
    """Every frame written one byte per write, pausing after some bytes so the bot surely reads part of a frame."""

    CUTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)

    def __init__(self, pause: float = 0.001) -> None:
        self.pause = pause

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        data = pack(message)
        start = 0
        for cut in [*(c for c in self.CUTS if c < len(data)), len(data)]:
            for i in range(start, cut):
                probe.send_raw(data[i:i + 1], deadline)
            start = cut
            time.sleep(self.pause)
        probe.run.add(probe.number, "sent", data, message, f"written byte by byte ({len(data)} writes)")


class Joined(Twist):
    """Messages that need no answer (``new_game``, ``game_over``) are held back and written in one write together
    with the next message (a ``request`` or ``bye``)."""

    def __init__(self) -> None:
        self.held: list[tuple[bytes, Any]] = []

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        self.held.append((pack(message), message))
        if message.get("type") in ("new_game", "game_over"):
            return
        frames, self.held = self.held, []
        probe.write(frames, deadline, note=f"{len(frames)} frames in one write" if len(frames) > 1 else "")


class Burst(Twist):
    """Before the first request, ``count`` unknown messages, one write each, more than a pipe holds."""

    def __init__(self, count: int = 2000, padding: int = 60) -> None:
        self.count = count
        self.padding = padding
        self.done = False

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        if message.get("type") == "request" and not self.done:
            self.done = True
            stall = time.monotonic() + HANDSHAKE_TIME  # a bot that stops reading stalls the writes (section 2)
            frames = [pack(unknown_message(n, self.padding)) for n in range(self.count)]
            for data in frames:
                probe.send_raw(data, stall)
            probe.run.add(probe.number, "sent", frames[0], unknown_message(0, self.padding),
                          f"the first of {self.count} unknown messages ({sum(map(len, frames))} bytes), "
                          "one write each; the others are alike")
        super().send(probe, message, deadline)


class RemapIds(Twist):
    """Request ids far from 1, 2, 3 …: ``id`` becomes ``base + step × id`` on the wire (still increasing), and
    answers are mapped back; an answer with any other id matches no request."""

    def __init__(self, base: int = 2**32, step: int = 1009) -> None:
        self.base, self.step = base, step
        self.wire: dict[int, int] = {}

    def send(self, probe: Probe, message: dict[str, Any], deadline: float) -> None:
        if message.get("type") == "request":
            wire_id = self.base + self.step * message["id"]
            self.wire[wire_id] = message["id"]
            message = {**message, "id": wire_id}
        super().send(probe, message, deadline)

    def receive(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("type") == "action" and "id" in message:
            wire_id = message["id"]
            inner = self.wire.get(wire_id) if isinstance(wire_id, int) and not isinstance(wire_id, bool) else None
            return {**message, "id": inner if inner is not None else f"unmatched wire id {wire_id!r}"}
        return message


class NonMinimal:
    """A msgpack encoder that writes one kind of value (``int``, ``str`` or ``container``) in forms wider than
    needed, cycling through every valid form; everything else is encoded as usual."""

    _UNSIGNED = ((0xCC, "B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 2**32 - 1), (0xCF, ">Q", 2**64 - 1))
    _SIGNED = ((0xD0, "b", 2**7), (0xD1, ">h", 2**15), (0xD2, ">i", 2**31), (0xD3, ">q", 2**63))

    def __init__(self, kind: str) -> None:
        if kind not in ("int", "str", "container"):
            raise ValueError(f"unknown kind {kind!r}")
        self.kind = kind
        self.counts: dict[str, int] = {}

    def encode(self, value: Any) -> bytes:
        out = bytearray()
        self._put(value, out)
        return bytes(out)

    def _pick(self, what: str, forms: list[bytes]) -> bytes:
        """The next form for this kind of value (each kind cycles on its own)."""
        n = self.counts[what] = self.counts.get(what, -1) + 1
        return forms[n % len(forms)]

    def _put(self, value: Any, out: bytearray) -> None:
        if isinstance(value, bool) or not isinstance(value, int | str | dict | list | tuple):
            out += msgpack.packb(value, use_bin_type=True)
        elif isinstance(value, int):
            minimal = msgpack.packb(value)
            if self.kind != "int":
                out += minimal
                return
            forms = [bytes([code]) + struct.pack(fmt, value) for code, fmt, top in self._UNSIGNED if 0 <= value <= top]
            forms += [bytes([code]) + struct.pack(fmt, value) for code, fmt, half in self._SIGNED
                      if -half <= value < half]
            out += self._pick("int", [f for f in forms if f != minimal] or [minimal])
        elif isinstance(value, str):
            data = value.encode("utf-8")
            minimal = msgpack.packb(value, use_bin_type=True)
            if self.kind != "str":
                out += minimal
                return
            forms = [bytes([code]) + struct.pack(fmt, len(data)) + data
                     for code, fmt, top in ((0xD9, "B", 0xFF), (0xDA, ">H", 0xFFFF), (0xDB, ">I", 2**32 - 1))
                     if len(data) <= top]
            out += self._pick("str", [f for f in forms if f != minimal] or [minimal])
        else:
            items = list(value.items()) if isinstance(value, dict) else list(value)
            fix, wide = (0x80, (0xDE, 0xDF)) if isinstance(value, dict) else (0x90, (0xDC, 0xDD))
            n = len(items)
            minimal = bytes([fix | n]) if n < 16 else (bytes([wide[0]]) + struct.pack(">H", n) if n < 65536
                                                       else bytes([wide[1]]) + struct.pack(">I", n))
            if self.kind == "container":
                forms = [bytes([wide[0]]) + struct.pack(">H", n)] if n < 65536 else []
                forms.append(bytes([wide[1]]) + struct.pack(">I", n))
                out += self._pick("map" if isinstance(value, dict) else "array",
                                  [f for f in forms if f != minimal] or [minimal])
            else:
                out += minimal
            for item in items:
                if isinstance(value, dict):
                    self._put(item[0], out)
                    self._put(item[1], out)
                else:
                    self._put(item, out)


# ------------------------------------------------------------------------------------------------ programs


@dataclass
class Played:
    """One complete game with the bot at ``seat``: the runner's record and the bot's faults in it."""

    game: str
    seats: int
    seat: int
    seed: int
    record: GameRecord

    @property
    def faults(self) -> list[Fault]:
        return [f for f in self.record.faults if f.seat == self.seat]

    def where(self) -> str:
        return f"{self.game}, {self.seats} seats, seat {self.seat}, seed {self.seed}"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seats": self.seats, "seat": self.seat, "seed": self.seed,
                "options": self.record.options, "decisions": self.record.decisions,
                "faults": [f.to_dict() for f in self.faults]}


#: A slow bot's complete games are cut to about this many seconds of its answers each (docs/CHECK.md, "Time").
GAME_SECONDS = 1.0
MIN_ASKED = 3  # decisions a cut game still asks the bot, however slow it is
_LATENCIES_KEPT = 64


class _Asked:
    """The bot under test in one game, asked at most ``limit`` decisions (or, with ``limit`` None, as many as
    :meth:`Session.asked` allows as its answers are timed); the referee plays the seat's later decisions itself, with
    the default action and no request, as it plays a lone ``pass`` (the bot's game_over comes as usual)."""

    def __init__(self, bot: RemoteBot, session: Session, run: Run, limit: int | None) -> None:
        self.bot, self.session, self.run, self.limit = bot, session, run, limit
        self.name = bot.name
        self.asked = self.cut = 0

    def new_game(self, info: Any) -> None:
        self.bot.new_game(info)

    def act(self, decision: Any) -> Any:
        limit = self.limit if self.limit is not None else self.session.asked()
        if limit is not None and self.asked >= limit:
            self.cut += 1
            return default_action(decision.legal)
        self.asked += 1
        start = time.monotonic()
        try:
            return self.bot.act(decision)
        finally:
            self.session.timed(time.monotonic() - start)

    def game_over(self, result: Any) -> None:
        self.bot.game_over(result)

    def take_stderr(self) -> str:
        return self.bot.take_stderr()

    def close(self) -> None:
        self.bot.close()


class Program:
    """The bot under test as the runner sees it: a RemoteBot whose processes are probes of one run."""

    def __init__(self, session: Session, run: Run, *, twist: Callable[[], Twist] | None = None,
                 move_time: float = MOVE_TIME) -> None:
        self.session = session
        self.run = run
        self.twist = twist or Twist
        self.probes: list[Probe] = []
        self.bot = RemoteBot(self._connect, name=session.name, move_time=move_time, handshake_time=HANDSHAKE_TIME,
                             referee=REFEREE)

    def _connect(self) -> Probe:
        probe = self.run.probe(self.twist())
        self.probes.append(probe)
        return probe

    @property
    def probe(self) -> Probe | None:
        return self.probes[-1] if self.probes else None

    def start(self) -> BotError | None:
        """Start and shake hands now; the error if that failed."""
        try:
            self.bot.start()
        except BotError as exc:
            self.run.note(f"handshake failed: {exc}")
            return exc
        return None

    def play(self, game_id: str, seats: int, *, seat: int, seed: int, options: dict[str, Any] | None = None,
             opponents: list[Bot] | None = None, asked: int | None = None) -> Played:
        """One complete game through the real runner; the other seats are in-process bots. The bot is asked at most
        ``asked`` decisions (default: :meth:`Session.asked`, unlimited unless the bot is slow); the referee plays
        its seat's later decisions itself (the default action), without a request."""
        game = self.session.registry.game(game_id)
        others = opponents if opponents is not None else self.session.opponents(seats - 1)
        player = _Asked(self.bot, self.session, self.run, asked)
        bots: list[Bot] = [*others[:seat], player, *others[seat:]]  # type: ignore[list-item]
        self.run.note(f"game {game_id}, {seats} seats, the bot at seat {seat}, seed {seed}"
                      + (f", options {options}" if options else ""))
        record = play_game(game, bots, seed=seed, options=options)
        played = Played(game_id, seats, seat, seed, record)
        if player.cut:
            self.session.cut_games += 1
            self.run.note(f"the bot answers slowly: it was asked {player.asked} decisions, the referee played its "
                          f"{player.cut} later ones")
        self.run.games.append(played.to_json())
        for fault in played.faults:
            self.run.note(f"fault: {fault.kind} at decision {fault.decision}: {fault.message}")
        return played

    def close(self) -> None:
        """``bye``, 2 s to exit, then the process group is killed (as after ``referee play``). Until it exits, what
        the bot writes is read and recorded, after the ``bye`` in the transcript: so bytes it wrote after its last
        ``game_over`` are not lost with the process (in a tournament the next game would read them)."""
        probe = self.probe
        if probe is not None and probe.alive and self.bot.transport is probe:
            try:
                probe.send(bye(), time.monotonic() + 1.0)
            except BotError:
                pass
            else:
                probe.wait_exit(EXIT_TIME)
        self.bot.close()



def offer(run: Run, versions: Sequence[int]) -> tuple[dict[str, Any] | None, str, float, int | None]:
    """Start a probe and offer ``versions`` in a hello: the bot's answer (hello or error, or None), what went
    wrong, the seconds the answer took, and the exit status after an error answer (the bot should exit). A
    hello answer gets a bye; the probe is closed either way."""
    probe = run.probe()
    start = time.monotonic()
    reply, problem, elapsed, code = None, "", 0.0, None
    try:
        deadline = start + HANDSHAKE_TIME
        probe.send(hello(tuple(versions), REFEREE), deadline)
        while reply is None:
            frame = probe.receive(deadline)
            if frame.get("type") in ("hello", "error"):
                reply = frame
        elapsed = time.monotonic() - start
        if reply.get("type") == "error":
            code = probe.wait_exit(EXIT_TIME)
        else:
            probe.send(bye(), time.monotonic() + 1.0)
    except BotTimeout:
        problem = f"no answer within {HANDSHAKE_TIME:g} s"
    except BotCrashed as exc:  # it ended (exited, or closed its stdout) before answering
        problem = str(exc)
        run.ended_unanswered = reply is None
    except BotError as exc:
        problem = str(exc)
    finally:
        probe.close(grace=EXIT_TIME)
    return reply, problem, elapsed or time.monotonic() - start, code

class Session:
    """What the cases share: the bot's command, the registry, the games to check, the seed and the runs."""

    def __init__(self, argv: Sequence[str], *, registry: Registry, seed: int, name: str = "bot",
                 cwd: str | None = None, popen: Callable[..., Any] | None = None) -> None:
        self.argv = list(argv)
        self.popen = popen  # starts the bot (the sandbox's); None: subprocess.Popen
        self.registry = registry
        self.seed = seed
        self.name = name
        self.cwd = cwd
        self.games: list[str] = []
        self.runs: dict[str, Run] = {}
        self._memo: dict[str, tuple[Any, list[str]]] = {}
        self._used: list[str] = []
        self.hello: dict[str, Any] | None = None
        self.hello_error = ""
        self.latencies: list[float] = []  # the bot's latest answer times (seconds), for :meth:`asked`
        self.cut_games = 0  # complete games in which a slow bot was asked fewer decisions than it had
        #: (what failed, exit status, stderr) when the program ended before its hello: nothing can be checked
        self.start_failure: tuple[str, int, str] | None = None

    # --------------------------------------------------------------------------------------- bookkeeping

    def seed_for(self, *parts: object) -> int:
        """A seed for one game of one case, from the session seed: the same for ``--cases ID --seed N``."""
        return derive_seed(self.seed, *parts, sep=":", size=4)  # 4 bytes: the check's seeds as they always were

    def begin(self) -> None:
        self._used = []

    def used(self) -> list[str]:
        return list(dict.fromkeys(self._used))

    def run(self, name: str) -> Run:
        """A new run, recorded as used by the current case."""
        base, n = name, 1
        while name in self.runs:
            n += 1
            name = f"{base}#{n}"
        run = self.runs[name] = Run(name, self)
        self._used.append(name)
        return run

    def shared(self, name: str, build: Callable[[], T]) -> T:
        """``build()`` once per session; every case that asks gets the same value and the runs it made."""
        if name not in self._memo:
            before = set(self.runs)
            value = build()
            self._memo[name] = (value, [r for r in self.runs if r not in before])
        value, runs = self._memo[name]
        self._used.extend(runs)
        return value  # type: ignore[no-any-return]

    def program(self, run: Run, *, twist: Callable[[], Twist] | None = None,
                move_time: float = MOVE_TIME) -> Program:
        return Program(self, run, twist=twist, move_time=move_time)

    def timed(self, seconds: float) -> None:
        self.latencies.append(seconds)
        del self.latencies[:-_LATENCIES_KEPT]

    def asked(self) -> int | None:
        """How many decisions of a complete game to ask the bot: unlimited (None) while its answers are quick; for a
        slow bot as many as fit in :data:`GAME_SECONDS` at its median answer time, at least :data:`MIN_ASKED`, so
        that the whole check stays near a minute (docs/CHECK.md, "Time")."""
        if not self.latencies:
            return None
        median = sorted(self.latencies)[len(self.latencies) // 2]
        return max(MIN_ASKED, int(GAME_SECONDS / median)) if median * 100 > GAME_SECONDS else None

    def opponents(self, count: int) -> list[Bot]:
        """In-process opponents: the registered ``random`` bot (or ``first``)."""
        for name in ("random", "first"):
            if name in self.registry.bots:
                return [self.registry.bots[name].factory() for _ in range(count)]
        raise ConfigError("referee check needs the built-in bot 'random' or 'first' as an opponent")

    # --------------------------------------------------------------------------------------- games

    @property
    def main_game(self) -> str:
        return self.games[0]

    def seat_counts(self, game_id: str) -> range:
        game = self.registry.game(game_id)
        return range(game.min_seats, game.max_seats + 1)

    def handshake(self) -> tuple[dict[str, Any] | None, str, float]:
        """The shared handshake run (cases 2.1, 2.2): the bot's answer to ``hello`` (or None), what went wrong,
        and the seconds it took."""
        return self.shared("handshake", self._handshake)

    def _handshake(self) -> tuple[dict[str, Any] | None, str, float]:
        reply, problem, elapsed, _ = offer(self.run("handshake"), PROTOCOL_VERSIONS)
        return reply, problem, elapsed

    def discover(self, requested: Sequence[str] = ()) -> None:
        """Shake hands once to learn the games the bot plays, and choose the games to check.

        ``requested`` (``--game``) must be registered and played by the bot; by default every registered game
        the bot plays. :class:`ConfigError` when there is nothing to check."""
        for game_id in requested:
            self.registry.game(game_id)  # ConfigError for an unknown game
        reply, problem, _ = self.handshake()
        registered = sorted(self.registry.games)
        if reply is not None and reply.get("type") == "hello":
            self.hello = reply
            games = reply.get("games")
            if isinstance(games, list) and all(isinstance(g, str) for g in games):
                plays = [g for g in games if g in self.registry.games]
                for game_id in requested:
                    if game_id not in games:
                        raise ConfigError(f"bot {self.name!r} does not play {game_id} (it plays: "
                                          f"{', '.join(games) or 'nothing'})")
                if not requested and not plays:
                    raise ConfigError(f"bot {self.name!r} plays none of the registered games (it plays: "
                                      f"{', '.join(games) or 'nothing'}; registered: {', '.join(registered)})")
                self.games = list(dict.fromkeys(requested)) or plays
                return
        else:
            self.hello_error = problem or (f"it answered error: {reply.get('message')!r}" if reply else "no hello")
            run = self.runs["handshake"]
            code = run.exit_codes[-1] if run.exit_codes else None
            if run.ended_unanswered and code is not None:  # it ended by itself before its hello: it cannot start
                self.start_failure = (problem, code, run.stderr)
        self.games = list(dict.fromkeys(requested)) or registered
