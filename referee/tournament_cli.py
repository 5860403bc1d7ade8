"""``referee tournament run | resume | table``: round-robin tournaments from the command line."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import typer
from tabulate import tabulate, tabulate_formats

from tournaments.executor import LocalExecutor, TournamentConfig
from tournaments.report import Report, build_report
from tournaments.run import Progress, run_tournament
from tournaments.schedule import schedule_size
from tournaments.storage import Store

from .botspec import check_supports, parse_spec
from .cli_common import cli_registry, one_line_errors, parse_options, print_json
from .errors import ConfigError, ExecutorError
from .match import POLICIES, check_policy
from .plugins import Registry
from .record import record_from_dict, record_text, write_record

app = typer.Typer(help="Round-robin tournaments: every table of the field, every seat rotation, rating tables.",
                  no_args_is_help=True, rich_markup_mode=None)

DEFAULT_DB = Path("tournament.db")
DEFAULT_GAMES = 1000


def entrant_names(specs: list[str], registry: Registry) -> list[str]:
    """Display names, unique: a bot listed twice plays as ``name`` and ``name#2`` (self-play)."""
    names: list[str] = []
    for spec in specs:
        base = parse_spec(spec, registry).name
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base}#{k}"
        names.append(name)
    return names


def _check_format(fmt: str) -> None:
    if fmt not in tabulate_formats:
        raise ConfigError(f"unknown --format {fmt!r} (choose from: {', '.join(sorted(tabulate_formats))})")


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
            # tournaments/executor.py); the bar is redrawn from the progress callback instead.
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


def print_report(report: Report, fmt: str, json_out: bool) -> None:
    if json_out:
        print_json(report.to_json())
        return
    headers = ["rank", "bot", "rating", "± 95%", "games", "mean place", "first %", "last %", "faults"]
    rows = [[r["rank"], r["bot"], f"{r['rating']:.0f}", f"{r['ci']:.0f}" if r["ci"] is not None else "-", r["games"],
             f"{r['mean_place']:.2f}" if r["mean_place"] is not None else "-",
             f"{100 * r['first']:.1f}" if r["first"] is not None else "-",
             f"{100 * r['last']:.1f}" if r["last"] is not None else "-", r["faults"]] for r in report.rows]
    typer.echo(f"{report.games} games")
    typer.echo(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))
    names = [r["bot"] for r in report.rows]
    idx = {n: i for i, n in enumerate(report.entrants)}
    def share(a: str, b: str) -> str:
        value = report.ahead[idx[a]][idx[b]]
        return "" if a == b or value is None else f"{100 * value:.0f}%"

    cross = [[a] + [share(a, b) for b in names] for a in names]
    typer.echo("\nfinished ahead of (row over column, share of the games both played):")
    typer.echo(tabulate(cross, headers=["", *names], tablefmt=fmt, disable_numparse=True))
    if report.head_to_head:
        typer.echo("\nhead to head:")
        h2h = [[h["bot"], h["opponent"], h["games"], f"{h['wins']}/{h['draws']}/{h['losses']}",
                f"{100 * h['score']:.1f}%", f"{h['elo']:+.0f} ± {h['elo_error']:.0f}", f"{100 * h['los']:.1f}%"]
               for h in report.head_to_head]
        typer.echo(tabulate(h2h, headers=["bot", "opponent", "games", "W/D/L", "score", "Elo diff", "LOS"],
                            tablefmt=fmt, disable_numparse=True))


def _check_programs(specs: list[str], registry: Registry, game: str, move_time: int) -> None:
    """Refuse a program bot whose hello says it does not play ``game`` (started once, then stopped)."""
    for spec in specs:
        parsed = parse_spec(spec, registry)
        if parsed.argv is None:
            continue
        bot = parsed.make(registry, move_time=move_time / 1000)
        try:
            check_supports(bot, parsed, game)
        finally:
            bot.close()


def _report(store: Store, registry: Registry, bootstrap_samples: int) -> Report:
    config = TournamentConfig.from_dict(store.config() or {})
    game = registry.game(config.game)
    return build_report(config.entrants, list(store.games()), teams=game.teams(config.seats),
                        bootstrap_samples=bootstrap_samples, seed=config.seed)


def _play(store: Store, config: TournamentConfig, registry: Registry, workers: int, json_out: bool) -> None:
    game = registry.game(config.game)
    label = f"{config.game} {config.seats} seats"
    try:
        with _Reporter(label) as reporter:
            run_tournament(store, config, game, lambda c: LocalExecutor(c, workers), reporter)
    except KeyboardInterrupt:
        typer.echo(f"referee: interrupted; {store.count()} games are stored. "
                   f"Continue with: referee tournament resume {store.path}", err=True)
        raise typer.Exit(130) from None
    except ExecutorError as exc:
        raise ExecutorError(f"{exc}; {store.count()} games are stored. "
                            f"Continue with: referee tournament resume {store.path}") from None


@app.command()
def run(
    game: str = typer.Argument(..., help="Game id (see 'referee games')."),
    bot: list[str] = typer.Option([], "--bot", "-b", help="An entrant: a registered bot, 'cmd:COMMAND' or a "
                                  "path. Repeat it; the same bot twice plays itself. Default: every "
                                  "registered bot that plays GAME."),
    seats: int | None = typer.Option(None, "--seats", "-k", help="Seats per table (default: the number of "
                                        "entrants, within the game's range)."),
    games: int = typer.Option(DEFAULT_GAMES, "--games", "-n", min=1, help="Deals per table and seat rotation."),
    duplicate: bool = typer.Option(True, "--duplicate/--no-duplicate", help="Play each deal under every seat "
                                   "rotation of its table, so the luck of the deal cancels."),
    workers: int = typer.Option(os.cpu_count() or 1, "--workers", "-w", min=1, help="Worker processes."),
    db: Path = typer.Option(DEFAULT_DB, "--db", help="SQLite file holding the results."),
    seed: int = typer.Option(1, min=0, max=2**64 - 1, help="Tournament seed: the deals follow from it."),
    move_time: int = typer.Option(1000, "--move-time", min=1, help="Per-move limit of program bots, ms."),
    option: list[str] = typer.Option([], "--option", "-o", help="A game option as KEY=VALUE; repeatable."),
    on_fault: str = typer.Option("forfeit", "--on-fault", help=f"Fault policy: {' or '.join(POLICIES)}."),
    fmt: str = typer.Option("simple", "--format", help="Any tabulate table format (github, grid, latex, …)."),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, help="Confidence intervals from N bootstrap "
                                          "samples over deals instead of the information matrix."),
    json_out: bool = typer.Option(False, "--json", help="Print the final table as JSON."),
) -> None:
    """Run a round-robin tournament and print the rating table.

    Every K-subset of the entrants plays every seat rotation, N deals each; results go to --db as they finish.
    Example: referee tournament run durak --bot heuristic --bot random --bot first --seats 2 --games 200
    """
    with one_line_errors():
        _check_format(fmt)
        registry = cli_registry()
        chosen = registry.game(game)
        options = chosen.configure(parse_options(option))
        specs = list(bot) or sorted(n for n, e in registry.bots.items() if e.supports(game))
        if len(specs) < 2 and not bot:
            raise ConfigError(f"fewer than two registered bots play {game}; name the entrants with --bot")
        names = entrant_names(specs, registry)
        for spec in specs:
            entry = registry.bots.get(spec)
            if entry is not None and not entry.supports(game):
                raise ConfigError(f"bot {spec!r} does not play {game} (it plays: {', '.join(entry.games or [])})")
        k = seats if seats is not None else min(max(len(specs), chosen.min_seats), chosen.max_seats)
        chosen.check_seats(k)
        if k > len(specs):
            raise ConfigError(f"{k} seats need at least {k} entrants, got {len(specs)} (list a bot twice for "
                              f"self-play)")
        check_policy(on_fault)
        _check_programs(specs, registry, game, move_time)
        config = TournamentConfig(game=game, options=options, entrants=names, specs=specs, seats=k, games=games,
                                  duplicate=duplicate, seed=seed, move_time_ms=move_time, policy=on_fault)
        total = schedule_size(len(names), k, games, chosen.teams(k))
        with Store(db, create=True) as store:
            store.save_config(config.to_dict())  # refuses a database of another tournament, before anything runs
            typer.echo(f"{game}: {len(names)} entrants ({', '.join(names)}), {k} seats, {total} games, "
                       f"{'duplicate deals' if duplicate else 'independent deals'}, {workers} workers, db {db}",
                       err=True)
            _play(store, config, registry, workers, json_out)
            print_report(_report(store, registry, bootstrap_samples), fmt, json_out)


@app.command()
def resume(
    db: Path = typer.Argument(..., help="The database of an interrupted tournament."),
    workers: int = typer.Option(os.cpu_count() or 1, "--workers", "-w", min=1, help="Worker processes."),
    fmt: str = typer.Option("simple", "--format", help="Any tabulate table format."),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, help="Bootstrap samples for the intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print the final table as JSON."),
) -> None:
    """Continue a tournament where it stopped (no game lost, none played twice) and print the table."""
    _existing(db, fmt, bootstrap_samples, json_out, play_workers=workers)


@app.command()
def table(
    db: Path = typer.Argument(..., help="A tournament database."),
    fmt: str = typer.Option("simple", "--format", help="Any tabulate table format."),
    bootstrap_samples: int = typer.Option(0, "--bootstrap", min=0, help="Bootstrap samples for the intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print the table as JSON."),
) -> None:
    """Print the rating table of a tournament database again."""
    _existing(db, fmt, bootstrap_samples, json_out, play_workers=None)


@app.command()
def games(
    db: Path = typer.Argument(..., help="A tournament database."),
    bot: str | None = typer.Option(None, "--bot", "-b", help="Only the games this entrant played (its name in the "
                                   "table)."),
    faults: bool = typer.Option(False, "--faults", help="Only the games with a fault."),
    fmt: str = typer.Option("simple", "--format", help="Any tabulate table format."),
    json_out: bool = typer.Option(False, "--json", help="Print the games as JSON."),
) -> None:
    """List the stored games: key, bots by seat, places, decisions and faults, in schedule order.

    A game's key names it for 'referee tournament record DB KEY', which prints its record for 'referee replay'.
    """
    with one_line_errors():
        _check_format(fmt)
        with Store(db, create=False) as store:
            config = store.config()
            if config is None:
                raise ConfigError(f"{db} holds no tournament")
            if bot is not None and bot not in config["entrants"]:
                raise ConfigError(f"no entrant {bot!r} in {db} (entrants: {', '.join(config['entrants'])})")
            rows = [row for row in store.games()
                    if (bot is None or bot in row.seating) and (not faults or row.faults)]
        if json_out:
            print_json({"games": [{"key": r.key, "seq": r.seq, "seed": r.seed, "bots": r.seating,
                                        "places": r.places, "decisions": r.decisions, "faults": r.faults}
                                       for r in rows]})
            return
        table_rows = [[r.key, ", ".join(r.seating), " ".join(map(str, r.places)), r.decisions,
                       "; ".join(f"seat {f['seat']} {f['kind']}" for f in r.faults) or "-"] for r in rows]
        typer.echo(tabulate(table_rows, headers=["key", "bots (by seat)", "places", "decisions", "faults"],
                            tablefmt=fmt, disable_numparse=True))
        typer.echo(f"{len(rows)} games", err=True)


@app.command()
def record(
    db: Path = typer.Argument(..., help="A tournament database."),
    key: str = typer.Argument(..., help="The game's key, as 'referee tournament games' lists it (like t0.d3.r1)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the record to this file instead of stdout."),
) -> None:
    """Print one stored game's record (the stderr tails of faulted bots included), for 'referee replay'.

    Example: referee tournament record tournament.db t0.d3.r1 -o game.json && referee replay game.json -v
    """
    with one_line_errors():
        with Store(db, create=False) as store:
            if store.config() is None:
                raise ConfigError(f"{db} holds no tournament")
            data = store.record(key)
        if data is None:
            raise ConfigError(f"no game {key!r} in {db} (see 'referee tournament games {db}' for the keys)")
        stored = record_from_dict(data)  # a damaged row is a RecordError here, not a file replay chokes on
        if out is None:
            typer.echo(record_text(stored), nl=False)
        else:
            write_record(stored, out)


def _existing(db: Path, fmt: str, bootstrap_samples: int, json_out: bool, *, play_workers: int | None) -> None:
    """Open a stored tournament, play what is missing (``resume``, with ``play_workers``), print its table."""
    with one_line_errors():
        _check_format(fmt)
        registry = cli_registry()
        with Store(db, create=False) as store:
            stored = store.config()
            if stored is None:
                raise ConfigError(f"{db} holds no tournament")
            if play_workers is not None:
                config = TournamentConfig.from_dict(stored)
                for spec in config.specs:
                    parse_spec(spec, registry)
                _play(store, config, registry, play_workers, json_out)
            print_report(_report(store, registry, bootstrap_samples), fmt, json_out)
