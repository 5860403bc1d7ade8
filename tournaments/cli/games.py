"""``referee tournament games``: the stored games listed, a game at a time, in any table format or as JSON."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import typer

from protocol.faults import Fault, fault_words
from referee.cli.tables import FORMAT, check_format, format_table
from referee.errors import ConfigError

from ..storage import GameRow, Store

__all__ = ["games", "write_aligned", "write_games_json"]


def games(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    bot: str | None = typer.Option(None, "--bot", "-b", metavar="NAME",
                                   help="Only the games this entrant played (its name in the "
                                   "table)."),
    faults: bool = typer.Option(False, "--faults", help="Only the games with a fault."),
    fmt: str = FORMAT,
    json_out: bool = typer.Option(False, "--json", help="Print the games as JSON."),
) -> None:
    """List the stored games: key, bots by seat, places, decisions and faults, in schedule order.

    A game's key names it for 'referee tournament record DB KEY', which prints its record for 'referee replay'.
    Each game is printed as it is read (an aligned format reads the games twice: once for the column widths).
    """
    check_format(fmt, json_out)
    with Store(db, create=False, readonly=True) as store:
        config = store.tournament()
        if bot is not None and bot not in config["entrants"]:
            raise ConfigError(f"no entrant {bot!r} in {db} (entrants: {', '.join(config['entrants'])})")
        if json_out:
            write_games_json(store.games(entrant=bot, faulted=faults), sys.stdout)
            return

        def table_rows() -> Iterator[list[Any]]:
            for r in store.games(entrant=bot, faulted=faults):
                yield [r.key, ", ".join(r.seating), " ".join(map(str, r.places)), r.decisions,
                       "; ".join(fault_words(r.faults)) or "-"]

        headers = ["key", "bots (by seat)", "places", "decisions", "faults"]
        if fmt in ("csv", "tsv"):
            writer = csv.writer(sys.stdout, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
            writer.writerow(headers)
            count = 0
            for line in table_rows():
                writer.writerow(line)
                count += 1
        else:
            count = write_aligned(table_rows, headers, fmt, sys.stdout)
    typer.echo(f"{count} games", err=True)


def write_aligned(rows: Callable[[], Iterable[Sequence[Any]]], headers: Sequence[str], fmt: str, out: TextIO,
                  chunk: int = 1000) -> int:
    """``format_table(list(rows()), headers, fmt)`` and a newline, without holding every row: one pass over
    ``rows()`` finds each column's width, a second prints the rows ``chunk`` at a time, each chunk laid out by
    tabulate beside a row of exactly those widths (then left out), so every line is the whole table's. For a
    format that is not one line per row, or cells that are not printable ASCII (whose width tabulate measures
    otherwise), the rows are held and printed whole. Returns the number of rows."""
    widths = [0] * len(headers)
    count = 0
    for row in rows():
        count += 1
        for k, cell in enumerate(row):
            text = str(cell)
            if not (text.isascii() and text.isprintable()):
                count = 0
                break
            widths[k] = max(widths[k], len(text))
        else:
            continue
        break

    def lay_out(table: Sequence[Sequence[Any]]) -> list[str]:
        return format_table(table, headers, fmt).split("\n")

    wide, other = ["x" * w for w in widths], ["y" * w for w in widths]
    one = lay_out([wide]) if count else []
    differ = [i for i, (a, b) in enumerate(zip(one, lay_out([other]) if count else [], strict=True)) if a != b]
    if not count or len(differ) != 1 or len(lay_out([wide, wide])) != len(one) + 1:
        whole = [list(row) for row in rows()]
        out.write(format_table(whole, headers, fmt) + "\n")
        return len(whole)
    head = differ[0]  # the lines above the first row (headers, rules); those below the last: one[head + 1:]

    def by_tabulate(batch: Sequence[Sequence[Any]]) -> list[str]:
        return lay_out([wide, *batch])[head + 1:head + 1 + len(batch)]

    # A format that pads plain cells and puts fixed text between them: a row line is that text and the cells
    # left-justified to the widths, 10x faster than tabulate. Taken from a row of a letter per column, and used only
    # once it gave the first chunk's lines exactly as tabulate does.
    letters = [chr(ord("a") + k) * w for k, w in enumerate(widths)]
    between: list[str] = []
    if fmt in _PADDED and all(widths) and len(widths) <= 26:
        marked, at = lay_out([wide, letters])[head + 1], 0
        for k, w in enumerate(widths):
            start = marked.find(letters[k], at)
            if start < 0:
                between = []
                break
            between.append(marked[at:start])
            at = start + w
        else:
            between.append(marked[at:])

    def by_template(batch: Sequence[Sequence[Any]]) -> list[str]:
        lines = []
        for row in batch:
            parts = [between[0]]
            for cell, w, after in zip(row, widths, between[1:], strict=True):
                text = str(cell)
                parts += (text, " " * (w - len(text)), after)
            lines.append("".join(parts).rstrip() if strip else "".join(parts))
        return lines

    strip = False  # tabulate strips the spaces a short last cell leaves at the end of its line in some formats
    if between:
        short = [*letters[:-1], letters[-1][:1]]
        strip = by_template([short]) != by_tabulate([short])

    out.write("".join(line + "\n" for line in one[:head]))
    batch: list[Sequence[Any]] = []
    render = by_tabulate
    count = 0  # as printed: a game stored meanwhile (a running tournament) is printed too
    for row in rows():
        count += 1
        batch.append(row)
        if len(batch) == chunk:
            lines = render(batch)
            if count == chunk and between and by_template(batch) == lines:
                render = by_template
            out.write("".join(line + "\n" for line in lines))
            batch = []
    if batch:
        out.write("".join(line + "\n" for line in render(batch)))
    out.write("".join(line + "\n" for line in one[head + 1:]))
    return count


#: Formats whose row lines are text between cells padded with spaces (write_aligned may write them itself).
_PADDED = frozenset({"simple", "plain", "github", "pipe", "psql", "rst", "orgtbl"})


def write_games_json(rows: Iterable[GameRow], out: TextIO) -> None:
    """``games --json``, a game at a time: the text ``print_json({"games": [GAME, …]})`` prints, without holding
    the list (json's indented output is built by hand: 6× faster)."""
    def fault(f: Fault) -> str:
        return (f'        {{\n          "seat": {int.__repr__(f.seat)},\n'
                f'          "kind": {_json_string(str(f.kind))},\n          "decision": {int.__repr__(f.decision)},\n'
                f'          "message": {_json_string(f.message)}\n        }}')

    def game(r: GameRow) -> str:
        bots = ",\n        ".join(map(_json_string, r.seating))
        places = ",\n        ".join(map(str, r.places))
        faults = "[\n" + ",\n".join(map(fault, r.faults)) + "\n      ]" if r.faults else "[]"
        return (f'    {{\n      "key": {_json_string(r.key)},\n      "seq": {r.seq},\n      "seed": {r.seed},\n'
                f'      "bots": [\n        {bots}\n      ],\n      "places": [\n        {places}\n      ],\n'
                f'      "decisions": {r.decisions},\n      "faults": {faults}\n    }}')

    out.write('{\n  "games": [')
    first = True
    for r in rows:
        out.write(("\n" if first else ",\n") + game(r))
        first = False
    out.write(']\n}\n' if first else '\n  ]\n}\n')


_json_string = json.JSONEncoder(ensure_ascii=False).encode  # one string, as json.dumps writes it
