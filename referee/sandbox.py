"""The sandbox of program bots: each bot process runs under bubblewrap (``bwrap``), docs/SECURITY.md.

A :class:`Sandbox` starts a bot's command (``popen``, given to :class:`~referee.transport.ProcessTransport`)
inside ``bwrap`` with: its own PID, network, IPC, UTS, cgroup and user namespaces (it sees and signals only its
own processes, has no network, and every process it starts dies with it: bwrap is PID 1 of the namespace and
dies with its parent, the referee); a fresh ``/proc`` (the referee's command line, environment and open files
are not in it); a minimal ``/dev``; a read-only file system made of the system folders (``/usr``, ``/bin``,
``/sbin``, ``/lib*``, ``/etc`` without its secrets), the program's installation (the folder above the ``bin`` of
the interpreter or program, along its symlinks and ``#!`` line), the bot's folder, and the referee's SDK and
built-in bots; the referee's files under them (the tournament database and its ``-wal``/``-shm``, a record
being written) read as empty; a private writable ``/tmp`` (tmpfs); an environment of ``PATH``, ``LANG``,
``LANGUAGE``, ``LC_*``, ``TZ``, ``HOME=/tmp``, ``TMPDIR=/tmp`` and what ``--bot-env`` passes on purpose; and
limits on its address space, processes and file size (setrlimit, inherited by everything it starts).

The bot's folder is the folder of its script (the first argument naming a file, or the program itself when it
is a path); a ``-m MODULE`` or a bare command on PATH has the current folder. The bot's working folder is the
referee's, as without the sandbox. ``Sandbox(enabled=False)`` starts bots as they are (the referee's whole
environment, plus ``--bot-env``), with no limits.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .dealkey import secret_path
from .errors import ConfigError

if TYPE_CHECKING:  # loaded when a sandboxed bot starts: a run of in-process bots needs none of it
    from .cgroups import BotGroup

__all__ = ["MODES", "Sandbox", "BotProcess", "probe", "resolve", "DEFAULT_MEMORY_MB", "DEFAULT_PROCESSES",
           "DEFAULT_FILE_SIZE_MB", "ENV_ALLOWED"]

MODES = ("auto", "on", "off")
#: Address space of each bot process (RLIMIT_AS), MB; 0 is no limit.
DEFAULT_MEMORY_MB = 2048
#: Processes and threads of one sandbox (RLIMIT_NPROC, set inside it; the kernel does not enforce it for root).
DEFAULT_PROCESSES = 256
#: The largest file a bot may write (RLIMIT_FSIZE), and the size of its /tmp, MB.
DEFAULT_FILE_SIZE_MB = 64
#: Variables a sandboxed bot gets from the referee's environment (and every ``LC_*``).
ENV_ALLOWED = ("PATH", "LANG", "LANGUAGE", "TZ")
_ENV_SET = {"HOME": "/tmp", "TMPDIR": "/tmp"}

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: Inside /etc: what a bot running as the referee's user (root, too) must not read.
_ETC_SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
                "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd",
                "/etc/NetworkManager/system-connections", "/etc/wireguard", "/etc/krb5.keytab",
                "/etc/letsencrypt", "/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets")
_PREFIX_DIRS = ("bin", "sbin", "shims")
_MB = 1024 * 1024


@dataclass(frozen=True)
class Sandbox:
    """How program bots are started. Picklable: worker processes get it with their configuration."""

    enabled: bool = True
    memory_mb: int = DEFAULT_MEMORY_MB
    processes: int = DEFAULT_PROCESSES
    file_size_mb: int = DEFAULT_FILE_SIZE_MB
    env: tuple[str, ...] = ()  # --bot-env: NAME=VALUE, or NAME (the referee's value)
    hidden: tuple[str, ...] = field(default=(), compare=False)  # referee files: read as empty if visible

    # ---------------------------------------------------------------------------------- configuration

    def settings(self) -> dict[str, Any]:
        """What a tournament stores (``hidden`` belongs to the run, not the tournament)."""
        data = asdict(self)
        data.pop("hidden")
        data["mode"] = "on" if data.pop("enabled") else "off"
        data["env"] = list(self.env)
        return data

    @classmethod
    def from_settings(cls, data: Mapping[str, Any], *, hidden: Iterable[str] = ()) -> Sandbox:
        try:
            return cls(enabled=data["mode"] == "on", memory_mb=int(data["memory_mb"]),
                       processes=int(data["processes"]), file_size_mb=int(data["file_size_mb"]),
                       env=tuple(str(e) for e in data["env"]), hidden=tuple(hidden))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the stored sandbox settings are damaged ({type(exc).__name__}: {exc})") from exc

    def with_hidden(self, paths: Iterable[str | Path]) -> Sandbox:
        return Sandbox(self.enabled, self.memory_mb, self.processes, self.file_size_mb, self.env,
                       tuple(str(p) for p in paths))

    def extra_env(self) -> dict[str, str]:
        """The ``--bot-env`` variables with their values."""
        extra: dict[str, str] = {}
        for item in self.env:
            name, eq, value = item.partition("=")
            if eq:
                extra[name] = value
            elif name in os.environ:
                extra[name] = os.environ[name]
        return extra

    def environment(self) -> dict[str, str]:
        """A sandboxed bot's whole environment."""
        env = {k: v for k, v in os.environ.items() if k in ENV_ALLOWED or k.startswith("LC_")}
        env.setdefault("PATH", os.defpath)
        env.update(_ENV_SET)
        env.update(self.extra_env())
        return env

    # ------------------------------------------------------------------------------------------ start

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(argv, **kwargs)``, in the sandbox when enabled (``env`` is replaced)."""
        if not self.enabled:
            extra = self.extra_env()
            if extra:
                kwargs["env"] = {**(kwargs.get("env") or os.environ), **extra}
            return subprocess.Popen(argv, **kwargs)
        bwrap = _bwrap()
        if bwrap is None:
            raise ConfigError("the sandbox needs bwrap (bubblewrap), which is not installed")
        cwd = os.path.abspath(kwargs.pop("cwd", None) or os.getcwd())
        kwargs.pop("env", None)
        env = self.environment()
        program = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=env["PATH"])
        if program is None or not os.path.isfile(os.path.join(cwd, program)):  # as Popen would say it
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        if not os.access(os.path.join(cwd, program), os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), argv[0])
        hidden = hidden_paths(argv, cwd, env["PATH"])
        if hidden:  # the bot would fail with "No such file or directory", which does not say why
            raise FileNotFoundError(errno.ENOENT, hidden_line(hidden[0], _bot_folder(argv, cwd)))
        options = self.options(argv, cwd, env["PATH"])
        # The options go through a memfd: bwrap's own command line (/proc/1/cmdline inside) stays short.
        from .cgroups import BotGroup, Support

        fd = os.memfd_create("referee-bwrap-args")
        group = BotGroup(memory_mb=self.memory_mb, processes=self.processes)
        # A session of its own, without a terminal (so bwrap's --new-session is not needed: without it the bot
        # stays in bwrap's process group, which the freezing by signals stops in one call, referee/cgroups.py).
        kwargs["start_new_session"] = True
        command = [bwrap, "--args", str(fd), "--", *self._inside(), *argv]

        def start(group: BotGroup) -> BotProcess:
            os.lseek(fd, 0, os.SEEK_SET)
            return BotProcess(command, env=env, pass_fds=(fd,), preexec_fn=_limiter(self._limits(), group.join),
                              **kwargs)

        try:
            os.write(fd, b"".join(os.fsencode(o) + b"\0" for o in options))
            try:
                proc = start(group)
            except subprocess.SubprocessError:  # preexec_fn failed: joining the cgroup (gone, or refused)
                group.remove()
                group = BotGroup(found=Support(why="the bot could not join its cgroup"))  # frozen by signals
                proc = start(group)
        except BaseException:
            group.remove()
            raise
        finally:
            os.close(fd)
        proc.group = group
        group.started(proc.pid)
        return proc

    def _inside(self) -> list[str]:
        """What runs the bot inside the sandbox: ``prlimit --nproc=N --`` (util-linux). The process limit is set
        there, once bwrap has made the user namespace: the kernel then counts the processes of that namespace
        only, not every process of the referee's user (a desktop session has hundreds)."""
        prlimit = _prlimit()
        return [prlimit, f"--nproc={self.processes}", "--"] if self.processes and prlimit else []

    def _limits(self) -> list[tuple[int, int]]:
        wanted = [(resource.RLIMIT_CORE, 0)]
        if self.memory_mb:
            wanted.append((resource.RLIMIT_AS, self.memory_mb * _MB))
        if self.processes and not _prlimit():  # no prlimit: on bwrap, counting all the user's processes
            wanted.append((resource.RLIMIT_NPROC, self.processes))
        if self.file_size_mb:
            wanted.append((resource.RLIMIT_FSIZE, self.file_size_mb * _MB))
        limits = []
        for which, value in wanted:  # never above the hard limit the referee itself has
            hard = resource.getrlimit(which)[1]
            limits.append((which, value if hard == resource.RLIM_INFINITY else min(value, hard)))
        return limits

    def options(self, argv: Sequence[str], cwd: str, path: str) -> list[str]:
        """bwrap's options for ``argv`` started in ``cwd`` (``path``: the bot's PATH)."""
        size = ["--size", str(self.file_size_mb * _MB)] if self.file_size_mb else []
        # /proc and /dev read-only: a bot that is uid 0 (a root referee) could otherwise write the host's sysctls
        # in /proc/sys (core_pattern, pid_max: sysctl permissions look at the uid, not at capabilities), and
        # bwrap's /dev is a tmpfs with no size limit. /dev/shm (POSIX shared memory, semaphores) is a tmpfs of
        # its own, as bounded as /tmp.
        opts = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
                "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", *size, "--tmpfs", "/dev/shm",
                "--remount-ro", "/dev", *size, "--tmpfs", "/tmp"]
        for link in _SYSTEM:  # merged /usr: /bin -> usr/bin, /lib64 -> usr/lib64 …
            if os.path.islink(link) and os.path.isdir(link):
                opts += ["--symlink", os.readlink(link), link]
        binds = _visible(argv, cwd, path)
        for source, where in binds:
            opts += ["--ro-bind", source, where]
        visible = [where for _, where in binds]
        if not any(_within(cwd, v) or _within(v, cwd) for v in visible):
            opts += ["--dir", cwd]
        masked: set[str] = set()
        # where a visible folder shows it, it reads as empty; the user's secret that keys the deals too (a bot in
        # ~/.local/bin sees ~/.local)
        for secret in (*_ETC_SECRETS, str(secret_path()), *self.hidden):
            real = os.path.realpath(secret)
            for source, where in binds:
                target = where + real[len(source):] if _within(real, source) else None
                if target is None or target in masked:
                    continue
                masked.add(target)
                if os.path.isdir(real):
                    opts += ["--tmpfs", target, "--remount-ro", target]
                elif os.path.isfile(real):
                    opts += ["--ro-bind", "/dev/null", target]
        opts += ["--chdir", cwd, "--remount-ro", "/"]
        return opts


class BotProcess(subprocess.Popen[bytes]):
    """A sandboxed bot's process, with the cgroup its whole tree is in (:mod:`referee.cgroups`)."""

    group: BotGroup


def _limiter(limits: list[tuple[int, int]], join: Callable[[], None]) -> Callable[[], None]:
    def apply() -> None:  # in the child, between fork and exec: no allocation-heavy work here
        join()
        for which, value in limits:
            resource.setrlimit(which, (value, value))

    return apply


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _visible(argv: Sequence[str], cwd: str, path: str) -> list[tuple[str, str]]:
    """The folders a bot sees (read-only) as (source, where): parents before children, none inside another
    (except /tmp's). A folder is seen at its real path, and also where the command names it when that is through a
    symbolic link outside the other folders (``cmd:python3 /tmp/link/bot.py``)."""
    wanted: list[str] = [d for d in _SYSTEM if os.path.isdir(d) and not os.path.islink(d)]
    wanted += [os.path.realpath(d) for d in _SYSTEM if os.path.islink(d)]  # merged /usr: /bin -> usr/bin
    wanted += _installation(argv[0], cwd, path)
    folder = _bot_folder(argv, cwd)
    wanted.append(folder)
    wanted += _sdk_folders()
    real: list[str] = []
    for found in sorted({os.path.realpath(f) for f in wanted if f and os.path.isdir(f)},
                        key=lambda f: (f.count("/"), f)):
        if found in ("/", "/tmp"):
            continue  # never the whole file system; /tmp is the bot's own
        if not any(_within(found, f) for f in real):
            real.append(found)
    pairs = [(f, f) for f in real]
    named = os.path.abspath(folder)
    if named != os.path.realpath(folder) and not any(_within(named, f) for f in real):
        pairs.append((os.path.realpath(folder), named))
    return pairs


def hidden_paths(argv: Sequence[str], cwd: str, path: str) -> list[str]:
    """The files and folders a bot's command names (its program given as a path, every argument naming one that
    exists here) that its sandbox will not show: not in a visible folder (:func:`_visible`), or in ``/tmp`` but not
    in a bound folder there (a bot's ``/tmp`` is a tmpfs of its own). Started anyway, the bot would fail with "No
    such file or directory"."""
    binds = _visible(argv, cwd, path)
    shown = [where for _, where in binds] + [source for source, _ in binds] + ["/dev", "/proc"]
    named = [argv[0]] if "/" in argv[0] else []
    named += [a for a in argv[1:] if not a.startswith("-") and os.path.exists(os.path.join(cwd, a))]
    hidden = []
    for name in named:
        where = os.path.abspath(os.path.join(cwd, name))
        if where == "/tmp" or any(_within(where, f) or _within(os.path.realpath(where), f) for f in shown):
            continue
        hidden.append(where)
    return hidden


def hidden_line(hidden: str, folder: str) -> str:
    """What to tell the operator about a path the sandbox hides (:func:`hidden_paths`): why, and how to fix it."""
    if _within(hidden, "/tmp"):
        return (f"the sandbox hides {hidden} (a bot's /tmp is its own): move the bot to a folder of its own, or run "
                "with --sandbox off")
    return (f"the sandbox hides {hidden} (a bot sees only the system folders, its program's installation, its own "
            f"folder {folder} and the SDK): move it into {folder}, or run with --sandbox off")


def _bot_folder(argv: Sequence[str], cwd: str) -> str:
    """The folder of the bot's script: the first argument naming a file; else (``-m MODULE``, a command on
    PATH) the current folder; else the folder of the program itself."""
    for arg in argv[1:]:
        if not arg.startswith("-") and os.path.isfile(os.path.join(cwd, arg)):
            return os.path.dirname(os.path.abspath(os.path.join(cwd, arg)))
    if "-m" in argv[1:] or "/" not in argv[0]:
        return cwd
    return os.path.dirname(os.path.abspath(os.path.join(cwd, argv[0])))


def _installation(program: str, cwd: str, path: str, depth: int = 0) -> list[str]:
    """The folders of a program's installation: for each step of its symlink chain, the folder above its
    ``bin`` (a venv, /opt/node, ~/.pyenv), a venv's base interpreter, and the interpreter of a ``#!`` line."""
    found = os.path.join(cwd, program) if "/" in program else shutil.which(program, path=path)
    if not found or depth > 2:
        return []
    steps, current = [], found
    for _ in range(40):
        steps.append(current)
        if not os.path.islink(current):
            break
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    steps.append(os.path.realpath(found))
    home = os.path.expanduser("~")
    folders = []
    for step in steps:
        parent = os.path.dirname(os.path.abspath(step))
        prefix = os.path.dirname(parent) if os.path.basename(parent) in _PREFIX_DIRS else parent
        if prefix in ("/", home, "/home", "/root"):
            prefix = parent
        folders.append(prefix)
        cfg = Path(prefix, "pyvenv.cfg")
        if cfg.is_file():
            for line in cfg.read_text(errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    folders.append(os.path.dirname(value.strip()))
    folders += _shebang(os.path.realpath(found), cwd, path, depth)
    return folders


def _shebang(program: str, cwd: str, path: str, depth: int) -> list[str]:
    try:
        with open(program, "rb") as f:
            first = f.readline(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode(errors="replace").split()
    if not words:
        return []
    if os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return _installation(words[0], cwd, path, depth + 1) if words else []


@functools.cache
def _sdk_folders() -> list[str]:
    """The referee's SDK (``protocol``), built-in bots (``bots``) and engine (``referee``: the program ``python -m
    referee.ismcts`` searches with it, docs/ISMCTS.md): Python bots may import them, read-only."""
    import bots
    import protocol
    import referee

    return [os.path.dirname(os.path.realpath(m.__file__ or "")) for m in (protocol, bots, referee)]


@functools.cache
def _bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def _prlimit() -> str | None:
    """util-linux's prlimit, in a system folder (so that the sandbox shows it)."""
    found = shutil.which("prlimit", path="/usr/bin:/bin")
    return os.path.realpath(found) if found else None


@functools.cache
def probe() -> str | None:
    """Does the sandbox work here? None when it does, else why not (once per process)."""
    if _bwrap() is None:
        return "bwrap (bubblewrap) is not installed"
    try:
        proc = Sandbox().popen(["true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        try:
            _, err = proc.communicate(timeout=20)
        finally:
            if isinstance(proc, BotProcess):
                proc.group.kill()
                proc.group.remove()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not start ({exc})"
    if proc.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        return f"bwrap fails here ({lines[-1] if lines else f'exit code {proc.returncode}'})"
    return None


def check_env(env: Sequence[str]) -> None:
    """``--bot-env``'s items: ConfigError for one that is not NAME=VALUE or NAME (a letter or ``_`` first, then
    letters, digits and ``_``)."""
    for item in env:
        name = item.partition("=")[0]
        if not name or not name.replace("_", "a").isalnum() or name[0].isdigit():
            raise ConfigError(f"--bot-env takes NAME=VALUE or NAME, got {item!r}")


def resolve(mode: str, *, warn: Callable[[str], None], memory_mb: int = DEFAULT_MEMORY_MB,
            processes: int = DEFAULT_PROCESSES, file_size_mb: int = DEFAULT_FILE_SIZE_MB,
            env: Sequence[str] = ()) -> Sandbox:
    """The sandbox of a run from ``--sandbox MODE``: ``on`` refuses to run without it (ConfigError); ``auto``
    falls back to none with one ``warn`` line."""
    if mode not in MODES:
        raise ConfigError(f"--sandbox takes {', '.join(MODES)}, got {mode!r}")
    check_env(env)
    sandbox = Sandbox(mode != "off", memory_mb, processes, file_size_mb, tuple(env))
    if mode == "off":
        return sandbox
    problem = probe()
    if problem is None:
        return sandbox
    if mode == "on":
        raise ConfigError(f"--sandbox on: {problem}; install bubblewrap (docs/SECURITY.md) or use --sandbox off")
    warn(f"no sandbox for program bots: {problem}; they can read, write and signal whatever the referee can "
         f"(install bubblewrap, see docs/SECURITY.md; --sandbox off silences this)")
    return Sandbox(False, memory_mb, processes, file_size_mb, tuple(env))
