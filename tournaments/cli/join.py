"""``referee tournament join``: a ladder. New entrants join a stored tournament and play only the tables that
involve them; the games already stored stay and count (tournaments/schedule.py ``tables_of``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import typer

from referee.botspec import parse_spec
from referee.cli.common import cli_registry, warn
from referee.cli.options import WIRE_LOG
from referee.cli.tables import FORMAT, check_format
from referee.errors import ConfigError
from referee.plugins import Registry
from referee.wirelog import WireLog

from ..config import TournamentConfig
from ..executor import Placement, executor_factory
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
    entrant_names,
    has_programs,
    play_stored,
    print_report,
    stored_sandbox,
)

__all__ = ["join"]


def join(
    db: Path = typer.Argument(..., metavar="DB", help="The database of a tournament (a round robin or a gauntlet)."),
    bot: list[str] = typer.Option(..., "--bot", "-b", metavar="SPEC",
                                  help="A new entrant; repeat it. In a gauntlet the new entrants are candidates."),
    workers: int = WORKERS,
    executor: str = EXECUTOR,
    scheduler: str | None = SCHEDULER,
    affinity: str = AFFINITY,
    fmt: str = FORMAT,
    bootstrap_samples: int = BOOTSTRAP,
    json_out: bool = typer.Option(False, "--json", help="Print the final table as JSON."),
    wire_log: Path | None = WIRE_LOG,
) -> None:
    """Add entrants to a stored tournament and play only the tables that involve them (a ladder).

    The games already stored stay and count; the tournament's settings (deals, seats, time control, sandbox) are
    the stored ones. Example: referee tournament join tournament.db --bot cmd:./v8/bot
    """
    check_format(fmt, json_out)
    play_on = executor_factory(executor, scheduler)
    registry = cli_registry()
    wires = WireLog(wire_log) if wire_log is not None else None
    with Store(db, create=False) as store:
        store.lock()  # before the configuration changes: a tournament another process plays is refused unchanged
        stored = store.tournament()
        if is_league(stored):
            raise ConfigError(f"{db} holds a league: add a bot with 'referee league add NAME SPEC'")
        if is_sprt(stored):
            raise ConfigError(f"{db} holds an SPRT, whose entrants are fixed; start another SPRT for another bot")
        config = TournamentConfig.from_dict(stored)
        joined = _joined(config, bot, registry)
        sandbox = stored_sandbox(store, joined, registry, wires)
        check_programs(bot, registry, config.game, joined.time_control(), sandbox, wires, seats=config.seats,
                       options=config.options)
        if has_programs(bot, registry) and config.extra.deal_key is None:  # its stored games keep their deals
            warn(f"{db}'s deals are not keyed (its entrants were in-process bots, or it was stored before deals were "
                 f"keyed): a program bot can find them from its hand, as from a small --seed (docs/SECURITY.md)")
        store.replace_config(stored, joined.to_dict())
        added = len(joined.entrants) - len(config.entrants)
        typer.echo(f"{config.game}: {', '.join(joined.entrants[-added:])} joined {len(config.entrants)} entrants; "
                   f"{joined.scheduled(registry.game(config.game).teams(config.seats)) - store.count()} games to play, "
                   f"db {db}", err=True)
        play_stored(store, joined, registry, play_on, Placement(workers, sandbox, wires, affinity, scheduler))
        print_report(stored_report(store, registry, bootstrap_samples), fmt, json_out, joined.extra.sandbox_mode)


def _joined(config: TournamentConfig, specs: list[str], registry: Registry) -> TournamentConfig:
    """The configuration with ``specs`` added as the next stage; the old entrants keep their names."""
    for spec in specs:
        parse_spec(spec, registry)  # an unknown bot is one line here; whether it plays the game: check_programs
    names = entrant_names([*config.specs, *specs], registry)
    new = names[len(config.specs):]
    if names[:len(config.specs)] != config.entrants or set(new) & set(config.entrants):
        # the stored names stay: a new entrant whose name would rename one of them is numbered instead
        new, taken = [], set(config.entrants)
        for name in names[len(config.specs):]:
            base, k = name, 1
            while name in taken:
                k += 1
                name = f"{base}#{k}"
            taken.add(name)
            new.append(name)
    before = len(config.entrants)
    stages = list(config.extra.stages or [["round_robin", before]])
    stages.append(["join", before, before + len(specs)])
    joined = replace(config, entrants=[*config.entrants, *new], specs=[*config.specs, *specs],
                     extra=replace(config.extra, stages=stages))
    joined.tables()  # a damaged stage list is one line here
    return joined
