"""The sandbox of program bots (referee/sandbox.py, docs/SECURITY.md), tried by the attack bots of
tests/fixtures/attack/: each attack fails under ``--sandbox on`` and, where it still works under ``--sandbox off``,
the test says so (docs/SECURITY.md lists the same).

The referee runs as a real process (``python -m referee``): several attacks read its command line, its
environment or its open files. Tests that need bwrap are skipped where it is not installed, except in CI
(``CI=true``), where a missing bwrap fails them (CI installs it: .ci/run); a bwrap that is installed and does not
work fails them everywhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee

from referee.sandbox import probe
from tournaments.storage import Store

ROOT = Path(__file__).resolve().parents[2]
ATTACK = ROOT / "tests" / "fixtures" / "attack"
PY = sys.executable
NO_BWRAP = {**os.environ, "PATH": "/nonexistent"}  # the bots are started by absolute path: only bwrap is missing


def require_bwrap() -> None:
    """Skip where bwrap is not installed, unless in CI; a bwrap that is there and fails is a failure."""
    problem = probe()
    if problem is None:
        return
    if shutil.which("bwrap") is None and os.environ.get("CI") != "true":
        pytest.skip(f"the sandbox does not work here: {problem}")
    pytest.fail(f"the sandbox does not work: {problem} (CI installs bubblewrap: .ci/run)")


@pytest.fixture(params=["on", "off"])
def mode(request: pytest.FixtureRequest) -> str:
    if request.param == "on":
        require_bwrap()
    return str(request.param)


def referee(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=cwd or ROOT, env=env, timeout=timeout)


def bot(script: str, *args: str, folder: Path = ATTACK) -> str:
    return "cmd:" + " ".join([PY, str(folder / script), *args])


def play(mode: str, attacker: str, *more: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> dict[str, Any]:
    """One durak game, the attacker in seat 0, with --json; fails on a non-zero exit."""
    done = referee("play", "durak", "-b", attacker, *(more or ("-b", "random")), "--seed", "424242", "--json",
                   "--sandbox", mode, "--move-time", "1000", env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def outcome(result: dict[str, Any], seat: int = 0) -> tuple[bool, str]:
    """The attacker's own report: (did it work, what it got)."""
    found = re.search(r"^ATTACK \w+: (OK|FAILED) (.*)$", result["seats"][seat]["stderr"], re.M)
    assert found, result["seats"][seat]["stderr"]
    return found.group(1) == "OK", found.group(2)


def marked(token: str) -> list[int]:
    """Processes anywhere on this machine whose command line holds ``token``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if token.encode() in cmdline and state != "Z":
                pids.append(int(entry))
    return pids


def grandchild_started(token: str, seconds: float = 30.0) -> bool:
    """Whether orphan.py's setsid grandchild (its command line: the sleep and the token) runs within ``seconds``.
    Not a count of ``marked``: the referee's own command line holds the token too, and the bot it starts to ask
    what it supports comes and goes before the game's."""
    end = time.monotonic() + seconds
    while True:
        for pid in marked(token):
            with contextlib.suppress(OSError):
                if b"time.sleep(3600)" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)


@pytest.fixture
def token() -> Iterator[str]:
    """A unique mark for the processes an orphan bot starts; whatever still holds it afterwards is killed."""
    mark = f"referee-orphan-{uuid.uuid4().hex}"
    yield mark
    for pid in marked(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def settle(token: str, seconds: float = 5.0) -> list[int]:
    """The marked processes once they are gone, or after ``seconds``."""
    end = time.monotonic() + seconds
    while (alive := marked(token)) and time.monotonic() < end:
        time.sleep(0.1)
    return alive


# ------------------------------------------------------------------------------------- the referee's secrets


@pytest.mark.parametrize("beside", [False, True], ids=["db-elsewhere", "db-in-bot-folder"])
def test_a_bot_cannot_rewrite_the_tournament_database(mode: str, beside: bool, tmp_path: Path) -> None:
    """forge_db looks for the database in /proc/<parent>/fd and in its folder and writes into it."""
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    where = folder if beside else tmp_path
    done = referee("tournament", "run", "durak", "-b", bot("forge_db.py", folder=folder), "-b", "random",
                   "--games", "2", "--workers", "1", "--db", str(where / "t.db"), "--sandbox", mode, cwd=where)
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(where / "t.db")
    forged = db.execute("SELECT value FROM meta WHERE key = 'forged'").fetchone()
    places = [json.loads(p) for (p,) in db.execute("SELECT places FROM games")]
    assert len(places) == 4
    if mode == "on":
        assert forged is None and [1, 1] not in places
    else:  # docs/SECURITY.md: without the sandbox a bot can rewrite the results
        assert forged == ("yes",)


def test_a_bot_cannot_read_the_seed_from_the_referee_command_line(mode: str) -> None:
    ok, detail = outcome(play(mode, bot("seed_cmdline.py")))
    if mode == "on":
        assert not ok and "424242" not in detail
    else:
        assert ok and "seed 424242" in detail


def test_a_bot_cannot_read_the_referee_environment(mode: str) -> None:
    env = {**os.environ, "REFEREE_TEST_SECRET": "hunter2"}
    ok, detail = outcome(play(mode, bot("environ.py", "REFEREE_TEST_SECRET"), env=env))
    if mode == "on":
        assert not ok and "hunter2" not in detail
    else:
        assert ok and "hunter2" in detail


def test_bot_env_passes_a_variable_on_purpose() -> None:
    require_bwrap()
    env = {**os.environ, "REFEREE_TEST_SECRET": "hunter2"}
    for given in ("REFEREE_TEST_SECRET", "REFEREE_TEST_SECRET=hunter2"):
        result = play("on", bot("environ.py", "REFEREE_TEST_SECRET"), "-b", "random", "--bot-env", given,
                      env=env)
        assert outcome(result) == (True, "REFEREE_TEST_SECRET=hunter2 (own environment)")


# ----------------------------------------------------------------------------------------- the other bots


@pytest.mark.parametrize("action", ["peek", "kill", "stop"])
def test_a_bot_cannot_reach_the_other_bot(mode: str, action: str) -> None:
    """sibling reads the other bot's stdin through /proc/<pid>/fd/0, or SIGKILLs or SIGSTOPs it."""
    result = play(mode, bot("sibling.py", "bots.random", action), "-b", f"cmd:{PY} -m bots.random")
    ok, detail = outcome(result)
    victim = [f["kind"] for f in result["seats"][1]["faults"]]
    if mode == "on":
        assert not ok and "no process" in detail
        assert victim == []
    else:
        assert ok
        if action == "kill":
            assert victim == ["crash"]
        elif action == "stop":
            assert victim and victim[-1] == "stall"


# ---------------------------------------------------------------------------------- processes left behind


def test_a_setsid_grandchild_does_not_outlive_play(mode: str, token: str) -> None:
    ok, _ = outcome(play(mode, bot("orphan.py", token)))
    assert ok
    survivors = settle(token, 3.0)
    if mode == "on":
        assert survivors == []
    else:  # docs/SECURITY.md: without the sandbox a child in its own session survives
        assert survivors


def test_a_setsid_grandchild_does_not_outlive_a_tournament(mode: str, token: str, tmp_path: Path) -> None:
    done = referee("tournament", "run", "durak", "-b", bot("orphan.py", token), "-b", "random", "--games", "3",
                   "--workers", "2", "--db", str(tmp_path / "t.db"), "--sandbox", mode)
    assert done.returncode == 0, done.stderr
    survivors = settle(token, 3.0)
    assert (survivors == []) if mode == "on" else bool(survivors)


def test_a_setsid_grandchild_does_not_outlive_check(mode: str, token: str) -> None:
    done = referee("check", bot("orphan.py", token), "--game", "durak", "--cases", "3.3", "--seed", "1",
                   "--sandbox", mode)
    assert done.returncode in (0, 1), done.stderr
    survivors = settle(token, 3.0)
    assert (survivors == []) if mode == "on" else bool(survivors)


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_killing_the_referee_mid_game_leaves_no_bot_process(mode: str, command: str, token: str,
                                                             tmp_path: Path) -> None:
    """SIGKILL of the referee (and, for a tournament, of its workers: the whole process group) while an
    EOF-ignoring bot with a setsid grandchild plays: nothing of the bot remains under the sandbox."""
    attacker = bot("orphan.py", token, "--ignore-eof", "--slow")
    if command == "play":
        args = ["play", "durak", "-b", attacker, "-b", "random", "--seed", "1"]
    else:
        args = ["tournament", "run", "durak", "-b", attacker, "-b", "random", "--games", "20", "--workers", "2",
                "--db", str(tmp_path / "t.db")]
    proc = subprocess.Popen([PY, "-m", "referee", *args, "--sandbox", mode, "--move-time", "2000"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert grandchild_started(token), "the bot did not start its grandchild"
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    survivors = settle(token, 5.0)
    if mode == "on":
        assert survivors == []
    else:  # docs/SECURITY.md: without the sandbox an EOF-ignoring bot outlives a SIGKILLed referee
        assert survivors


# ----------------------------------------------------------------------------------- network, files, limits


def test_a_bot_cannot_reach_the_network(mode: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        ok, detail = outcome(play(mode, bot("network.py", str(server.getsockname()[1]))))
        try:
            conn, _ = server.accept()
            conn.close()
            reached = True
        except TimeoutError:
            reached = False
    if mode == "on":
        assert not ok and not reached, detail
    else:
        assert ok and reached


def test_a_bot_cannot_write_outside_its_tmp(mode: str, tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "loot"
    ok, detail = outcome(play(mode, bot("write_out.py", str(target), folder=folder)))
    written = [p.exists() for p in (target, folder / "written-by-a-bot")]
    if mode == "on":
        assert not ok and written == [False, False], detail
        assert "/tmp/written-by-a-bot: written" in detail  # its own /tmp is writable (and private)
    else:
        assert ok and written == [True, True]


def test_the_limits_hold_under_the_sandbox() -> None:
    require_bwrap()
    ok, detail = outcome(play("on", bot("hog.py", "memory", "1000"), "-b", "random", "--bot-memory", "256"))
    assert not ok and "MemoryError" in detail
    ok, detail = outcome(play("on", bot("hog.py", "file", "100")))  # 64 MB by default
    assert not ok and "stopped after 64 MB" in detail
    ok, detail = outcome(play("on", bot("hog.py", "file", "20"), "-b", "random", "--bot-file-size", "8"))
    assert not ok and "stopped after 8 MB" in detail


@pytest.mark.skipif(os.geteuid() == 0, reason="the kernel does not limit root's processes (docs/SECURITY.md)")
def test_the_process_limit_counts_the_sandbox_only() -> None:
    require_bwrap()
    ok, detail = outcome(play("on", bot("hog.py", "processes", "40"), "-b", "random", "--bot-processes", "20"))
    assert not ok and "started" in detail
    ok, detail = outcome(play("on", bot("hog.py", "processes", "10"), "-b", "random", "--bot-processes", "20"))
    assert ok, detail  # however many processes the user runs outside


# ------------------------------------------------------------------------------------- auto, on, stored


def test_on_refuses_to_run_without_bwrap_and_auto_warns_once(tmp_path: Path) -> None:
    attacker = bot("seed_cmdline.py")
    for args in (["play", "durak", "-b", attacker, "-b", "random"],
                 ["tournament", "run", "durak", "-b", attacker, "-b", "random", "--games", "1", "--db",
                  str(tmp_path / "on.db")],
                 ["check", attacker, "--cases", "1.1"]):
        done = referee(*args, "--sandbox", "on", env=NO_BWRAP)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            "referee: error: --sandbox on: bwrap (bubblewrap) is not installed; install bubblewrap "
            "(docs/SECURITY.md) or use --sandbox off"]
    assert not (tmp_path / "on.db").exists()
    done = referee("play", "durak", "-b", attacker, "-b", "random", "--seed", "1", env=NO_BWRAP)
    assert done.returncode == 0
    warnings = [line for line in done.stderr.splitlines() if line.startswith("referee: warning:")]
    assert len(warnings) == 1 and "no sandbox for program bots" in warnings[0]
    db = tmp_path / "auto.db"
    done = referee("tournament", "run", "durak", "-b", attacker, "-b", "random", "--games", "1", "--workers", "2",
                   "--db", str(db), env=NO_BWRAP)
    assert done.returncode == 0, done.stderr
    assert len([line for line in done.stderr.splitlines() if line.startswith("referee: warning:")]) == 1
    assert done.stdout.splitlines()[0].endswith("; sandbox: off")
    assert json.loads(referee("tournament", "table", str(db), "--json").stdout)["sandbox"] == "off"
    stored = json.loads(sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    assert stored["extra"]["sandbox"] == {"mode": "off", "memory_mb": 2048, "processes": 256, "file_size_mb": 64,
                                          "env": []}


def test_resume_keeps_the_stored_sandbox(tmp_path: Path) -> None:
    require_bwrap()
    db = tmp_path / "t.db"
    done = referee("tournament", "run", "durak", "-b", bot("seed_cmdline.py"), "-b", "random", "--games", "2",
                   "--workers", "1", "--db", str(db), "--sandbox", "on")
    assert done.returncode == 0 and done.stdout.splitlines()[0].endswith("; sandbox: on"), done.stderr
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE seq = (SELECT MAX(seq) FROM games)")
    done = referee("tournament", "resume", str(db), env=NO_BWRAP)  # stored on: no bwrap, no run
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "referee: error: this tournament runs its bots in the sandbox, and bwrap (bubblewrap) is not installed; "
        "install bubblewrap (docs/SECURITY.md)"]
    done = referee("tournament", "resume", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sandbox"] == "on"


def test_a_database_from_before_the_sandbox_says_unknown(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    done = referee("tournament", "run", "durak", "-b", "random", "-b", "first", "--games", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:  # as stored before the sandbox existed: no extra.sandbox
        config = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
        del config["extra"]["sandbox"]
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config, sort_keys=True),))
    done = referee("tournament", "table", str(db))
    assert done.returncode == 0 and done.stdout.splitlines()[0].endswith("; sandbox: unknown"), done.stderr
    assert json.loads(referee("tournament", "table", str(db), "--json").stdout)["sandbox"] == "unknown"


def test_a_bot_named_through_a_symbolic_link_starts_in_the_sandbox(tmp_path: Path) -> None:
    """Its folder is seen where the command names it, not only at its real path."""
    require_bwrap()
    (tmp_path / "link").symlink_to(ATTACK)
    ok, detail = outcome(play("on", bot("seed_cmdline.py", folder=tmp_path / "link")))
    assert not ok and "424242" not in detail


# --------------------------------------------------------- what else a bot might find or do (look_around.py)


def stored_stderr(db: Path) -> list[str]:
    """The stderr tails a tournament kept (of the seats that faulted: look_around.py --crash exits)."""
    with Store(db, create=False, readonly=True) as store:
        return [text for row in store.games() for text in (store.record(row.key) or {})["stderr"].values()]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bot_inherits_no_file_descriptor(mode: str, workers: int, tmp_path: Path) -> None:
    """Not the worker's database connection, its lock file or the pipes of the other bot (a program too)."""
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    db = folder / "t.db"
    done = referee("tournament", "run", "durak", "-b", bot("look_around.py", "fds", "--crash", folder=folder),
                   "-b", f"cmd:{PY} -m bots.random", "--games", "2", "--workers", str(workers), "--db", str(db),
                   "--sandbox", mode, cwd=folder)
    assert done.returncode == 0, done.stderr
    reports = stored_stderr(db)
    assert len(reports) == 4 and all(r.strip() == "ATTACK look_around: FAILED only 0, 1, 2" for r in reports), reports


def test_the_database_files_read_as_empty_mid_tournament(tmp_path: Path) -> None:
    """The database, its -wal, -shm and lock file in the bot's own folder, read while the games run."""
    require_bwrap()
    folder = tmp_path / "bot"
    shutil.copytree(ATTACK, folder)
    db = folder / "t.db"
    names = [str(db) + suffix for suffix in ("", "-wal", "-shm", "-journal", ".lock")]
    done = referee("tournament", "run", "durak", "-b", bot("look_around.py", "files", *names, "--crash", folder=folder),
                   "-b", "random", "--games", "2", "--workers", "2", "--db", str(db), "--sandbox", "on",
                   cwd=folder)
    assert done.returncode == 0, done.stderr
    reports = stored_stderr(db)
    expected = "ATTACK look_around: FAILED nothing readable"
    assert len(reports) == 4 and all(r.strip() == expected for r in reports), reports


def test_a_bot_cannot_write_the_host_sysctls(mode: str) -> None:
    """As root the bot is uid 0 inside, and /proc/sys checks the uid only: /proc is read-only in the sandbox (a
    writable core_pattern would run a program of the bot's as the host's root)."""
    ok, detail = outcome(play(mode, bot("look_around.py", "sysctl")))
    if mode == "on":
        assert not ok and "Read-only file system" in detail, detail
    else:  # docs/SECURITY.md: without the sandbox a bot of a root referee is root
        assert ok == (os.geteuid() == 0), detail


def test_a_bot_cannot_fill_the_memory_through_dev() -> None:
    """bwrap's /dev is a tmpfs of no size: read-only in the sandbox; /dev/shm is bounded like /tmp."""
    require_bwrap()
    ok, detail = outcome(play("on", bot("look_around.py", "fill", "40"), "-b", "random", "--bot-file-size", "8"))
    assert not ok, detail
    assert detail.startswith("/dev: 0 MB (Read-only file system); /dev/shm: ") and "No space left" in detail
    assert int(detail.split("/dev/shm: ")[1].split()[0]) <= 8


def test_a_bot_cannot_reach_an_abstract_unix_socket(mode: str) -> None:
    """Abstract sockets (X11's, D-Bus's) belong to the network namespace: --unshare-net leaves none in sight."""
    name = f"referee-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("\0" + name)
        server.listen()
        server.settimeout(0.5)
        ok, detail = outcome(play(mode, bot("look_around.py", "abstract", name)))
        try:
            server.accept()[0].close()
            reached = True
        except TimeoutError:
            reached = False
    if mode == "on":
        assert not ok and not reached and "Connection refused" in detail, detail
    else:
        assert ok and reached


@pytest.mark.skipif(os.geteuid() != 0, reason="as an ordinary user the kernel enforces the limit (test above)")
def test_as_root_without_cgroups_the_process_limit_does_not_hold() -> None:
    """docs/SECURITY.md: the kernel does not count processes of uid 0 for RLIMIT_NPROC; as root without cgroups
    (REFEREE_CGROUPS=off) only the PID space bounds them. With the pids cgroup it holds: test_fair_play.py."""
    require_bwrap()
    ok, detail = outcome(play("on", bot("hog.py", "processes", "100"), "-b", "random", "--bot-processes", "20",
                              env={**os.environ, "REFEREE_CGROUPS": "off"}))
    assert ok and "started 100" in detail, detail


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry))
    return found


def test_killing_one_worker_leaves_no_bot_process_of_it(token: str, tmp_path: Path) -> None:
    """SIGKILL of a tournament worker alone (not its bots' process groups, not the referee): bwrap dies with its
    parent, the worker (--die-with-parent), and the namespace with bwrap; the referee stops with one line."""
    require_bwrap()
    attacker = bot("orphan.py", token, "--ignore-eof", "--slow")
    proc = subprocess.Popen([PY, "-m", "referee", "tournament", "run", "durak", "-b", attacker, "-b", "random",
                             "--games", "20", "--workers", "2", "--db", str(tmp_path / "t.db"), "--sandbox", "on",
                             "--move-time", "2000"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        end = time.monotonic() + 30
        workers: list[int] = []
        while time.monotonic() < end:  # a worker with a bwrap child, whose bot and grandchild run
            workers = [w for w in children(proc.pid) if children(w)]
            if workers and grandchild_started(token, 0.0):
                break
            time.sleep(0.1)
        assert workers, "no worker started a bot"
        bots = [p for p in marked(token) if p not in (proc.pid, *children(proc.pid))]
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert "worker process" in err and "died" in err, err
    assert [p for p in settle(token, 5.0) if p in bots] == []
