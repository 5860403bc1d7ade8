"""Tables of the command line: ``--format`` (any tabulate format, csv, tsv) and the plain tables of ``referee
games`` and ``bots``, wrapped to fit the terminal."""

from __future__ import annotations

import csv
import io
import re
import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

import typer

from ..errors import ConfigError

__all__ = ["FORMAT", "FORMAT_HELP", "check_format", "fitted_table", "format_table", "table_formats"]

#: ``--format``'s help, wherever a command takes one.
FORMAT_HELP = ("Table format: csv, tsv (no padding) or any tabulate format (simple, github, grid, latex, …); not "
               "with --json.")
#: ``--format``, wherever a command takes one (its parameter is ``fmt``: :func:`check_format` asks whether it was
#: given).
FORMAT = typer.Option("simple", "--format", metavar="FMT", help=FORMAT_HELP)
#: The default format and this module's own: known without importing tabulate (whose formats the others are).
_OWN_FORMATS = frozenset({"simple", "csv", "tsv"})


def table_formats() -> tuple[str, ...]:
    """``--format`` values: every tabulate format, plus ``csv`` and an unpadded ``tsv`` (which replaces tabulate's)."""
    from tabulate import tabulate_formats

    return tuple(sorted({*tabulate_formats, "csv", "tsv"}))


def check_format(fmt: str, json_out: bool = False) -> None:
    """ConfigError for an unknown ``--format``, or one given beside ``--json`` (``json_out``), which would win."""
    if json_out:
        from .common import option_given

        if option_given("fmt"):
            raise ConfigError(f"--format {fmt} and --json are either-or: --json prints JSON, --format a table")
    if fmt in _OWN_FORMATS:
        return
    formats = table_formats()
    if fmt not in formats:
        raise ConfigError(f"unknown --format {fmt!r} (choose from: {', '.join(formats)})")


def format_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], fmt: str) -> str:
    """A table in ``fmt``: ``csv`` (the csv module's quoting, a header row) and ``tsv`` (tab-separated, no
    padding) are written by the csv module, every other format by tabulate. No final newline."""
    if fmt in ("csv", "tsv"):
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
        return out.getvalue().rstrip("\n")
    from tabulate import tabulate  # imported when a table is printed: most commands print none

    return tabulate(rows, headers=list(headers), tablefmt=fmt, disable_numparse=True)


#: the narrowest a wrapped column gets when even its longest word's parts do not fit the terminal
_NARROWEST = 8
#: where a hyphenated word may break: after the hyphen, between letters or digits ("Cossacks-|Robbers")
_HYPHEN = re.compile(r"(?<=\w-)(?=\w)")


def _longest(text: str, hyphens: bool) -> int:
    """The longest word of ``text`` (split at spaces; with ``hyphens``, also after the hyphens inside words)."""
    words = text.split()
    if hyphens:
        words = [part for word in words for part in _HYPHEN.split(word)]
    return max(map(len, words), default=0)


def _fit(widths: list[int], floors: list[int], room: int) -> list[int]:
    """Column widths within ``room``: the widest column gives up a character at a time, none below its floor."""
    widths = list(widths)
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not shrinkable:
            break
        widths[max(shrinkable, key=lambda i: widths[i])] -= 1
    return widths


def fitted_table(rows: Sequence[Sequence[str]], headers: Sequence[str], width: int | None = None) -> str:
    """A plain table (tabulate's ``simple`` look) no wider than ``width`` (default: the terminal's, ``COLUMNS``
    when set, 80 when unknown). When the cells do not fit on one line, the widest columns wrap: at spaces, after
    a hyphen only when a column is narrower than its longest word, inside a word only when it is narrower than
    the longest part of one. Then a blank line separates the rows. No final newline."""
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    table = [list(headers), *([str(cell) for cell in row] for row in rows)]
    columns = range(len(headers))
    natural = [max(len(row[c]) for row in table) for c in columns]
    words = [max(_longest(row[c], False) for row in table) for c in columns]
    parts = [max(_longest(row[c], True) for row in table) for c in columns]
    room = width - 2 * (len(headers) - 1)
    widths = natural
    for floors in (words, parts, [min(n, _NARROWEST) for n in natural]):
        widths = _fit(widths, floors, room)

    def lines_of(row: list[str]) -> list[str]:
        cells = [textwrap.wrap(row[c], widths[c], break_on_hyphens=widths[c] < words[c]) or [""] for c in columns]
        return ["  ".join(cell[i].ljust(w) if i < len(cell) else " " * w for cell, w in zip(cells, widths, strict=True))
                .rstrip() for i in range(max(map(len, cells)))]

    body = [lines_of(row) for row in table[1:]]
    gap = [""] if any(len(lines) > 1 for lines in body) else []
    out = [*lines_of(table[0]), "  ".join("-" * w for w in widths)]
    for n, lines in enumerate(body):
        out += (gap if n else []) + lines
    return "\n".join(out)
