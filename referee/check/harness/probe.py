"""The probe of ``referee check``: a bot process whose every frame is recorded, and the twists that change how
the referee's side writes (re-encoded, split, joined, with extra messages or extra keys)."""

from __future__ import annotations

import struct
import subprocess
import time
from collections.abc import Sequence
from typing import Any

import msgpack

from protocol.errors import BotCrashed, BotError, BotTimeout, ProtocolViolation
from protocol.wire import FrameDecoder, pack
from referee.transport import ProcessTransport

from .transcript import HANDSHAKE_TIME, Run

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
                         popen=run.session.popen, wire_log=run.session.wire_log, wire_name=run.session.name)
        self._stash = ""
        self.exit_code: int | None = None
        run.note(f"started {' '.join(run.session.argv)} (pid {self.pid})", number)

    @classmethod
    def start(cls, run: Run, twist: Twist | None = None) -> Probe:
        """Start the bot of ``run`` once more, as its process number ``run.processes``."""
        run.processes += 1
        return cls(run, run.processes, twist or Twist())

    # ------------------------------------------------------------------------------------------ writing

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self.twist.send(self, message, deadline)

    def pause(self) -> None:
        """Never frozen: the suite watches what a bot writes unasked (3.5, 7.2), which a tournament's freezing would
        only delay to its next request (PROTOCOL.md section 8)."""

    def idle(self) -> None:
        """Never frozen (as :meth:`pause`)."""

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

