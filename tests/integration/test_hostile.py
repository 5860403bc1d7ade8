"""What a hostile trial found (issue 12, item 4), through the command line: each damaged input or hostile bot
gets one clear line (or a typed verdict) and never a traceback, and nothing already recorded is lost.

The hostile bots are in tests/fixtures/zoo/ (see tests/integration/test_zoo.py for the protocol-level tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from referee.cli import app
from referee.terminal import printable

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "zoo"


def zoo(script: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ZOO / script}{''.join(' ' + a for a in args)}"


def referee(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or ROOT)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def assert_one_line(result: Any, *fragments: str, code: int = 2) -> str:
    out, err = result.stdout, result.stderr
    code_seen = result.returncode if hasattr(result, "returncode") else result.exit_code
    assert code_seen == code, (code_seen, out, err)
    assert "Traceback" not in out + err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------------------------------------ terminal


ESCAPES = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\rall 28 cases passed\u202e"


def test_printable_escapes_controls_and_keeps_text() -> None:
    assert printable(ESCAPES + "\n") == ("\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\rall 28 cases "
                                         "passed\\u202e\n")
    assert printable("Дурак\tok\n\x9b\x7f") == "Дурак\tok\n\\x9b\\x7f"
    assert printable("a\nb\u2028", one_line=True) == "a\\nb\\u2028"


def test_play_shows_a_bots_stderr_escaped_and_the_record_keeps_it_raw(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = referee("play", "durak", "-b", zoo("terminal_escapes.py"), "-b", "random", "--seed", "1",
                     "--record", str(path))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout and "\u202e" not in result.stdout
    assert "  | \\x1b]0;pwned\\x07" in result.stdout
    assert ESCAPES in json.loads(path.read_text())["stderr"]["0"]  # raw in the record
    replayed = referee("replay", str(path))
    assert replayed.returncode == 0 and "\x1b" not in replayed.stdout and "\\x1b]0;pwned" in replayed.stdout


def test_check_shows_a_bots_stderr_escaped() -> None:
    result = referee("check", zoo("terminal_escapes.py"), "--cases", "3.1", "--seed", "1")
    assert result.returncode == 1, result.stderr
    assert "\x1b" not in result.stdout + result.stderr and "\r" not in result.stdout
    assert "    stderr:   \\x1b]0;pwned" in result.stdout


# ------------------------------------------------------------------------------------------------ check's memory


def test_check_keeps_a_bounded_transcript_of_what_a_bot_sends() -> None:
    # 60 KB illegal answers: before, every one was kept whole (as bytes, value and hex): 220 MB of report.
    result = referee("check", zoo("bulky_illegal.py"), "--cases", "3.1", "--seed", "1", "--json")
    assert result.returncode == 1, result.stderr[-2000:]
    report = json.loads(result.stdout)
    run = report["runs"]["play"]
    assert run["received_bytes"] > 5_000_000 and run["shortened_frames"] > 50
    assert len(result.stdout) < 5_000_000  # the referee's own requests make most of it; before: 50 MB
    assert report["received_kept_per_run"] == 64 * 1024
    assert "    transcript: " in result.stderr and "frames kept shortened" in result.stderr
    shortened = [e for e in run["transcript"] if e.get("shortened")]
    assert shortened and shortened[-1]["bytes"] > 60_000 and "60000 long, sha256" in shortened[-1]["frame"]["action"]
