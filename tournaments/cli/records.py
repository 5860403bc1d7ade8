"""``referee tournament record`` and ``verify``: one stored game's record, and every stored game checked against its
record."""

from __future__ import annotations

from pathlib import Path

import typer

from referee.cli.common import check_writable, cli_registry, print_json
from referee.errors import ConfigError
from referee.record import record_from_dict, record_text, write_record
from referee.terminal import printable

from ..storage import Store

__all__ = ["record", "verify"]


def record(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    key: str = typer.Argument(..., metavar="KEY",
                              help="The game's key, as 'referee tournament games' lists it (like t0.d3.r1)."),
    out: Path | None = typer.Option(None, "--out", "-o", metavar="FILE",
                                    help="Write the record to this file instead of stdout."),
    html: Path | None = typer.Option(None, "--html", metavar="OUT",
                                     help="Write the game's replay viewer (one self-contained HTML page, "
                                     "docs/HTML.md) instead of printing the record (with --out: as well)."),
) -> None:
    """Print one stored game's record (the stderr tails of faulted bots included), for 'referee replay'.

    Example: referee tournament record tournament.db t0.d3.r1 -o game.json && referee replay game.json -v
    """
    for path, what in ((html, "the replay page"), (out, "the record")):
        if path is not None:
            check_writable(path, what)
    registry = cli_registry()
    with Store(db, create=False, readonly=True) as store:
        store.tournament()
        data = store.record(key, registry.game)  # schema 2: the engine turns the stored choices into actions
    if data is None:
        raise ConfigError(f"no game {key!r} in {db} (see 'referee tournament games {db}' for the keys)")
    stored = record_from_dict(data)  # a damaged row is a RecordError here, not a file replay chokes on
    if html is not None:
        from referee.html import replay_html, write_page

        write_page(replay_html(stored, cli_registry().game), html)
    if out is not None:
        write_record(stored, out)
    elif html is None:
        typer.echo(record_text(stored), nl=False)


def verify(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    json_out: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
) -> None:
    """Replay every stored game from its record and check that the stored places, scores and faults follow from it.

    Names each row that does not (its key and what differs), and each game missing that the run recorded as stored
    (a deleted row; not those an interrupted run never finished), and exits 1; exits 0 when every row agrees. A
    league's database too (its folder's league.db): each game against the game its key names by the league's rules.
    Example: referee tournament verify tournament.db
    """
    from ..league.roster import is_league  # here: 'record', the other command of this module, needs neither
    from ..verify import Ticker
    from ..verify import verify as verify_store

    registry = cli_registry()
    with Store(db, create=False, readonly=True) as store:  # verify only reads
        league = is_league(store.config())
        checked = verify_store(store, registry.game, Ticker(lambda line: typer.echo(line, err=True)))
    if json_out:
        print_json(checked.to_json())
    else:
        for mismatch in checked.mismatches:
            typer.echo(printable(mismatch.line()))  # the stored key and columns may be anything
        plural = "s" if checked.checked != 1 else ""
        stored = f"{checked.checked} stored game{plural} " + (
            "of the league" if league else f"(of {checked.scheduled} scheduled)")
        if checked.ok:
            typer.echo(f"{stored}: every one follows from its record")
        else:
            bad = len(checked.mismatches) - len(checked.missing)
            follow = "does not follow from its record" if bad == 1 else "do not follow from their records"
            said = [f"{len(checked.missing)} missing"] if checked.missing else []
            typer.echo(f"{stored}: {', '.join(said + ([f'{bad} {follow}'] if bad else []))}")
    if not checked.ok:
        raise typer.Exit(1)
