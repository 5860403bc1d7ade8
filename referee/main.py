"""The ``referee`` console script and ``python -m referee``, kept light to import.

Importing the commands takes most of a second (typer, the games, the plugins). A ^C in that time is ``referee:
interrupted`` and exit code 130, as it is once a command runs (``referee.cli.common.one_line_errors``), not a
traceback. A SIGTERM (``kill``, a service manager, a container stopping) takes the same way: the command unwinds
as from a ^C (a tournament stores what it has and says how to resume), then exits with 143, 128 + SIGTERM. A second
SIGTERM ends the process at once.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

_interrupted = False  # a ^C came
_terminated = False  # a SIGTERM came
_MAIN = os.getpid()  # this process: a child forked from it has its own way to stop


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _interrupted
    _interrupted = True
    signal.default_int_handler(signum, frame)  # KeyboardInterrupt, as always


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one while this one unwinds: the default, at once
    if os.getpid() != _MAIN:  # a forked worker before it set its own handler: ended as before, by the signal
        os.kill(os.getpid(), signal.SIGTERM)
        return
    _terminated = True
    raise KeyboardInterrupt  # the ^C path: every command already unwinds from it


def _forget_caught_interrupt() -> None:
    """Keep the exit code the program chose when it caught a ^C.

    CPython (3.11, 3.12) marks a KeyboardInterrupt as unhandled when it ends code run from a string by ``exec``
    or ``eval`` (dataclasses, namedtuple and others do so while modules are imported), even when a caller
    catches it; under ``python -m`` the interpreter then kills itself with SIGINT at exit instead of exiting
    with the code given to ``sys.exit``. The mark is cleared when the next string is run, so an empty one is.
    """
    exec("")  # noqa: S102 - a constant empty string: runs nothing


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # what 'referee --version' prints, without importing the command line
        from . import __version__  # the running code's own (a test holds the installed one to it)

        sys.stdout.write(f"referee {__version__}\n")
        sys.exit(0)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where ^C is ignored (nohup, &)
        signal.signal(signal.SIGINT, _on_sigint)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        try:
            from .cli import main as run

            run()
        except KeyboardInterrupt:
            sys.stderr.write("referee: interrupted\n")
            sys.exit(143 if _terminated else 130)
        except SystemExit as exc:
            # typer turns a ^C while it reads the command line (it imports pydantic then) into exit code 130
            # and says nothing
            if exc.code == 130 and (_interrupted or _terminated) and not _said():
                sys.stderr.write("referee: interrupted\n")
            if exc.code == 130 and _terminated:
                sys.exit(143)
            raise
    finally:
        _forget_caught_interrupt()


def _said() -> bool:
    from .cli.common import interrupt_said

    return interrupt_said()


__all__ = ["main"]
