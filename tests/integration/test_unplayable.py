"""A program bot that cannot play is refused before the first game (issue 12 item 5): ``play`` and ``tournament run``
start each program once, and one that does not start or does not say hello in time is one line (its SPEC, what
failed, its exit status and the useful line of its stderr), exit code 2, no game played and nothing stored."""

from __future__ import annotations

import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_referee

from referee.botspec import useful_line

ROOT = Path(__file__).resolve().parents[2]
JS_DIR = ROOT / "bots" / "examples" / "js"


def referee(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=cwd)


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("referee: error: ")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_play_refuses_a_missing_script_before_the_game(tmp_path: Path) -> None:
    spec = f"cmd:{sys.executable} {tmp_path / 'nope.py'}"
    proc = referee("play", "durak", "-b", spec, "-b", "random", "--seed", "1", "--record", str(tmp_path / "g.json"))
    line = one_error_line(proc)
    assert f"bot {spec!r} cannot play: " in line and "it exited before its hello" in line
    assert "can't open file" in line and "No such file or directory" in line
    assert proc.stdout == "" and not (tmp_path / "g.json").exists()  # no game was played


def test_a_program_that_never_says_hello_is_refused_after_one_handshake_time(tmp_path: Path) -> None:
    line = one_error_line(referee("play", "durak", "-b", "random", "-b", "cmd:sleep 100", "--seed", "1"))
    assert "bot 'cmd:sleep 100' cannot play: no hello within the handshake time (5 s)" in line
    assert "killed by signal 9 (by the referee); nothing on stderr" in line
    # Started once, so one handshake time is waited, not one more for each of the 4 games: the program counts
    # its starts (counted, not timed: a loaded machine can take seconds more to start the referee). Unsandboxed,
    # so that it can write the count where the test reads it.
    starts = tmp_path / "starts"
    silent = f"cmd:sh -c {shlex.quote(f'echo started >> {shlex.quote(str(starts))}; exec sleep 100')}"
    line = one_error_line(referee("tournament", "run", "durak", "-b", "random", "-b", silent, "--games", "2",
                                  "--workers", "1", "--sandbox", "off", "--db", str(tmp_path / "t.db")))
    assert "cannot play: no hello within the handshake time (5 s)" in line and not (tmp_path / "t.db").exists()
    assert starts.read_text() == "started\n"


def test_tournament_run_refuses_a_crashing_program_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    spec = f"cmd:{sys.executable} -c 'import no_such_module_here'"
    line = one_error_line(referee("tournament", "run", "durak", "-b", spec, "-b", "random", "--games", "1",
                                  "--db", str(db)))
    assert "cannot play" in line and "ModuleNotFoundError: No module named 'no_such_module_here'" in line
    assert not db.exists()


def test_resume_refuses_a_program_that_no_longer_starts_and_stores_nothing_more(tmp_path: Path) -> None:
    script = tmp_path / "lowest.py"
    shutil.copy(ROOT / "bots" / "examples" / "python" / "lowest.py", script)
    db = tmp_path / "t.db"
    spec = f"cmd:{sys.executable} {script}"
    run = referee("tournament", "run", "durak", "-b", spec, "-b", "random", "--games", "2", "--seed", "1",
                  "--workers", "1", "--db", str(db))
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(db) as conn:  # as if the run had been interrupted after two of its four games
        conn.execute("DELETE FROM games WHERE seq >= 2")
    conn.close()
    script.unlink()
    line = one_error_line(referee("tournament", "resume", str(db), "--workers", "1"))
    assert f"bot {spec!r} cannot play: " in line and "it exited before its hello" in line
    assert "No such file or directory" in line
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (2,)
    conn.close()
    table = referee("tournament", "table", str(db))  # a table needs no bot: it still prints
    assert table.returncode == 0 and "2 of 4 games (partial" in table.stdout, table.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("command", ["play", "tournament"])
def test_the_js_example_without_npm_ci_is_refused_with_its_real_cause(tmp_path: Path, command: str) -> None:
    bot = tmp_path / "js"
    bot.mkdir()
    for name in ("bot.js", "package.json"):  # the README's example, before 'npm ci': no node_modules
        shutil.copy(JS_DIR / name, bot / name)
    spec = f"cmd:node {bot / 'bot.js'}"
    args = (["play", "durak", "-b", spec, "-b", "random", "--seed", "1"] if command == "play" else
            ["tournament", "run", "durak", "-b", spec, "-b", "random", "--games", "1", "--db", str(tmp_path / "t.db")])
    line = one_error_line(referee(*args, cwd=tmp_path))
    assert f"bot {spec!r} cannot play" in line and "exited before its hello" in line
    assert "Cannot find package '@msgpack/msgpack'" in line
    assert not (tmp_path / "t.db").exists()


@pytest.mark.parametrize(("stderr", "line"), [
    ("", ""),
    ("python3: can't open file '/x.py': [Errno 2] No such file or directory\n",
     "python3: can't open file '/x.py': [Errno 2] No such file or directory"),
    ('Traceback (most recent call last):\n  File "/b.py", line 1, in <module>\n    import nope\n'
     "ModuleNotFoundError: No module named 'nope'\n", "ModuleNotFoundError: No module named 'nope'"),
    ("node:internal/modules/esm/resolve:873\n  throw new ERR_MODULE_NOT_FOUND(packageName);\n        ^\n\n"
     "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /b.js\n    at packageResolve (node:1:9)\n"
     "    at moduleResolve (node:2:18) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n",
     "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /b.js"),
    ("starting\nwarming up\n", "warming up"),
    ("bad \x1b]0;title\x07 thing failed\n", "bad \\x1b]0;title\\x07 thing failed"),
])
def test_the_useful_line_of_a_failed_programs_stderr(stderr: str, line: str) -> None:
    assert useful_line(stderr) == line
