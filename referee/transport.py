"""Transports: how frames reach a bot and come back.

:class:`ProcessTransport` runs the bot as a child process in its own process group and talks over its
stdin/stdout; every read and write is bounded by a deadline and every frame by a size. Its stderr is drained
by a thread into a capped buffer. :class:`MockTransport` scripts the other side for tests (no processes).
Both raise only the typed errors of :mod:`protocol.errors`. With a :class:`~referee.wirelog.WireLog`, a
ProcessTransport logs every frame it writes and reads (``--wire-log``); without one it does no I/O for it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from protocol.errors import BotCrashed, BotError, BotStalled, BotTimeout, ConfigError, ProtocolViolation
from protocol.wire import MAX_FRAME, FrameDecoder, packer

from .cgroups import FREEZE_AFTER, BotGroup
from .idle import freeze_idle, idle_pending
from .proctree import LISTED, children
from .said import STDERR_CAP, dropped_mark
from .sandbox import BotProcess
from .wirelog import FROM_BOT, TO_BOT, WireLog

__all__ = ["Transport", "ProcessTransport", "MockTransport", "STDERR_CAP"]

_READ_CHUNK = 65536
#: How often, waiting for a launched bot's answer, the transport looks whether the bot still holds its stdout (s).
HOLDERS_EVERY = 0.1


class Transport(Protocol):
    """One connection to one bot. Deadlines are ``time.monotonic()`` values."""

    def send(self, message: dict[str, Any], deadline: float) -> None: ...

    def receive(self, deadline: float) -> dict[str, Any]: ...

    def close(self, grace: float = 0.0) -> int | None: ...

    @property
    def alive(self) -> bool: ...

    def take_stderr(self) -> str: ...

    def discard(self) -> int:
        """Drop what the bot sent that nobody asked for yet (read now, without waiting); how many frames."""
        ...

    def pause(self) -> None:
        """The bot is not asked anything now: stop it until :meth:`resume` (a sandboxed bot; others run on)."""
        ...

    def idle(self) -> None:
        """The bot has answered: stop it (as :meth:`pause`) once the referee has waited on another bot for
        :data:`~referee.cgroups.FREEZE_AFTER`, or before an in-process bot is asked."""
        ...

    def resume(self) -> None:
        """Let a paused bot run again (before it is asked, or told to leave)."""
        ...


class _StderrTail:
    """The last ``cap`` bytes a process wrote to stderr.

    The transport drains the pipe whenever it waits on the bot and before each ``take``, so what a bot
    wrote before its answer is always there when the answer arrives (no reader thread to race with)."""

    def __init__(self, fd: int, cap: int) -> None:
        self.fd: int | None = fd
        self.cap = cap
        self._buf = bytearray()
        self._dropped = 0
        self._ready = select.poll()  # asked before each read: cheaper than a read that fails with EAGAIN
        self._ready.register(fd, select.POLLIN)

    def drain(self) -> None:
        """Read everything the pipe holds now, without blocking."""
        while self.fd is not None and self._ready.poll(0):
            try:
                data = os.read(self.fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # the bot closed its stderr (or exited)
                self.fd = None
                return
            self._buf += data
            if len(self._buf) > self.cap:
                excess = len(self._buf) - self.cap
                self._dropped += excess
                del self._buf[:excess]

    def take(self, drain: bool = True) -> str:
        """The captured text since the last call (then cleared); ``drain=False``: without reading the pipe first (it
        was drained by the poll that brought the bot's answer)."""
        if drain:
            self.drain()
        if not self._buf and not self._dropped:
            return ""  # the usual case, once per decision: nothing written
        data, dropped = bytes(self._buf), self._dropped
        self._buf.clear()
        self._dropped = 0
        text = data.decode("utf-8", "replace")
        return dropped_mark(dropped) + text if dropped else text


class ProcessTransport:
    """A bot process: ``argv`` run without a shell, in a new session (its own process group)."""

    def __init__(self, argv: Sequence[str], *, max_frame: int = MAX_FRAME, stderr_cap: int = STDERR_CAP,
                 cwd: str | None = None, env: dict[str, str] | None = None,
                 decoder: FrameDecoder | None = None,
                 popen: Callable[..., subprocess.Popen[bytes]] | None = None,
                 wire_log: WireLog | None = None, wire_name: str = "") -> None:
        """``decoder`` reads the bot's stdout (a FrameDecoder of ``max_frame``, or one that also records);
        ``popen`` starts the process in place of ``subprocess.Popen`` (the referee's sandbox, with the same
        arguments); ``wire_log`` gets every frame both ways, under ``wire_name`` (default: the program's name)."""
        self.argv = list(argv)
        self.wire_log = wire_log
        self.wire_name = wire_name or os.path.basename(self.argv[0] if self.argv else "")
        self._logged: bytes | None = None  # the frame send() logged already, on its way through send_raw
        self._outgoing: FrameDecoder | None = None  # decodes send_raw's bytes for the log
        self._unlogged = bytearray()  # bytes of send_raw not yet part of a logged frame
        try:
            self.proc = (popen or subprocess.Popen)(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, cwd=cwd, env=env, bufsize=0,
            )
        except OSError as exc:
            raise ConfigError(f"cannot start bot {' '.join(self.argv)!r}: {exc.strerror or exc}") from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        # Every wait also watches stderr, so a bot blocked on a full stderr pipe is drained, never deadlocked.
        self._readable = select.poll()
        self._readable.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._readable.register(self._err, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._writable = select.poll()
        self._writable.register(self._in, select.POLLOUT | select.POLLHUP | select.POLLERR)
        self._writable.register(self._err, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._decoder = decoder or FrameDecoder(max_frame)
        self._pack = packer()
        self._pending: list[dict[str, Any]] = []
        self._stderr = _StderrTail(self._err, stderr_cap)
        #: The cgroup of a sandboxed bot's processes (referee/cgroups.py): frozen while it is not asked.
        self.group: BotGroup | None = self.proc.group if isinstance(self.proc, BotProcess) else None
        self._closed = False
        self._eof = False  # discard() read the end of the bot's stdout: the next receive reports it
        self._drained = False  # has a poll drained stderr since the last request was written? (take_stderr)
        self.bytes_in = 0
        # Started through a launcher (the sandbox's bwrap: popen ran something else around argv)? Its own processes
        # hold the bot's pipes open as long as they live, so a bot that closes its stdout ends nothing: see _holds.
        self._launched = LISTED and self.proc.args != self.argv
        self._stdout_link = _link(self._out) if self._launched else ""

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return not self._closed and self.proc.poll() is None

    def _crashed(self, what: str) -> BotCrashed:
        code = self.proc.poll()
        if code is None:
            try:
                code = self.proc.wait(0.2)
            except subprocess.TimeoutExpired:
                code = None
        status = f"exit code {code}" if code is not None and code >= 0 else (
            f"killed by signal {-code}" if code is not None else "still running")
        if self.group is not None and self.group.out_of_memory():
            return BotCrashed(f"the kernel killed the bot ({status}): it went over its memory limit, "
                              f"{self.group.memory_mb} MB for all its processes together (--bot-memory)")
        return BotCrashed(f"bot {what} ({status})")

    def pause(self) -> None:
        if self.group is not None and not self._closed:
            self.group.freeze()

    def idle(self) -> None:
        if self.group is not None and not self._closed:
            self.group.idle()

    def resume(self) -> None:
        if self.group is not None:
            self.group.thaw()

    def send(self, message: dict[str, Any], deadline: float) -> None:
        if self._closed:
            raise BotCrashed("bot connection is closed")
        data = self._pack(message)
        if self.wire_log is None:
            self.send_raw(data, deadline)
            return
        self.wire_log.sent(self.wire_name, message, self.proc.pid)
        self._logged = data
        try:
            self.send_raw(data, deadline)
        finally:
            self._logged = None

    def send_raw(self, data: bytes, deadline: float) -> None:
        """Write ``data`` as it is, bounded by ``deadline`` like :meth:`send`: already-encoded frames, or
        deliberately unusual bytes (``referee check`` splits and joins frames, and sends non-minimal encodings)."""
        if self._closed:
            raise BotCrashed("bot connection is closed")
        self._drained = False  # what the bot writes from now on is news
        if self.wire_log is not None and data is not self._logged:
            self._log_outgoing(data)
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._in, view)
                view = view[written:]
                continue
            except BlockingIOError:
                self.resume()  # a full pipe: a frozen bot could never drain it
            except (BrokenPipeError, ConnectionResetError):
                raise self._crashed("closed its stdin") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotStalled("bot stopped reading its stdin")
            self._wait(self._writable, left)

    def _log_outgoing(self, data: bytes) -> None:
        """Log the frames ``data`` completes (a frame split over several writes is logged once, whole); bytes
        that are not msgpack are logged raw, and the decoding starts again after them."""
        assert self.wire_log is not None
        if self._outgoing is None:
            self._outgoing = FrameDecoder(1 << 30)  # the referee's frames: decoded, not bounded like a bot's
        self._unlogged += data
        try:
            frames = self._outgoing.feed(data)
        except ProtocolViolation as exc:  # deliberately odd bytes (referee check): logged, then written as they are
            self.wire_log.raw(self.wire_name, TO_BOT, bytes(self._unlogged), str(exc), self.proc.pid)
            self._outgoing, self._unlogged = None, bytearray()
            return
        start = 0
        for frame, size in zip(frames, self._outgoing.sizes, strict=True):
            self.wire_log.sent(self.wire_name, frame, self.proc.pid)
            start += size
        del self._unlogged[:start]

    def receive(self, deadline: float) -> dict[str, Any]:
        grace_ends = time.monotonic() + FREEZE_AFTER  # other bots that answered run on until then, whatever wakes us
        while not self._pending:
            if self._eof:
                raise self._crashed("closed its stdout")
            now = time.monotonic()
            left = deadline - now
            if idle_pending() and left > grace_ends - now:
                if now >= grace_ends:
                    freeze_idle()
                    continue
                ready = self._wait(self._readable, grace_ends - now)
                if ready is None:
                    continue  # the grace is over: frozen at the top of the loop
            elif self._launched and left > 0:  # in slices: between them, does the bot still hold its stdout?
                ready = self._wait(self._readable, min(left, HOLDERS_EVERY))
                if ready is None:
                    if _holds(self.proc.pid, self._stdout_link) is False:
                        raise self._crashed("closed its stdout")
                    continue
            else:
                ready = self._wait(self._readable, left) if left > 0 else None
            if ready is None:
                if self.proc.poll() is not None:  # gone, its pipes held open by a process it started: not a timeout
                    raise self._crashed("exited")
                raise BotTimeout("no answer before the deadline")
            if not ready:
                continue
            frames = self._read_frames()
            if frames is None:
                raise self._crashed("closed its stdout")
            self._pending.extend(frames)
        return self._pending.pop(0)

    def discard(self) -> int:
        """Drop the frames the bot has sent and nobody has taken: those decoded already and those waiting in the
        pipe now (decoded too, so bad data is still a fault). Called before a request, so that an answer written
        before the request (a guessed id) is not taken for its answer (docs/PROTOCOL.md section 6)."""
        dropped = len(self._pending)
        self._pending.clear()
        for _ in range(64):  # bounded: a bot writing without pause cannot keep the referee here
            ready = self._wait(self._readable, 0)
            if ready is None or self._eof:
                break
            if not ready:
                continue
            frames = self._read_frames()
            if frames is None:
                self._eof = True
                break
            dropped += len(frames)
        return dropped

    def _read_frames(self) -> list[dict[str, Any]] | None:
        """Read what the bot's stdout holds now and decode it (a decoding fault is raised): the frames it
        completed, or None at end of file."""
        try:
            data = os.read(self._out, _READ_CHUNK)
        except BlockingIOError:  # pragma: no cover - poll said readable
            return []
        if not data:
            return None
        self.bytes_in += len(data)
        if self.wire_log is None:
            return self._decoder.feed(data)
        try:
            frames = self._decoder.feed(data)
        except ProtocolViolation as exc:  # this read's bytes: the bad frame may have begun in an earlier one
            self.wire_log.raw(self.wire_name, FROM_BOT, data, str(exc), self.proc.pid)
            raise
        for frame in frames:
            self.wire_log.received(self.wire_name, frame, self.proc.pid)
        return frames

    def _wait(self, poller: select.poll, seconds: float) -> bool | None:
        """Wait on ``poller``: True when the awaited pipe is ready, False when only stderr had data (drained
        here; the caller checks its deadline and waits again), None on time-out."""
        events = poller.poll(min(seconds * 1000, 2**31 - 1))  # poll() takes a C int of ms
        # stderr, one of the readable poller's pipes, is drained below if it holds anything; a poll that timed out
        # drained nothing, and what came since is read by the next take_stderr
        self._drained = bool(events) and poller is self._readable
        if not events:
            return None
        ready = False
        for fd, _ in events:
            if fd == self._err:
                self._stderr.drain()
                if self._stderr.fd is None:
                    for p in (self._readable, self._writable):  # closed: it would report POLLHUP forever
                        p.unregister(self._err)
            else:
                ready = True
        return ready

    def take_stderr(self) -> str:
        # Right after an answer the pipe was drained by the poll that brought it, which saw every byte the bot wrote
        # on stderr before writing its answer: no second poll, once per decision, for what the bot may write after.
        drained, self._drained = self._drained, False
        return self._stderr.take(drain=not drained)

    def close(self, grace: float = 0.0) -> int | None:
        """Wait up to ``grace`` seconds for the process to exit, then kill its whole process group."""
        if self._closed:
            return self.proc.returncode
        self.resume()  # a frozen bot could neither read its end of input nor exit
        self._closed = True
        if self.wire_log is not None and self._unlogged:  # send_raw wrote part of a frame, and no more
            self.wire_log.raw(self.wire_name, TO_BOT, bytes(self._unlogged), "incomplete frame (the connection "
                              "closed)", self.proc.pid)
            self._unlogged.clear()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        try:
            self.proc.wait(grace) if grace > 0 else None
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the bot and anything it started
        except (ProcessLookupError, PermissionError):
            pass
        if self.group is not None:
            self.group.kill()  # and whatever left its process group
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            code = None
        if self.group is not None:
            self.group.remove()
        self._stderr.drain()  # what it wrote before it died
        self._stderr.fd = None
        try:
            self.proc.stderr.close()  # type: ignore[union-attr]
        except OSError:
            pass
        return code


def _link(fd: int) -> str:
    """What /proc shows for a descriptor of the pipe ``fd`` is an end of (both ends: the same inode)."""
    return f"pipe:[{os.fstat(fd).st_ino}]"


def _holds(root: int, pipe: str) -> bool | None:
    """Does a process of the bot hold ``pipe`` (as :func:`_link` shows it)? The bot's processes are those below the
    launcher's, ``root`` and its descendants that run the same program (bwrap's: the one the referee started and the
    namespace's PID 1, which keep the bot's stdin, stdout and stderr open as long as they live, whatever the bot
    does). None when it cannot be told: the bot has not started yet (or has just gone), or /proc does not show it."""
    try:
        launcher = os.stat(f"/proc/{root}/exe")
        level: list[int] = [root]
        bot: list[int] = []
        while level:
            below = [child for pid in level for child in children(pid)]
            level = []
            for pid in below:
                exe = os.stat(f"/proc/{pid}/exe")
                same = (exe.st_dev, exe.st_ino) == (launcher.st_dev, launcher.st_ino)
                (level if same else bot).append(pid)
        if not bot:
            return None
        while bot:
            pid = bot.pop()
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except FileNotFoundError:  # gone meanwhile (a zombie shows no descriptors either)
                continue
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == pipe:
                        return True
                except FileNotFoundError:
                    pass
            bot += children(pid)
        return False
    except (OSError, ValueError):  # no such /proc, not ours to look at (a setuid bwrap), gone meanwhile
        return None


class MockTransport:
    """A scripted bot for protocol unit tests (no process).

    ``handler(message)`` gets each frame the referee sends and returns the frames the bot answers with (or
    raises one of the typed errors to simulate a fault). Sent frames are kept in ``sent``.
    """

    def __init__(self, handler: Callable[[dict[str, Any]], list[dict[str, Any]] | None]) -> None:
        self.handler = handler
        self.sent: list[dict[str, Any]] = []
        self._queue: list[dict[str, Any] | Exception] = []
        self._closed = False
        self.stderr = ""
        self.exit_code: int | None = None  # what close() reports; 0 means the scripted bot exited cleanly
        self.paused = False  # pause() and resume(): would a sandboxed bot be frozen now?
        self.log: list[str] = []  # the type of each frame sent, and each pause and resume, in order

    @property
    def alive(self) -> bool:
        return not self._closed

    def send(self, message: dict[str, Any], deadline: float) -> None:
        if self._closed:
            raise BotCrashed("bot connection is closed")
        self.sent.append(message)
        self.log.append(str(message.get("type")))
        try:
            self._queue.extend(self.handler(message) or [])
        except BotError as exc:  # every bot error, whatever its kind, is a simulated fault
            self._queue.append(exc)

    def discard(self) -> int:
        """Drop the scripted frames not received yet (a simulated fault stays queued)."""
        kept: list[dict[str, Any] | Exception] = [item for item in self._queue if isinstance(item, Exception)]
        dropped, self._queue = len(self._queue) - len(kept), kept
        return dropped

    def receive(self, deadline: float) -> dict[str, Any]:
        if not self._queue:
            raise BotTimeout("no answer before the deadline")
        item = self._queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    def take_stderr(self) -> str:
        text, self.stderr = self.stderr, ""
        return text

    def pause(self) -> None:
        self.paused = True
        self.log.append("pause")

    def idle(self) -> None:
        self.log.append("idle")

    def resume(self) -> None:
        self.paused = False
        self.log.append("resume")

    def close(self, grace: float = 0.0) -> int | None:
        self._closed = True
        return self.exit_code
