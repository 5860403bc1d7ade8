"""referee/wirelog.py: the wire log's file (opened at start-up, private, appended to by several processes whole
lines at a time), its pickling, and how values are shown. The transport's hook is tested in test_transport.py, the
options of play, check and tournament run in tests/integration/test_wire_log.py."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import pickle
import stat
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol.errors import ConfigError
from referee.wirelog import RAW_CAP, WireLog, jsonable


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


# ------------------------------------------------------------------------------------------------ the file


def test_a_folder_that_does_not_exist_is_one_config_line(tmp_path: Path) -> None:
    where = tmp_path / "missing" / "w.jsonl"
    with pytest.raises(ConfigError) as caught:
        WireLog(where)
    assert str(caught.value) == f"cannot write the wire log to {where}: No such file or directory"


def test_messages_name_the_path_as_given_and_the_log_keeps_it_absolute(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^cannot write the wire log to nowhere/w.jsonl: No such file"):
        WireLog("nowhere/w.jsonl")
    log = WireLog("w.jsonl")
    assert log.path == str(tmp_path / "w.jsonl")
    monkeypatch.chdir("/")
    pickle.loads(pickle.dumps(log)).sent("b", {"type": "x"})  # opened anew, from another folder
    assert entries(tmp_path / "w.jsonl")[0]["msg"] == {"type": "x"}


def test_a_folder_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^cannot write the wire log to .*: Is a directory$"):
        WireLog(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder (tests/integration/test_wire_log.py "
                                               "mounts one read-only instead)")
def test_a_read_only_folder_is_one_config_line(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    with pytest.raises(ConfigError, match=r"^cannot write the wire log to .*: Permission denied$"):
        WireLog(folder / "w.jsonl")


def test_the_file_is_created_private_and_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    log = WireLog(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    log.sent("b", {"type": "hello"}, 7)
    log.close()
    again = WireLog(path)
    again.received("b", {"type": "hello"}, 7)
    again.close()
    assert [e["dir"] for e in entries(path)] == ["to-bot", "from-bot"]


def test_an_entry_says_when_who_which_way_and_what(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    log = WireLog(path)
    log.sent("bots.random", {"type": "request", "id": 3}, 4321)
    log.raw("bots.random", "from-bot", b"\xc1" * (RAW_CAP + 10), "undecodable msgpack data", 4321)
    first, second = entries(path)
    assert list(first) == ["t", "pid", "bot", "bot_pid", "dir", "msg"]
    assert first["pid"] == os.getpid() and first["bot"] == "bots.random" and first["bot_pid"] == 4321
    assert first["msg"] == {"type": "request", "id": 3} and isinstance(first["t"], float)
    assert second["raw"] == "c1" * RAW_CAP and second["bytes"] == RAW_CAP + 10
    assert second["error"] == "undecodable msgpack data" and "msg" not in second


def test_a_write_that_fails_warns_once_and_ends_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    log = WireLog("/dev/full")
    log.sent("b", {"type": "x"})
    log.sent("b", {"type": "y"})
    err = capsys.readouterr().err
    assert err == "referee: warning: cannot write the wire log to /dev/full: No space left on device; the wire log " \
                  "stops here\n"


# ------------------------------------------------------------------------------------------------ processes


def test_it_pickles_as_its_path_alone_without_the_descriptor(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    log = WireLog(path)
    copy = pickle.loads(pickle.dumps(log))
    assert log.__getstate__() == {"path": str(path), "shown": str(path)}
    assert copy.path == str(path) and copy._fd is None  # opened on first use, in the process that uses it
    copy.sent("b", {"type": "x"})
    assert entries(path)[0]["msg"] == {"type": "x"}


def _write_many(log: WireLog, tag: int, count: int) -> None:
    for n in range(count):
        log.sent(f"bot{tag}", {"type": "blob", "n": n, "pad": chr(ord("a") + tag) * 70000})


def test_lines_of_forked_processes_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    log = WireLog(path)
    log.sent("parent", {"type": "first"})  # the parent's descriptor exists before the fork
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_write_many, args=(log, tag, 40)) for tag in range(4)]
    for proc in procs:
        proc.start()
    _write_many(log, 4, 40)
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    got = entries(path)  # json.loads fails on a line that two writes made
    assert len(got) == 1 + 5 * 40
    for entry in got[1:]:
        tag = int(entry["bot"][3:])
        assert entry["msg"]["pad"] == chr(ord("a") + tag) * 70000
    assert len({e["pid"] for e in got}) == 5


def test_a_spawned_process_opens_the_file_itself(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    log = WireLog(path)
    proc = multiprocessing.get_context("spawn").Process(target=_write_many, args=(log, 1, 2))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    got = entries(path)
    assert len(got) == 2 and {e["pid"] for e in got} == {proc.pid}


# ------------------------------------------------------------------------------------------------ values


def test_msgpack_values_json_has_no_form_for_are_tagged() -> None:
    value = {"bin": b"\x00\xff", "ext": msgpack.ExtType(5, b"\x01"), "ts": msgpack.Timestamp(3, 500000000),
             "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "tuple": (1, 2.5), 7: "int key", b"k": None,
             True: False}
    assert jsonable(value) == {
        "bin": {"$bin": "00ff"}, "ext": {"$ext": 5, "data": "01"}, "ts": {"$timestamp": 3.5}, "nan": "NaN",
        "inf": "Infinity", "-inf": "-Infinity", "tuple": [1, 2.5], "7": "int key", '{"$bin": "6b"}': None,
        "true": False}


def test_values_nested_deeper_than_64_levels_are_cut() -> None:
    deep: Any = "bottom"
    for _ in range(100):
        deep = [deep]
    shown = jsonable(deep)
    depth = 0
    while isinstance(shown, list):
        shown, depth = shown[0], depth + 1
    assert (depth, shown) == (64, "…")


def test_every_line_is_ascii_and_one_line_whatever_the_text(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    text = 'a\nb\r\u2028\u2029\x00\x1b[31m"}\n{"dir": "to-bot"}\ud800 карта \U0001f0cf'
    WireLog(path).received("b\n\x1b", {"type": "action", "action": text}, 1)
    raw = path.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 1 and raw.endswith(b"\n")
    [entry] = entries(path)
    assert entry["msg"]["action"] == text and entry["bot"] == "b\n\x1b"
