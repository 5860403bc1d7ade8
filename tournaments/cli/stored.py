"""``referee tournament resume`` and ``table``: a stored tournament (an SPRT too) continued, or its table again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import typer

from referee.botspec import parse_spec
from referee.cgroups import describe as protections
from referee.cli.common import cli_registry
from referee.cli.options import WIRE_LOG
from referee.cli.tables import FORMAT, check_format
from referee.errors import ConfigError
from referee.wirelog import WireLog

from ..config import TournamentConfig
from ..executor import ExecutorFactory, Placement, executor_factory
from ..league.roster import is_league
from ..report import stored_report
from ..sprt_plan import is_sprt
from ..storage import Store
from .common import (
    AFFINITY,
    BOOTSTRAP,
    EXECUTOR,
    SCHEDULER,
    WORKERS,
    check_programs,
    has_programs,
    play_stored,
    print_report,
    stored_sandbox,
)
from .sprt import existing_sprt

__all__ = ["resume", "table"]


def resume(
    db: Path = typer.Argument(..., metavar="DB", help="The database of an interrupted tournament."),
    workers: int = WORKERS,
    fmt: str = FORMAT,
    bootstrap_samples: int = BOOTSTRAP,
    json_out: bool = typer.Option(False, "--json", help="Print the final table as JSON."),
    executor: str = EXECUTOR,
    scheduler: str | None = SCHEDULER,
    affinity: str = AFFINITY,
    wire_log: Path | None = WIRE_LOG,
) -> None:
    """Continue a tournament where it stopped (no game lost, none played twice) and print the table."""
    factory = executor_factory(executor, scheduler)
    wires = WireLog(wire_log) if wire_log is not None else None  # not stored with the tournament: given again
    _existing(db, fmt, bootstrap_samples, json_out,
              play=(factory, Placement(workers, None, wires, affinity, scheduler)))


def table(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    fmt: str = FORMAT,
    bootstrap_samples: int = BOOTSTRAP,
    json_out: bool = typer.Option(False, "--json", help="Print the table as JSON."),
) -> None:
    """Print the rating table of a tournament database again."""
    _existing(db, fmt, bootstrap_samples, json_out, play=None)


def _existing(db: Path, fmt: str, bootstrap_samples: int, json_out: bool, *,
              play: tuple[ExecutorFactory, Placement] | None) -> None:
    """Open a stored tournament, play what is missing (``resume``: ``play`` says on what and how; the sandbox is the
    stored one), print its table."""
    check_format(fmt, json_out)
    registry = cli_registry()
    with Store(db, create=False, readonly=play is None) as store:  # table only reads
        stored = store.tournament()
        if play is not None and is_league(stored):
            raise ConfigError(f"{db} holds a league, which has no fixed schedule to resume: play it with "
                              f"'referee league serve {db.parent}'")
        if is_sprt(stored):
            existing_sprt(store, stored, registry, json_out, play=play)
            return
        config = TournamentConfig.from_dict(stored)
        if play is not None:
            executor, placement = play
            for spec in config.specs:
                parse_spec(spec, registry)
            placement = replace(placement, sandbox=stored_sandbox(store, config, registry, placement.wire_log))
            game = registry.game(config.game)
            if store.count() < config.scheduled(game.teams(config.seats)):  # as run does, before a game is played
                check_programs(config.specs, registry, config.game, config.time_control(), placement.sandbox,
                               placement.wire_log, seats=config.seats, options=config.options)
                if has_programs(config.specs, registry) and placement.sandbox is not None:
                    typer.echo(f"protections: {protections(placement.sandbox.enabled)}", err=True)
            play_stored(store, config, registry, executor, placement)
        print_report(stored_report(store, registry, bootstrap_samples), fmt, json_out, config.extra.sandbox_mode)
