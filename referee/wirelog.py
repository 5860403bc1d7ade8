"""The wire log (``--wire-log FILE``): every frame between the referee and its program bots, both ways, as JSON Lines.

One line per frame (docs/CLI.md, "The wire log")::

    {"t": 1764640000.123456, "pid": 4242, "bot": "bots.random", "bot_pid": 4243, "dir": "to-bot", "msg": {...}}

``dir`` is ``to-bot`` or ``from-bot``; ``msg`` is the decoded message, with msgpack values JSON has no form for
written as ``{"$bin": HEX}``, ``{"$ext": CODE, "data": HEX}``, ``{"$timestamp": SECONDS}`` and ``"NaN"``/``"Infinity"``.
Bytes that are not a frame (the data of a malformed or oversized fault, a frame cut short by the end of the
connection) are written as ``{"raw": HEX, "bytes": N, "error": TEXT}`` instead of ``msg``, the hex capped at
:data:`RAW_CAP` bytes.

A :class:`WireLog` crosses into tournament worker processes (forked or spawned), so it pickles as its path (no
descriptor); each process opens the file for itself, on first use, with ``O_APPEND``, and writes each line with one
``os.write``: lines of several processes never interleave. Everything is JSON-escaped into ASCII, so a bot's text
cannot end a line or forge one. The file holds every hand of every game: it is created private (mode 0600) and the
sandbox hides it from bots.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

import msgpack

from protocol.errors import ConfigError

__all__ = ["WireLog", "RAW_CAP", "TO_BOT", "FROM_BOT", "jsonable"]

TO_BOT = "to-bot"
FROM_BOT = "from-bot"
#: The bytes of a raw entry kept as hex (``"bytes"`` says how many there were).
RAW_CAP = 4096
_MAX_DEPTH = 64  # deeper values are written as "…" (a bot's frames are refused beyond 32 levels anyway)


class WireLog:
    """A JSON Lines file of frames. Opening it at construction is the start-up check: a file that cannot be opened
    is a :class:`ConfigError` with one line. A write that fails later (a full disk) is reported once on stderr and
    ends the log; the games go on."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.abspath(os.fspath(path))  # a worker may start in another folder
        self.shown = os.fspath(path)  # as the user gave it, in messages
        self._fd: int | None = None
        self._pid = 0  # the process that opened _fd
        self._broken = False
        self._open()

    # ------------------------------------------------------------------------------------- processes

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "shown": self.shown}  # a descriptor means nothing in another process

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self.shown = state["path"], state["shown"]
        self._fd, self._pid, self._broken = None, 0, False

    def _open(self) -> int:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise ConfigError(f"cannot write the wire log to {self.shown}: {exc.strerror or exc}") from exc
        self._fd, self._pid = fd, os.getpid()
        return fd

    def _descriptor(self) -> int | None:
        """This process's descriptor: a forked worker opens its own (the inherited one is the parent's)."""
        if self._fd is not None and self._pid == os.getpid():
            return self._fd
        if self._fd is not None:  # inherited through fork: the parent keeps and closes its own
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None
        try:
            return self._open()
        except ConfigError as exc:
            self._fail(str(exc))
            return None

    def close(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = None

    # ------------------------------------------------------------------------------------- entries

    def sent(self, bot: str, message: Any, bot_pid: int | None = None) -> None:
        """A frame the referee wrote to ``bot``."""
        self._write(bot, bot_pid, TO_BOT, {"msg": jsonable(message)})

    def received(self, bot: str, message: Any, bot_pid: int | None = None) -> None:
        """A frame ``bot`` wrote, decoded."""
        self._write(bot, bot_pid, FROM_BOT, {"msg": jsonable(message)})

    def raw(self, bot: str, direction: str, data: bytes, error: str, bot_pid: int | None = None) -> None:
        """Bytes that are not a (complete) frame, and why."""
        self._write(bot, bot_pid, direction, {"raw": bytes(data[:RAW_CAP]).hex(), "bytes": len(data), "error": error})

    def _write(self, bot: str, bot_pid: int | None, direction: str, body: dict[str, Any]) -> None:
        if self._broken:
            return
        fd = self._descriptor()
        if fd is None:
            return
        entry = {"t": round(time.time(), 6), "pid": os.getpid(), "bot": bot, "bot_pid": bot_pid, "dir": direction,
                 **body}
        line = (json.dumps(entry, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")
        try:
            written = os.write(fd, line)  # one write: O_APPEND puts it whole at the end, between others' lines
        except OSError as exc:
            self._fail(f"cannot write the wire log to {self.shown}: {exc.strerror or exc}")
            return
        if written != len(line):
            self._fail(f"cannot write the wire log to {self.shown}: short write ({written} of {len(line)} bytes)")

    def _fail(self, why: str) -> None:
        self._broken = True
        print(f"referee: warning: {why}; the wire log stops here", file=sys.stderr, flush=True)

    def __repr__(self) -> str:
        return f"WireLog({self.path!r})"


def jsonable(value: Any, depth: int = 0) -> Any:
    """A decoded msgpack value as JSON (see the module's docstring); keys that are not text become their JSON."""
    if isinstance(value, str) or value is None or isinstance(value, bool | int):
        return value
    if depth >= _MAX_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(jsonable(k, depth + 1), ensure_ascii=True):
                jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, msgpack.ExtType):  # a namedtuple: before the tuples
        return {"$ext": value.code, "data": value.data.hex()}
    if isinstance(value, list | tuple):
        return [jsonable(v, depth + 1) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bin": bytes(value).hex()}
    if isinstance(value, float):
        return value if math.isfinite(value) else ("NaN" if value != value else "Infinity" if value > 0
                                                   else "-Infinity")
    if isinstance(value, msgpack.Timestamp):
        return {"$timestamp": value.to_unix()}
    return repr(value)
