"""The sandbox's command-line options, shared by ``play``, ``tournament run`` and ``check`` (docs/SECURITY.md)."""

from __future__ import annotations

import typer

from .cli_common import one_of, warn
from .sandbox import DEFAULT_FILE_SIZE_MB, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, MODES, Sandbox, resolve

__all__ = ["SANDBOX", "BOT_ENV", "BOT_MEMORY", "BOT_PROCESSES", "BOT_FILE_SIZE", "sandbox_for"]


SANDBOX = typer.Option("auto", "--sandbox", metavar="auto|on|off", callback=one_of(MODES),
                       help="Run each program bot in the bwrap sandbox (docs/SECURITY.md): auto uses it where it "
                            "works (else one warning), on refuses to run without it, off runs bots unconfined.")
BOT_ENV = typer.Option([], "--bot-env", metavar="NAME[=VALUE]",
                       help="Give program bots this variable (NAME alone: the referee's value); repeatable. "
                            "Sandboxed bots get only PATH, LANG, LANGUAGE, LC_*, TZ, HOME=/tmp, TMPDIR=/tmp and "
                            "these.")
BOT_MEMORY = typer.Option(DEFAULT_MEMORY_MB, "--bot-memory", min=0, metavar="MB",
                          help="Sandbox: address space of each bot process, MB (0: no limit).")
BOT_PROCESSES = typer.Option(DEFAULT_PROCESSES, "--bot-processes", min=0, metavar="N",
                             help="Sandbox: processes and threads of the bot (0: no limit; root is exempt).")
BOT_FILE_SIZE = typer.Option(DEFAULT_FILE_SIZE_MB, "--bot-file-size", min=0, metavar="MB",
                             help="Sandbox: the largest file a bot writes, and the size of its private /tmp, MB "
                                  "(0: no limit).")


def sandbox_for(mode: str, memory_mb: int, processes: int, file_size_mb: int, env: list[str]) -> Sandbox:
    """The run's sandbox: probed once; ``on`` without bwrap is a ConfigError, ``auto`` warns once."""
    return resolve(mode, warn=warn, memory_mb=memory_mb, processes=processes, file_size_mb=file_size_mb,
                   env=env)
