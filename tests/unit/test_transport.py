"""referee/transport.py: ProcessTransport against small real child processes (``python -c`` scripts), its wire-log
hook, and MockTransport's scripting. The bots of tests/integration/test_zoo.py go through RemoteBot and whole games;
these look at the transport alone: frames, deadlines, exits, bad data, stderr, discard, close."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import BotCrashed, BotError, BotStalled, BotTimeout, ConfigError, ProtocolViolation
from protocol.wire import pack
from referee.transport import STDERR_CAP, MockTransport, ProcessTransport
from referee.wirelog import WireLog

PY = sys.executable

#: the echo bot (a file, so that a test and the benchmark run the same one)
ECHO = str(Path(__file__).resolve().parents[1] / "fixtures" / "echo.py")

SLEEP = "import time; time.sleep(30)"


def script(body: str) -> list[str]:
    """A child running ``body`` with ``os``, ``sys``, ``time`` and ``msgpack`` imported and ``put(*objs)`` writing
    their frames to stdout in one write."""
    prelude = ("import os, sys, time, msgpack\n"
               "def put(*objs):\n    os.write(1, b''.join(msgpack.packb(o, use_bin_type=True) for o in objs))\n")
    return [PY, "-c", prelude + body]


@pytest.fixture
def started() -> Iterator[list[ProcessTransport]]:
    transports: list[ProcessTransport] = []
    yield transports
    for t in transports:
        t.close()


@pytest.fixture
def start(started: list[ProcessTransport]) -> Any:
    def make(argv: list[str], **kwargs: Any) -> ProcessTransport:
        t = ProcessTransport(argv, **kwargs)
        started.append(t)
        return t

    return make


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


def gone(pid: int) -> bool:
    """No such process, or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


# ------------------------------------------------------------------------------------------------ frames


def test_frames_go_both_ways_unchanged(start: Any) -> None:
    t = start([PY, ECHO])
    message = {"type": "x", "n": -7, "big": 2**64 - 1, "blob": b"\x00\xff", "list": [1, "two", None], "ok": True}
    t.send(message, soon())
    assert t.receive(soon()) == message
    assert t.bytes_in == len(pack(message))


def test_several_frames_in_one_write_are_received_in_order(start: Any) -> None:
    t = start(script("put({'n': 1}, {'n': 2}, {'n': 3}); time.sleep(30)"))
    assert [t.receive(soon())["n"] for _ in range(3)] == [1, 2, 3]


def test_a_frame_written_in_pieces_is_received_whole(start: Any) -> None:
    t = start(script("d = msgpack.packb({'type': 'hello', 'pad': 'x' * 300})\n"
                     "os.write(1, d[:5]); time.sleep(0.2); os.write(1, d[5:]); time.sleep(30)"))
    assert t.receive(soon()) == {"type": "hello", "pad": "x" * 300}


def test_send_raw_writes_bytes_as_they_are(start: Any) -> None:
    t = start([PY, ECHO])
    data = pack({"type": "split", "text": "abc" * 50})
    t.send_raw(data[:7], soon())
    t.send_raw(data[7:], soon())
    assert t.receive(soon()) == {"type": "split", "text": "abc" * 50}


def test_the_bot_runs_in_a_process_group_of_its_own(start: Any) -> None:
    t = start([PY, "-c", SLEEP])
    assert os.getpgid(t.pid) == t.pid != os.getpgid(0)
    assert t.alive


def test_popen_starts_the_process_with_the_transports_arguments(start: Any) -> None:
    calls: list[tuple[list[str], dict[str, Any]]] = []

    def popen(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        calls.append((argv, kwargs))
        return subprocess.Popen(argv, **kwargs)

    t = start([PY, ECHO], popen=popen, cwd="/")
    t.send({"type": "ping"}, soon())
    assert t.receive(soon()) == {"type": "ping"}
    [(argv, kwargs)] = calls
    assert argv == [PY, ECHO]
    assert kwargs["start_new_session"] is True and kwargs["bufsize"] == 0 and kwargs["cwd"] == "/"


def test_a_program_that_cannot_start_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^cannot start bot '/nonexistent/bot --x': No such file or directory$"):
        ProcessTransport(["/nonexistent/bot", "--x"])


# ------------------------------------------------------------------------------------------------ deadlines


def test_no_answer_by_the_deadline_is_a_timeout_at_the_deadline(start: Any) -> None:
    t = start([PY, "-c", SLEEP])
    begin = time.monotonic()
    with pytest.raises(BotTimeout):
        t.receive(begin + 0.3)
    assert 0.3 <= time.monotonic() - begin < 2.0
    assert t.alive  # a timeout is not the end of the process


def test_a_deadline_in_the_past_times_out_at_once(start: Any) -> None:
    t = start([PY, "-c", SLEEP])
    begin = time.monotonic()
    with pytest.raises(BotTimeout):
        t.receive(begin - 1)
    assert time.monotonic() - begin < 0.5


def test_a_bot_that_does_not_read_stalls_the_send_at_its_deadline(start: Any) -> None:
    t = start([PY, "-c", SLEEP])
    big = {"type": "game_over", "result": {"blob": b"\0" * (4 << 20)}}  # more than any pipe holds
    begin = time.monotonic()
    with pytest.raises(BotStalled, match="stopped reading"):
        t.send(big, begin + 0.3)
    assert 0.3 <= time.monotonic() - begin < 3.0


# ------------------------------------------------------------------------------------------------ exits


def test_a_bot_that_exits_is_a_crash_with_its_exit_status(start: Any) -> None:
    t = start([PY, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(BotCrashed, match=r"^bot closed its stdout \(exit code 3\)$"):
        t.receive(soon())


def test_a_bot_killed_by_a_signal_says_which(start: Any) -> None:
    t = start([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    with pytest.raises(BotCrashed, match=r"\(killed by signal 9\)$"):
        t.receive(soon())


def launcher(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """A popen like the sandbox's: a program of its own (sh, in place of bwrap) starts the bot as its child and, as
    bwrap does, keeps the bot's stdin, stdout and stderr open until the bot exits."""
    return subprocess.Popen(["/bin/sh", "-c", '"$@"; exit $?', "sh", *argv], **kwargs)


@pytest.mark.skipif(not os.path.exists(f"/proc/self/task/{os.getpid()}/children"), reason="needs /proc's children")
def test_a_launched_bot_that_closes_its_stdout_and_stays_is_a_crash_at_once(start: Any) -> None:
    """Issue 33: the launcher holds the pipe open (no end of file): the transport looks below it for who holds it."""
    t = start(script("put({'hi': 1}); os.close(1); time.sleep(30)"), popen=launcher)
    assert t.receive(soon()) == {"hi": 1}
    began = time.monotonic()
    with pytest.raises(BotCrashed, match=r"^bot closed its stdout \(still running\)$"):
        t.receive(soon(10))
    assert time.monotonic() - began < 2


def test_a_launched_bot_whose_child_keeps_its_stdout_is_not_a_crash(start: Any) -> None:
    """A process of the bot that still holds the pipe (a child it started) keeps it open, as without a launcher."""
    t = start(script("if os.fork() == 0:\n    time.sleep(30)\nput({'hi': 1}); os.close(1); time.sleep(30)"),
              popen=launcher)
    assert t.receive(soon()) == {"hi": 1}
    with pytest.raises(BotTimeout):
        t.receive(soon(0.5))


def test_a_bot_that_closed_its_stdin_is_a_crash_on_send(start: Any) -> None:
    t = start(script("os.close(0); put({'closed': True}); time.sleep(30)"))
    assert t.receive(soon()) == {"closed": True}
    with pytest.raises(BotCrashed, match=r"^bot closed its stdin \(still running\)$"):
        t.send({"type": "request", "pad": "x" * 100}, soon())


def test_send_and_send_raw_after_close_are_crashes(start: Any) -> None:
    t = start([PY, ECHO])
    t.close()
    assert not t.alive
    for attempt in (lambda: t.send({"type": "bye"}, soon()), lambda: t.send_raw(b"\x80", soon())):
        with pytest.raises(BotCrashed, match="connection is closed"):
            attempt()


# ------------------------------------------------------------------------------------------------ bad data


def test_a_frame_larger_than_max_frame_is_oversized(start: Any) -> None:
    t = start(script("put({'x': 'a' * 5000}); time.sleep(30)"), max_frame=1024)
    with pytest.raises(ProtocolViolation) as caught:
        t.receive(soon())
    assert caught.value.kind == "oversized" and "1024" in str(caught.value)


def test_a_frame_of_max_frame_bytes_is_fine(start: Any) -> None:
    frame = {"x": "a" * (1024 - 6)}  # map, key, str16 header: 6 bytes
    assert len(pack(frame)) == 1024
    t = start(script(f"put({frame!r}); time.sleep(30)"), max_frame=1024)
    assert t.receive(soon()) == frame


@pytest.mark.parametrize(("written", "says"), [
    (b"hello\n", "expected a msgpack map, got int 104"),  # text: 'h' is the fixint 104
    (b"\xc1", "undecodable msgpack data"),  # a byte msgpack never uses
])
def test_bytes_that_are_not_a_map_are_malformed(start: Any, written: bytes, says: str) -> None:
    t = start(script(f"os.write(1, {written!r}); time.sleep(30)"))
    with pytest.raises(ProtocolViolation, match=says) as caught:
        t.receive(soon())
    assert caught.value.kind == "malformed"


# ------------------------------------------------------------------------------------------------ stderr


def test_stderr_keeps_the_last_bytes_and_says_how_many_were_dropped(start: Any) -> None:
    t = start(script("os.write(2, b'a' * 4000 + b'b' * 1000); put({'done': 1}); time.sleep(30)"), stderr_cap=1000)
    assert t.receive(soon()) == {"done": 1}
    assert t.take_stderr() == "[… 4000 earlier bytes dropped]\n" + "b" * 1000
    assert t.take_stderr() == ""  # taken: cleared


def test_stderr_under_the_cap_is_kept_whole_and_the_default_cap_is_64_kib(start: Any) -> None:
    assert STDERR_CAP == 64 * 1024
    t = start(script("os.write(2, 'naïve\\n'.encode()); put({}); time.sleep(30)"))
    t.receive(soon())
    assert t.take_stderr() == "naïve\n"


def test_a_bot_writing_megabytes_to_stderr_before_its_answer_is_not_deadlocked(start: Any) -> None:
    t = start(script("os.write(2, b'e' * (1 << 20)); put({'answer': 42}); time.sleep(30)"))
    assert t.receive(soon()) == {"answer": 42}
    text = t.take_stderr()
    assert text.startswith(f"[… {(1 << 20) - STDERR_CAP} earlier bytes dropped]\n") and text.endswith("e" * 100)


def test_what_a_bot_writes_on_stderr_before_each_answer_is_taken_with_that_answer(start: Any) -> None:
    """take_stderr after an answer reads no pipe (the poll that brought the answer drained stderr): each take still has
    exactly what the bot wrote before that answer, never a later request's (said per decision, RECORDS.md)."""
    t = start(script("u = msgpack.Unpacker()\n"
                     "while data := os.read(0, 65536):\n"
                     "    u.feed(data)\n"
                     "    for m in u:\n"
                     "        os.write(2, f'thinking {m[\"n\"]}\\n'.encode() * m['n'])\n"
                     "        put({'n': m['n']})\n"))
    for n in range(1, 60):
        t.send({"n": n}, soon())
        assert t.receive(soon()) == {"n": n}
        assert t.take_stderr() == f"thinking {n}\n" * n


def test_stderr_written_after_a_time_out_is_taken_at_the_next_take(start: Any) -> None:
    """A request that timed out: the last poll drained nothing, so the take reads the pipe itself."""
    t = start(script("os.read(0, 65536); time.sleep(0.3); os.write(2, b'late\\n'); time.sleep(30)"))
    t.send({"n": 1}, soon())
    with pytest.raises(BotTimeout):
        t.receive(time.monotonic() + 0.05)
    deadline = soon()
    text = ""
    while "late" not in text and time.monotonic() < deadline:
        time.sleep(0.05)
        text += t.take_stderr()
    assert text == "late\n"


def test_stderr_written_before_an_exit_is_kept_after_close(start: Any) -> None:
    t = start([PY, "-c", "import sys; sys.stderr.write('last words'); sys.exit(1)"])
    with pytest.raises(BotCrashed):
        t.receive(soon())
    assert t.close() == 1
    assert t.take_stderr() == "last words"


# ------------------------------------------------------------------------------------------------ discard


def test_discard_drops_the_frames_received_and_not_taken(start: Any) -> None:
    t = start(script("put({'n': 1}, {'n': 2}, {'n': 3}); time.sleep(30)"))
    assert t.receive(soon()) == {"n": 1}
    assert t.discard() == 2
    with pytest.raises(BotTimeout):
        t.receive(time.monotonic() + 0.2)


def test_discard_reads_what_waits_in_the_pipe_without_waiting(start: Any) -> None:
    t = start(script("put({'ready': 1}); os.read(0, 1); put({'n': 2}, {'n': 3}); time.sleep(30)"))
    assert t.receive(soon()) == {"ready": 1}
    t.send_raw(b"\x00", soon())  # the child's signal to write two frames
    dropped, end = 0, soon()
    while dropped < 2 and time.monotonic() < end:
        dropped += t.discard()
        time.sleep(0.01)
    assert dropped == 2
    begin = time.monotonic()
    assert t.discard() == 0 and time.monotonic() - begin < 0.2  # nothing there: no wait
    with pytest.raises(BotTimeout):
        t.receive(time.monotonic() + 0.2)


def test_discard_still_finds_bad_data(start: Any) -> None:
    t = start(script("put({'ready': 1}); os.read(0, 1); os.write(1, b'\\xc1'); time.sleep(30)"))
    assert t.receive(soon()) == {"ready": 1}
    t.send_raw(b"\x00", soon())
    with pytest.raises(ProtocolViolation):
        end = soon()
        while time.monotonic() < end:
            t.discard()
            time.sleep(0.01)


def test_an_end_of_output_found_by_discard_is_reported_by_the_next_receive(start: Any) -> None:
    t = start(script("put({'n': 1}); sys.exit(4)"))
    t.proc.wait(5)
    assert t.discard() == 1
    with pytest.raises(BotCrashed, match=r"closed its stdout \(exit code 4\)"):
        t.receive(soon())


# ------------------------------------------------------------------------------------------------ close


def test_close_kills_the_whole_process_group_a_grandchild_too(start: Any) -> None:
    t = start(script("import subprocess\n"
                     f"p = subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(60)'])\n"
                     "put({'grandchild': p.pid}); time.sleep(60)"))
    grandchild = t.receive(soon())["grandchild"]
    assert not gone(grandchild)
    assert t.close() == -9
    end = soon(10)
    while not gone(grandchild):
        assert time.monotonic() < end, "the grandchild survived close()"
        time.sleep(0.02)
    assert gone(t.pid)


def test_close_with_grace_lets_a_bot_exit_by_itself(start: Any) -> None:
    t = start([PY, "-c", "import os, sys; os.read(0, 1); sys.exit(5)"])  # exits at end of input
    assert t.close(grace=5) == 5


def test_close_twice_gives_the_same_status(start: Any) -> None:
    t = start([PY, "-c", SLEEP])
    assert t.close() == -9
    assert t.close() == -9
    assert not t.alive


# ------------------------------------------------------------------------------------------------ wire log


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


@pytest.fixture
def wire(tmp_path: Path) -> tuple[WireLog, Path]:
    path = tmp_path / "wire.jsonl"
    return WireLog(path), path


def test_every_frame_is_logged_once_both_ways(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start([PY, ECHO], wire_log=log, wire_name="echo")
    t.send({"type": "hello", "blob": b"\x01"}, soon())
    t.receive(soon())
    got = lines(path)
    shown = {"type": "hello", "blob": {"$bin": "01"}}
    assert [(e["dir"], e["msg"]) for e in got] == [("to-bot", shown), ("from-bot", shown)]
    assert {(e["bot"], e["bot_pid"], e["pid"]) for e in got} == {("echo", t.pid, os.getpid())}
    assert got[0]["t"] <= got[1]["t"] <= time.time()


def test_the_bots_name_defaults_to_the_program(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start([PY, ECHO], wire_log=log)
    t.send({"type": "x"}, soon())
    assert lines(path)[0]["bot"] == os.path.basename(PY)


def test_send_raw_logs_a_split_frame_once_whole_and_odd_bytes_raw(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start([PY, "-c", SLEEP], wire_log=log, wire_name="b")
    data = pack({"type": "split", "n": 1})
    t.send_raw(data[:3], soon())
    assert path.read_text() == ""  # not a frame yet
    t.send_raw(data[3:] + pack({"type": "joined"}), soon())
    t.send_raw(b"\xc1", soon())
    t.send_raw(pack({"type": "after"}) + data[:2], soon())
    t.close()
    got = lines(path)
    assert [e.get("msg", {}).get("type") for e in got] == ["split", "joined", None, "after", None]
    assert got[2]["dir"] == "to-bot" and got[2]["raw"] == "c1" and got[2]["bytes"] == 1
    assert "undecodable" in got[2]["error"]
    assert got[4]["raw"] == data[:2].hex() and got[4]["error"] == "incomplete frame (the connection closed)"


def test_malformed_data_is_logged_raw_and_still_a_fault(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start(script("os.write(1, b'Traceback: oops\\n'); time.sleep(30)"), wire_log=log, wire_name="b")
    with pytest.raises(ProtocolViolation):
        t.receive(soon())
    [entry] = lines(path)
    assert entry["dir"] == "from-bot" and bytes.fromhex(entry["raw"]).startswith(b"T")
    assert entry["bytes"] == len(bytes.fromhex(entry["raw"])) and "expected a msgpack map" in entry["error"]


def test_oversized_data_is_logged_raw_with_its_hex_capped(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start(script("put({'x': 'a' * 20000}); time.sleep(30)"), wire_log=log, max_frame=1024)
    with pytest.raises(ProtocolViolation):
        t.receive(soon())
    [entry] = lines(path)
    assert len(entry["raw"]) == 2 * 4096 and entry["bytes"] > 4096 and "larger than 1024" in entry["error"]


def test_discarded_frames_are_logged_too(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    t = start(script("put({'n': 1}, {'n': 2}); time.sleep(30)"), wire_log=log)
    assert t.receive(soon()) == {"n": 1}
    t.discard()
    assert [e["msg"]["n"] for e in lines(path)] == [1, 2]


def test_a_bots_text_cannot_forge_a_line(start: Any, wire: tuple[WireLog, Path]) -> None:
    log, path = wire
    forged = 'x"}\n{"t": 0, "dir": "to-bot", "msg": {"type": "forged"}}\n\u2028\x1b[2J\U0001f0cf'
    t = start([PY, ECHO], wire_log=log)
    t.send({"type": "echo", "text": "ok"}, soon())
    t.receive(soon())
    t.send({"type": "echo", "text": forged}, soon())
    t.receive(soon())
    raw = path.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 4
    assert [e["msg"]["text"] for e in lines(path)] == ["ok", "ok", forged, forged]


def test_without_a_wire_log_nothing_is_written(start: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_log(*args: Any) -> None:
        raise AssertionError("logged without a wire log")

    monkeypatch.setattr(WireLog, "_write", no_log)
    t = start([PY, ECHO])
    t.send({"type": "x"}, soon())
    t.send_raw(pack({"type": "y"}), soon())
    assert t.receive(soon()) == {"type": "x"}
    t.discard()
    t.close()


# ------------------------------------------------------------------------------------------------ MockTransport


def test_mock_answers_each_frame_with_the_handlers_frames_in_order() -> None:
    mock = MockTransport(lambda m: [{"type": "ack", "of": m["type"]}, {"type": "extra"}] if m["type"] == "a" else None)
    mock.send({"type": "a"}, 0)
    mock.send({"type": "b"}, 0)
    assert mock.sent == [{"type": "a"}, {"type": "b"}]
    assert mock.receive(0) == {"type": "ack", "of": "a"}
    assert mock.receive(0) == {"type": "extra"}
    with pytest.raises(BotTimeout):  # nothing more scripted
        mock.receive(0)


@pytest.mark.parametrize("error", [BotCrashed("gone"), BotStalled("stuck"), BotTimeout("slow"),
                                   ProtocolViolation("bad")])
def test_a_fault_the_handler_raises_comes_at_the_next_receive(error: Exception) -> None:
    def handler(message: dict[str, Any]) -> list[dict[str, Any]]:
        raise error

    mock = MockTransport(handler)
    mock.send({"type": "request"}, 0)  # sending succeeds: the fault is the bot's answer
    with pytest.raises(type(error)) as caught:
        mock.receive(0)
    assert caught.value is error


def test_a_bot_error_of_a_kind_the_mock_has_never_heard_of_is_queued_too() -> None:
    class BotMemory(BotError):  # a new kind of fault: one more error class, nothing to change in the mock
        pass

    def handler(message: dict[str, Any]) -> list[dict[str, Any]]:
        raise BotMemory("out of memory")

    mock = MockTransport(handler)
    mock.send({"type": "request"}, 0)
    with pytest.raises(BotMemory):
        mock.receive(0)


def test_mock_discard_drops_frames_but_keeps_a_fault() -> None:
    answers: list[Any] = [[{"n": 1}, {"n": 2}], BotCrashed("died")]

    def handler(message: dict[str, Any]) -> list[dict[str, Any]]:
        item = answers.pop(0)
        if isinstance(item, Exception):
            raise item
        return item  # type: ignore[no-any-return]

    mock = MockTransport(handler)
    mock.send({"type": "a"}, 0)
    mock.send({"type": "b"}, 0)
    assert mock.discard() == 2
    with pytest.raises(BotCrashed, match="died"):
        mock.receive(0)


def test_mock_close_stderr_and_exit_code() -> None:
    mock = MockTransport(lambda m: None)
    mock.stderr = "trace"
    mock.exit_code = 0
    assert mock.alive and mock.take_stderr() == "trace" and mock.take_stderr() == ""
    assert mock.close() == 0 and not mock.alive
    with pytest.raises(BotCrashed, match="closed"):
        mock.send({"type": "x"}, 0)
