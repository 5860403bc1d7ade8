"""``referee league``: a standing league of bots with a live web page (docs/LEAGUE.md).

``init`` makes the league (a folder: its database and its token), ``serve`` plays it and serves the page, and
``add``, ``retire``, ``promote``, ``start``, ``stop`` and ``show`` work from another terminal while it runs: they
change the database, which the server reads again every half second.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from referee.botspec import parse_spec
from referee.cli.common import cli_registry, parse_options, print_json, warn
from referee.cli.options import (
    BOT_ENV,
    BOT_FILE_SIZE,
    BOT_MEMORY,
    BOT_PROCESSES,
    GAME_OPTION,
    MOVE_TIME,
    ON_FAULT,
    SANDBOX,
    TIME_BANK,
)
from referee.cli.tables import FORMAT, check_format, format_table
from referee.dealkey import derive_key
from referee.errors import ConfigError, StoreLocked
from referee.match import check_policy
from referee.terminal import counted

from ..config import Extra, TournamentConfig
from ..executor import Placement, executor_factory
from ..league.matchmaker import Matchmaker
from ..league.roster import (
    BENCHMARK,
    CANDIDATE,
    DB_NAME,
    LeagueBot,
    LeagueSettings,
    Roster,
    add_bot,
    change,
    check_token,
    make_token,
    promote_bot,
    read_token,
    retire_bot,
    roster_of,
    set_paused,
)
from ..report import report_of
from ..sprt import SprtSettings
from ..sprt_plan import SprtPlan
from ..storage import Store
from ..tally import tally
from .common import (
    AFFINITY,
    EXECUTOR,
    SCHEDULER,
    WORKERS,
    check_programs,
    confinement,
    entrant_names,
    hidden_files,
    secret_seed,
    stored_sandbox,
)

__all__ = ["add", "init", "promote", "retire", "serve", "show", "start", "stop"]

LEAGUE = typer.Option(Path("."), "--league", "-l", metavar="DIR", envvar="REFEREE_LEAGUE",
                      help="The league's folder (made by 'referee league init'; default: this one, or "
                      "$REFEREE_LEAGUE).")
TOKEN = typer.Option(None, "--token", metavar="TOKEN", envvar="REFEREE_LEAGUE_TOKEN",
                     help="The league's token (default: $REFEREE_LEAGUE_TOKEN, else read from DIR/token).")
SERVER_FILE = "server.json"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _db(folder: Path) -> Path:
    path = folder / DB_NAME
    if not path.is_file():
        raise ConfigError(f"{folder} holds no league (no {DB_NAME}); make one with: referee league init {folder} GAME")
    return path


def init(
    folder: Path = typer.Argument(..., metavar="DIR", help="A new folder (or an empty one) for the league."),
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see 'referee games')."),
    bot: list[str] = typer.Option([], "--bot", "-b", metavar="SPEC",
                                  help="A first benchmark; repeat it (more come with 'referee league add')."),
    seats: int | None = typer.Option(None, "--seats", "-k", metavar="K",
                                     help="Seats per game (default: the game's least)."),
    elo0: float = typer.Option(0.0, "--elo0", metavar="ELO", help="A candidate's SPRT H0: this much better."),
    elo1: float = typer.Option(10.0, "--elo1", metavar="ELO", help="A candidate's SPRT H1: this much better."),
    alpha: float = typer.Option(0.05, "--alpha", metavar="P", help="The chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, "--beta", metavar="P", help="The chance of accepting H0 when H1 holds."),
    model: str = typer.Option("logistic", "--model", metavar="logistic|normalized",
                              help="What --elo0 and --elo1 mean (docs/TOURNAMENTS.md, SPRT)."),
    max_deals: int = typer.Option(500, "--max-deals", min=1, metavar="N",
                                  help="A candidate's budget: deals of its evaluation at most; then it is 'open'."),
    pool_share: float = typer.Option(0.25, "--pool-share", min=0.0, max=1.0, metavar="F",
                                     help="While candidates are evaluated, this share of the games goes to the "
                                     "benchmarks' own games (keeping their ratings fresh)."),
    suspend_after: int = typer.Option(5, "--suspend-after", min=1, metavar="N",
                                      help="Suspend a bot that faults in N games in a row."),
    baseline: str | None = typer.Option(None, "--baseline", metavar="NAME",
                                        help="Every candidate's baseline (default: the best-rated benchmark when "
                                        "its evaluation starts)."),
    seed: int | None = typer.Option(None, min=0, max=2**64 - 1, metavar="S",
                                    help="The league's seed (default: a secret one, kept in its database)."),
    move_time: int = MOVE_TIME,
    time_bank: int = TIME_BANK,
    option: list[str] = GAME_OPTION,
    on_fault: str = ON_FAULT,
    sandbox: str = SANDBOX,
    bot_env: list[str] = BOT_ENV,
    bot_memory: int = BOT_MEMORY,
    bot_processes: int = BOT_PROCESSES,
    bot_file_size: int = BOT_FILE_SIZE,
) -> None:
    """Make a league in DIR: its database and its token (printed once, kept in DIR/token, mode 0600).

    Example: referee league init myleague durak --seats 2 --bot random --bot first --bot heuristic
    """
    settings = SprtSettings.given(elo0, elo1, alpha, beta, model)
    check_policy(on_fault)
    registry = cli_registry()
    chosen = registry.game(game)
    options = chosen.configure(parse_options(option))
    k = seats if seats is not None else chosen.min_seats
    chosen.check_seats(k, " (--seats)")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(f"{folder} exists and is not an empty folder: give a new one")
    for spec in bot:
        parse_spec(spec, registry)
    names = entrant_names(list(bot), registry)
    confined = confinement(list(bot) or ["cmd:true"], registry, sandbox, bot_memory, bot_processes, bot_file_size,
                           bot_env)  # a league may get program bots later: its sandbox is settled now
    roster = Roster(LeagueSettings(SprtPlan.settings_dict(settings), max_deals, pool_share, suspend_after, baseline),
                    {n: LeagueBot(n, BENCHMARK) for n in names})
    if baseline is not None and baseline not in names:
        raise ConfigError(f"--baseline {baseline} is not one of the benchmarks given with --bot ({', '.join(names)})")
    config = TournamentConfig(game=game, options=options, entrants=names, specs=list(bot), seats=k, games=1,
                              duplicate=True, seed=seed or 0, move_time_ms=move_time, policy=on_fault,
                              time_bank_ms=time_bank,
                              extra=Extra(sandbox=confined.settings(), league=roster.to_dict()))
    db = folder / DB_NAME
    check_programs(list(bot), registry, game, config.time_control(), confined.with_hidden(hidden_files(db)),
                   seats=k, options=config.options)
    if seed is None:
        config = secret_seed(db, config)
    config = replace(config, extra=replace(config.extra, deal_key=derive_key("tournament", config.seed)))
    folder.mkdir(parents=True, exist_ok=True)
    with Store(db, create=True) as store:
        store.save_config(config.to_dict())
    token = make_token(folder)
    typer.echo(f"{game}: a league in {folder}, {k} seats, benchmarks: {', '.join(names) or 'none yet'}", err=True)
    typer.echo(f"token (changes the league; kept in {folder / 'token'}, mode 0600): {token}")
    typer.echo(f"next: referee league serve {folder}", err=True)


def serve(
    folder: Path = typer.Argument(..., metavar="DIR", help="The league's folder."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="HOST",
                             help="Where the page listens (default: this machine only). Another host needs "
                             "--read-only, or the league's token in DIR/token."),
    port: int = typer.Option(8737, "--port", "-p", min=0, max=65535, metavar="PORT",
                             help="The page's port (0: a free one, printed)."),
    read_only: bool = typer.Option(False, "--read-only", help="Refuse every change through the JSON API."),
    workers: int = WORKERS,
    executor: str = EXECUTOR,
    scheduler: str | None = SCHEDULER,
    affinity: str = AFFINITY,
) -> None:
    """Play the league, game after game, and serve its page (http://HOST:PORT/) until ^C.

    Games are stored as they finish; a restart goes on where it stopped. Example: referee league serve myleague
    """
    import uvicorn

    from ..league.player import LeagueView, Player
    from ..league.web import league_app

    db = _db(folder)
    token = read_token(folder)
    if host not in LOOPBACK and not read_only and token is None:
        raise ConfigError(f"--host {host} lets other machines in: give --read-only, or keep the league's token in "
                          f"{folder / 'token'} (referee league init makes it)")
    play_on = executor_factory(executor, scheduler)
    registry = cli_registry()
    with Store(db, create=False) as store:
        try:
            store.lock()  # refused at once when another server plays this league; released at close
        except StoreLocked:
            raise StoreLocked(f"another server plays the league in {folder} (referee league show says where)") \
                from None
        config = TournamentConfig.from_dict(store.config())
        roster_of(config)
        sandbox = stored_sandbox(store, config, registry)
    placement = Placement(workers, sandbox, None, affinity, scheduler)
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    address = sock.getsockname()
    url = f"http://{host if ':' not in host else '[' + host + ']'}:{address[1]}/"
    view = LeagueView()
    player = Player(db, registry, lambda c: play_on(c, placement), view)
    thread = threading.Thread(target=player.run, name="league-play", daemon=True)
    app = league_app(db, registry, view, token, read_only=read_only)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1,
                                           access_log=False))
    (folder / SERVER_FILE).write_text(json.dumps({"url": url, "pid": os.getpid()}) + "\n")
    if host not in LOOPBACK:
        warn(f"the page is open to other machines on {host}" + (
            "" if read_only else ", over plain HTTP: a token sent through the JSON API can be read on the way "
            "(docs/LEAGUE.md)"))
    typer.echo(f"{config.game} league {folder}: serving {url} ({'read-only' if read_only else 'changes need the token'}"
               f"), {counted(workers, 'worker')}; ^C stops", err=True)
    thread.start()
    try:
        server.run(sockets=[sock])
    finally:
        player.stop()
        thread.join(timeout=60)
        try:
            (folder / SERVER_FILE).unlink()
        except OSError:
            pass


def _change(folder: Path, token: str | None, mutate: Any) -> TournamentConfig:
    check_token(token or read_token(folder), read_token(folder))
    with Store(_db(folder), create=False) as store:
        return change(store, mutate)


def add(
    name: str = typer.Argument(..., metavar="NAME", help="The bot's name in the league (never reused)."),
    spec: str = typer.Argument(..., metavar="SPEC", help="A registered bot, cmd:COMMAND or a path, as in "
                               "'referee tournament run --bot'."),
    candidate: bool = typer.Option(True, "--candidate/--benchmark",
                                   help="A candidate is evaluated against the benchmarks (the default); a benchmark "
                                   "joins the pool."),
    baseline: str | None = typer.Option(None, "--baseline", metavar="NAME",
                                        help="The benchmark this candidate must beat (default: the league's, else the "
                                        "best-rated when its evaluation starts)."),
    check: bool = typer.Option(True, "--check/--no-check",
                               help="Start a program bot once (its hello) before adding it."),
    folder: Path = LEAGUE,
    token: str | None = TOKEN,
) -> None:
    """Add a bot to the league, while it runs or not; it gets games first.

    Example: referee league add v8 cmd:./v8/bot --league myleague
    """
    registry = cli_registry()
    parse_spec(spec, registry)
    check_token(token or read_token(folder), read_token(folder))
    db = _db(folder)
    with Store(db, create=False) as store:
        config = TournamentConfig.from_dict(store.config())
        if check:
            check_programs([spec], registry, config.game, config.time_control(),
                           stored_sandbox(store, config, registry), seats=config.seats, options=config.options)
        change(store, add_bot(name, spec, CANDIDATE if candidate else BENCHMARK, baseline))
    typer.echo(f"{name} added as a {'candidate' if candidate else 'benchmark'}", err=True)


def retire(name: str = typer.Argument(..., metavar="NAME"), folder: Path = LEAGUE,
           token: str | None = TOKEN) -> None:
    """Retire a bot: it plays no more; its games stay and count."""
    _change(folder, token, retire_bot(name))
    typer.echo(f"{name} retired", err=True)


def promote(name: str = typer.Argument(..., metavar="NAME"), folder: Path = LEAGUE,
            token: str | None = TOKEN) -> None:
    """Make a candidate a benchmark: it joins the pool."""
    _change(folder, token, promote_bot(name))
    typer.echo(f"{name} is a benchmark now", err=True)


def stop(folder: Path = LEAGUE, token: str | None = TOKEN) -> None:
    """Stop handing out games (the games in flight finish); the page stays up."""
    _change(folder, token, set_paused(True))
    typer.echo("the league is stopped; 'referee league start' goes on", err=True)


def start(folder: Path = LEAGUE, token: str | None = TOKEN) -> None:
    """Go on handing out games after 'referee league stop'."""
    _change(folder, token, set_paused(False))
    typer.echo("the league plays again", err=True)


def show(folder: Path = LEAGUE, json_out: bool = typer.Option(False, "--json", help="Print it as JSON."),
         fmt: str = FORMAT) -> None:
    """The league now: each bot's role, state, rating and games, each candidate's verdict."""
    check_format(fmt, json_out)
    registry = cli_registry()
    with Store(_db(folder), create=False, readonly=True) as store:
        config = TournamentConfig.from_dict(store.config())
        roster = roster_of(config)
        teams = registry.game(config.game).teams(config.seats)
        mm = Matchmaker.reading(config, teams)
        for game in store.games():
            mm.stored_game(game.seq, game.key, game.seating, game.places, game.faults)
        mm.resume()  # each evaluation's deals handed out so far (nothing is played or stored here)
        report = report_of(config.entrants, tally(config.entrants, store), teams=teams)
        count = store.count()
    running = _server(folder)
    bots = []
    for row in report.rows:
        bot = roster.bots[row["bot"]]
        bots.append({"name": bot.name, "role": bot.role, "state": bot.state, "reason": bot.reason,
                     "rating": row["rating"], "ci": row["ci"], "games": row["games"], "faults": row["faults"],
                     "evaluation": {k: v for k, v in mm.status(bot.name).items() if k != "course"}
                     if bot.role == CANDIDATE or bot.name in mm.evaluations else None})
    if json_out:
        print_json({"game": config.game, "seats": config.seats, "games": count, "paused": roster.settings.paused,
                    "server": running, "bots": bots})
        return
    table = [[b["name"], b["role"], b["state"], "–" if b["rating"] is None else f"{b['rating']:.0f} ± {b['ci']:.0f}",
              b["games"], b["faults"], (b["evaluation"] or {}).get("verdict", ""),
              (b["evaluation"] or {}).get("line", b["reason"] or "")] for b in bots]
    typer.echo(f"{config.game} league, {config.seats} seats: {count} games"
               + (", stopped" if roster.settings.paused else "") + (f"; served at {running}" if running else ""))
    typer.echo(format_table(table, ["bot", "role", "state", "rating", "games", "faults", "verdict", "details"], fmt))


def _server(folder: Path) -> str | None:
    """The URL of the server playing the league, if one is (its file, and its process alive)."""
    try:
        data = json.loads((folder / SERVER_FILE).read_text())
        os.kill(int(data["pid"]), 0)
        return str(data["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
