"""``referee play`` (one game between bots) and ``referee replay`` (a game record played again)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from tabulate import tabulate

from ..botspec import BotSpec, check_supports, entrant_names, parse_spec
from ..clock import TimeControl
from ..engine import Game, State
from ..errors import ConfigError
from ..match import GameRecord, check_policy, play_game
from ..record import read_record, replay, write_record
from ..said import said_to_dict
from ..terminal import printable
from ..wirelog import WireLog
from .common import check_writable, cli_registry, parse_options, print_json
from .options import (
    BOT_ENV,
    BOT_FILE_SIZE,
    BOT_MEMORY,
    BOT_PROCESSES,
    GAME_OPTION,
    MOVE_TIME,
    ON_FAULT,
    SANDBOX,
    TIME_BANK,
    WIRE_LOG,
    sandbox_for,
)

__all__ = ["play", "replay_cmd"]
def _narrator(game: Game, out: Any) -> Any:
    def listen(state: State, events: list[dict[str, Any]]) -> None:
        for event in events:
            print(game.narrate(event), file=out)

    return listen


def _summary(record: GameRecord, game: Game, seed: int | None = None) -> dict[str, Any]:
    result = record.result
    data = result.to_dict()  # the result object: what the JSON holds, and what a game's seat_fields reads
    faults: dict[int, list[dict[str, Any]]] = {}
    for f in record.faults:
        faults.setdefault(f.seat, []).append({"kind": str(f.kind), "decision": f.decision, "message": f.message})
    seats = [
        {"seat": s, "bot": record.bots[s], "place": result.places[s], "score": result.scores[s],
         **game.seat_fields(data, s), "faults": faults.get(s, []), "stderr": record.stderr.get(s, "")}
        for s in range(record.seats)
    ]
    return {
        "game": record.game,
        "options": record.options,
        "seed": record.seed if seed is None else seed,
        "dealer": record.dealer,
        "policy": record.policy,
        "decisions": record.decisions,
        "aborted": result.aborted,
        "finishing_order": data["finishing_order"],
        "seats": seats,
        "result": data,
        "times": record.times,
        "said": said_to_dict(record.said),
    }


def _print_result(record: GameRecord, game: Game, json_out: bool, sandbox: str | None = None,
                  seed: int | None = None) -> None:
    """The result; ``sandbox`` (play only: on or off) is how the program bots ran, last in the JSON; ``seed`` (play
    only) is its ``--seed``, which repeats the game (with a program bot the record's is the keyed deal seed)."""
    summary = _summary(record, game, seed)
    if json_out:
        print_json({**summary, **({"sandbox": sandbox} if sandbox is not None else {})})
        return
    opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in record.options.items()) or "no options"
    typer.echo(f"{record.game} with {record.seats} seats, seed {summary['seed']}, dealer {record.dealer} ({opts})")
    fields = [k for k in summary["seats"][0] if k not in ("seat", "bot", "place", "score", "faults", "stderr")]
    rows = [[s["seat"], s["bot"], *(s[k] for k in fields), s["place"], game.score_text(s["score"]),
             ", ".join(f"{f['kind']}@{f['decision']}" for f in s["faults"]) or "-"] for s in summary["seats"]]
    typer.echo(tabulate(rows, headers=["seat", "bot", *(k.replace("_", " ") for k in fields), "place", "score",
                                       "faults"]))
    for seat in summary["seats"]:
        if seat["faults"] and seat["stderr"]:
            tail = printable(seat["stderr"]).rstrip().split("\n")[-5:]  # escapes shown, not obeyed
            typer.echo(f"seat {seat['seat']} ({seat['bot']}) stderr, last lines:")
            for line in tail:
                typer.echo(f"  | {line}")
    extra = []
    result = record.result
    if result.aborted:
        extra.append("aborted at the safety limit")
    elif result.extra.get("draw"):
        extra.append("a draw")
    elif result.extra.get("loser") is not None:
        extra.append(f"loser by the rules: seat {result.extra['loser']}")
    if record.faults and record.policy == "forfeit":
        extra.append("faulted seats forfeit (placed last)")
    typer.echo(f"{record.decisions} decisions; " + "; ".join(extra) if extra else f"{record.decisions} decisions")


def _check_human_seat(specs: list[BotSpec], *, json_out: bool, verbose: bool) -> None:
    """A person plays at the terminal (docs/HUMAN.md): one seat at most (each would see the other's hand), and
    neither ``--json`` (stdout is the game's screen) nor ``--verbose`` (it narrates every seat's cards)."""
    humans = [spec.spec for spec in specs if spec.interactive]
    if len(humans) > 1:
        raise ConfigError(f"{len(humans)} human seats: one at most, as each would see the other's hand on the "
                          f"terminal")
    if humans and json_out:
        raise ConfigError(f"--json cannot be used with {humans[0]!r}: the terminal is the human's screen")
    if humans and verbose:
        raise ConfigError(f"--verbose cannot be used with {humans[0]!r}: it would show every seat's cards")


def play(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see 'referee games')."),
    bot: list[str] = typer.Option(
        ..., "--bot", "-b", metavar="SPEC",
        help="A bot per seat, in seat order: a registered name (see 'referee bots'), 'cmd:COMMAND ARGS', "
             "or the path of an executable, after its own settings if any ('[name=v7 move-time=500 "
             "time-bank=0 cwd=DIR] SPEC').",
    ),
    seed: int | None = typer.Option(None, metavar="N", help="Deal seed (0..2^64-1); drawn and printed when omitted."),
    option: list[str] = GAME_OPTION,
    dealer: int = typer.Option(0, metavar="SEAT", help="Seat of the first dealer."),
    on_fault: str = ON_FAULT,
    move_time: int = MOVE_TIME,
    time_bank: int = TIME_BANK,
    record: Path | None = typer.Option(None, metavar="FILE", help="Write the game record (JSON) to this file."),
    wire_log: Path | None = WIRE_LOG,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Narrate every action in plain words."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
    sandbox: str = SANDBOX,
    bot_env: list[str] = BOT_ENV,
    bot_memory: int = BOT_MEMORY,
    bot_processes: int = BOT_PROCESSES,
    bot_file_size: int = BOT_FILE_SIZE,
) -> None:
    """Play one game between bots and print the result.

    Example: referee play durak --bot heuristic --bot random --seed 7 --verbose
    """
    registry = cli_registry()
    chosen = registry.game(game)
    options = parse_options(option)
    full_options = chosen.configure(options)
    if not chosen.min_seats <= len(bot) <= chosen.max_seats:
        raise ConfigError(f"{game} is played by {chosen.min_seats}-{chosen.max_seats} bots (one --bot per "
                          f"seat), got {len(bot)}")
    specs = [parse_spec(spec, registry) for spec in bot]
    entrant_names(specs)  # refuses a name= another bot has (the seats keep their bots' plain names)
    _check_human_seat(specs, json_out=json_out, verbose=verbose)
    check_policy(on_fault)
    if not 0 <= dealer < len(bot):
        raise ConfigError(f"--dealer must be a seat between 0 and {len(bot) - 1}, got {dealer}")
    if record is not None:
        check_writable(record, "the record")
    wires = WireLog(wire_log) if wire_log is not None else None  # opened now: a bad path is refused before a game
    confined = (sandbox_for(sandbox, bot_memory, bot_processes, bot_file_size, bot_env)
                .with_hidden([*([record.resolve()] if record else []), *([wires.path] if wires else [])])
                if any(spec.argv is not None for spec in specs) else None)
    limits = TimeControl.from_ms(move_time, time_bank)
    players = []
    try:
        for spec in specs:
            players.append(spec.make(registry, time=limits, sandbox=confined, wire_log=wires))
            check_supports(players[-1], spec, game, len(bot), full_options)
    except BaseException:
        for player in players:
            player.close()
        raise
    for spec, player in zip(specs, players, strict=True):
        if spec.interactive:  # a person reads the game's own words for the events (docs/HUMAN.md)
            setattr(player, "narrator", chosen.narrate)  # noqa: B010 - an attribute of that bot, not of Bot
    if seed is None:  # 64 bits: a bot that sees its hand cannot search the seeds that deal it
        import secrets

        seed = secrets.randbits(64)
        typer.echo(f"seed {seed} (repeat this game with --seed {seed})", err=True)
    # With a program bot the deal's seed is a keyed hash of --seed (referee/dealkey.py): a small --seed would
    # otherwise let the bot find the deal from its hand or its bot_seed. In-process bots are trusted code.
    out = sys.stderr if json_out else sys.stdout
    try:
        deal = seed
        if confined is not None:  # which protections the program bots get here, in one line
            from ..dealkey import derive_key, keyed_seed

            deal = keyed_seed(derive_key("play", seed), seed)
            from ..cgroups import describe as protections

            typer.echo(f"protections: {protections(confined.enabled)}", err=True)
        result = play_game(chosen, players, seed=deal, options=options, dealer=dealer, policy=on_fault,
                           listener=_narrator(chosen, out) if verbose else None)
    finally:
        for player in players:
            player.close()
    ran = "on" if confined is not None and confined.enabled else "off"  # in-process bots: never sandboxed
    _print_result(result, chosen, json_out, ran, seed)  # first: a record that cannot be written does not lose it
    if record:
        write_record(result, record)


def replay_cmd(
    file: Path = typer.Argument(..., metavar="FILE", help="A record written by 'referee play --record'."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Narrate every action in plain words."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
    html: Path | None = typer.Option(None, "--html", metavar="OUT", help="Also write the replay viewer: one "
                                     "self-contained HTML page stepping through the game (docs/HTML.md)."),
) -> None:
    """Re-play a game record and print its result; a record that does not replay is an error."""
    registry = cli_registry()
    if html is not None:
        check_writable(html, "the replay page")
    stored = read_record(file)
    game = registry.game(stored.game)
    out = sys.stderr if json_out else sys.stdout
    replayed = replay(stored, registry.game, listener=_narrator(game, out) if verbose else None)
    _print_result(replayed, game, json_out)
    if html is not None:
        from ..html import replay_html, write_page

        write_page(replay_html(stored, registry.game), html)
