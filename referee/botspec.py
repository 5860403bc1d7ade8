"""Bot SPECs: how a bot is named wherever one is asked for (``--bot``).

- a registered name: ``random``, ``heuristic``, a plugin's bot (in-process);
- ``cmd:COMMAND ARGS``: a program, split like a shell would (``shlex``) and run without a shell;
- a path to an executable file: ``./mybot``, ``bots/examples/js/bot.js`` (if executable).

Programs speak the protocol of docs/PROTOCOL.md; a process is started once and reused across games.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from protocol.bot import Bot
from protocol.errors import BotError, BotTimeout
from referee.remote import RemoteBot
from referee.transport import ProcessTransport

from . import __version__
from .clock import Clocked, TimeControl
from .errors import ConfigError
from .plugins import Registry
from .sandbox import Sandbox
from .terminal import printable
from .wirelog import WireLog

__all__ = ["BotSpec", "cannot_play", "check_supports", "parse_spec", "useful_line"]


@dataclass(frozen=True)
class BotSpec:
    """A resolved SPEC: a display name and how to make the bot."""

    spec: str
    name: str
    argv: tuple[str, ...] | None  # None: an in-process registered bot
    registered_games: tuple[str, ...] | None = None

    def make(self, registry: Registry, *, time: TimeControl, sandbox: Sandbox | None = None,
             wire_log: WireLog | None = None) -> Bot:
        """The bot under ``time``; a program runs in ``sandbox`` (None: as it is), its frames go to ``wire_log``.
        In-process bots are never sandboxed and have no wire."""
        if self.argv is None:  # in-process: the same clock as a program bot (docs/PROTOCOL.md section 8)
            return Clocked(registry.bot(self.name).factory(), time=time)
        argv = list(self.argv)
        popen = sandbox.popen if sandbox is not None else None
        return RemoteBot(lambda: ProcessTransport(argv, popen=popen, wire_log=wire_log, wire_name=self.name),
                         name=self.name, time=time,
                         referee=f"referee/{__version__}")


def parse_spec(spec: str, registry: Registry) -> BotSpec:
    """Resolve a SPEC; :class:`ConfigError` with a hint when it names nothing."""
    if spec.startswith("cmd:"):
        try:
            argv = shlex.split(spec[4:])
        except ValueError as exc:
            raise ConfigError(f"bot {spec!r}: cannot split the command ({exc})") from exc
        if not argv:
            raise ConfigError(f"bot {spec!r}: 'cmd:' needs a command, like 'cmd:python3 mybot.py'")
        return BotSpec(spec, _display_name(argv), tuple(argv))
    if spec in registry.bots:
        entry = registry.bots[spec]
        return BotSpec(spec, spec, None, entry.games)
    path = Path(spec)
    if os.sep in spec or path.exists():
        if not path.is_file():
            raise ConfigError(f"bot {spec!r}: no such file")
        if not os.access(path, os.X_OK):
            raise ConfigError(f"bot {spec!r} is not executable (chmod +x it, or use 'cmd:INTERPRETER {spec}')")
        return BotSpec(spec, path.stem, (str(path.resolve()),))
    known = ", ".join(sorted(registry.bots)) or "none"
    raise ConfigError(f"unknown bot {spec!r}: not a registered bot ({known}), not 'cmd:COMMAND', "
                      f"and no such file")


def _display_name(argv: list[str]) -> str:
    """A short name for a command: the module of ``-m MODULE``, else the first script-like argument's stem,
    else the program's name (``python3 -m bots.random`` → ``bots.random``, ``node bot.js`` → ``bot``)."""
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1]
    for arg in argv[1:]:
        if not arg.startswith("-") and ("/" in arg or Path(arg).suffix):
            return Path(arg).stem
    return Path(argv[0]).name


#: stderr lines that say nothing about why a program failed: stack frames, braces, carets, version banners
_NOISE = re.compile(r"^\s*(at\s|File\s\"|\^+$|[{}()\[\]]+,?$|code:|Node\.js v|Traceback|\.\.\.)")
_ERRORISH = re.compile(r"(error|exception|cannot|can't|not found|no such|denied|failed|missing|unable|invalid)",
                       re.IGNORECASE)


def useful_line(stderr: str, limit: int = 200) -> str:
    """The line of a program's stderr that best says why it failed: the last one that reads like an error (``Error:
    Cannot find package …``, ``ModuleNotFoundError: …``), else the last one that is not a stack frame; control
    characters escaped as everywhere bot text is shown (:func:`referee.terminal.printable`). Empty when stderr holds
    nothing."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not _NOISE.match(line)] or lines
    pick = next((line for line in reversed(lines) if _ERRORISH.search(line)), lines[-1] if lines else "")
    text = printable(pick, one_line=True)
    return text if len(text) <= limit else text[:limit] + " …"


def cannot_play(spec: str, exc: BaseException | str, code: int | None, stderr: str) -> str:
    """One line for a program that did not start or did not say hello: what failed, its exit status and the last
    useful line of its stderr."""
    status = ("still running" if code is None else f"exit status {code}" if code >= 0
              else f"killed by signal {-code}" + (" (by the referee)" if isinstance(exc, BotTimeout) else ""))
    line = useful_line(stderr)
    if code is not None and f"exit code {code}" in str(exc):
        status = "it exited before its hello"
    return (f"bot {spec!r} cannot play: {exc}; {status}; "
            + (f"stderr: {line}" if line else "nothing on stderr"))


def check_supports(bot: Bot, spec: BotSpec, game: str) -> None:
    """Refuse a bot that says it does not play ``game`` (remote bots say so in their hello)."""
    if spec.argv is None:
        if spec.registered_games is not None and game not in spec.registered_games:
            raise ConfigError(f"bot {spec.name!r} does not play {game} (it plays: "
                              f"{', '.join(spec.registered_games)})")
        return
    assert isinstance(bot, RemoteBot)
    if not bot.alive:  # a program that cannot start or shake hands is refused before the first game
        try:
            bot.start()
        except BotError as exc:
            raise ConfigError(cannot_play(spec.spec, exc, bot.last_exit, bot.take_stderr())) from exc
    if bot.games is not None and game not in bot.games:
        raise ConfigError(f"bot {spec.spec!r} does not play {game} (it plays: {', '.join(bot.games) or 'nothing'})")

