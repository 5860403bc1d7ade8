"""The league's web page and JSON API (docs/LEAGUE.md, "The page" and "The JSON API"): Starlette, served by uvicorn
in ``referee league serve``. Pages are rendered from Jinja2 templates (tournaments/templates/league*.html.j2) with
their CSS and script inline; nothing is fetched from the network when they are viewed.

Reading needs nothing; every change needs the token (``Authorization: Bearer TOKEN``) and is refused on a
``--read-only`` server. Bad input is a 4xx with ``{"error": "..."}``, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from protocol.faults import FAULT_KINDS
from referee.botspec import parse_spec
from referee.errors import AccessError, ConfigError, ConflictError, RefereeError
from referee.html import environment, replay_html
from referee.plugins import Registry
from referee.record import record_from_dict

from ..config import TournamentConfig
from ..report import report_of
from ..report_html import move_limits, rating_bars, time_banks, time_rows
from ..storage import GameRow, Store
from ..tally import Tallies, tally
from .player import LeagueView
from .roster import (
    CANDIDATE,
    add_bot,
    change,
    check_token,
    promote_bot,
    retire_bot,
    roster_of,
    set_paused,
)

__all__ = ["LISTED", "counters", "league_app"]

#: The games the page lists: the newest that pass the filters.
LISTED = 100
#: The most recent games of a bot its page reads the time per move and the counters from.
BOT_GAMES = 50
#: Seconds the leaderboard is kept before it is fitted again (at most; it is fitted only when games were stored).
LEADERBOARD_SECONDS = 1.0
#: The most of the time the leaderboard's fits take (a fit that took 0.2 s waits 4 s for the next).
LEADERBOARD_SHARE = 0.05
RESULTS = ("first", "last", "other")

_COUNTER = re.compile(r"(?<![^\s,;(])([A-Za-z_][\w.]{0,31})=(-?\d+(?:\.\d+)?)(?![^\s,;)])")


def counters(note: str) -> dict[str, float]:
    """The counters a bot reports in a decision's note: every ``name=number`` in it standing alone (``nodes=1200
    depth=7``; words apart by spaces, commas, semicolons or brackets, so a URL's ``?q=1`` is none).
    The hook of docs/LEAGUE.md, "What the bots report"."""
    return {m.group(1): float(m.group(2)) for m in _COUNTER.finditer(note)}


class _Leaderboard:
    """The rating table of the stored games (tournaments/report.py's, as ``tournament table`` prints it), fitted
    again only when games were stored, at most every LEADERBOARD_SECONDS: from the play loop's tally of the games
    by outcome (its cost grows with the outcomes, not the games), or, before the loop has read the stored games (or
    in a server that does not play), from the stored games themselves, then at most LEADERBOARD_SHARE of the
    time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = -1
        self.at = -math.inf
        self.cost = 0.0  # seconds the last fit took
        self.entrants = 0
        self.rows: list[dict[str, Any]] = []
        self.axis: dict[str, Any] = {}

    def get(self, store: Store, config: TournamentConfig, teams: Any,
            view: LeagueView) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        with self.lock:
            now = time.monotonic()
            counted = view.counted()
            due = max(LEADERBOARD_SECONDS, 0 if counted else self.cost / LEADERBOARD_SHARE)
            if now - self.at >= due or len(config.entrants) != self.entrants:
                count = sum(counted[0].values()) if counted else store.count()
                if count != self.count or len(config.entrants) != self.entrants:
                    if counted:
                        tallies = Tallies(dict(counted[0]), [counted[1].get(name, 0) for name in config.entrants])
                        report = report_of(config.entrants, tallies, teams=teams)
                    else:
                        report = report_of(config.entrants, tally(config.entrants, store), teams=teams)
                    self.rows, self.axis = rating_bars(report)
                    self.count, self.entrants = count, len(config.entrants)
                    self.cost = time.monotonic() - now
                self.at = now
            return [dict(row) for row in self.rows], self.axis


def league_app(path: Path, registry: Registry, view: LeagueView, token: str | None, *,
               read_only: bool = False) -> Starlette:
    """The application of the league in ``path`` (its database); ``token``: the one that changes it (None: no
    change is allowed); ``view``: what the play loop tells."""
    env = environment("tournaments")
    board = _Leaderboard()

    def store() -> Store:
        return Store(path, create=False, readonly=True)

    def league(s: Store) -> TournamentConfig:
        return TournamentConfig.from_dict(s.config())

    def teams_of(config: TournamentConfig) -> Any:
        return registry.game(config.game).teams(config.seats)

    def state(s: Store) -> dict[str, Any]:
        config = league(s)
        rows, axis = board.get(s, config, teams_of(config), view)
        snap = view.snapshot()
        roster = roster_of(config)
        for row in rows:
            bot = roster.bots.get(row["bot"])
            row["role"] = bot.role if bot else "?"
            row["state"] = bot.state if bot else "?"
            row["reason"] = bot.reason if bot else None
            row["verdict"] = snap["evaluations"].get(row["bot"], {}).get("verdict") if bot and \
                bot.role == CANDIDATE else None
        return {**snap, "game": config.game, "seats": config.seats, "move_time_ms": config.move_time_ms,
                "leaderboard": rows, "axis": axis, "stored": snap["games"] if view.loaded else s.count(),
                "settings": roster.to_dict()["settings"]}

    def page(request: Request) -> Response:
        with store() as s:
            data = state(s)
            config = league(s)
            filters = _filters(request, config)
            games = _games(s, filters)
        return HTMLResponse(env.get_template("league.html.j2").render(
            data=data, games=games, filters=filters, entrants=config.entrants, listed=LISTED, results=RESULTS,
            fault_kinds=["any", "none", *FAULT_KINDS], read_only=read_only))

    def evaluations(request: Request) -> Response:
        snap = view.snapshot()
        template = env.get_template("league_evaluation.html.j2")
        return HTMLResponse("".join(template.render(name=n, e=e) for n, e in snap["evaluations"].items()))

    def api_state(request: Request) -> Response:
        with store() as s:
            return JSONResponse(state(s))

    def api_games(request: Request) -> Response:
        with store() as s:
            filters = _filters(request, league(s))
            return JSONResponse({"filters": filters, "games": _games(s, filters)})

    def replay(request: Request) -> Response:
        key = request.path_params["key"]
        with store() as s:
            data = s.record(key, registry.game)
            if data is None:
                return _error(404, f"no game {key!r:.60} in this league")
            limits = move_limits(league(s))
        record = record_from_dict(data)
        return HTMLResponse(replay_html(record, registry.game, back="/", limits=[limits.get(n) for n in record.bots],
                                        back_label="back to the league"))

    def api_bot(request: Request) -> Response:
        with store() as s:
            return JSONResponse(_bot(s, request.path_params["name"]))

    def bot_page(request: Request) -> Response:
        with store() as s:
            data = _bot(s, request.path_params["name"])
        return HTMLResponse(env.get_template("league_bot.html.j2").render(bot=data))

    def _bot(s: Store, name: str) -> dict[str, Any]:
        config = league(s)
        roster = roster_of(config)
        if name not in roster.bots:
            raise _NotFound(f"no bot {name!r:.60} in this league")
        bot = roster.bots[name]
        snap = view.snapshot()
        counts = snap["bots"].get(name, {"games": 0, "faulted": 0, "kinds": {}})
        limits = move_limits(config)
        times: dict[str, list[int]] = {name: []}
        said: dict[str, list[float]] = {}
        for used, words in s.asked(name, BOT_GAMES, registry.game):
            if used is not None:
                times[name].append(used)
            note = words.get("note") if isinstance(words, dict) else None
            for counter, value in counters(str(note or "")).items():
                said.setdefault(counter, []).append(value)
        games = counts["games"]
        return {"name": name, "spec": config.specs[config.entrants.index(name)], "role": bot.role,
                "state": bot.state, "reason": bot.reason, "games": games, "faulted": counts["faulted"],
                "fault_rate": round(counts["faulted"] / games, 4) if games else None,
                "faults": counts["kinds"], "move_limit_ms": limits.get(name),
                "time_per_move": time_rows([name], times, limits, time_banks(config)),
                "recent_games": min(games, BOT_GAMES),
                "counters": {k: {"decisions": len(v), "mean": round(sum(v) / len(v), 3), "max": max(v)}
                             for k, v in sorted(said.items())},
                "evaluation": snap["evaluations"].get(name)}

    # ----------------------------------------------------------------------------------------- changes

    async def body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise ConfigError("the request's body is not JSON") from None
        if not isinstance(data, dict):
            raise ConfigError("the request's body is not a JSON object")
        return data

    def allowed(request: Request) -> None:
        if read_only:
            raise AccessError("this server is read-only (--read-only): change the league from the command line")
        header = request.headers.get("authorization", "")
        given = header[7:].strip() if header.lower().startswith("bearer ") else None
        check_token(given, token)

    def changed(mutate: Callable[..., Any]) -> dict[str, Any]:
        with Store(path, create=False) as s:
            config = change(s, mutate)
        return {"ok": True, "bots": roster_of(config).to_dict()["bots"]}

    async def api_add(request: Request) -> Response:
        allowed(request)  # before the body is read: a bot's command is never taken from an unauthenticated request
        data = await body(request)
        name, spec, role = data.get("name"), data.get("spec"), data.get("role", CANDIDATE)
        baseline = data.get("baseline")
        if not isinstance(name, str) or not isinstance(spec, str) or not isinstance(role, str) or not (
                baseline is None or isinstance(baseline, str)):
            raise ConfigError('give {"name": NAME, "spec": SPEC, "role": "candidate"|"benchmark", '
                              '"baseline": NAME (optional)}')
        parse_spec(spec, registry)  # an unknown bot is refused here
        return JSONResponse(await asyncio.to_thread(changed, add_bot(name, spec, role, baseline)), status_code=201)

    def named(mutate: Callable[[str], Callable[..., Any]]) -> Callable[[Request], Any]:
        async def handler(request: Request) -> Response:
            allowed(request)
            return JSONResponse(await asyncio.to_thread(changed, mutate(request.path_params["name"])))
        return handler

    def paused(value: bool) -> Callable[[Request], Any]:
        async def handler(request: Request) -> Response:
            allowed(request)
            return JSONResponse(await asyncio.to_thread(changed, set_paused(value)))
        return handler

    async def events(request: Request) -> Response:
        async def stream() -> Any:
            last = -1
            quiet = 0.0
            while not await request.is_disconnected():
                version = view.version
                if version != last:
                    last = version
                    quiet = 0.0
                    yield f"event: changed\ndata: {json.dumps({'version': version, 'games': view.games})}\n\n"
                elif quiet >= 15:
                    quiet = 0.0
                    yield ": still here\n\n"
                await asyncio.sleep(0.5)
                quiet += 0.5

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def failed(request: Request, exc: Exception) -> Response:
        if isinstance(exc, AccessError):
            return _error(403 if read_only else 401, str(exc))
        if isinstance(exc, _NotFound):
            return _error(404, str(exc))
        if isinstance(exc, ConfigError):
            return _error(409 if isinstance(exc, ConflictError) else 400, str(exc))
        return _error(500, str(exc) if isinstance(exc, RefereeError) else f"internal error: {type(exc).__name__}")

    routes = [Route("/", page), Route("/events", events), Route("/api/state", api_state),
              Route("/evaluations", evaluations), Route("/api/games", api_games), Route("/api/bots/{name}", api_bot),
              Route("/bots/{name}", bot_page),
              Route("/games/{key}", replay),
              Route("/api/bots", api_add, methods=["POST"]),
              Route("/api/bots/{name}/retire", named(retire_bot), methods=["POST"]),
              Route("/api/bots/{name}/promote", named(promote_bot), methods=["POST"]),
              Route("/api/stop", paused(True), methods=["POST"]), Route("/api/start", paused(False), methods=["POST"])]
    return Starlette(routes=routes, exception_handlers={RefereeError: failed, _NotFound: failed, Exception: failed})


class _NotFound(LookupError):
    pass


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _filters(request: Request, config: TournamentConfig) -> dict[str, Any]:
    """The games list's filters from the query: ``bot`` (a name), ``seat`` (the seat it sat in; needs ``bot``),
    ``fault`` (a kind, ``any`` or ``none``), ``result`` (``first``, ``last`` or ``other``: the bot's place; needs
    ``bot``); a bad value is a 400."""
    q = request.query_params
    bot, seat, fault, result = q.get("bot") or None, q.get("seat") or None, q.get("fault") or None, \
        q.get("result") or None
    if bot is not None and bot not in config.entrants:
        raise ConfigError(f"no bot {bot!r:.60} in this league")
    if seat is not None and not (seat.isdigit() and int(seat) < config.seats):
        raise ConfigError(f"seat must be 0 to {config.seats - 1}, got {seat!r:.20}")
    if fault is not None and fault not in ("any", "none", *FAULT_KINDS):
        raise ConfigError(f"fault must be any, none or a kind ({', '.join(FAULT_KINDS)}), got {fault!r:.20}")
    if result is not None and result not in RESULTS:
        raise ConfigError(f"result must be one of {', '.join(RESULTS)}, got {result!r:.20}")
    if (seat is not None or result is not None) and bot is None:
        raise ConfigError("seat and result are a bot's: give bot too")
    return {"bot": bot, "seat": None if seat is None else int(seat), "fault": fault, "result": result}


def _games(s: Store, filters: dict[str, Any]) -> list[dict[str, Any]]:
    """The newest LISTED stored games that pass ``filters``, newest first."""
    bot, seat, fault, result = filters["bot"], filters["seat"], filters["fault"], filters["result"]
    kept: list[GameRow] = []
    for row in s.games(entrant=bot, faulted=fault not in (None, "none"), newest_first=True):
        if len(kept) >= LISTED:
            break
        if fault == "none" and row.faults or fault not in (None, "any", "none") and not any(
                str(f.kind) == fault and (bot is None or row.seating[f.seat] == bot) for f in row.faults):
            continue
        if bot is not None and (seat is not None or result is not None):
            seats = [i for i, n in enumerate(row.seating) if n == bot and (seat is None or i == seat)]
            if not seats:
                continue
            if result is not None and not any(_result(row.places, i) == result for i in seats):
                continue
        kept.append(row)
    return [{"key": r.key, "href": f"/games/{quote(r.key, safe='')}", "bots": list(r.seating),
             "places": list(r.places), "decisions": r.decisions,
             "faults": [f"{r.seating[f.seat]} {f.kind} at decision {f.decision}" for f in r.faults]}
            for r in kept]


def _result(places: Sequence[int], seat: int) -> str:
    if places[seat] == min(places):
        return "first"
    return "last" if places[seat] == max(places) else "other"
