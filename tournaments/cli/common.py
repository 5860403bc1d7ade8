"""What the ``referee tournament`` commands share: the options of where and how games run, the entrants' checks,
the seed and the deal key of a new tournament, the sandbox of a stored one, the progress display and the table."""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from referee.botspec import check_supports, parse_spec, refuse_interactive
from referee.botspec import entrant_names as botspec_names
from referee.cli.common import one_of, print_json, say_interrupted, warn
from referee.cli.options import sandbox_for
from referee.cli.tables import format_table
from referee.clock import TimeControl
from referee.dealkey import derive_key
from referee.errors import ConfigError, ExecutorError
from referee.plugins import Registry
from referee.sandbox import Sandbox, probe
from referee.terminal import counted
from referee.wirelog import WireLog

from ..config import DEAL_KEY, DRAWN, Extra, TournamentConfig
from ..executor import AFFINITIES, DEFAULT_EXECUTOR, EXECUTORS, ExecutorFactory, Placement
from ..storage import Store

if TYPE_CHECKING:
    from ..report import Report
    from ..run import Progress


def entrant_names(specs: list[str], registry: Registry) -> list[str]:
    """Display names, unique (:func:`referee.botspec.entrant_names`): ``name=`` as given, the same bot listed twice
    as ``name`` and ``name#2`` (self-play), different bots of one name told apart (``v6/bot``, ``v7/bot``)."""
    return botspec_names([parse_spec(spec, registry) for spec in specs])


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
        leader = f"leader: {progress.leader}" if progress.done else ""  # none before the first game
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
                  f"{eta_text}{', ' if leader else ''}{leader}", file=sys.stderr, flush=True)
            self.last_share, self.last_line = share, now


def print_report(report: Report, fmt: str, json_out: bool, sandbox: str | None = None) -> None:
    """The table; ``sandbox`` is how the program bots ran (on, off, unknown), on the first line and in the JSON."""
    from ..report import CROSSTABLE_SCORE, interval_source  # the fit's numpy: not for the commands that list games

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


#: ``extra.seed`` of a tournament whose seed was drawn in secret (no ``--seed``).
def stored_config(db: Path) -> dict[str, Any] | None:
    """The configuration ``db`` holds for ``run`` or ``sprt``, which make their tournament in it next: None when there
    is no such file, or it holds none yet (an empty file too)."""
    if not db.is_file():
        return None
    with Store(db, create=True) as store:
        return store.config()


def resume_hint(store: Store) -> str:
    """What a stopped run says last: how many games are stored, and the command that continues."""
    n = store.count()
    return (f"{counted(n, 'game')} {'is' if n == 1 else 'are'} stored. Continue with: referee tournament resume "
            f"{store.path}")


def secret_seed(db: Path, config: TournamentConfig) -> TournamentConfig:
    """The seed of a tournament run without ``--seed``: the stored one when ``db`` holds this same tournament with a
    drawn seed (so the same command continues it; also the old default seed 1 of databases from before seeds were
    drawn), otherwise a new 64-bit seed from the operating system. It is kept only in the database: never on a
    command line, and bots get one-way hashes of the deal seeds (match.bot_seed), never a seed."""
    stored = stored_config(db)

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
                           extra=Extra.from_dict({**config.extra.to_dict(), **{k: v for k, v in extra.items()
                                                                                if k == "seed"}}))
        if extra.get("seed") != DRAWN and stored["seed"] != 1:
            raise ConfigError(f"{db} holds this tournament with --seed {stored['seed']}: give that --seed to "
                              f"continue it (or 'referee tournament resume {db}'), or use another --db")
        return replace(config, seed=stored["seed"], extra=Extra.from_dict(extra))
    return replace(config, seed=secrets.randbits(64), extra=replace(config.extra, seed=DRAWN))


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
    stored = stored_config(db)

    def rest(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "extra": {k: v for k, v in (data.get("extra") or {}).items() if k != DEAL_KEY}}

    if stored is not None and rest(stored) == rest(config.to_dict()):
        key = (stored.get("extra") or {}).get(DEAL_KEY)
        return config if key is None else replace(config, extra=replace(config.extra, deal_key=key))
    return replace(config, extra=replace(config.extra, deal_key=derive_key("tournament", config.seed)))


def stored_sandbox(store: Store, config: TournamentConfig, registry: Registry,
                   wire_log: WireLog | None = None) -> Sandbox:
    """The sandbox a stored tournament's games run in (resume): its stored settings, the database and the wire log
    hidden. Stored ``on`` needs bwrap here; a tournament stored without settings runs without, with a warning."""
    settings = config.extra.sandbox
    if settings is None:
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


#: The most bootstrap samples: a 95 % interval's ends are steady long before; each sample holds a rating per entrant.
MAX_BOOTSTRAP = 100_000
BOOTSTRAP = typer.Option(0, "--bootstrap", min=0, max=MAX_BOOTSTRAP, metavar="B",
                         help="Confidence intervals from B bootstrap samples over deals instead of the information "
                              "matrix (this keeps 8 bytes a game in memory while the table is made).")
WORKERS = typer.Option(os.cpu_count() or 1, "--workers", "-w", min=1, metavar="W",
                       help="Worker processes (default: this machine's CPUs).")
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
    from ..run import run_tournament  # the live ratings' numpy: not for the commands that list games

    game = registry.game(config.game)
    label = f"{config.game} {config.seats} seats"
    try:
        with _Reporter(label) as reporter:
            run_tournament(store, config, game, lambda c: executor(c, placement), reporter, warn)
    except KeyboardInterrupt:
        say_interrupted(f"referee: interrupted; {resume_hint(store)}")
        raise typer.Exit(130) from None
    except ExecutorError as exc:
        raise ExecutorError(f"{exc}; {resume_hint(store)}") from exc
