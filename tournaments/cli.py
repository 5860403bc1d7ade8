"""``referee tournament run | resume | table``: round-robin tournaments from the command line."""

from __future__ import annotations

import csv
import json
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import typer

from referee.botspec import check_supports, default_field, parse_spec, refuse_interactive
from referee.botspec import entrant_names as botspec_names
from referee.cgroups import describe as protections
from referee.cli_common import (
    DEBUG_BUDGET_OPTION,
    GAME_OPTION,
    MOVE_TIME,
    ON_FAULT_HELP,
    TIME_BANK,
    WIRE_LOG,
    Command,
    check_format,
    cli_registry,
    debug_budget,
    format_table,
    one_of,
    option_given,
    parse_options,
    print_json,
    say_interrupted,
    warn,
)
from referee.clock import TimeControl
from referee.dealkey import derive_key
from referee.errors import ConfigError, ExecutorError
from referee.match import POLICIES, check_policy
from referee.plugins import Registry
from referee.record import record_from_dict, record_text, write_record
from referee.sandbox import Sandbox, probe
from referee.sandbox_options import BOT_ENV, BOT_FILE_SIZE, BOT_MEMORY, BOT_PROCESSES, SANDBOX, sandbox_for
from referee.terminal import printable
from referee.wirelog import WireLog

from .config import TournamentConfig
from .executor import AFFINITIES, DEFAULT_EXECUTOR, EXECUTORS, ExecutorFactory, Placement, executor_factory
from .report import CROSSTABLE_SCORE, Report, build_report, interval_source
from .run import Progress, run_tournament
from .schedule import Pairing
from .sprt_run import is_sprt
from .storage import GameRow, Store
from .verify import Ticker
from .verify import verify as verify_store

app = typer.Typer(help="Round-robin tournaments: every table of the field, every seat rotation, rating tables.",
                  no_args_is_help=True, rich_markup_mode=None, add_completion=False)

DEFAULT_DB = Path("tournament.db")
DEFAULT_GAMES = 1000


def entrant_names(specs: list[str], registry: Registry) -> list[str]:
    """Display names, unique (:func:`referee.botspec.entrant_names`): ``name=`` as given, the same bot listed twice
    as ``name`` and ``name#2`` (self-play), different bots of one name told apart (``v6/bot``, ``v7/bot``)."""
    return botspec_names([parse_spec(spec, registry) for spec in specs])


FORMAT_HELP = "Table format: csv, tsv (no padding) or any tabulate format (simple, github, grid, latex, …)."


class _Reporter:
    """A rich progress bar on a terminal, otherwise a plain line every 10% or 10 s (on stderr)."""

    def __init__(self, total_label: str) -> None:
        self.tty = sys.stderr.isatty()
        self.bar: Any = None
        self.task: Any = None
        self.last_line = 0.0
        self.last_share = -1
        self.label = total_label

    def __enter__(self) -> _Reporter:
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            # No auto-refresh: that is a thread, and worker processes are forked from this one (see
            # tournaments/local.py); the bar is redrawn from the progress callback instead.
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[leader]}"),
                                console=Console(stderr=True), transient=True, redirect_stdout=False,
                                redirect_stderr=False, auto_refresh=False)
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, progress: Progress, game: object) -> None:
        leader = f"leader: {progress.leader}"
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task(self.label, total=progress.total, completed=progress.done,
                                              leader=leader)
            now = time.monotonic()
            self.bar.update(self.task, completed=progress.done, leader=leader)
            if now - self.last_line >= 0.1 or progress.done == progress.total:
                self.bar.refresh()
                self.last_line = now
            return
        share = progress.done * 10 // max(progress.total, 1)
        now = time.monotonic()
        if share != self.last_share or now - self.last_line >= 10 or progress.done == progress.total:
            eta = progress.eta
            eta_text = f", ETA {eta:.0f} s" if eta is not None and progress.done < progress.total else ""
            print(f"{progress.done}/{progress.total} games ({100 * progress.done // max(progress.total, 1)}%)"
                  f"{eta_text}, {leader}", file=sys.stderr, flush=True)
            self.last_share, self.last_line = share, now


def print_report(report: Report, fmt: str, json_out: bool, sandbox: str | None = None) -> None:
    """The table; ``sandbox`` is how the program bots ran (on, off, unknown), on the first line and in the JSON."""
    if json_out:
        print_json({**report.to_json(), **({"sandbox": sandbox} if sandbox is not None else {})})
        return
    headers = ["rank", "bot", "rating", "± 95%", "games", "mean place", "first %", "last %", "faults"]
    rows = [[r["rank"], r["bot"], f"{r['rating']:.0f}" if r["rating"] is not None else "-",
             f"{r['ci']:.0f}" if r["ci"] is not None else "-", r["games"],
             f"{r['mean_place']:.2f}" if r["mean_place"] is not None else "-",
             f"{100 * r['first']:.1f}" if r["first"] is not None else "-",
             f"{100 * r['last']:.1f}" if r["last"] is not None else "-", r["faults"]] for r in report.rows]
    partial = f"{report.played} of {report.scheduled} games (partial: the tournament is not finished)"
    if fmt in ("csv", "tsv"):  # one table a spreadsheet reads: the ratings (the rest is in --json)
        if report.partial:
            warn(f"a partial table: {partial}")
        typer.echo(format_table(rows, headers, fmt))
        return
    typer.echo((partial if report.partial else f"{report.games} games")
               + (f", seed {report.seed}" if report.seed is not None else "")
               + (f"; sandbox: {sandbox}" if sandbox is not None else ""))
    typer.echo(format_table(rows, headers, fmt))
    names = [r["bot"] for r in report.rows]
    idx = {n: i for i, n in enumerate(report.entrants)}

    def score(a: str, b: str) -> str:
        value = report.score[idx[a]][idx[b]]
        return "" if a == b or value is None else f"{100 * value:.0f}%"

    cross = [[a] + [score(a, b) for b in names] for a in names]
    typer.echo(f"\ncrosstable, row over column ({CROSSTABLE_SCORE}):")
    typer.echo(format_table(cross, ["", *names], fmt))
    if report.head_to_head:
        typer.echo(f"\nhead to head (Elo diff: {interval_source(report.head_to_head)}):")
        h2h = [[h["bot"], h["opponent"], h["games"], f"{h['wins']}/{h['draws']}/{h['losses']}", h["pairs"] or "-",
                f"{100 * h['score']:.1f}%", f"{h['elo']:+.0f} ± {h['elo_error']:.0f}", f"{100 * h['los']:.1f}%"]
               for h in report.head_to_head]
        typer.echo(format_table(h2h, ["bot", "opponent", "games", "W/D/L", "pairs", "score", "Elo diff", "LOS"],
                                fmt))


def check_programs(specs: list[str], registry: Registry, game: str, time: TimeControl,
                   sandbox: Sandbox | None = None, wire_log: WireLog | None = None, *, seats: int | None = None,
                   options: Mapping[str, Any] | None = None) -> None:
    """Refuse a bot that does not play ``game`` (at ``seats``, with ``options``): a registered bot by its
    registration, a program by its hello (started once, then stopped). The one check of run, resume, join and
    sprt."""
    # a hello declares values of every option, so the configured ones are compared with the defaults filled in
    full = registry.game(game).configure(options) if options is not None else None
    for spec in specs:
        parsed = parse_spec(spec, registry)
        refuse_interactive(parsed, "referee tournament")
        if parsed.argv is None:  # a registered bot's games (a SPEC with a prefix is no registry key)
            check_supports(parsed.make(registry, time=time), parsed, game, seats, full)
            continue
        bot = parsed.make(registry, time=time, sandbox=sandbox, wire_log=wire_log)
        try:
            check_supports(bot, parsed, game, seats, full)
        finally:
            bot.close()


def stored_report(store: Store, registry: Registry, bootstrap_samples: int) -> Report:
    config = TournamentConfig.from_dict(store.config() or {})
    game = registry.game(config.game)
    teams = game.teams(config.seats)
    scheduled = config.scheduled(teams)
    report = build_report(config.entrants, store.games(), teams=teams,  # streamed: the rows are read once
                          bootstrap_samples=bootstrap_samples, seed=config.seed, scheduled=scheduled)
    if not report.partial:
        report.seed = config.seed  # shown once every deal is played: until then it would tell the deals to come
    return report


#: ``extra["seed"]`` of a tournament whose seed was drawn in secret (no ``--seed``).
DRAWN = "drawn"


def secret_seed(db: Path, config: TournamentConfig) -> TournamentConfig:
    """The seed of a tournament run without ``--seed``: the stored one when ``db`` holds this same tournament with a
    drawn seed (so the same command continues it; also the old default seed 1 of databases from before seeds were
    drawn), otherwise a new 64-bit seed from the operating system. It is kept only in the database: never on a
    command line, and bots get one-way hashes of the deal seeds (match.bot_seed), never a seed."""
    stored = None
    if db.is_file():
        with Store(db, create=False) as store:
            stored = store.config()

    def rest(data: dict[str, Any]) -> dict[str, Any]:
        extra = {k: v for k, v in (data.get("extra") or {}).items() if k not in ("seed", DEAL_KEY)}
        return {**data, "seed": None, "extra": extra}

    if stored is not None:
        extra = stored.get("extra") or {}
        if not isinstance(extra, dict) or not isinstance(stored.get("seed"), int):
            raise ConfigError(f"{db} holds a damaged tournament configuration (its seed)")
        if rest(stored) != rest(config.to_dict()):  # refused by save_config, naming what differs but the seed
            # only the seed's marker is taken: the stored stages (a gauntlet, a ladder's joins) would make another
            # tournament's command look like this one, or its schedule look damaged
            return replace(config, seed=stored["seed"],
                           extra={**config.extra, **{k: v for k, v in extra.items() if k == "seed"}})
        if extra.get("seed") != DRAWN and stored["seed"] != 1:
            raise ConfigError(f"{db} holds this tournament with --seed {stored['seed']}: give that --seed to "
                              f"continue it (or 'referee tournament resume {db}'), or use another --db")
        return replace(config, seed=stored["seed"], extra=dict(extra))
    return replace(config, seed=secrets.randbits(64), extra={**config.extra, "seed": DRAWN})


#: ``extra[DEAL_KEY]``: the key of a tournament's deals (referee/dealkey.py), hex.
DEAL_KEY = "deal_key"


def has_programs(specs: list[str], registry: Registry) -> bool:
    """Is one of ``specs`` a program bot (untrusted: sandboxed, and dealt keyed deals)?"""
    return any(parse_spec(spec, registry).argv is not None for spec in specs)


def keyed_deals(db: Path, config: TournamentConfig, registry: Registry) -> TournamentConfig:
    """``config`` (its seed settled) with the key of its deals when a program bot plays (referee/dealkey.py): a bot
    that sees its hand or its ``bot_seed`` could otherwise search the small seeds for the tournament's. The key is
    drawn from this user's secret and the seed, so the same command deals the same games again; when ``db`` holds
    this tournament its stored key is kept, or its lack of one (a database from before keys: it continues with the
    deals it began with). In-process bots are trusted code: their tournaments keep the public deals."""
    if not has_programs(config.specs, registry):
        return config
    if db.is_file():
        with Store(db, create=False) as store:
            stored = store.config()

        def rest(data: dict[str, Any]) -> dict[str, Any]:
            return {**data, "extra": {k: v for k, v in (data.get("extra") or {}).items() if k != DEAL_KEY}}

        if stored is not None and rest(stored) == rest(config.to_dict()):
            key = (stored.get("extra") or {}).get(DEAL_KEY)
            return replace(config, extra={**config.extra, **({DEAL_KEY: key} if key is not None else {})})
    return replace(config, extra={**config.extra, DEAL_KEY: derive_key("tournament", config.seed)})


def sandbox_mode(config: dict[str, Any]) -> str:
    """How a stored tournament's program bots run: on, off, or unknown (stored before the sandbox existed)."""
    settings = (config.get("extra") or {}).get("sandbox") if isinstance(config.get("extra"), dict) else None
    return str(settings.get("mode")) if isinstance(settings, dict) else "unknown"


def stored_sandbox(store: Store, config: TournamentConfig, registry: Registry,
                   wire_log: WireLog | None = None) -> Sandbox:
    """The sandbox a stored tournament's games run in (resume): its stored settings, the database and the wire log
    hidden. Stored ``on`` needs bwrap here; a tournament stored without settings runs without, with a warning."""
    settings = config.extra.get("sandbox")
    if not isinstance(settings, dict):
        if has_programs(config.specs, registry):
            warn(f"{store.path} was stored before referee had a sandbox: its program bots run without it "
                 f"(sandbox: unknown; docs/SECURITY.md)")
        return Sandbox(enabled=False)
    sandbox = Sandbox.from_settings(settings, hidden=hidden_files(store.path, wire_log))
    if sandbox.enabled and (problem := probe()) is not None:
        raise ConfigError(f"this tournament runs its bots in the sandbox, and {problem}; install bubblewrap "
                          f"(docs/SECURITY.md)")
    return sandbox


def confinement(specs: list[str], registry: Registry, mode: str, memory_mb: int, processes: int, file_size_mb: int,
                env: list[str]) -> Sandbox:
    """The sandbox of a new tournament's program bots, from the sandbox options (probed only when there is a program
    bot; in-process bots are never sandboxed, and the settings are stored all the same)."""
    if has_programs(specs, registry):
        return sandbox_for(mode, memory_mb, processes, file_size_mb, env)
    return Sandbox(False, memory_mb, processes, file_size_mb, tuple(env))


def hidden_files(db: Path, wire_log: WireLog | None = None) -> list[str]:
    """The database's files and the wire log, which no bot may read (they read as empty if a bot's folder holds
    them)."""
    path = str(db.resolve())
    return [path, path + "-wal", path + "-shm", path + "-journal", *([wire_log.path] if wire_log else [])]


WORKERS = typer.Option(os.cpu_count() or 1, "--workers", "-w", min=1, metavar="W", help="Worker processes.")
AFFINITY = typer.Option("auto", "--affinity", metavar="auto|off", callback=one_of(AFFINITIES),
                        help="auto: pin each worker process and its bots to a core of its own, when there are no "
                        "more workers than cores (Linux; a request and its answer then wait for no other core), "
                        "the cores fewest other processes are pinned to first; off: never.")
EXECUTOR = typer.Option(DEFAULT_EXECUTOR, "--executor", metavar="NAME",
                        help=f"Where the games run: {', '.join(sorted(EXECUTORS))} (local: this machine, --workers "
                        "processes; dask: a Dask cluster, --scheduler).")
SCHEDULER = typer.Option(None, "--scheduler", metavar="ADDRESS",
                         help="With --executor dask: the Dask scheduler tcp://HOST:PORT, or local:N for a cluster of "
                         "N worker processes on this machine, started and closed by the run (default: local:W).")


def play_stored(store: Store, config: TournamentConfig, registry: Registry, executor: ExecutorFactory,
                placement: Placement) -> None:
    """Play the games of the stored tournament that are not stored yet, with a progress display."""
    game = registry.game(config.game)
    label = f"{config.game} {config.seats} seats"
    try:
        with _Reporter(label) as reporter:
            run_tournament(store, config, game, lambda c: executor(c, placement), reporter, warn)
    except KeyboardInterrupt:
        say_interrupted(f"referee: interrupted; {store.count()} games are stored. "
                        f"Continue with: referee tournament resume {store.path}")
        raise typer.Exit(130) from None
    except ExecutorError as exc:
        raise ExecutorError(f"{exc}; {store.count()} games are stored. "
                            f"Continue with: referee tournament resume {store.path}") from exc


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

    def count(n: int, what: str) -> str:
        return f"{n} {what}{'' if n == 1 else 's'}"

    text = f"{count(total, 'game')} ({count(tables, 'table')} × {count(seatings, 'seating')} × " \
           f"{count(config.games, 'deal')}"
    if asked is not None and asked != total:
        text += f"; {asked} asked, {total} played: whole rounds"
    return text + ")"


@app.command(cls=Command)
def run(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see 'referee games')."),
    bot: list[str] = typer.Option([], "--bot", "-b", metavar="SPEC",
                                  help="An entrant: a registered bot, 'cmd:COMMAND' or a "
                                  "path, after its own settings if any ('[name=v7 move-time=500 time-bank=0 "
                                  "cwd=DIR] SPEC'). Repeat it; the same bot twice plays itself. Default: every "
                                  "registered bot that plays GAME."),
    seats: int | None = typer.Option(None, "--seats", "-k", metavar="K", help="Seats per table (default: the number of "
                                        "entrants, within the game's range)."),
    games: int = typer.Option(DEFAULT_GAMES, "--games", "-n", min=1, metavar="N",
                              help="Games per table and seating, not in all: every table (K of the entrants) plays "
                              "N deals, each under every seat rotation (team games: every seating), so 3 bots at 2 "
                              "seats play 3 tables × 2 rotations × N games. The header says the total."),
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
    on_fault: str = typer.Option("forfeit", "--on-fault", metavar="|".join(POLICIES), help=ON_FAULT_HELP),
    fmt: str = typer.Option("simple", "--format", metavar="FMT", help=FORMAT_HELP),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, metavar="B",
                                          help="Confidence intervals from B bootstrap "
                                          "samples over deals instead of the information matrix."),
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
    check_format(fmt)
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
    chosen.check_seats(k)
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
                              extra={"sandbox": confined.settings(),
                                     **({"stages": [["gauntlet", field, len(gauntlet)]]} if gauntlet else {})},
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
        typer.echo(f"{game}: {len(names)} entrants ({', '.join(names)}), {k} seats, {size}, "
                   f"{'duplicate deals' if duplicate else 'independent deals'}, {workers} workers, db {db}",
                   err=True)
        if has_programs(specs, registry):
            typer.echo(f"protections: {protections(confined.enabled)}", err=True)
        play_stored(store, config, registry, play_on,
                    Placement(workers, confined.with_hidden(hidden_files(db, wires)), wires, affinity,
                              scheduler))
        print_report(stored_report(store, registry, bootstrap_samples), fmt, json_out, sandbox_mode(config.to_dict()))


@app.command(cls=Command)
def resume(
    db: Path = typer.Argument(..., metavar="DB", help="The database of an interrupted tournament."),
    workers: int = WORKERS,
    fmt: str = typer.Option("simple", "--format", metavar="FMT", help=FORMAT_HELP),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, metavar="B",
                                          help="Bootstrap samples for the intervals."),
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


@app.command(cls=Command)
def table(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    fmt: str = typer.Option("simple", "--format", metavar="FMT", help=FORMAT_HELP),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, metavar="B",
                                          help="Bootstrap samples for the intervals (this keeps 8 bytes a game in "
                                          "memory; the table alone does not grow with the games)."),
    json_out: bool = typer.Option(False, "--json", help="Print the table as JSON."),
) -> None:
    """Print the rating table of a tournament database again."""
    _existing(db, fmt, bootstrap_samples, json_out, play=None)


@app.command(cls=Command)
def games(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    bot: str | None = typer.Option(None, "--bot", "-b", metavar="NAME",
                                   help="Only the games this entrant played (its name in the "
                                   "table)."),
    faults: bool = typer.Option(False, "--faults", help="Only the games with a fault."),
    fmt: str = typer.Option("simple", "--format", metavar="FMT", help=FORMAT_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the games as JSON."),
) -> None:
    """List the stored games: key, bots by seat, places, decisions and faults, in schedule order.

    A game's key names it for 'referee tournament record DB KEY', which prints its record for 'referee replay'.
    Each game is printed as it is read (an aligned format reads the games twice: once for the column widths).
    """
    check_format(fmt)
    with Store(db, create=False, readonly=True) as store:
        config = store.config()
        if config is None:
            raise ConfigError(f"{db} holds no tournament")
        if bot is not None and bot not in config["entrants"]:
            raise ConfigError(f"no entrant {bot!r} in {db} (entrants: {', '.join(config['entrants'])})")
        if json_out:
            write_games_json(store.games(entrant=bot, faulted=faults), sys.stdout)
            return

        def table_rows() -> Iterator[list[Any]]:
            for r in store.games(entrant=bot, faulted=faults):
                yield [r.key, ", ".join(r.seating), " ".join(map(str, r.places)), r.decisions,
                       "; ".join(f"seat {f.seat} {f.kind}" for f in r.faults) or "-"]

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
    the list (json's indented output is built by hand for a game without faults, the common case: 6× faster)."""
    def game(r: GameRow) -> str:
        if r.faults:
            data = {"key": r.key, "seq": r.seq, "seed": r.seed, "bots": list(r.seating), "places": list(r.places),
                    "decisions": r.decisions, "faults": [f.to_dict() for f in r.faults]}
            return "    " + json.dumps(data, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        bots = ",\n        ".join(map(_json_string, r.seating))
        places = ",\n        ".join(map(str, r.places))
        return (f'    {{\n      "key": {_json_string(r.key)},\n      "seq": {r.seq},\n      "seed": {r.seed},\n'
                f'      "bots": [\n        {bots}\n      ],\n      "places": [\n        {places}\n      ],\n'
                f'      "decisions": {r.decisions},\n      "faults": []\n    }}')

    out.write('{\n  "games": [')
    first = True
    for r in rows:
        out.write(("\n" if first else ",\n") + game(r))
        first = False
    out.write(']\n}\n' if first else '\n  ]\n}\n')


_json_string = json.JSONEncoder(ensure_ascii=False).encode  # one string, as json.dumps writes it


@app.command(cls=Command)
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
    registry = cli_registry()
    with Store(db, create=False, readonly=True) as store:
        if store.config() is None:
            raise ConfigError(f"{db} holds no tournament")
        data = store.record(key, registry.game)  # schema 2: the engine turns the stored choices into actions
    if data is None:
        raise ConfigError(f"no game {key!r} in {db} (see 'referee tournament games {db}' for the keys)")
    stored = record_from_dict(data)  # a damaged row is a RecordError here, not a file replay chokes on
    if html is not None:
        from referee.html import check_writable, replay_html, write_page

        check_writable(html)
        write_page(replay_html(stored, cli_registry().game), html)
    if out is not None:
        write_record(stored, out)
    elif html is None:
        typer.echo(record_text(stored), nl=False)


@app.command(cls=Command)
def verify(
    db: Path = typer.Argument(..., metavar="DB", help="A tournament database."),
    json_out: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
) -> None:
    """Replay every stored game from its record and check that the stored places, scores and faults follow from it.

    Names each row that does not (its key and what differs), and each game missing that the run recorded as stored
    (a deleted row; not those an interrupted run never finished), and exits 1; exits 0 when every row agrees.
    Example: referee tournament verify tournament.db
    """
    registry = cli_registry()
    with Store(db, create=False, readonly=True) as store:  # verify only reads
        checked = verify_store(store, registry.game, Ticker(lambda line: typer.echo(line, err=True)))
    if json_out:
        print_json(checked.to_json())
    else:
        for mismatch in checked.mismatches:
            typer.echo(printable(mismatch.line()))  # the stored key and columns may be anything
        plural = "s" if checked.checked != 1 else ""
        stored = f"{checked.checked} stored game{plural} (of {checked.scheduled} scheduled)"
        if checked.ok:
            typer.echo(f"{stored}: every one follows from its record")
        else:
            bad = len(checked.mismatches) - len(checked.missing)
            follow = "does not follow from its record" if bad == 1 else "do not follow from their records"
            said = [f"{len(checked.missing)} missing"] if checked.missing else []
            typer.echo(f"{stored}: {', '.join(said + ([f'{bad} {follow}'] if bad else []))}")
    if not checked.ok:
        raise typer.Exit(1)


def _existing(db: Path, fmt: str, bootstrap_samples: int, json_out: bool, *,
              play: tuple[ExecutorFactory, Placement] | None) -> None:
    """Open a stored tournament, play what is missing (``resume``: ``play`` says on what and how; the sandbox is the
    stored one), print its table."""
    check_format(fmt)
    registry = cli_registry()
    with Store(db, create=False, readonly=play is None) as store:  # table only reads
        stored = store.config()
        if stored is None:
            raise ConfigError(f"{db} holds no tournament")
        from .sprt_cli import existing_sprt  # here: sprt_cli builds on this module

        if is_sprt(stored):
            existing_sprt(store, stored, registry, json_out, play=play)
            return
        if play is not None:
            executor, placement = play
            config = TournamentConfig.from_dict(stored)
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
        print_report(stored_report(store, registry, bootstrap_samples), fmt, json_out, sandbox_mode(stored))
