"""``referee tournament sprt``: is the candidate better than the baseline? Deal after deal until the test decides.

The statistics are tournaments/sprt.py's, the schedule tournaments/schedule.py's ``substitution``, the loop
tournaments/sprt_run.py's. An SPRT is stored like any tournament, so ``resume``, ``games``, ``record``, ``verify``
and ``table`` work on its database too.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from referee.botspec import parse_spec
from referee.cli.common import cli_registry, parse_options, print_json, say_interrupted
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
from referee.errors import ConfigError, ExecutorError
from referee.match import check_policy
from referee.plugins import Registry
from referee.terminal import counted
from referee.wirelog import WireLog

from ..config import Extra, TournamentConfig
from ..executor import ExecutorFactory, Placement, executor_factory
from ..schedule import substitution_size
from ..sprt import Model, SprtSettings
from ..sprt_plan import SprtPlan
from ..sprt_run import SprtState, run_sprt, sprt_state
from ..storage import Store
from .common import (
    AFFINITY,
    EXECUTOR,
    SCHEDULER,
    WORKERS,
    check_programs,
    confinement,
    entrant_names,
    hidden_files,
    keyed_deals,
    resume_hint,
    secret_seed,
    stored_sandbox,
)

__all__ = ["existing_sprt", "play_sprt", "print_sprt", "sprt"]

DEFAULT_DB = Path("sprt.db")
DEFAULT_MAX_GAMES = 200_000


class _Live:
    """The test's line as it goes: redrawn in place on a terminal, otherwise a line every 10 s (on stderr)."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, state: SprtState) -> None:
        now = time.monotonic()
        if self.tty:
            sys.stderr.write("\r\x1b[K" + state.line())
            sys.stderr.flush()
        elif now - self.last >= 10 or state.finished:
            print(state.line(), file=sys.stderr, flush=True)
        else:
            return
        self.last = now

    def end(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def play_sprt(store: Store, config: TournamentConfig, executor: ExecutorFactory, placement: Placement) -> SprtState:
    """Run (or continue) the SPRT stored in ``store``; a ^C says how to continue."""
    live = _Live()
    try:
        return run_sprt(store, config, lambda c: executor(c, placement), live)
    except KeyboardInterrupt:
        live.end()
        say_interrupted(f"referee: interrupted; {resume_hint(store)}")
        raise typer.Exit(130) from None
    except ExecutorError as exc:
        raise ExecutorError(f"{exc}; {resume_hint(store)}") from exc
    finally:
        live.end()


def print_sprt(config: TournamentConfig, state: SprtState, json_out: bool, sandbox: str) -> None:
    """The outcome: the hypotheses, the LLR and its bounds, the Elo estimate with its interval, the decision."""
    plan = SprtPlan.of(config)
    s = plan.settings
    candidate, baseline, field = config.entrants[0], config.entrants[1], config.entrants[2:]
    if json_out:
        print_json({"game": config.game, "seats": config.seats, "candidate": candidate, "baseline": baseline,
                    "field": field, "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                    "model": str(s.model), **state.to_json(), "sandbox": sandbox})
        return
    against = f"the field {', '.join(field)}" if field else "each other: game pairs"
    typer.echo(f"SPRT {config.game}, {config.seats} seats: {candidate} (candidate) and {baseline} (baseline) "
               f"against {against}")
    elo = "elo" if s.model is Model.LOGISTIC else "nelo"
    typer.echo(f"H0: {elo} = {s.elo0:g}, H1: {elo} = {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}; "
               f"sandbox: {sandbox}")
    typer.echo(state.figures())
    typer.echo(state.verdict().replace("the candidate", candidate))


def sprt(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see 'referee games')."),
    candidate: str = typer.Option(..., "--candidate", "-c", metavar="SPEC", help="The bot under test."),
    baseline: str = typer.Option(..., "--baseline", "-B", metavar="SPEC", help="The bot it must beat."),
    field: list[str] = typer.Option([], "--field", "-f", metavar="SPEC",
                                    help="An opponent in the other seats; repeat it (at least K-1 for K seats). "
                                    "Without a field two seats play the baseline directly: game pairs."),
    seats: int | None = typer.Option(None, "--seats", "-k", metavar="K",
                                     help="Seats per game (default: 2 without a field, else the field plus one, "
                                     "within the game's range)."),
    elo0: float = typer.Option(0.0, "--elo0", metavar="ELO", help="H0: the candidate is this much better."),
    elo1: float = typer.Option(5.0, "--elo1", metavar="ELO", help="H1: the candidate is this much better."),
    alpha: float = typer.Option(0.05, "--alpha", metavar="P", help="The chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, "--beta", metavar="P", help="The chance of accepting H0 when H1 holds."),
    model: str = typer.Option("logistic", "--model", metavar="logistic|normalized",
                              help="What --elo0 and --elo1 mean: logistic Elo (the expected score, as the ratings "
                              "table reads it), or normalized Elo (the score per unit of its spread: the same "
                              "bounds demand as many deals in every game; docs/TOURNAMENTS.md)."),
    max_games: int = typer.Option(DEFAULT_MAX_GAMES, "--max-games", min=1, metavar="N",
                                  help="Stop undecided after about N games (whole deals)."),
    workers: int = WORKERS,
    db: Path = typer.Option(DEFAULT_DB, "--db", metavar="FILE", help="SQLite file holding the games."),
    seed: int | None = typer.Option(None, min=0, max=2**64 - 1, metavar="S",
                                    help="Seed of the deals. Default: a secret one, kept in --db."),
    move_time: int = MOVE_TIME,
    time_bank: int = TIME_BANK,
    debug: str = DEBUG_BUDGET_OPTION,
    executor: str = EXECUTOR,
    scheduler: str | None = SCHEDULER,
    affinity: str = AFFINITY,
    option: list[str] = GAME_OPTION,
    on_fault: str = ON_FAULT,
    json_out: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    wire_log: Path | None = WIRE_LOG,
    sandbox: str = SANDBOX,
    bot_env: list[str] = BOT_ENV,
    bot_memory: int = BOT_MEMORY,
    bot_processes: int = BOT_PROCESSES,
    bot_file_size: int = BOT_FILE_SIZE,
) -> None:
    """Test whether the candidate is better than the baseline, deal after deal, until the SPRT decides.

    On every deal the candidate sits in each seat against the field, then the baseline in the same seats against
    the same bots: the luck of the deal cancels (docs/TOURNAMENTS.md, "SPRT").
    Example: referee tournament sprt durak --candidate heuristic --baseline random --elo1 50
    """
    settings = SprtSettings.given(elo0, elo1, alpha, beta, model)
    play_on = executor_factory(executor, scheduler)
    registry = cli_registry()
    chosen = registry.game(game)
    options = chosen.configure(parse_options(option))
    specs = [candidate, baseline, *field]
    if candidate == baseline:
        raise ConfigError(f"the candidate and the baseline are the same bot ({candidate}): test two different bots")
    for spec in specs:
        parse_spec(spec, registry)  # an unknown bot is one line here; whether it plays the game: check_programs
    k = seats if seats is not None else (2 if not field else min(max(len(field) + 1, chosen.min_seats),
                                                                   chosen.max_seats))
    chosen.check_seats(k, " (--seats)" if seats is not None else  # else only 2 without a field can be out of range
                       " (without a --field the candidate plays the baseline alone, at 2 seats: give --seats and a "
                       "--field of the other bots)")
    if field and len(field) < k - 1 or not field and k != 2:
        raise ConfigError(f"{k} seats need a field of at least {k - 1} bots (--field), got {len(field)}"
                          + ("; without a field only two seats play (the baseline is the opponent)" if not field
                             else ""))
    check_policy(on_fault)
    per_deal = substitution_size(k, len(field))
    names = entrant_names(specs, registry)
    wires = WireLog(wire_log) if wire_log is not None else None
    confined = confinement(specs, registry, sandbox, bot_memory, bot_processes, bot_file_size, bot_env)
    config = TournamentConfig(game=game, options=options, entrants=names, specs=specs, seats=k,
                              games=max(1, max_games // per_deal), duplicate=True, seed=seed or 0,
                              move_time_ms=move_time, policy=on_fault, time_bank_ms=time_bank,
                              debug_budget=debug_budget(debug),
                              extra=Extra(sandbox=confined.settings(), sprt=SprtPlan.settings_dict(settings)))
    check_programs(specs, registry, game, config.time_control(), confined.with_hidden(hidden_files(db, wires)), wires,
                   seats=config.seats, options=config.options)
    if seed is None:
        config = secret_seed(db, config)
    config = keyed_deals(db, config, registry)
    with Store(db, create=True) as store:
        store.save_config(config.to_dict())  # refuses a database of another tournament, before anything runs
        store.lock()  # another process playing it: refused before the header (and only then is an old one migrated)
        typer.echo(f"{game}: SPRT of {names[0]} against {names[1]}"
                   + (f" with the field {', '.join(names[2:])}" if field else "") + f", {k} seats, {per_deal} "
                   f"games a deal, at most {counted(config.games, 'deal')}, {counted(workers, 'worker')}, db {db}",
                   err=True)
        state = play_sprt(store, config, play_on,
                          Placement(workers, confined.with_hidden(hidden_files(db, wires)), wires, affinity,
                                    scheduler))
    print_sprt(config, state, json_out, config.extra.sandbox_mode)


def existing_sprt(store: Store, stored: dict[str, Any], registry: Registry, json_out: bool, *,
                  play: tuple[ExecutorFactory, Placement] | None) -> None:
    """``resume`` (``play`` given: on what and how) or ``table`` of a stored SPRT: go on until it decides, or print
    it."""
    config = TournamentConfig.from_dict(stored)
    state = sprt_state(config, {row.key: row.places for row in store.games()})
    if play is not None and not state.finished:
        executor, placement = play
        for spec in config.specs:
            parse_spec(spec, registry)
        placement = replace(placement, sandbox=stored_sandbox(store, config, registry, placement.wire_log))
        check_programs(config.specs, registry, config.game, config.time_control(), placement.sandbox,
                       placement.wire_log, seats=config.seats, options=config.options)
        state = play_sprt(store, config, executor, placement)
    print_sprt(config, state, json_out, config.extra.sandbox_mode)
