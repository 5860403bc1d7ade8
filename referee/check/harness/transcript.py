"""The transcript of ``referee check``: every frame read and written, as :class:`Event` records of a :class:`Run`;
the time limits of the suite."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgpack

from protocol.wire import answers

from ... import __version__
from ...wirelog import WireLog

#: Time limits of the suite, in seconds (docs/PROTOCOL.md section 8; moves are shorter than ``referee play``'s).
HANDSHAKE_TIME = 5.0
MOVE_TIME = 0.5
SHORT_MOVE_TIME = 0.1
EXIT_TIME = 2.0
REFEREE = f"referee/{__version__}"
STDERR_KEPT = 4096  # characters of stderr kept per run for the report
#: Bytes of the bot's frames kept whole per run; later frames are kept shortened (see Run.add).
RECEIVED_KEPT = 64 * 1024

# ------------------------------------------------------------------------------------------------ records


class Subject(Protocol):
    """The bot program a run records (a :class:`~referee.check.harness.Session`): how it is started, and the seed
    its runs are played from."""

    argv: list[str]
    seed: int
    name: str
    cwd: str | None
    popen: Callable[..., Any] | None
    wire_log: WireLog | None


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

    def __init__(self, name: str, session: Subject) -> None:
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

