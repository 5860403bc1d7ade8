"""Fair play (issue 33, docs/SECURITY.md "Fair play"): a sandboxed bot cannot win by starving its opponents.

Each program bot's process tree is in a cgroup of its own (referee/cgroups.py): its memory counts whole (memfd and
shared memory too), its processes are bounded for a root referee too, its cores are the ones its referee had, and it
is frozen from its answer to its next request. Each attack bot of tests/fixtures/attack/ is tried here through the
real command line; the freezing itself is measured on each path this machine has (cgroup v1, cgroup v2, signals).

These machines (and CI's) run as root with the v1 controllers writable and a controller-less v2 hierarchy at
/sys/fs/cgroup/unified: in CI a missing path fails; elsewhere it is skipped.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee
from test_sandbox import bot, grandchild_started, outcome, require_bwrap, settle, token  # noqa: F401 - token: a fixture

from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from referee import cgroups, idle
from referee.games.durak import Durak
from referee.match import play_game
from referee.proctree import descendants
from referee.remote import RemoteBot
from referee.sandbox import Sandbox
from referee.transport import ProcessTransport

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
SPINNER = """
import os, threading
def spin():
    while True:
        pass
if os.fork() == 0:
    os.setsid()  # a child that leaves the process group: the signal path must find it too
    spin()
threading.Thread(target=spin, daemon=True).start()
spin()
"""


def need(mode: str) -> cgroups.Support:
    """The cgroups of ``mode`` (v1, v2; off: none): skipped where missing, but failed in CI."""
    found = cgroups.detect(mode)
    if mode != "off" and (found.version != mode or (mode == "v1" and len(found.dirs) < 4)):
        if os.environ.get("CI") == "true":
            pytest.fail(f"cgroup {mode} is not usable here: {found.describe()}")
        pytest.skip(f"cgroup {mode} is not usable here: {found.describe()}")
    return found


def referee(*args: str, cgroups_mode: str = "auto", timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=ROOT, env={**os.environ, cgroups.MODE_ENV: cgroups_mode}, timeout=timeout)


def play(*args: str, cgroups_mode: str = "auto", sandbox: str = "on") -> dict[str, Any]:
    done = referee("play", "durak", *args, "--seed", "424242", "--json", "--sandbox", sandbox,
                   cgroups_mode=cgroups_mode)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        for task in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else []:
            try:
                fields = Path(f"/proc/{pid}/task/{task}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------------------------------------ freezing


@pytest.mark.parametrize("mode", ["v1", "v2", "off"])
def test_a_frozen_bot_gets_no_cpu_at_all(mode: str) -> None:
    """A spinner with a thread and a child that left its process group: frozen, none of them runs; thawed, all do."""
    found = need(mode)
    group = cgroups.BotGroup(found=found, processes=50)
    proc = subprocess.Popen([PY, "-c", SPINNER], preexec_fn=group.join, start_new_session=True)
    group.started(proc.pid)
    try:
        deadline = time.monotonic() + 10
        while len(descendants(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        pids = descendants(proc.pid)
        assert len(pids) == 2, pids
        child = os.pidfd_open(pids[1])  # the child that left the group: watched through its pidfd (pids are reused)
        group.freeze()
        time.sleep(0.2)  # the kernel finishes freezing
        before = cpu_seconds(pids)
        time.sleep(1.0)
        frozen = cpu_seconds(pids) - before
        group.thaw()
        before, end = cpu_seconds(pids), time.monotonic() + 10
        while cpu_seconds(pids) - before < 0.2 and time.monotonic() < end:  # on a loaded machine, in its turn
            time.sleep(0.05)
        thawed = cpu_seconds(pids) - before
        assert frozen <= 0.02, f"{found.describe()}: {frozen:.2f} s of CPU while frozen"
        assert thawed >= 0.2, f"{found.describe()}: only {thawed:.2f} s of CPU in 10 s once thawed"
    finally:
        group.kill()
        proc.wait(10)
        group.remove()
    assert not any(os.path.exists(f) for f in group.folders.values())
    try:  # killed too: its pidfd reads as ended
        assert select.select([child], [], [], 5)[0] == [child]
    finally:
        os.close(child)


#: Reads a byte, thinks 0.3 s, answers the frame {"a": 1}.
SLOW_ECHO = ("import sys, time\nsys.stdin.buffer.read(1)\ntime.sleep(0.3)\n"
             "sys.stdout.buffer.write(b'\\x81\\xa1a\\x01')\n")


@pytest.mark.parametrize("mode", ["v2", "off"])
def test_an_answered_bot_is_frozen_once_another_bot_is_waited_for(mode: str) -> None:
    """A bot that has answered is idle: it runs on only until the referee has waited FREEZE_AFTER for another bot."""
    found = need(mode)
    group = cgroups.BotGroup(found=found)
    spinner = subprocess.Popen([PY, "-c", "while True: pass"], preexec_fn=group.join, start_new_session=True)
    group.started(spinner.pid)
    other = ProcessTransport([PY, "-c", SLOW_ECHO])
    try:
        group.idle()
        assert idle.idle_pending() and not group.frozen
        other.send_raw(b"x", time.monotonic() + 5)
        assert other.receive(time.monotonic() + 5) == {"a": 1}  # 0.3 s later
        assert group.frozen and not idle.idle_pending()
        before = cpu_seconds([spinner.pid])
        time.sleep(0.5)
        assert cpu_seconds([spinner.pid]) - before <= 0.02
    finally:
        other.close()
        group.kill()
        spinner.wait(10)
        group.remove()


#: Writes a line on stderr every millisecond for 0.3 s, then answers the frame {"a": 1}.
CHATTY = ("import sys, time\nsys.stdin.buffer.read(1)\nend = time.monotonic() + 0.3\n"
          "while time.monotonic() < end:\n    sys.stderr.write('thinking\\n'); sys.stderr.flush(); time.sleep(0.001)\n"
          "sys.stdout.buffer.write(b'\\x81\\xa1a\\x01')\n")


def test_the_grace_is_not_restarted_by_the_waited_bots_output() -> None:
    """A bot waited for that writes on stderr every millisecond wakes the referee's wait each time: the answered
    bot is frozen all the same once 2 ms have passed (before, each wake-up restarted the grace: it ran on)."""
    found = need("v2")
    group = cgroups.BotGroup(found=found)
    spinner = subprocess.Popen([PY, "-c", "while True: pass"], preexec_fn=group.join, start_new_session=True)
    group.started(spinner.pid)
    other = ProcessTransport([PY, "-c", CHATTY])
    try:
        time.sleep(0.2)
        group.idle()
        before = cpu_seconds([spinner.pid])
        other.send_raw(b"x", time.monotonic() + 5)
        assert other.receive(time.monotonic() + 5) == {"a": 1}
        assert group.frozen and cpu_seconds([spinner.pid]) - before < 0.1
    finally:
        other.close()
        group.kill()
        spinner.wait(10)
        group.remove()


def test_the_signal_path_signals_no_pid_once_the_bot_is_gone() -> None:
    """Without cgroups the bot is signalled by pid: once its first process has exited (its pid free for another
    process), the group signals nothing, and lists nothing to kill."""
    group = cgroups.BotGroup(found=need("off"))
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    group.started(proc.pid)
    assert group.pids() == [proc.pid]
    proc.kill()
    proc.wait()
    assert group.pids() == []
    group.freeze()  # nothing to stop: no error, no signal
    group.kill()
    group.remove()


def test_a_bot_that_cannot_join_its_cgroup_starts_frozen_by_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joining the cgroup fails in the child (the cgroup was removed, or the kernel refuses): the bot starts all the
    same, frozen by signals, instead of a traceback or a sandbox turned off."""
    require_bwrap()
    need("v2")
    real_join = cgroups.BotGroup.join

    def join(self: cgroups.BotGroup) -> None:
        if self.folders:
            raise OSError(28, "No space left on device")
        real_join(self)

    monkeypatch.setattr(cgroups.BotGroup, "join", join)
    program = RemoteBot(lambda: ProcessTransport([PY, "-m", "bots.random"], popen=Sandbox().popen), name="random")
    try:
        program.start()
        assert isinstance(program.transport, ProcessTransport) and program.transport.group is not None
        assert program.transport.group.folders == {} and program.transport.group.support.version == "none"
        record = play_game(Durak(), [program, Watcher()], seed=4)
        assert record.faults == ()
    finally:
        program.close()


class Watcher:
    """An in-process bot that notes, each time it is asked, whether a program bot that answered still runs on."""

    name = "watcher"

    def __init__(self) -> None:
        self.seen: list[bool] = []

    def new_game(self, info: GameInfo) -> None:
        pass

    def act(self, decision: Decision) -> Action:
        self.seen.append(idle.idle_pending())
        return decision.legal[0]

    def game_over(self, result: Any) -> None:
        pass


def test_an_in_process_bot_never_thinks_beside_a_program_bot_that_answered() -> None:
    require_bwrap()
    need("v2")
    sandbox = Sandbox()
    program = RemoteBot(lambda: ProcessTransport([PY, "-m", "bots.random"], popen=sandbox.popen), name="random")
    watcher = Watcher()
    try:
        record = play_game(Durak(), [program, watcher], seed=3)
    finally:
        program.close()
    assert record.faults == () and len(watcher.seen) > 5 and not any(watcher.seen)


@pytest.mark.parametrize("mode", ["auto", "v2", "off"])
def test_a_cpu_thief_does_not_slow_its_opponent(mode: str) -> None:
    """The thief's spinners (8 processes of 2 threads, affinity widened) run only while it is asked: an honest bot
    with 30 ms of work a move answers well within its 1,000 ms, and is never charged a timeout."""
    require_bwrap()
    need("v1" if mode == "auto" else mode)
    result = play("-b", bot("cpu_thief.py", "8"), "-b", bot("honest.py", "30"), "--move-time", "1000",
                  cgroups_mode=mode)
    thief, honest = result["seats"]
    assert outcome(result)[0], thief["stderr"]
    assert honest["faults"] == []
    # the thief's main thread competes with its own 16 spinners once thawed: on a loaded machine it may miss its
    # own deadline, a fault it causes itself; it must not crash or be charged anything else
    assert {f["kind"] for f in thief["faults"]} <= {"timeout"}, thief["faults"]
    found = re.findall(r"HONEST max_ms=(\d+) work_ms=30 answers=(\d+)", honest["stderr"])
    assert found, honest["stderr"]
    longest, answers = map(int, found[-1])
    assert answers > 5 and longest < 1000, honest["stderr"]


def test_a_bot_cannot_widen_its_cores() -> None:
    """With the cpuset, a bot started on core 0 stays there, whatever affinity its processes ask for."""
    require_bwrap()
    need("v1")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: nothing to widen to")
    core = min(os.sched_getaffinity(0))
    done = subprocess.run(["taskset", "-c", str(core), PY, "-m", "referee", "play", "durak", "-b",
                           bot("cpu_thief.py", "1"), "-b", "random", "--seed", "5", "--json", "--sandbox", "on"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    ok, detail = outcome(json.loads(done.stdout))
    assert ok and f"on cores [{core}] of" in detail, detail
    off = subprocess.run(["taskset", "-c", str(core), PY, "-m", "referee", "play", "durak", "-b",
                          bot("cpu_thief.py", "1"), "-b", "random", "--seed", "5", "--json", "--sandbox", "off"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    ok, detail = outcome(json.loads(off.stdout))
    assert ok and f"on cores [{core}] of" not in detail, detail  # unconfined, it widens (docs/SECURITY.md)


@pytest.mark.parametrize("mode", ["auto", "v1", "v2", "off"])
def test_a_referee_killed_while_its_bot_is_frozen_leaves_nothing(mode: str, token: str) -> None:  # noqa: F811
    """SIGKILL of the referee while its bot is frozen (its opponent thinks 400 ms a move): the v2 freezer lets the
    fatal signal through, and the signals' SIGSTOP does too; a task frozen by the v1 freezer waits to be thawed, which
    the next referee to start on the machine does for the cgroups of referees that are gone."""
    require_bwrap()
    need("v1" if mode == "auto" else mode)
    args = ["play", "durak", "-b", bot("orphan.py", token, "--ignore-eof"), "-b", bot("honest.py", "400"),
            "--seed", "1", "--sandbox", "on", "--move-time", "5000"]
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([PY, "-m", "referee", *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
                            start_new_session=True, env={**os.environ, cgroups.MODE_ENV: mode})
    try:
        started = grandchild_started(token)
        err.seek(0)
        assert started, f"the bot did not start its grandchild: {err.read().decode()[-2000:]}"
        time.sleep(0.2)  # the honest bot thinks: the orphan bot, which answered at once, is frozen
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    if mode == "v1":
        subprocess.run([PY, "-c", "from referee import cgroups; cgroups.detect('v1')"], cwd=ROOT, check=True,
                       timeout=30)
    assert settle(token, 5.0) == []


# -------------------------------------------------------------------------------------------------- memory


@pytest.mark.parametrize("how", ["memfd", "shm"])
def test_memory_outside_the_address_space_counts(how: str) -> None:
    """1,000 MB held in memfd files (or /dev/shm) under --bot-memory 100: the kernel kills the bot, a crash that
    says why. Without the sandbox the same bot holds it all (its RSS a few MB)."""
    require_bwrap()
    need("v1")
    size = "1000" if how == "memfd" else "60"  # /dev/shm holds --bot-file-size (64 MB): 60 MB fit there
    result = play("-b", bot("memfd.py", how, size), "-b", "random", "--bot-memory", "100" if how == "memfd" else "40")
    faults = result["seats"][0]["faults"]
    assert [f["kind"] for f in faults] == ["crash"], result["seats"][0]
    assert "over its memory limit" in faults[0]["message"] and "--bot-memory" in faults[0]["message"]
    if how == "memfd":
        off = play("-b", bot("memfd.py", how, "300"), "-b", "random", "--bot-memory", "100", sandbox="off")
        ok, detail = outcome(off)
        assert ok and "held 300 MB" in detail, detail


def test_without_cgroups_memfd_escapes_the_limit() -> None:
    """The fallback (no cgroups): --bot-memory bounds each process's address space only (docs/SECURITY.md)."""
    require_bwrap()
    result = play("-b", bot("memfd.py", "memfd", "200"), "-b", "random", "--bot-memory", "100",
                  cgroups_mode="off")
    ok, detail = outcome(result)
    assert ok and "held 200 MB" in detail, detail


# ----------------------------------------------------------------------------------------------- processes


@pytest.mark.skipif(os.geteuid() != 0, reason="as an ordinary user the kernel's RLIMIT_NPROC holds already")
def test_the_process_limit_holds_for_a_root_referee() -> None:
    """The pids cgroup bounds a root referee's bot, which RLIMIT_NPROC does not (it never counts uid 0)."""
    require_bwrap()
    need("v1")
    ok, detail = outcome(play("-b", bot("hog.py", "processes", "100"), "-b", "random", "--bot-processes", "20"))
    assert not ok and "started" in detail, detail
    started = int(re.search(r"started (\d+)", detail).group(1))  # type: ignore[union-attr]
    assert started < 20, detail
    ok, detail = outcome(play("-b", bot("hog.py", "processes", "100"), "-b", "random", "--bot-processes", "20",
                              cgroups_mode="off"))
    assert ok and "started 100" in detail, detail  # without cgroups, as root: nothing bounds it


# ---------------------------------------------------------------------------------------- saying which ones


@pytest.mark.parametrize(("mode", "expected"), [
    ("auto", "cgroup v1: memory (all the bot's processes), process count, CPU set; cgroup v2: freezing (cgroup "
             "freezer)"),
    ("v1", "cgroup v1: memory (all the bot's processes), process count, CPU set, freezing (cgroup freezer)"),
    ("v2", "cgroup v2: freezing (cgroup freezer)"),
    ("off", "no cgroups: freezing (signals)"),
])
def test_play_check_and_tournament_say_which_protections_are_on(mode: str, expected: str, tmp_path: Path) -> None:
    require_bwrap()
    need("v1" if mode == "auto" else mode)
    if mode == "auto":
        need("v2")
    random_bot = f"cmd:{PY} -m bots.random"
    played = referee("play", "durak", "-b", random_bot, "-b", "random", "--seed", "1", "--sandbox", "on",
                     cgroups_mode=mode)
    checked = referee("check", random_bot, "--game", "durak", "--cases", "1", "--sandbox", "on", cgroups_mode=mode)
    run = referee("tournament", "run", "durak", "-b", random_bot, "-b", "random", "--games", "1", "--db",
                  str(tmp_path / "t.db"), "-w", "1", cgroups_mode=mode)
    for done in (played, checked, run):
        assert done.returncode == 0, done.stderr
    assert f"protections: sandbox on (bwrap); {expected}" in played.stderr
    assert f"protections: sandbox on (bwrap); {expected}" in checked.stdout
    assert f"protections: sandbox on (bwrap); {expected}" in run.stderr


def test_play_says_no_protections_with_the_sandbox_off() -> None:
    """Once, not for each cgroups mode: with the sandbox off the mode plays no part."""
    off = referee("play", "durak", "-b", f"cmd:{PY} -m bots.random", "-b", "random", "--seed", "1", "--sandbox", "off")
    assert "protections: sandbox off: no limits, no freezing" in off.stderr


def test_no_bot_cgroup_is_left_behind() -> None:
    """Each bot's cgroups go with the bot: after a game with a spinner and a hoarder, none of this referee's is left."""
    require_bwrap()
    found = need("v1")
    proc = subprocess.Popen([PY, "-m", "referee", "play", "durak", "-b", bot("cpu_thief.py", "2"), "-b",
                             bot("memfd.py", "memfd", "10"), "--seed", "3", "--sandbox", "on"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    left = [name for folder in set(found.dirs.values()) for name in os.listdir(folder)
            if name.startswith(f"referee-bot-{proc.pid}-")]
    assert left == []
