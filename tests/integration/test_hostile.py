"""What a hostile trial found (issue 12, item 4), through the command line: each damaged input or hostile bot
gets one clear line (or a typed verdict) and never a traceback, and nothing already recorded is lost.

The hostile bots are in tests/fixtures/zoo/ (see tests/integration/test_zoo.py for the protocol-level tests).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee
from test_zoo import zoo_decisions
from typer.testing import CliRunner

from referee.cli import app
from referee.record import read_record
from referee.terminal import printable
from referee.transport import ProcessTransport
from tournaments.storage import StorageError, Store

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "zoo"


def zoo(script: str, *args: str) -> str:
    return f"cmd:{sys.executable} {ZOO / script}{''.join(' ' + a for a in args)}"


def referee(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=cwd or ROOT, timeout=timeout)


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


# ------------------------------------------------------------------------------------------------ damaged input


def one_line_error(result: Any, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def finished_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("finished") / "t.db"
    result = invoke("tournament", "run", "durak", "-b", "random", "-b", "first", "--games", "2", "--db", str(path))
    assert result.exit_code == 0, result.stderr
    return path


def damaged(finished_db: Path, tmp_path: Path, sql: str, *args: Any) -> Path:
    path = tmp_path / "damaged.db"
    shutil.copy(finished_db, path)
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()
    return path


def stored_config(finished_db: Path) -> dict[str, Any]:
    db = sqlite3.connect(finished_db)
    try:
        return dict(json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0]))
    finally:
        db.close()


CONFIG = "UPDATE meta SET value = ? WHERE key = 'config'"
ROW = "UPDATE games SET {column} = ? WHERE seq = (SELECT MIN(seq) FROM games)"


@pytest.mark.parametrize(("sql", "value", "fragment"), [
    pytest.param(CONFIG, "{not json", "configuration is damaged (not valid JSON", id="config-json"),
    pytest.param(CONFIG, "[1, 2]", "configuration is damaged (not a JSON object)", id="config-list"),
    pytest.param(CONFIG, "drop:specs", "configuration is damaged: no 'specs' field", id="config-missing"),
    pytest.param(CONFIG, "set:seats:'2'", "configuration is damaged: field 'seats'", id="config-mistyped"),
    pytest.param(ROW.format(column="places"), "[1,", "column 'places', is damaged (not valid JSON", id="row-json"),
    pytest.param(ROW.format(column="seating"), "5", "is damaged (column 'seating')", id="row-seating"),
    pytest.param(ROW.format(column="places"), "[1]", "is damaged (column 'places')", id="row-places"),
    pytest.param(ROW.format(column="seed"), "x", "is damaged (column 'seed')", id="row-seed"),
    pytest.param(ROW.format(column="faults"), '[{"seat": 99, "kind": "crash", "decision": 0}]',
                 "is damaged (column 'faults')", id="row-fault-seat"),
])
@pytest.mark.parametrize("command", ["table", "games", "resume"])
def test_a_damaged_database_is_one_line(finished_db: Path, tmp_path: Path, command: str, sql: str, value: str,
                                        fragment: str) -> None:
    if value.startswith(("drop:", "set:")):
        config = stored_config(finished_db)
        if value.startswith("drop:"):
            del config[value[5:]]
        else:
            _, key, text = value.split(":")
            config[key] = json.loads(text.replace("'", '"'))
        value = json.dumps(config)
    path = damaged(finished_db, tmp_path, sql, value)
    result = invoke("tournament", command, str(path))
    if command == "games" and sql == CONFIG and "configuration is damaged:" in fragment:
        assert result.exit_code in (0, 2) and "Traceback" not in result.stderr  # games needs no specs
        return
    one_line_error(result, fragment)


def test_a_damaged_stored_record_is_one_line(finished_db: Path, tmp_path: Path) -> None:
    path = damaged(finished_db, tmp_path, "UPDATE games SET body = X'01FF' WHERE key = 't0.d0.r0'")
    one_line_error(invoke("tournament", "record", str(path), "t0.d0.r0"),
                   "game 't0.d0.r0' (seq 0) is damaged (column 'body': not deflated")


@pytest.fixture(scope="module")
def good_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("record") / "game.json"
    assert invoke("play", "durak", "-b", "random", "-b", "first", "--seed", "1", "--record", str(path)).exit_code == 0
    return dict(json.loads(path.read_text()))


@pytest.mark.parametrize(("content", "fragment"), [
    pytest.param("fault-seat-99", "seat 99 at decision 0 is not a seat", id="fault-seat-99"),
    pytest.param('{"format": "referee-record", "version": 1, "options": ' + "[" * 100_000 + "]" * 100_000 + "}",
                 "far too deeply", id="nested-100000"),
    pytest.param('{"format": "referee-record", "version": 1, "options": ' + "[" * 100 + "]" * 100 + "}",
                 "nest at most 32 deep", id="nested-100"),
    pytest.param("big", "larger than 16 MiB", id="150-MB"),
])
def test_a_damaged_record_is_one_line(good_record: dict[str, Any], tmp_path: Path, content: str,
                                      fragment: str) -> None:
    path = tmp_path / "bad.json"
    if content == "fault-seat-99":
        path.write_text(json.dumps({**good_record, "faults": [{"seat": 99, "kind": "timeout", "decision": 0,
                                                               "message": "x"}]}))
    elif content == "big":
        with open(path, "w") as f:
            f.write('{"format": "referee-record", "pad": "')
            f.write("x" * 150_000_000)
            f.write('"}')
    else:
        path.write_text(content)
    one_line_error(invoke("replay", str(path)), fragment)


def test_replaying_dev_zero_is_refused_without_reading_it_all() -> None:
    result = referee("replay", "/dev/zero", timeout=30)
    assert result.returncode == 2 and result.stderr.strip() == \
        "referee: error: record /dev/zero is larger than 16 MiB: not a record", result.stderr[-500:]


# ------------------------------------------------------------------------------------------------ command line


@pytest.mark.parametrize("args", [
    ["play", "durak", "-b", "random", "-b", "first", "--move-time", "2147483648"],
    ["play", "durak", "-b", "random", "-b", "first", "--time-bank", "2147483648"],
    ["tournament", "run", "durak", "-b", "random", "-b", "first", "--move-time", "2147483648"],
])
def test_time_limits_beyond_a_c_int_of_ms_are_refused(args: list[str]) -> None:
    # Accepted before, they made every program bot's poll() overflow: a 'crash' charged to every bot.
    result = referee(*args)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "less than or equal to 2147483647" in result.stderr and "Traceback" not in result.stderr


def test_the_longest_limits_do_not_overflow_poll() -> None:
    transport = ProcessTransport([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\x80'); "
                                  "sys.stdout.flush()"])
    try:
        assert transport.receive(time.monotonic() + 2 * (2**31 - 1) / 1000) == {}  # the empty map it wrote
    finally:
        transport.close()


# ------------------------------------------------------------------------------------------------ databases


def _bwrap_works() -> bool:
    if not shutil.which("bwrap"):
        return False
    return subprocess.run(["bwrap", "--dev-bind", "/", "/", "true"], capture_output=True, timeout=30).returncode == 0


@pytest.mark.skipif(not _bwrap_works(), reason="needs bubblewrap to mount a folder read-only")
@pytest.mark.parametrize("args", [["table"], ["games"], ["verify"], ["record", "{db}", "t0.d0.r0"]])
def test_a_finished_database_on_a_read_only_medium_can_be_read(finished_db: Path, tmp_path: Path,
                                                                args: list[str]) -> None:
    folder = tmp_path / "medium"
    folder.mkdir()
    db = folder / "t.db"
    shutil.copy(finished_db, db)
    before = sorted(p.name for p in folder.iterdir())
    argv = [a.format(db=db) for a in args] if "{db}" in args else [*args, str(db)]
    proc = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder), sys.executable,
                           "-m", "referee", "tournament", *argv], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "cannot write" not in proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == before


@pytest.mark.parametrize("command", ["run", "resume", "table", "games", "verify"])
def test_another_programs_sqlite_file_is_refused_before_anything_is_written(tmp_path: Path, command: str) -> None:
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    db.execute("INSERT INTO users VALUES (1, 'ada')")
    db.commit()
    db.close()
    before = path.read_bytes()
    args = ["run", "kazaki", "-b", "random", "-b", "first", "--games", "1", "--db", str(path)] if command == "run" \
        else [command, str(path)]
    one_line_error(invoke("tournament", *args), "another program (tables: users)",
                   "nothing was written" if command in ("run", "resume") else "not a tournament's")
    assert path.read_bytes() == before  # no tables added, still in its rollback journal mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]


def stored_games(path: Path) -> int:
    try:
        with Store(path, create=False, readonly=True) as store:
            return store.count()
    except StorageError:  # not there yet, or its tables not yet made
        return 0


def test_a_second_process_on_a_running_tournament_is_one_line_and_a_sigkill_frees_it(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    run = subprocess.Popen([sys.executable, "-m", "referee", "tournament", "run", "kazaki", "-b", "random", "-b",
                            "first", "--games", "3000", "--workers", "2", "--db", str(path)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not stored_games(path):
            assert time.monotonic() < deadline and run.poll() is None, "the first run stored nothing"
            time.sleep(0.1)
        second = invoke("tournament", "resume", str(path))  # before: 'UNIQUE constraint failed' on its first game
        one_line_error(second, "another process is running this tournament")
        again = invoke("tournament", "run", "kazaki", "-b", "random", "-b", "first", "--games", "3000", "--workers",
                       "2", "--db", str(path))  # the same command: one line too, its header not printed first
        one_line_error(again, "another process is running this tournament")
    finally:
        run.kill()  # SIGKILL: no clean-up of its own
        run.wait(30)
    deadline = time.monotonic() + 30
    while True:  # its workers see the pipe close and exit; then nothing holds the lock
        try:
            with Store(path, create=False) as store:
                store.lock()
            break
        except StorageError:
            assert time.monotonic() < deadline, "the lock outlived the killed run"
            time.sleep(0.1)


# ------------------------------------------------------------------------------------------------ ^C, full disk


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.4, 1.5])
def test_ctrl_c_at_any_moment_of_start_up_is_one_line_and_exit_130(delay: float) -> None:
    # Before, a ^C while the commands were being imported (most of the first second) printed a traceback. The ^C
    # comes ``delay`` seconds after the package 'referee' is imported (-X importtime says when): earlier is the
    # interpreter's own start-up, which no program can catch.
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "referee", "play", "durak", "-b",
                             "cmd:sleep 100", "-b", "random"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    lines: list[str] = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("import time:") and line.rstrip().endswith("| referee"):
            break
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    # The rest through the same file object: communicate() reads the pipe itself, and would lose what the loop
    # above had read ahead (cutting an import line in two on a loaded machine). The referee gives up on the
    # bot after the handshake time (5 s) even if the ^C were lost, so this read ends.
    lines.extend(proc.stderr)
    proc.wait(timeout=30)
    err = "".join(line for line in lines if not line.startswith(("import time:", "protections:")))
    # Before, a ^C that came while a module made a dataclass (code run by exec) exited by SIGINT (-2), after
    # printing the line: CPython took it for unhandled (referee.main._forget_caught_interrupt).
    assert proc.returncode == 130 and err == "referee: interrupted\n", (proc.returncode, err[-1500:])


INTERRUPTED = {
    # A ^C that ends code run from a string (as dataclasses and namedtuple do while modules are imported):
    # before, 'python -m' died by SIGINT (-2) after printing the line
    "exec": """
        import referee.cli
        referee.cli.main = lambda: exec("raise KeyboardInterrupt", {})
    """,
    # A ^C while typer reads the command line (it imports pydantic then): before, exit code 130 and no line
    "typer": """
        import os, signal, typer, referee.cli
        app = typer.Typer()
        @app.command()
        def go() -> None:
            os.kill(os.getpid(), signal.SIGINT)
        referee.cli.app = app
    """,
}


@pytest.mark.parametrize("where", list(INTERRUPTED))
def test_a_ctrl_c_that_python_or_typer_would_swallow_is_one_line_and_exit_130(tmp_path: Path, where: str) -> None:
    script = textwrap.dedent(INTERRUPTED[where]) + "import referee.main\nreferee.main.main()\n"
    (tmp_path / "ctrl_c.py").write_text(script)
    proc = subprocess.run([sys.executable, "-m", "ctrl_c"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (proc.returncode, proc.stderr) == (130, "referee: interrupted\n")


def test_a_record_that_cannot_be_written_leaves_no_file_and_keeps_the_result(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.record

    def full_disk(f: Any, text: str) -> None:
        f.write(text[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(referee.record, "_write_text", full_disk, raising=False)
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: full_disk(open(self, "w"), a[0]))  # the old way
    path = tmp_path / "game.json"
    result = invoke("play", "durak", "-b", "random", "-b", "first", "--seed", "1", "--record", str(path))
    one_line_error(result, f"cannot write the record to {path}: No space left on device")
    assert "loser by the rules" in result.stdout  # the game's result is shown all the same
    assert list(tmp_path.iterdir()) == []  # before: a 0-byte (or cut) game.json


def test_a_record_that_cannot_be_written_keeps_the_file_it_would_replace(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.record

    path = tmp_path / "game.json"
    path.write_bytes(b"the previous record\n")

    def full_disk(f: Any, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(referee.record, "_write_text", full_disk, raising=False)
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: full_disk(open(self, "w"), a[0]))
    one_line_error(invoke("play", "durak", "-b", "random", "-b", "first", "--seed", "1", "--record", str(path)),
                   "No space left")
    assert path.read_bytes() == b"the previous record\n" and sorted(tmp_path.iterdir()) == [path]


def test_a_record_to_dev_full_is_one_line() -> None:
    result = referee("play", "durak", "-b", "random", "-b", "first", "--seed", "1", "--record", "/dev/full")
    assert result.returncode == 2 and result.stderr == \
        "referee: error: cannot write the record to /dev/full: No space left on device\n", result.stderr


# ------------------------------------------------------------------------------------------------ hostile frames


def sandbox(mode: str) -> str:
    """``mode`` for --sandbox; "on" is skipped where bwrap does not work, except in CI (which installs it)."""
    if mode == "on" and not _bwrap_works() and os.environ.get("CI") != "true":
        pytest.skip("needs bubblewrap")
    return mode


def played(mode: str, spec: str, *args: str) -> tuple[list[dict[str, Any]], float, list[int]]:
    """``referee play durak`` of heuristic against ``spec`` (--json): the faults, how long it took, and the decisions
    at which ``spec`` (seat 1) was asked, from the game's record (its deal is keyed: it depends on the secret)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        result = referee("play", "durak", "--bot", "heuristic", "--bot", spec, "--seed", "1", "--sandbox",
                         sandbox(mode), "--json", "--record", f"{folder}/game.json", *args)
        seconds = time.monotonic() - start
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
        asked = zoo_decisions(read_record(Path(folder, "game.json")), seat=1)
    return [f for seat in json.loads(result.stdout)["seats"] for f in seat["faults"]], seconds, asked


@pytest.mark.parametrize("mode", ["off", "on"])
def test_bare_nesting_instead_of_the_hello_is_one_line_and_nothing_is_stored(mode: str, tmp_path: Path) -> None:
    """Issue 33: 1,000 nested arrays instead of the hello ended play and tournament run with a RecursionError."""
    bot = zoo("deep_nesting.py", "bare")
    result = referee("play", "durak", "--bot", "heuristic", "--bot", bot, "--sandbox", sandbox(mode))
    assert_one_line(result, "cannot play: arrays and maps nested more than 32 deep")
    db = tmp_path / "t.db"
    result = referee("tournament", "run", "durak", "--bot", "heuristic", "--bot", bot, "--games", "2", "--db", str(db),
                     "--sandbox", mode)
    assert_one_line(result, "cannot play: arrays and maps nested more than 32 deep")
    assert not db.exists()


def test_bare_nesting_is_a_failed_check_not_a_traceback() -> None:
    result = referee("check", zoo("deep_nesting.py", "bare"), "--cases", "2.1,2.2", "--seed", "1", "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    cases = json.loads(result.stdout)["cases"]
    assert {c["id"]: c["verdict"] for c in cases} == {"2.1": "FAILED", "2.2": "FAILED"}
    result = referee("check", zoo("deep_nesting.py", "bare-action", "2"), "--cases", "3.1", "--seed", "1", "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "malformed: arrays and maps nested more than 32 deep" in result.stdout


@pytest.mark.parametrize("mode", ["off", "on"])
def test_bare_nesting_mid_game_is_malformed_and_the_bot_restarted(mode: str, tmp_path: Path) -> None:
    """Issue 33: it was recorded as crash ("maximum recursion depth exceeded") and the process was kept."""
    faults, _, asked = played(mode, zoo("deep_nesting.py", "bare-action", "2"))
    assert faults == [{"kind": "malformed", "decision": asked[1],
                       "message": "arrays and maps nested more than 32 deep"}]
    db = tmp_path / "t.db"
    result = referee("tournament", "run", "durak", "--bot", "heuristic", "--bot",
                     zoo("deep_nesting.py", "bare-action", "2"), "--games", "2", "--db", str(db), "--workers", "1",
                     "--seed", "1", "--sandbox", mode)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    games = json.loads(referee("tournament", "games", str(db), "--json").stdout)["games"]
    # a fresh process for every game: each one faults at its own 2nd request (a kept one would not again)
    assert len(games) == 4 and all([f["kind"] for f in g["faults"]] == ["malformed"] for g in games)


@pytest.mark.parametrize("mode", ["off", "on"])
@pytest.mark.parametrize("variant", ["str", "bin"])
def test_a_4_gib_header_alone_is_oversized_at_once(mode: str, variant: str) -> None:
    """Issue 33: a str32/bin32 header of 4 GiB and nothing after it ended in timeout, timeout, stall."""
    faults, seconds, _ = played(mode, zoo("huge_frame.py", variant, "header"), "--move-time", "3000")
    assert [f["kind"] for f in faults] == ["oversized"]
    assert "announces 4294967295 bytes" in faults[0]["message"]
    assert seconds < 15  # the three timeouts alone would take 9 s and more


@pytest.mark.parametrize("mode", ["off", "on"])
def test_a_bot_that_closes_its_stdout_and_stays_is_a_crash_at_once(mode: str) -> None:
    """Issue 33: under bwrap (which holds the pipe open) it was timeout, timeout, stall."""
    faults, seconds, asked = played(mode, zoo("close_stdout.py", "2"), "--move-time", "3000")
    assert faults == [{"kind": "crash", "decision": asked[1], "message": "bot closed its stdout (still running)"}]
    assert seconds < 15
    result = referee("play", "durak", "--bot", "heuristic", "--bot", zoo("close_stdout.py", "hello"), "--sandbox",
                     mode)
    assert_one_line(result, "cannot play: bot closed its stdout")


def test_a_forked_child_that_gets_sigterm_before_its_own_handler_ends_by_the_signal() -> None:
    """The referee's SIGTERM handler raises KeyboardInterrupt to unwind a command; a worker forked from it, signalled
    before it sets its own handler, would print a traceback from multiprocessing instead of ending as it used to."""
    import referee.main as entry

    previous = signal.signal(signal.SIGTERM, entry._on_sigterm)
    try:
        pid = os.fork()
        if pid == 0:  # the child: the parent's handler, as a worker has it between fork and its first line
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            finally:
                os._exit(3)  # reached only if the signal was turned into an exception (or ignored)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status
