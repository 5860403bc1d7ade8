"""What every command of the command line shares: errors as one line, the registry, JSON, KEY=VALUE options.

``referee/cli.py`` (games, bots, play, replay), ``tournament_cli.py`` and ``check_cli.py`` all use these, and
``cli.py`` mounts the other two; this module keeps them out of an import cycle.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from tabulate import tabulate, tabulate_formats
from typer.core import TyperArgument, TyperCommand

from .errors import ConfigError, RefereeError
from .plugins import Registry, load_registry
from .terminal import printable

__all__ = ["Command", "ON_FAULT_HELP", "TABLE_FORMATS", "check_format", "cli_registry", "format_table",
           "interrupt_said", "one_line_errors", "parse_options", "print_json", "say_interrupted", "warn"]

#: The longest time limit in ms the command line accepts (a poll() time-out is a C int).
MAX_MS = 2**31 - 1
#: ``--on-fault``'s help, with its choices
ON_FAULT_HELP = ("What a fault costs (C-7): forfeit (every faulted seat is placed below the others) or continue "
                 "(the places the rules gave stand).")

#: ``--format`` values: every tabulate format, plus ``csv`` and an unpadded ``tsv`` (which replaces tabulate's)
TABLE_FORMATS = tuple(sorted({*tabulate_formats, "csv", "tsv"}))


class _NamedArgument(TyperArgument):
    """An argument shown by its metavar alone: ``GAME`` in the usage line and the help, not ``{game}`` and
    ``GAME <str>`` (typer's rendering)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return (name if self.required else f"[{name}]") + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.metavar is not None else super().display_type_rich(ctx)


class Command(TyperCommand):
    """The class of every ``referee`` command (``@app.command(cls=Command)``): arguments with a metavar are shown
    by it alone (options already are)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument and param.metavar is not None:
                param.__class__ = _NamedArgument


def check_format(fmt: str) -> None:
    if fmt not in TABLE_FORMATS:
        raise ConfigError(f"unknown --format {fmt!r} (choose from: {', '.join(TABLE_FORMATS)})")


def format_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], fmt: str) -> str:
    """A table in ``fmt``: ``csv`` (the csv module's quoting, a header row) and ``tsv`` (tab-separated, no
    padding) are written by the csv module, every other format by tabulate. No final newline."""
    if fmt in ("csv", "tsv"):
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
        return out.getvalue().rstrip("\n")
    return tabulate(rows, headers=list(headers), tablefmt=fmt, disable_numparse=True)


@contextmanager
def one_line_errors() -> Iterator[None]:
    """One clear line and exit code 2 for every error the project raises on purpose; never a traceback."""
    try:
        yield
    except RefereeError as exc:
        typer.echo(f"referee: error: {printable(str(exc), one_line=True)}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        say_interrupted()
        raise typer.Exit(130) from None


_interrupt_said = False


def say_interrupted(line: str = "referee: interrupted") -> None:
    """The one line of a ^C (exit code 130). ``referee.main`` says ``referee: interrupted`` itself for a ^C that
    ends the program without this: one that typer took, while it read the command line, for exit code 130."""
    global _interrupt_said
    typer.echo(line, err=True)
    _interrupt_said = True


def interrupt_said() -> bool:
    return _interrupt_said


def warn(line: str) -> None:
    """One warning line on stderr; the command goes on."""
    typer.echo(f"referee: warning: {line}", err=True)


def cli_registry() -> Registry:
    """The plugin registry; plugins that failed to load are warnings on stderr."""
    loaded = load_registry()
    for error in loaded.errors:
        warn(str(error))
    return loaded


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` pairs from the command line (values are checked by the game)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ConfigError(f"--option takes KEY=VALUE (like transfer=true), got {pair!r}")
        options[key.strip()] = value.strip()
    return options
