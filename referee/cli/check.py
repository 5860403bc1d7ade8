"""``referee check SPEC``: run the protocol-compliance suite against a bot program (docs/CHECK.md).

Exit codes: 0 when no case FAILED (and, with ``--strict``, none is NON-STRICT), 1 otherwise, 2 for a usage error
or an error of the suite itself (one line on stderr, like every command).
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import sys
import time
from pathlib import Path

import typer

from ..botspec import cannot_play, parse_spec, refuse_interactive
from ..cgroups import describe as protections
from ..check.cases import exit_code, run_cases, select
from ..check.harness import Session
from ..check.report import Header, Tree, failures, list_cases, report_json, summary_line
from ..errors import ConfigError
from ..plugins import Registry
from ..terminal import printable
from ..wirelog import WireLog
from .common import check_writable, cli_registry, parse_options, print_json
from .options import BOT_ENV, BOT_FILE_SIZE, BOT_MEMORY, BOT_PROCESSES, SANDBOX, WIRE_LOG, sandbox_for

__all__ = ["check", "program_for"]


def program_for(spec: str, registry: Registry) -> tuple[list[str], str]:
    """The command line of the bot a SPEC names, and its display name.

    A registered (in-process) bot has no program, except the built-in ones, which run through the SDK as
    ``python -m bots.NAME``; any other registered name is refused with a hint."""
    parsed = parse_spec(spec, registry)
    refuse_interactive(parsed, "referee check")
    if parsed.argv is not None:
        return list(parsed.argv), parsed.display_name
    module = f"bots.{parsed.name}"
    factory = registry.bot(parsed.name).factory
    if getattr(factory, "__module__", None) == module and importlib.util.find_spec(module) is not None:
        return [sys.executable, "-m", module], parsed.given_name or module
    raise ConfigError(f"bot {spec!r} runs inside the referee, and 'referee check' tests programs: give its "
                      f"command ('cmd:python3 -m yourpackage.yourbot') or the path of an executable")


def check(
    spec: str | None = typer.Argument(
        None, metavar="SPEC",
        help="The bot program: 'cmd:COMMAND ARGS', the path of an executable, or a built-in bot's name (run as "
             "'python -m bots.NAME'), after '[name=NAME cwd=DIR]' if any."),
    game: list[str] = typer.Option([], "--game", "-g", metavar="GAME",
                                   help="Check this game only; repeatable. Default: every "
                                   "registered game the bot says it plays."),
    option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE",
                                     help="Play every game with this option (KEY=VALUE, of the games that have it); "
                                     "repeatable. Default: the defaults, within what the bot's hello declares."),
    seats: int | None = typer.Option(None, "--seats", "-k", min=1, metavar="K",
                                     help="Play at K seats only. Default: every seat count of each game the bot's "
                                     "hello does not exclude."),
    cases: list[str] = typer.Option([], "--cases", "-c", metavar="PATTERN",
                                    help="Cases to run: an id (2.1), a prefix (2), a glob "
                                    "(3.*) or a group (timing); comma-separated or repeated. Default: all."),
    list_only: bool = typer.Option(False, "--list", help="List the cases (with --cases: the selected ones) and "
                                   "exit."),
    strict: bool = typer.Option(False, "--strict", help="A NON-STRICT verdict (a SHOULD broken) fails too."),
    seed: int | None = typer.Option(None, min=0, max=2**64 - 1, metavar="N",
                                    help="Seed of every deal; drawn and printed "
                                    "when omitted. With --cases ID it repeats one case exactly."),
    json_out: bool = typer.Option(False, "--json", help="Print the JSON report (with every transcript) on "
                                  "stdout; the tree goes to stderr."),
    report: Path | None = typer.Option(None, "--report", metavar="FILE", help="Write the JSON report to this file."),
    wire_log: Path | None = WIRE_LOG,
    sandbox: str = SANDBOX,
    bot_env: list[str] = BOT_ENV,
    bot_memory: int = BOT_MEMORY,
    bot_processes: int = BOT_PROCESSES,
    bot_file_size: int = BOT_FILE_SIZE,
) -> None:
    """Check that a bot program keeps to the protocol (docs/CHECK.md lists the cases).

    Example: referee check 'cmd:node bots/examples/js/bot.js' --seed 1
    """
    selected = select(cases)
    if list_only:
        for line in list_cases(selected):
            typer.echo(line)
        return
    if spec is None:
        raise ConfigError("referee check needs a bot SPEC, like 'cmd:python3 mybot.py' (or --list)")
    if report is not None:
        check_writable(report, "the report")
    registry = cli_registry()
    argv, name = program_for(spec, registry)
    parsed = parse_spec(spec, registry)  # its prefix: name= and cwd= are honoured, the cases time the bot
    if parsed.move_time_ms is not None or parsed.time_bank_ms is not None:
        raise ConfigError(f"bot {spec!r}: referee check sets the deadlines its cases test (docs/CHECK.md, "
                          f"\"4 timing\"): drop move-time= and time-bank=")
    for game_id in game:
        registry.game(game_id)  # an unknown game is a usage error, before anything starts
    given = parse_options(option)
    wires = WireLog(wire_log) if wire_log is not None else None  # opened now: a bad path is refused before a case
    confined = sandbox_for(sandbox, bot_memory, bot_processes, bot_file_size, bot_env)
    confined = confined.with_hidden([*([report.resolve()] if report is not None else []),
                                     *([wires.path] if wires is not None else [])])
    drawn = seed is None
    if seed is None:
        seed = secrets.randbits(32)

    def echo(line: str) -> None:
        typer.echo(printable(line, one_line=True), err=json_out)  # bot text in it is shown, not obeyed

    start = time.monotonic()
    session = Session(argv, registry=registry, seed=seed, name=name, cwd=parsed.cwd, popen=confined.popen,
                      wire_log=wires)
    session.discover(game)
    if session.start_failure is not None:  # a program that ends before its hello: one line, no case run
        raise ConfigError(cannot_play(spec, *session.start_failure))
    session.narrow(seats, given)  # --seats and -o, within the hello's declaration; a conflict is one line
    if drawn:
        typer.echo(f"seed {seed} (repeat this check with --seed {seed})", err=True)
    header = Header(spec, argv, seed, session.games, session.hello, list(dict.fromkeys(game)), strict,
                    protections(confined.enabled), scope=session.scope, seats=seats, options=option)
    for line in header.lines():
        echo(line)
    results = run_cases(session, selected, Tree(echo))
    seconds = time.monotonic() - start
    for line in failures(results, header, session):
        echo(line)
    data = report_json(results, header, session, seconds)
    if report is not None:
        try:
            report.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write the report to {report}: {exc.strerror or exc}") from None
        echo(f"report: {report}")
    echo(summary_line(results, seconds, strict=strict))
    if json_out:
        print_json(data)
    code = exit_code(results, strict=strict)
    if code:
        raise typer.Exit(code)
