"""Kernel cgroups for sandboxed program bots: each bot's whole process tree in a cgroup of its own
(docs/SECURITY.md, "Fair play").

A :class:`BotGroup` is made when a bot process starts and removed when it ends (once per bot start, not per game).
The bot joins it between fork and exec (:meth:`BotGroup.join`, run by ``preexec_fn``), so everything it starts is in
it too. What the group does depends on what this machine offers, found once per process by :func:`support`:

- **memory**: everything the bot's processes hold (anonymous memory, memfd files, shared memory, the pages of its
  private ``/tmp``) counts against ``--bot-memory``; over it the kernel kills the bot, and the referee reports a
  ``crash`` that says so (:meth:`BotGroup.out_of_memory`);
- **pids**: ``--bot-processes`` holds for a root referee too (RLIMIT_NPROC does not count uid 0);
- **cpuset**: the bot runs on the cores the referee (or its worker) was given when the bot started, and cannot
  widen its CPU affinity beyond them;
- **freezer**: :meth:`BotGroup.freeze` stops every process of the bot from its answer until its next request, so a
  bot cannot think, or spin, on its opponents' time.

Two kinds of cgroup file system are supported: **v1**, with the ``freezer``, ``memory``, ``pids`` and ``cpuset``
hierarchies each mounted and writable (as root), and **v2**, in the referee's own cgroup when it may write there (a
delegated subtree): freezing and killing are part of every v2 cgroup, the limits need the ``memory``, ``pids`` and
``cpuset`` controllers enabled for the referee's children (a referee alone in its cgroup, as under ``systemd-run
--scope -p Delegate=yes``, moves itself into a leaf and enables them). Where no cgroup can be made, the bot is
frozen with signals: SIGSTOP and SIGCONT to every process descending from it (with the sandbox, orphans stay in
that tree: the sandbox's PID 1 adopts them); the limits are then only the sandbox's per-process ones.

:func:`Support.describe` is the one line ``play``, ``check`` and the tournament header print.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import select
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import ConfigError
from .idle import IDLE
from .proctree import descendants

__all__ = ["Support", "BotGroup", "support", "detect", "describe", "FREEZE_AFTER",
           "MODES", "MODE_ENV", "ROOT_ENV"]

#: Where the cgroup file systems are looked for (tests point it at a fake tree).
ROOT_ENV = "REFEREE_CGROUP_ROOT"
#: ``REFEREE_CGROUPS=off`` (or ``v1``, ``v2``): use no cgroups (or only that kind); for tests and odd machines.
MODE_ENV = "REFEREE_CGROUPS"
MODES = ("auto", "v1", "v2", "off")
_PREFIX = "referee-bot-"
_V1_CONTROLLERS = ("freezer", "memory", "pids", "cpuset")
_MB = 1024 * 1024
#: No cgroup freezer: how often (at most) /proc is scanned for processes that left the bot's process group.
STRAY_SCAN_SECONDS = 1.0
#: A bot that has answered runs on for at most this long while the referee waits for another bot's answer; then it
#: is frozen until its next request. Bots that answer within it (most, most of the time) are never frozen: that saves
#: the two cgroup writes, and the bot's two extra wake-ups, of every decision (benchmarks/protocol_overhead.py (d)).
FREEZE_AFTER = 0.002


_counter = itertools.count()


@dataclass(frozen=True)
class Support:
    """What this machine's cgroups give a bot: ``dirs`` maps each usable controller (``freezer``, ``memory``,
    ``pids``, ``cpuset``) to the folder the bots' cgroups are made in, ``kinds`` each to the kind of its hierarchy
    (``v1``, or ``v2``: one folder for every v2 controller). A v1 machine that also has a writable v2 hierarchy freezes
    there: a fatal signal kills a task frozen by the v2 freezer, not one frozen by v1's."""

    dirs: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    why: str = ""  # why there are no cgroups, or why some controller is missing

    @property
    def version(self) -> str:
        """``v1``, ``v2``, ``v1+v2`` (v1's controllers, v2's freezer) or ``none``."""
        found = sorted(set(self.kinds.values()))
        return "+".join(found) if found else "none"

    @property
    def freezer(self) -> bool:
        return "freezer" in self.dirs

    def kind(self, controller: str) -> str:
        return self.kinds.get(controller, "")

    def describe(self) -> str:
        """One line: which protections a sandboxed bot gets here."""
        words = {"memory": "memory (all the bot's processes)", "pids": "process count", "cpuset": "CPU set",
                 "freezer": "freezing (cgroup freezer)"}
        parts = []
        for kind in ("v1", "v2"):
            names = [words[c] for c in words if self.kinds.get(c) == kind]
            if names:
                parts.append(f"cgroup {kind}: {', '.join(names)}")
        if not self.freezer:
            parts.append(("" if parts else "no cgroups: ") + "freezing (signals)")
        line = "; ".join(parts)
        return f"{line}; {self.why}" if self.why else line


def describe(enabled: bool) -> str:
    """The protections line for a run whose program bots are sandboxed (``enabled``) or not."""
    if not enabled:
        return "sandbox off: no limits, no freezing"
    return f"sandbox on (bwrap); {support().describe()}"


# ------------------------------------------------------------------------------------------------ detection


def _root() -> str:
    return os.environ.get(ROOT_ENV, "/sys/fs/cgroup")


def _mounts(root: str) -> list[tuple[str, str, set[str]]]:
    """(mount point, file system type, super options) of the cgroup file systems under ``root``."""
    found = []
    if os.environ.get(ROOT_ENV):  # a fake tree: folders named like the controllers they hold, ``unified`` for v2
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if os.path.isdir(path):
                found.append((path, "cgroup2" if name == "unified" else "cgroup", set(name.split(","))))
        return found
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    for line in lines:
        head, _, tail = line.partition(" - ")
        parts, rest = head.split(), tail.split()
        if len(parts) < 5 or len(rest) < 3 or rest[0] not in ("cgroup", "cgroup2"):
            continue
        point = parts[4].replace("\\040", " ")
        if _within(point, root):
            found.append((point, rest[0], set(rest[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """This process's cgroup in each hierarchy: controller (or ``""`` for v2) to path."""
    if os.environ.get(ROOT_ENV):
        return {}
    paths: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for line in f.read().splitlines():
                _, controllers, path = line.split(":", 2)
                for name in (controllers.split(",") if controllers else [""]):
                    paths[name] = path
    except (OSError, ValueError):
        pass
    return paths


def _writable(folder: str) -> bool:
    return os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK) and os.access(
        os.path.join(folder, "cgroup.procs"), os.W_OK)


def _v1(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> Support | None:
    dirs = {}
    for point, fstype, options in mounts:
        if fstype != "cgroup":
            continue
        for name in _V1_CONTROLLERS:
            if name in options and name not in dirs:
                folder = os.path.normpath(point + own.get(name, "/"))
                if _writable(folder):
                    dirs[name] = folder
    if not dirs:
        return None
    missing = [name for name in _V1_CONTROLLERS if name not in dirs]
    return Support(dirs, dict.fromkeys(dirs, "v1"), f"not writable or not mounted: {', '.join(missing)}"
                   if missing else "")


def _v2(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> Support | None:
    point = next((p for p, fstype, _ in mounts if fstype == "cgroup2"), None)
    if point is None:
        return None
    base = os.path.normpath(point + own.get("", "/"))
    if not _writable(base) or not os.path.exists(os.path.join(base, "cgroup.procs")):
        return None
    wanted = ["memory", "pids", "cpuset"]
    available = _read(os.path.join(base, "cgroup.controllers")).split()
    enabled = set(_read(os.path.join(base, "cgroup.subtree_control")).split())
    missing = [c for c in wanted if c in available and c not in enabled]
    if missing:
        enabled |= _enable(base, missing)
    controllers = [c for c in wanted if c in enabled]
    dirs = {"freezer": base, **{c: base for c in controllers}}
    absent = [c for c in wanted if c not in controllers]
    why = f"controllers not delegated to the referee's cgroup: {', '.join(absent)}" if absent else ""
    return Support(dirs, dict.fromkeys(dirs, "v2"), why)


def _enable(base: str, controllers: list[str]) -> set[str]:
    """Enable ``controllers`` for the children of ``base`` (v2). A cgroup with processes of its own cannot: when the
    referee is alone there (a delegated scope of its own), it first moves itself into a leaf, ``referee-<pid>``."""
    control = os.path.join(base, "cgroup.subtree_control")

    def attempt() -> set[str]:
        done = set()
        for name in controllers:
            try:
                _write(control, f"+{name}")
                done.add(name)
            except OSError:
                pass
        return done

    done = attempt()
    if done or _read(os.path.join(base, "cgroup.procs")).split() != [str(os.getpid())]:
        return done
    leaf = os.path.join(base, f"referee-{os.getpid()}")
    try:
        os.makedirs(leaf, exist_ok=True)
        _write(os.path.join(leaf, "cgroup.procs"), str(os.getpid()))
    except OSError:
        return set()
    return attempt()


@functools.cache
def support() -> Support:
    """What the cgroups of this machine give a bot (once per process); ``REFEREE_CGROUPS`` (``auto``, ``v1``,
    ``v2``, ``off``) narrows the choice."""
    return detect(os.environ.get(MODE_ENV, "auto"))


def detect(mode: str = "auto") -> Support:
    """What the cgroups of this machine give a bot: ``auto`` the best there is (each controller from v1 where v1 has
    it writable, else from v2 where the referee may write; the freezer from v2 where there is one), ``v1`` or ``v2``
    that kind only, ``off`` none."""
    if mode not in MODES:
        raise ConfigError(f"{MODE_ENV} takes {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return Support(why=f"{MODE_ENV}=off")
    root = _root()
    mounts, own = _mounts(root), _own_paths()
    if not mounts:
        return Support(why=f"no cgroup file system at {root}")
    v1 = _v1(mounts, own) if mode in ("auto", "v1") else None
    v2 = _v2(mounts, own) if mode in ("auto", "v2") else None
    if v1 is None and v2 is None:
        return Support(why="no cgroup the referee may write (run as root, or in a delegated cgroup v2)")
    if v1 is None or v2 is None:
        found = v1 or v2
    else:  # each controller from v1 where it is there, else from v2; the freezer from v2 (fatal signals pass it)
        dirs, kinds = {}, {}
        for controller in ("memory", "pids", "cpuset", "freezer"):
            first, second = (v2, v1) if controller == "freezer" else (v1, v2)
            chosen = first if controller in first.dirs else second if controller in second.dirs else None
            if chosen is not None:
                dirs[controller], kinds[controller] = chosen.dirs[controller], chosen.kinds[controller]
        missing = [c for c in ("memory", "pids", "cpuset") if c not in dirs]
        found = Support(dirs, kinds, f"missing: {', '.join(missing)}" if missing else "")
    assert found is not None
    _sweep(found, v1.dirs.get("freezer") if v1 is not None else None)
    return found


def _sweep(found: Support, v1_freezer: str | None = None) -> None:
    """Remove the cgroups of bots whose referee is gone (one SIGKILLed has no time to). Their processes are killed,
    and the folders of a v1 freezer (``v1_freezer``, if it is not the one in use) thawed first: a task frozen by the v1
    freezer does not die of its SIGKILL until it is thawed."""
    folders = [("freezer", v1_freezer)] if v1_freezer and v1_freezer != found.dirs.get("freezer") else []
    folders += sorted(found.dirs.items(), key=lambda item: item[0] != "freezer")
    for controller, folder in folders:
        try:
            names = [n for n in os.listdir(folder) if n.startswith(_PREFIX)]
        except OSError:
            continue
        for name in names:
            owner = name[len(_PREFIX):].partition("-")[0]
            if not owner.isdigit() or _alive(int(owner)):
                continue
            path = os.path.join(folder, name)
            for pid in _read(os.path.join(path, "cgroup.procs")).split():
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            state = os.path.join(path, "freezer.state")
            if controller == "freezer" and os.path.exists(state):
                with contextlib.suppress(OSError):
                    _write(state, "THAWED")
            deadline = time.monotonic() + 1.0
            while _read(os.path.join(path, "cgroup.procs")) and time.monotonic() < deadline:
                time.sleep(0.01)
            with contextlib.suppress(OSError):
                os.rmdir(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ------------------------------------------------------------------------------------------------ one bot


class BotGroup:
    """The cgroup(s) of one bot process tree, or, where there are none, its freezing by signals.

    ``memory_mb`` and ``processes`` are the limits (0: none); ``cpus`` the cores it may run on (the referee's own
    affinity at the start, by default). Made before the bot starts; :meth:`join` runs in the child before exec;
    :meth:`started` is told the child's pid."""

    def __init__(self, *, memory_mb: int = 0, processes: int = 0, cpus: Iterable[int] | None = None,
                 found: Support | None = None) -> None:
        self.support = found if found is not None else support()
        self.memory_mb = memory_mb
        self.folders: dict[str, str] = {}
        self.pid: int | None = None
        self._frozen = False
        self._strays: dict[int, int] = {}  # no cgroup freezer: pidfds of the bot's processes outside its group
        self._root_fd: int | None = None  # no cgroups: a pidfd of the bot's first process
        self._scanned = -STRAY_SCAN_SECONDS  # when /proc was last scanned for them
        self._procs: list[bytes] = []  # encoded paths of the cgroup.procs files joined before exec
        self._freeze_fd: int | None = None
        self._v1_freezer = False
        name = f"{_PREFIX}{os.getpid()}-{next(_counter)}"
        try:
            self._make(name, memory_mb, processes, cpus)
        except OSError:
            self.remove()  # a half-made group is no group: freeze by signals, the sandbox's limits hold
            self.folders = {}
            self._procs = []

    def _make(self, name: str, memory_mb: int, processes: int, cpus: Iterable[int] | None) -> None:
        for controller, parent in self.support.dirs.items():
            folder = os.path.join(parent, name)
            if folder not in self.folders.values():
                os.mkdir(folder)
                self._procs.append(os.fsencode(os.path.join(folder, "cgroup.procs")))
            self.folders[controller] = folder
        if "cpuset" in self.folders:
            folder, parent = self.folders["cpuset"], self.support.dirs["cpuset"]
            wanted = set(cpus if cpus is not None else os.sched_getaffinity(0))
            allowed = _cpu_list(_read(os.path.join(parent, "cpuset.effective_cpus")) or
                                _read(os.path.join(parent, "cpuset.cpus")))
            chosen = sorted(wanted & allowed if allowed else wanted) or sorted(allowed)
            if self.support.kind("cpuset") == "v1":  # a v1 cpuset starts empty: no process before cores and nodes
                mems = _read(os.path.join(parent, "cpuset.effective_mems")) or _read(
                    os.path.join(parent, "cpuset.mems"))
                _write(os.path.join(folder, "cpuset.mems"), mems)
            _write(os.path.join(folder, "cpuset.cpus"), ",".join(map(str, chosen)))
        if "memory" in self.folders and memory_mb:
            folder, limit = self.folders["memory"], str(memory_mb * _MB)
            if self.support.kind("memory") == "v1":
                _write(os.path.join(folder, "memory.limit_in_bytes"), limit)
                swap = os.path.join(folder, "memory.memsw.limit_in_bytes")
                if os.path.exists(swap):  # no way out through swap
                    _write(swap, limit)
            else:
                _write(os.path.join(folder, "memory.max"), limit)
                swap = os.path.join(folder, "memory.swap.max")
                if os.path.exists(swap):
                    _write(swap, "0")
        if "pids" in self.folders and processes:
            _write(os.path.join(self.folders["pids"], "pids.max"), str(processes))
        if "freezer" in self.folders:
            self._v1_freezer = self.support.kind("freezer") == "v1"
            state = "freezer.state" if self._v1_freezer else "cgroup.freeze"
            self._freeze_fd = os.open(os.path.join(self.folders["freezer"], state),
                                      os.O_WRONLY | os.O_CLOEXEC | os.O_CREAT, 0o644)

    # -------------------------------------------------------------------------------------------- start

    def join(self) -> None:
        """Move the calling process into the group: run in the child, between fork and exec."""
        for path in self._procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def started(self, pid: int) -> None:
        self.pid = pid
        if not self.folders:  # the signal path signals by pid: through the root's pidfd, it knows when that is unsafe
            with contextlib.suppress(OSError):
                self._root_fd = os.pidfd_open(pid)

    def _root_gone(self) -> bool:
        """Has the bot's first process exited (its pid, and so its process group's, may then be reused)?"""
        if self._root_fd is None:
            return self.pid is None
        return bool(select.select([self._root_fd], [], [], 0)[0])

    # ------------------------------------------------------------------------------------------- freezing

    @property
    def frozen(self) -> bool:
        return self._frozen

    def idle(self) -> None:
        """The bot has answered (or timed out): it is frozen by :func:`referee.idle.freeze_idle` once another bot
        has been waited for :data:`FREEZE_AFTER`, or before an in-process bot is asked, or by :meth:`freeze`."""
        if not self._frozen and self.pid is not None:
            IDLE.groups[id(self)] = self

    def freeze(self) -> None:
        """Stop every process of the bot (not waiting for the kernel to finish: a frozen bot runs no more)."""
        IDLE.groups.pop(id(self), None)
        if self._frozen or self.pid is None:
            return
        self._frozen = True
        if self._freeze_fd is not None:
            with contextlib.suppress(OSError):  # the group is gone: so is the bot (its fault is found elsewhere)
                os.write(self._freeze_fd, b"FROZEN" if self._v1_freezer else b"1")
            return
        self._signal_freeze()

    def thaw(self) -> None:
        IDLE.groups.pop(id(self), None)  # asked again before it was frozen: nothing to write
        if not self._frozen:
            return
        self._frozen = False
        if self._freeze_fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._freeze_fd, b"THAWED" if self._v1_freezer else b"0")
            return
        assert self.pid is not None
        if not self._root_gone():
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGCONT)
        for stray in self._strays.values():
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(stray, signal.SIGCONT)

    def _signal_freeze(self) -> None:
        """No cgroup freezer: SIGSTOP to the bot's process group (the sandbox's whole tree, one system call), and,
        at most once a second, a scan of /proc for the processes of its tree that left the group (``setsid``), which
        are stopped with it from then on."""
        assert self.pid is not None
        if self._root_gone():  # its pid, its group's, may be another's now: the sandbox's PID 1 took the rest along
            return
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGSTOP)
        now = time.monotonic()
        if now - self._scanned >= STRAY_SCAN_SECONDS:
            self._scanned = now
            self._close_strays()
            for _ in range(4):  # again until none is new: one may start between a scan and its parent's stop
                found = [pid for pid in descendants(self.pid) if pid not in self._strays and _pgid(pid) != self.pid]
                for pid in found:
                    with contextlib.suppress(OSError):
                        self._strays[pid] = os.pidfd_open(pid)  # signalled through it: never a reused pid
                        signal.pidfd_send_signal(self._strays[pid], signal.SIGSTOP)
                if not found:
                    break
        else:
            for stray in self._strays.values():
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(stray, signal.SIGSTOP)

    def _close_strays(self) -> None:
        for stray in self._strays.values():
            with contextlib.suppress(OSError):
                os.close(stray)
        self._strays = {}

    # ---------------------------------------------------------------------------------------------- end

    def out_of_memory(self) -> bool:
        """Has the kernel killed a process of the bot for going over its memory limit?"""
        folder = self.folders.get("memory")
        if folder is None:
            return False
        name = "memory.oom_control" if self.support.kind("memory") == "v1" else "memory.events"
        for line in _read(os.path.join(folder, name)).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                return True
        return False

    def pids(self) -> list[int]:
        """Every process in the group (or, with no group, in the bot's tree)."""
        folder = next(iter(self.folders.values()), None)
        if folder is None:
            return [] if self._root_gone() else descendants(self.pid) if self.pid is not None else []
        return [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split()]

    def kill(self) -> None:
        """SIGKILL every process of the bot, the ones that left its process group too; frozen ones die thawed."""
        if self.support.kind("freezer") == "v2" and self.folders:
            try:
                _write(os.path.join(self.folders["freezer"], "cgroup.kill"), "1")  # Linux 5.14
                return
            except OSError:
                pass
        self.freeze()  # no new process between the listing and the kill
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.thaw()  # a task frozen by the v1 freezer dies of its SIGKILL only once thawed

    def remove(self, wait: float = 2.0) -> None:
        """Remove the group's folders, once its processes are gone (waiting up to ``wait`` seconds)."""
        IDLE.groups.pop(id(self), None)
        if self._root_fd is not None:
            os.close(self._root_fd)
            self._root_fd = None
        self._close_strays()
        if self._freeze_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._freeze_fd)
            self._freeze_fd = None
        end = time.monotonic() + wait
        for folder in sorted(set(self.folders.values()), reverse=True):
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > end:
                        break
                    time.sleep(0.005)
        self.folders = {}


# ------------------------------------------------------------------------------------------------ helpers


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return ""


def _write(path: str, text: str) -> None:
    """Write a cgroup file (O_CREAT for the fake trees of the tests: a cgroup file system makes no file)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _cpu_list(text: str) -> set[int]:
    """``0-3,6`` as {0, 1, 2, 3, 6}."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if low.isdigit():
            cpus.update(range(int(low), int(high if high.isdigit() else low) + 1))
    return cpus


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
