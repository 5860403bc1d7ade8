"""The ``referee`` console script and ``python -m referee``, kept light to import.

Importing the commands takes most of a second (typer, the games, the plugins). A ^C in that time is ``referee:
interrupted`` and exit code 130, as it is once a command runs (``referee.cli_common.one_line_errors``), not a
traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as run

        run()
    except KeyboardInterrupt:
        sys.stderr.write("referee: interrupted\n")
        sys.exit(130)


__all__ = ["main"]
