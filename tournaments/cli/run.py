"""``referee tournament run``: a round robin (or a gauntlet) from the command line, played into a new database."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import typer

from referee.botspec import default_field
from referee.cgroups import describe as protections
from referee.cli.common import cli_registry, option_given, parse_options
from referee.cli.options import (
    BOT_ENV,
    BOT_FILE_SIZE,
    BOT_MEMORY,
    BOT_PROCESSES,
    DEBUG_BUDGET_OPTION,
    GAME_OPTION,
    MOVE_TIME,
    ON_FAULT,
    SANDBOX,
    TIME_BANK,
    WIRE_LOG,
    debug_budget,
)
from referee.cli.tables import FORMAT, check_format
from referee.errors import ConfigError
from referee.match import check_policy
from referee.terminal import counted
from referee.wirelog import WireLog

from ..config import Extra, TournamentConfig
from ..executor import Placement, executor_factory
from ..report import stored_report
from ..schedule import Pairing
from ..storage import Store
from .common import (
    AFFINITY,
    BOOTSTRAP,
    EXECUTOR,
    SCHEDULER,
    WORKERS,
    check_programs,
    confinement,
    entrant_names,
    has_programs,
    hidden_files,
    keyed_deals,
    play_stored,
    print_report,
    secret_seed,
)

__all__ = ["rounds_for", "run", "size_text"]

DEFAULT_DB = Path("tournament.db")
DEFAULT_GAMES = 1000


def rounds_for(total: int, config: TournamentConfig, teams: Pairing | None) -> int:
    """The smallest ``games`` (rounds: every table under every seating once) whose schedule holds ``total`` games."""
    tables, seatings = config.shape(teams)
    return max(1, -(-total // (tables * seatings)))


def size_text(config: TournamentConfig, teams: Pairing | None, asked: int | None = None) -> str:
    """The header's size of a tournament: its games in all, what they multiply out from, and with --total-games
    what was asked, when the whole rounds make more: ``1002 games (3 tables × 2 seatings × 167 deals; 1000 asked,
    1002 played: whole rounds)``."""
    tables, seatings = config.shape(teams)
    total = tables * seatings * config.games
    text = f"{counted(total, 'game')} ({counted(tables, 'table')} × {counted(seatings, 'seating')} × " \
           f"{counted(config.games, 'deal')}"
    if asked is not None and asked != total:
        text += f"; {asked} asked, {total} played: whole rounds"
    return text + ")"


def run(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see 'referee games')."),
    bot: list[str] = typer.Option([], "--bot", "-b", metavar="SPEC",
                                  help="An entrant: a registered bot, 'cmd:COMMAND' or a "
                                  "path, after its own settings if any ('[name=v7 move-time=500 time-bank=0 "
                                  "cwd=DIR] SPEC'). Repeat it; the same bot twice plays itself. Default: every "
                                  "registered bot that plays GAME, but those that must be named: a person's seat, "
                                  "and a bot that asks to be (the built-in ismcts, whose search is slow)."),
    seats: int | None = typer.Option(None, "--seats", "-k", metavar="K", help="Seats per table (default: the number of "
                                        "entrants, within the game's range)."),
    games: int = typer.Option(DEFAULT_GAMES, "--games", "-n", min=1, metavar="N",
                              help="Games per table and seating, not in all: every table (K of the entrants) plays "
                              "N deals, each under every seat rotation (team games: every seating), so 3 bots at 2 "
                              "seats play 3 tables × 2 rotations × N deals. The header says the total."),
    total_games: int | None = typer.Option(None, "--total-games", min=1, metavar="T",
                                           help="Instead of --games: play at least T games in all, the smallest N "
                                           "that gives T, rounded up to whole rounds (every table under every "
                                           "seating once). Stored as that --games N."),
    duplicate: bool = typer.Option(True, "--duplicate/--no-duplicate", help="Play each deal under every seat "
                                   "rotation of its table, so the luck of the deal cancels."),
    workers: int = WORKERS,
    db: Path = typer.Option(DEFAULT_DB, "--db", metavar="FILE", help="SQLite file holding the results."),
    seed: int | None = typer.Option(None, min=0, max=2**64 - 1, metavar="S", help="Tournament seed: the deals "
                                    "follow from it. Default: a secret one, drawn from the operating system and "
                                    "kept in --db (the same command on the same --db continues that tournament)."),
    move_time: int = MOVE_TIME,
    time_bank: int = TIME_BANK,
    debug: str = DEBUG_BUDGET_OPTION,
    executor: str = EXECUTOR,
    scheduler: str | None = SCHEDULER,
    affinity: str = AFFINITY,
    gauntlet: list[str] = typer.Option([], "--gauntlet", "-g", metavar="SPEC",
                                       help="A candidate: it plays only with the field (the --bot entrants), at "
                                       "every table of itself and K-1 of them; repeat it. The field does not play "
                                       "among itself."),
    option: list[str] = GAME_OPTION,
    on_fault: str = ON_FAULT,
    fmt: str = FORMAT,
    bootstrap_samples: int = BOOTSTRAP,
    json_out: bool = typer.Option(False, "--json", help="Print the final table as JSON."),
    wire_log: Path | None = WIRE_LOG,
    sandbox: str = SANDBOX,
    bot_env: list[str] = BOT_ENV,
    bot_memory: int = BOT_MEMORY,
    bot_processes: int = BOT_PROCESSES,
    bot_file_size: int = BOT_FILE_SIZE,
) -> None:
    """Run a round-robin tournament (or a gauntlet) and print the rating table.

    Every K-subset of the entrants plays every seat rotation, N deals each, round by round (--total-games T: as
    many rounds as T games take); with --gauntlet only the candidates' tables with the field. The header on stderr
    says how many games that is. Results go to --db as they finish.
    Example: referee tournament run durak --bot heuristic --bot random --bot first --seats 2 --games 200 (3 tables
    × 2 rotations × 200 deals = 1200 games)
    """
    check_format(fmt, json_out)
    if total_games is not None and option_given("games"):
        raise ConfigError("--games and --total-games both set how many games to play: give one")
    play_on = executor_factory(executor, scheduler)
    registry = cli_registry()
    chosen = registry.game(game)
    options = chosen.configure(parse_options(option))
    specs = list(bot) or default_field(registry, game, leave_out=gauntlet)
    if len(specs) < 2 and not bot and not gauntlet:
        raise ConfigError(f"fewer than two registered bots play {game}; name the entrants with --bot")
    field = len(specs)
    specs += gauntlet  # a gauntlet's candidates come after its field
    names = entrant_names(specs, registry)
    k = seats if seats is not None else min(max(field + 1 if gauntlet else len(specs), chosen.min_seats),
                                            chosen.max_seats)
    chosen.check_seats(k, " (--seats)")
    if gauntlet and field < k - 1:
        raise ConfigError(f"a gauntlet at {k} seats needs a field of at least {k - 1} bots (--bot), got {field}")
    if k > len(specs):
        raise ConfigError(f"{k} seats need at least {k} entrants, got {len(specs)} (list a bot twice for "
                          f"self-play)")
    check_policy(on_fault)
    wires = WireLog(wire_log) if wire_log is not None else None  # opened now: a bad path is refused before a game
    confined = confinement(specs, registry, sandbox, bot_memory, bot_processes, bot_file_size, bot_env)
    config = TournamentConfig(game=game, options=options, entrants=names, specs=specs, seats=k, games=games,
                              duplicate=duplicate, seed=seed or 0, move_time_ms=move_time, policy=on_fault,
                              extra=Extra(sandbox=confined.settings(),
                                          stages=[["gauntlet", field, len(gauntlet)]] if gauntlet else None),
                              time_bank_ms=time_bank, debug_budget=debug_budget(debug))
    if total_games is not None:
        config = replace(config, games=rounds_for(total_games, config, chosen.teams(k)))
    check_programs(specs, registry, game, config.time_control(), confined.with_hidden(hidden_files(db, wires)), wires,
                   seats=config.seats, options=config.options)
    if seed is None:
        config = secret_seed(db, config)
    config = keyed_deals(db, config, registry)
    size = size_text(config, chosen.teams(k), total_games)
    with Store(db, create=True) as store:
        store.save_config(config.to_dict())  # refuses a database of another tournament, before anything runs
        store.lock()  # another process playing it: refused before the header (and only then is an old one migrated)
        typer.echo(f"{game}: {len(names)} entrants ({', '.join(names)}), {k} seats, {size}, "
                   f"{'duplicate deals' if duplicate else 'independent deals'}, {counted(workers, 'worker')}, db {db}",
                   err=True)
        if has_programs(specs, registry):
            typer.echo(f"protections: {protections(confined.enabled)}", err=True)
        play_stored(store, config, registry, play_on,
                    Placement(workers, confined.with_hidden(hidden_files(db, wires)), wires, affinity,
                              scheduler))
        print_report(stored_report(store, registry, bootstrap_samples), fmt, json_out, config.extra.sandbox_mode)
