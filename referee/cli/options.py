"""The options several commands share, each declared once: how the bots are launched and timed (``play``,
``check``, ``tournament run`` and ``sprt``), the game options, the fault policy. typer takes an option object as a
parameter's default, so a command lists ``move_time: int = MOVE_TIME``.

The sandbox's options are docs/SECURITY.md's; ``--wire-log`` is docs/CLI.md's "The wire log".
"""

from __future__ import annotations

import typer

from ..clock import MAX_MS
from ..errors import ConfigError
from ..match import POLICIES
from ..said import DEBUG_BUDGET
from ..sandbox import DEFAULT_FILE_SIZE_MB, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, MODES, Sandbox, check_env, resolve
from .common import one_of, warn

__all__ = ["BOT_ENV", "BOT_FILE_SIZE", "BOT_MEMORY", "BOT_PROCESSES", "DEBUG_BUDGET_OPTION", "GAME_OPTION",
           "MOVE_TIME", "ON_FAULT", "ON_FAULT_HELP", "SANDBOX", "TIME_BANK", "WIRE_LOG", "debug_budget",
           "sandbox_for"]

#: ``--on-fault``'s help, with its choices
ON_FAULT_HELP = ("What a fault costs (C-7): forfeit (every faulted seat is placed below the others) or continue "
                 "(the places the rules gave stand).")
ON_FAULT = typer.Option("forfeit", "--on-fault", metavar="|".join(POLICIES), help=ON_FAULT_HELP)

WIRE_LOG = typer.Option(None, "--wire-log", metavar="FILE",
                        help="Append every frame to and from the program bots to FILE, one JSON line each. It "
                             "holds every hand of every game: keep it private (it is created readable by you "
                             "alone, and the sandbox hides it from the bots).")
MOVE_TIME = typer.Option(1000, "--move-time", min=1, max=MAX_MS, metavar="MS",
                         help="Per-move time limit of every bot (program or in-process), ms.")
TIME_BANK = typer.Option(0, "--time-bank", min=0, max=MAX_MS, metavar="MS",
                         help="Extra time per game for every bot, spent when a move takes longer, ms.")
GAME_OPTION = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help="A game option as KEY=VALUE; repeatable.")
DEBUG_BUDGET_OPTION = typer.Option(str(DEBUG_BUDGET), "--debug-budget", metavar="CHARS|all",
                                   help="How much of what the bots say per decision (the notes of their replies, "
                                   "their stderr lines) is kept with each game, in characters: a fault's first, "
                                   "then in the order of play; 'all' keeps everything.")

SANDBOX = typer.Option("auto", "--sandbox", metavar="auto|on|off", callback=one_of(MODES),
                       help="Run each program bot in the bwrap sandbox (docs/SECURITY.md): auto uses it where it "
                            "works (else one warning), on refuses to run without it, off runs bots unconfined.")
def _checked_env(items: list[str]) -> list[str]:
    """``--bot-env``, checked as it is read: also when no program bot is seated (none would get it)."""
    try:
        check_env(items)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--bot-env ")) from None
    return items


BOT_ENV = typer.Option([], "--bot-env", metavar="NAME[=VALUE]", callback=_checked_env,
                       help="Give program bots this variable (NAME alone: the referee's value); repeatable. "
                            "Sandboxed bots get only PATH, LANG, LANGUAGE, LC_*, TZ, HOME=/tmp, TMPDIR=/tmp and "
                            "these.")
BOT_MEMORY = typer.Option(DEFAULT_MEMORY_MB, "--bot-memory", min=0, metavar="MB",
                          help="Sandbox: the memory of a bot, MB: with cgroups all its processes together, and "
                               "always the address space of each (0: no limit).")
BOT_PROCESSES = typer.Option(DEFAULT_PROCESSES, "--bot-processes", min=0, metavar="N",
                             help="Sandbox: processes and threads of a bot (0: no limit; without the pids cgroup "
                                  "the kernel exempts root).")
BOT_FILE_SIZE = typer.Option(DEFAULT_FILE_SIZE_MB, "--bot-file-size", min=0, metavar="MB",
                             help="Sandbox: the largest file a bot writes, and the size of its private /tmp, MB "
                                  "(0: no limit).")


def debug_budget(text: str) -> int | None:
    """``--debug-budget``'s value: a number of characters, or None for ``all``."""
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ConfigError(f"--debug-budget takes a number of characters or 'all', not {text!r:.40}")
    return value


def sandbox_for(mode: str, memory_mb: int, processes: int, file_size_mb: int, env: list[str]) -> Sandbox:
    """The run's sandbox: probed once; ``on`` without bwrap is a ConfigError, ``auto`` warns once."""
    return resolve(mode, warn=warn, memory_mb=memory_mb, processes=processes, file_size_mb=file_size_mb,
                   env=env)
