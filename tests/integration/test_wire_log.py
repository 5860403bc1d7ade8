"""``--wire-log FILE`` of ``referee play``, ``referee check`` and ``referee tournament run``/``resume`` (docs/CLI.md,
"The wire log"), run as the real command: every frame both ways, one JSON line each, from every process; a path
that cannot be opened is one line and exit 2 before anything starts; and a bot in the sandbox cannot read the log
(it holds every hand), even from its own folder."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee

from referee.sandbox import probe
from tournaments.storage import Store

ROOT = Path(__file__).resolve().parents[2]
ATTACK = ROOT / "tests" / "fixtures" / "attack"
PY = sys.executable
PROGRAM = f"cmd:{PY} -m bots.random"


def referee(*args: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=cwd, timeout=timeout)


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


def kinds(log: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    return Counter((e["dir"], e["msg"]["type"] if "msg" in e else "raw") for e in log)


def one_error_line(done: subprocess.CompletedProcess[str], text: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"referee: error: {text}"], done.stderr
    assert "Traceback" not in done.stderr


def needs_bwrap() -> None:
    problem = probe()
    if problem is not None:
        if shutil.which("bwrap") is None and os.environ.get("CI") != "true":
            pytest.skip(f"the sandbox does not work here: {problem}")
        pytest.fail(f"the sandbox does not work: {problem}")


# ------------------------------------------------------------------------------------------------ play, check


def test_play_logs_every_frame_of_each_program_bot(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    done = referee("play", "durak", "-b", PROGRAM, "-b", "random", "-b", PROGRAM, "--seed", "5", "--json",
                   "--wire-log", str(log), "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    got = entries(log)
    by_bot: dict[int, list[dict[str, Any]]] = {}
    for e in got:
        by_bot.setdefault(e["bot_pid"], []).append(e)
    assert len(by_bot) == 2 and {e["bot"] for e in got} == {"bots.random"}
    assert len({e["pid"] for e in got}) == 1  # the referee: play has no worker processes
    for frames in by_bot.values():  # hello both ways, one game, bye
        types = [(e["dir"], e["msg"]["type"]) for e in frames]
        assert types[:3] == [("to-bot", "hello"), ("from-bot", "hello"), ("to-bot", "new_game")]
        assert types[-2:] == [("to-bot", "game_over"), ("to-bot", "bye")]
        requests = [e["msg"]["id"] for e in frames if e["msg"]["type"] == "request"]
        answers = [e["msg"]["id"] for e in frames if e["msg"]["type"] == "action"]
        assert requests == answers and requests
    assert [s["faults"] for s in json.loads(done.stdout)["seats"]] == [[], [], []]


def test_play_with_in_process_bots_only_writes_an_empty_log(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    done = referee("play", "durak", "-b", "random", "-b", "first", "--seed", "1", "--wire-log", str(log))
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "" and (log.stat().st_mode & 0o777) == 0o600


def test_a_second_run_appends(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    for _ in range(2):
        assert referee("play", "durak", "-b", PROGRAM, "-b", "random", "--seed", "1", "--wire-log", str(log),
                       "--sandbox", "off").returncode == 0
    assert kinds(entries(log))[("to-bot", "hello")] == 2


def test_a_malformed_answer_is_logged_raw(tmp_path: Path) -> None:
    bot = tmp_path / "garbage.py"
    bot.write_text("import os, sys, msgpack\n"
                   "u = msgpack.Unpacker(raw=False)\n"
                   "while (data := os.read(0, 65536)):\n"
                   "    u.feed(data)\n"
                   "    for m in u:\n"
                   "        if m['type'] == 'hello':\n"
                   "            os.write(1, msgpack.packb({'type': 'hello', 'version': 1, 'name': 'g'}))\n"
                   "        elif m['type'] == 'request':\n"
                   "            os.write(1, b'not msgpack at all\\n')\n")
    log = tmp_path / "w.jsonl"
    done = referee("play", "durak", "-b", f"cmd:{PY} {bot}", "-b", "random", "--seed", "1", "--json",
                   "--wire-log", str(log), "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    assert [f["kind"] for f in json.loads(done.stdout)["seats"][0]["faults"]] == ["malformed"]
    [raw] = [e for e in entries(log) if "raw" in e]
    assert raw["dir"] == "from-bot" and bytes.fromhex(raw["raw"]) == b"not msgpack at all\n"
    assert "expected a msgpack map" in raw["error"]


def test_check_logs_the_frames_of_every_process_it_starts(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    report = tmp_path / "r.json"
    done = referee("check", "random", "--cases", "2.1,6.1,6.2", "--game", "durak", "--seed", "1", "--wire-log",
                   str(log), "--report", str(report), "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    got = entries(log)
    runs = json.loads(report.read_text())["runs"]
    started = sum(run["processes"] for run in runs.values())
    assert len({e["bot_pid"] for e in got}) == started
    assert kinds(got)[("to-bot", "hello")] == kinds(got)[("from-bot", "hello")] == started
    assert not [e for e in got if "raw" in e]  # 6.1's frames, written a byte at a time, are logged whole
    sent = sum(1 for run in runs.values() for e in run["transcript"] if e["kind"] == "sent")
    received = sum(1 for run in runs.values() for e in run["transcript"] if e["kind"] == "received")
    assert Counter(e["dir"] for e in got) == {"to-bot": sent, "from-bot": received}


# ------------------------------------------------------------------------------------------------ bad paths


@pytest.mark.parametrize("command", [
    ["play", "durak", "-b", PROGRAM, "-b", "random"],
    ["check", PROGRAM, "--cases", "2.1"],
])
def test_a_log_in_a_folder_that_does_not_exist_is_one_line(command: list[str], tmp_path: Path) -> None:
    where = tmp_path / "missing" / "w.jsonl"
    one_error_line(referee(*command, "--wire-log", str(where)),
                   f"cannot write the wire log to {where}: No such file or directory")


def test_a_log_in_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    """Mounted read-only, since root writes into a folder whatever its mode."""
    if subprocess.run(["bwrap", "--dev-bind", "/", "/", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs bubblewrap to mount a folder read-only")
    folder = tmp_path / "ro"
    folder.mkdir()
    done = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder), PY, "-m",
                           "referee", "play", "durak", "-b", "random", "-b", "random", "--wire-log",
                           str(folder / "w.jsonl")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    one_error_line(done, f"cannot write the wire log to {folder / 'w.jsonl'}: Read-only file system")


# ------------------------------------------------------------------------------------------------ the sandbox


def read_attempt(result: dict[str, Any], seat: int = 0) -> str:
    lines = [line for line in result["seats"][seat]["stderr"].splitlines() if line.startswith("ATTACK")]
    assert len(lines) == 1, result["seats"][seat]["stderr"]
    return lines[0]


@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_bot_cannot_read_the_wire_log_from_its_own_folder(mode: str, tmp_path: Path) -> None:
    """look_around.py reads the log at its first request, when the log holds its hello and its hand."""
    if mode == "on":
        needs_bwrap()
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    log = folder / "w.jsonl"
    done = referee("play", "durak", "-b", f"cmd:{PY} {folder / 'look_around.py'} files {log}", "-b", "random",
                   "--seed", "3", "--json", "--wire-log", str(log), "--sandbox", mode, cwd=folder)
    assert done.returncode == 0, done.stderr
    seen = read_attempt(json.loads(done.stdout))
    if mode == "on":
        assert seen == "ATTACK look_around: FAILED nothing readable"
    else:  # docs/CLI.md: without the sandbox a bot reads any file the referee can
        assert seen.startswith(f"ATTACK look_around: OK read ['{log} (64+ bytes)']")
    assert kinds(entries(log))[("to-bot", "request")] > 0  # the log was there to read


# ------------------------------------------------------------------------------------------------ tournaments


def test_a_tournament_logs_the_start_up_check_and_every_worker(tmp_path: Path) -> None:
    log, db = tmp_path / "w.jsonl", tmp_path / "t.db"
    done = referee("tournament", "run", "durak", "-b", PROGRAM, "-b", "random", "--games", "3", "--workers", "2",
                   "--db", str(db), "--wire-log", str(log), "--sandbox", "off", "--json")
    assert done.returncode == 0, done.stderr
    got = entries(log)
    by_pid: dict[int, list[dict[str, Any]]] = {}
    for e in got:
        by_pid.setdefault(e["pid"], []).append(e)
    first = got[0]["pid"]  # the main process: the program's hello, read before any game (then bye)
    assert [(e["dir"], e["msg"]["type"]) for e in by_pid.pop(first)] == [
        ("to-bot", "hello"), ("from-bot", "hello"), ("to-bot", "bye")]
    assert len(by_pid) == 2  # each worker has its own process of the program, and logs its own frames
    assert sum(kinds(frames)[("to-bot", "new_game")] for frames in by_pid.values()) == 6  # 3 deals, 2 rotations
    with sqlite3.connect(db) as conn:  # the log is not part of the tournament
        stored = " ".join(str(v) for row in conn.execute("SELECT * FROM meta") for v in row)
    assert "wire" not in stored and str(log) not in stored


def test_resume_logs_the_games_it_plays_when_given_the_log_again(tmp_path: Path) -> None:
    log, db = tmp_path / "w.jsonl", tmp_path / "t.db"
    assert referee("tournament", "run", "durak", "-b", PROGRAM, "-b", "random", "--games", "2", "--workers", "1",
                   "--db", str(db), "--sandbox", "off").returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE key IN (SELECT key FROM games ORDER BY seq DESC LIMIT 3)")
    done = referee("tournament", "resume", str(db), "--workers", "1", "--wire-log", str(log))
    assert done.returncode == 0, done.stderr
    assert kinds(entries(log))[("to-bot", "new_game")] == 3


@pytest.mark.parametrize("command", [
    ["tournament", "run", "durak", "-b", PROGRAM, "-b", "random", "--db", "{db}"],
    ["tournament", "resume", "{db}"],
])
def test_a_tournament_with_a_bad_log_path_is_one_line_and_stores_nothing(command: list[str], tmp_path: Path) -> None:
    db, where = tmp_path / "t.db", tmp_path / "missing" / "w.jsonl"
    done = referee(*[a.replace("{db}", str(db)) for a in command], "--wire-log", str(where))
    one_error_line(done, f"cannot write the wire log to {where}: No such file or directory")
    assert not db.exists()


def test_a_tournament_bot_cannot_read_the_wire_log_from_its_own_folder(tmp_path: Path) -> None:
    """In every worker process; look_around.py --crash exits after its report, so the stored stderr keeps it."""
    needs_bwrap()
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    log, db = folder / "w.jsonl", tmp_path / "t.db"
    done = referee("tournament", "run", "durak", "-b", f"cmd:{PY} {folder / 'look_around.py'} files {log} --crash",
                   "-b", "random", "--games", "2", "--workers", "2", "--db", str(db), "--wire-log", str(log),
                   "--sandbox", "on", cwd=folder)
    assert done.returncode == 0, done.stderr
    with Store(db, create=False, readonly=True) as store:  # the faulted seats' stderr tails, in the bodies
        reports = [text for row in store.games() for text in (store.record(row.key) or {})["stderr"].values()]
    assert len(reports) == 4 and all(r.strip() == "ATTACK look_around: FAILED nothing readable" for r in reports), \
        reports
    assert kinds(entries(log))[("to-bot", "request")] >= 4
