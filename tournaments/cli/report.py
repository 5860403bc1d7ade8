"""``referee tournament report DB -o report.html``: the tournament as one HTML page, with a replay page for each of
a bounded number of its games (tournaments/report_html.py, docs/HTML.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from referee.cli.common import check_writable, cli_registry

from ..report_html import DEFAULT_REPLAYS, write_report
from ..storage import Store

__all__ = ["report"]


def report(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    out: Path = typer.Option(Path("report.html"), "--out", "-o", metavar="FILE",
                             help="The report's HTML file; the replay pages go into the folder FILE's name without "
                             ".html, plus '-games', beside it."),
    replays: int = typer.Option(DEFAULT_REPLAYS, "--replays", min=0, metavar="N",
                                help="Write the replay pages of every game with a fault (opened at the fault) "
                                "and of at most N others, the first in schedule order."),
) -> None:
    """Write the tournament report: ratings with their intervals, the crosstable as a heat map, the ratings over the
    games, faults, the configuration and the games, linked to their replays.

    Example: referee tournament report tournament.db -o report.html
    """
    check_writable(out, "the report")
    registry = cli_registry()
    with Store(db, create=False, readonly=True) as store:
        store.tournament()
        page = write_report(store, registry, out, replays=replays)
    typer.echo(f"{out}: {page.total_games} games, {len(page.replays)} replay pages"
               + (f" in {out.with_name(out.stem + '-games')}" if page.replays else ""))
