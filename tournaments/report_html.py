"""The tournament report as one self-contained HTML page (``referee tournament report``, docs/HTML.md).

The page holds the rating table with the intervals drawn as bars, the crosstable as a heat map of scores (wins
+ ½ draws, the terminal table's figures), the ratings' course over the games played, the faults by bot and kind,
the configuration, and the list of games, each linked to its replay viewer (:mod:`referee.html`), written beside
the report. Charts are inline SVG drawn from the numbers here; the template is ``templates/report.html.j2``;
nothing is fetched when the page is viewed.

The work is bounded: the stored games are read once, as a stream; the course is the table
(:func:`tournaments.report.build_report`) of at most :data:`COURSE_POINTS` prefixes of them, each from its games
counted by outcome; a replay page is written for every game with a fault (opened at its first fault) and for at
most ``replays`` others, in schedule order; the list holds the first :data:`LISTED` games and every game with a
replay (the page says how many it leaves out); the time per move is of the last :data:`TIMES_GAMES` games that
hold times, or fewer once each bot has :data:`TIMES_MOVES` moves in them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from protocol.faults import FAULT_KINDS, FaultKind, fault_words
from referee.botspec import stored_ms
from referee.engine import Game
from referee.html import environment, replay_html, write_page
from referee.plugins import Registry
from referee.record import record_from_dict

from .config import TournamentConfig
from .report import CROSSTABLE_SCORE, Report, interval_source, report_of, stored_table
from .storage import GameRow, Store
from .tally import Tallies

__all__ = ["COURSE_POINTS", "DEFAULT_REPLAYS", "LISTED", "TIMES_GAMES", "ReportPage", "move_limits", "rating_bars",
           "report_page", "time_banks", "time_rows", "write_report"]

#: Prefixes of the stored games whose table the course chart shows (the last is the whole table).
COURSE_POINTS = 12
#: Replay pages of games without a fault written beside the report by default (``--replays``); every game with a
#: fault has one.
DEFAULT_REPLAYS = 50
#: Games listed besides those with a replay: the first in schedule order.
LISTED = 500
#: The most recent stored games (of those that hold times) whose times per move the distribution is of, at most:
#: fewer once each bot has :data:`TIMES_MOVES` moves in them (each game is replayed to learn who made each move).
TIMES_GAMES = 1000
#: The moves of each bot that are enough for its time per move: fifty of them beyond its 99 % (:data:`PERCENTILES`),
#: so that the 99 % does not hang on a few moves.
TIMES_MOVES = 5000
#: The shares of a bot's moves the time distribution gives the time within.
PERCENTILES = (0.5, 0.9, 0.99)
#: The least distance of two names at the right end of the course chart (SVG units; the text is 12 high).
LABEL_GAP = 13.0
#: Line colours of the course chart, one per entrant (repeating after ten).
COLOURS = ("#2459c2", "#c8102e", "#17803d", "#c25a00", "#7b3fb5", "#0e8a8a", "#8a6d00", "#b0124a", "#4d5b70",
           "#5c8f00")


@dataclass
class ReportPage:
    """What the template shows, computed once."""

    config: TournamentConfig
    game: Game
    report: Report
    sandbox: str
    rows: list[dict[str, Any]]  # the rating table, each row with its bar
    axis: dict[str, Any]  # the bars' common scale
    heat: list[list[dict[str, Any]]]  # the crosstable, row over column
    course: dict[str, Any]  # the course chart's lines and axes
    faults: dict[str, Any]  # kinds, and per bot its counts
    games: list[dict[str, Any]]  # the listed games
    total_games: int
    replay_limit: int  # --replays
    replays: list[GameRow] = field(default_factory=list)  # the games whose replay page is written
    limits: dict[str, int] = field(default_factory=dict)  # entrant → its move time limit (ms)
    times: list[dict[str, Any]] = field(default_factory=list)  # per entrant, its time per move (time_rows)


def report_page(store: Store, registry: Registry, *, replays: int = DEFAULT_REPLAYS,
                folder: str = "games") -> ReportPage:
    """The page's numbers from ``store``, read as a stream (memory with the entrants and the games listed, not with
    the games stored); ``folder``: where the replay pages go, relative to the report."""
    config = TournamentConfig.from_dict(store.config() or {})
    game = registry.game(config.game)
    teams = game.teams(config.seats)
    stored = store.count()
    marks = sorted({max(1, round(stored * k / COURSE_POINTS)) for k in range(1, COURSE_POINTS + 1)}) if stored else []
    # the table 'referee tournament table' prints, its seed rule too, and the games of each prefix but the last
    report, tallies = stored_table(store, registry, 0, marks[:-1])
    snapshots: list[tuple[int, Mapping[tuple[tuple[str, ...], tuple[int, ...]], int]]] = list(tallies.snapshots)
    outcomes = tallies.counts
    total = sum(outcomes.values())  # a game stored meanwhile included
    faults: Counter[tuple[str, str]] = Counter()
    faulted: list[GameRow] = []  # every game with a fault: each has its replay
    for row in store.games(faulted=True):
        faulted.append(row)
        for f in row.faults:
            faults[row.seating[f.seat], str(f.kind)] += 1
    first: list[GameRow] = []  # the first LISTED games, in schedule order
    clean: list[GameRow] = []  # the first ``replays`` games without one
    for row in store.games():  # as far as these need
        if len(first) < LISTED:
            first.append(row)
        if not row.faults and len(clean) < replays:
            clean.append(row)
        if len(first) == LISTED and len(clean) == replays:
            break
    if total:
        snapshots.append((total, outcomes))  # the last point is the whole table (a game stored meanwhile included)
    chosen = sorted(faulted + clean, key=lambda r: r.seq)
    linked = {r.key for r in chosen}
    listed = sorted({r.key: r for r in (*first, *chosen)}.values(), key=lambda r: r.seq)
    games = [_listed(r, f"{quote(folder)}/{quote(page_name(r.key))}" if r.key in linked else None) for r in listed]
    bars, axis = rating_bars(report)
    limits = move_limits(config)
    times = store.move_times(TIMES_GAMES, registry.game,  # per entrant, the µs of each asked decision
                             enough=(config.entrants, TIMES_MOVES))
    return ReportPage(config, game, report, config.extra.sandbox_mode, bars, axis, _heat(report),
                      _course(config, snapshots, teams), _faults(config, faults), games, total,
                      replays, chosen, limits, time_rows(config.entrants, times, limits, time_banks(config)))


def _listed(r: GameRow, href: str | None) -> dict[str, Any]:
    """A listed game; a link to a game with a fault opens its replay at the first fault (``#d=``)."""
    first = min((f.decision for f in r.faults), default=None)
    if href is not None and first is not None:
        href += f"#d={first}"
    return {"key": r.key, "seq": r.seq, "bots": list(r.seating), "places": list(r.places),
            "decisions": r.decisions, "faults": fault_words(r.faults),
            "href": href,
            "row": {"s": r.seq, "b": list(r.seating), "p": list(r.places), "d": r.decisions,
                    "f": [[f.seat, str(f.kind)] for f in r.faults]}}


def move_limits(config: TournamentConfig) -> dict[str, int]:
    """Each entrant's move time limit in milliseconds: its SPEC's ``move-time=`` where given, else the
    tournament's (``move_time_ms``)."""
    return _entrant_ms(config, "move-time", config.move_time_ms)


def time_banks(config: TournamentConfig) -> dict[str, int]:
    """Each entrant's time bank in milliseconds (0: none): its SPEC's ``time-bank=`` where given, else the
    tournament's (``time_bank_ms``). A game's moves may go past their limit by that much in all, without a timeout."""
    return _entrant_ms(config, "time-bank", config.time_bank_ms, least=0)


def _entrant_ms(config: TournamentConfig, key: str, default: int, least: int = 1) -> dict[str, int]:
    """A time setting of each entrant, in ms: its SPEC's ``key=`` where given (:func:`referee.botspec.stored_ms`),
    else ``default``."""
    values = {}
    for name, spec in zip(config.entrants, config.specs, strict=True):
        value = stored_ms(spec, key, least)
        values[name] = default if value is None else value
    return values


def _percentile(ordered: Sequence[int], share: float) -> int:
    """The nearest-rank percentile of a sorted, non-empty list: the least value with ``share`` of them at or
    below it."""
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def time_rows(entrants: Sequence[str], times: Mapping[str, Sequence[int]],
              limits: Mapping[str, int], banks: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """Per entrant with times, its time per move: how many, the median, 90 % and 99 % (nearest rank) and the
    longest, in µs, against its limit; ``bar``: those as % of the limit (at most 100, ``over`` when the longest
    is past it), for the page's bars; ``bank``: its time bank in ms (``banks``; 0 without): a game's moves may go past
    the limit by that much in all."""
    rows = []
    for name in entrants:
        ordered = sorted(times.get(name) or ())
        if not ordered:
            continue
        limit = limits.get(name)
        marks = [_percentile(ordered, q) for q in PERCENTILES] + [ordered[-1]]
        row: dict[str, Any] = {"bot": name, "moves": len(ordered), "limit": limit, "bank": (banks or {}).get(name, 0),
                               "values": [_duration(v) for v in marks], "us": marks}
        if limit:
            shares = [100 * v / (1000 * limit) for v in marks]
            row["share"] = f"{shares[-1]:.1f}%" if shares[-1] < 10 else f"{shares[-1]:.0f}%"
            row["bar"] = {"p50": round(min(shares[0], 100), 2), "p90": round(min(shares[1], 100), 2),
                          "p99": round(min(shares[2], 100), 2), "max": round(min(shares[3], 100), 2),
                          "over": shares[3] > 100}
        rows.append(row)
    return rows


def _duration(us: int) -> str:
    if us < 1000:
        return f"{us} µs"
    if us < 10_000_000:
        return f"{us / 1000:.1f} ms" if us < 100_000 else f"{us / 1000:.0f} ms"
    return f"{us / 1_000_000:.2f} s"


def page_name(key: str) -> str:
    """The file name of a game's replay page: its key, with anything but letters, digits, ``.``, ``-`` and ``_``
    replaced (a key names a file in the report's folder, never a path)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", key).lstrip(".") + ".html"


def write_report(store: Store, registry: Registry, out: Path, *, replays: int = DEFAULT_REPLAYS) -> ReportPage:
    """Write the report to ``out`` and the replay pages into the folder ``OUT-games`` beside it."""
    folder = out.with_name(out.stem + "-games")
    page = report_page(store, registry, replays=replays, folder=folder.name)
    if page.replays:
        folder.mkdir(exist_ok=True)
    for row in page.replays:
        record = record_from_dict(store.record(row.key, registry.game))
        limits = [page.limits.get(name) for name in row.seating]
        write_page(replay_html(record, registry.game, back=f"../{quote(out.name)}", limits=limits),
                   folder / page_name(row.key))
    write_page(render(page), out)
    return page


def render(page: ReportPage) -> str:
    return environment("tournaments").get_template("report.html.j2").render(
        page=page, listed=LISTED, score_legend=CROSSTABLE_SCORE, times_games=TIMES_GAMES, times_moves=TIMES_MOVES,
        fault_kinds=list(FAULT_KINDS),
        interval_source=interval_source(page.report.head_to_head))


def rating_bars(report: Report) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rating rows with the x positions (0..100) of their interval on one scale for all of them."""
    rated = [r for r in report.rows if r["rating"] is not None]
    low = min((r["rating"] - (r["ci"] or 0) for r in rated), default=1400.0)
    high = max((r["rating"] + (r["ci"] or 0) for r in rated), default=1600.0)
    low, high = _nice(low, high)

    def x(value: float) -> float:
        return round(100 * (value - low) / (high - low), 2)

    rows = []
    for r in report.rows:
        bar = None
        if r["rating"] is not None:
            ci = r["ci"] or 0.0
            bar = {"from": x(r["rating"] - ci), "to": x(r["rating"] + ci), "at": x(r["rating"])}
        rows.append({**r, "bar": bar})
    ticks = [{"x": x(t), "label": f"{t:.0f}"} for t in _ticks(low, high)]
    return rows, {"low": low, "high": high, "ticks": ticks, "centre": x(1500) if low <= 1500 <= high else None}


def _nice(low: float, high: float) -> tuple[float, float]:
    step = _step(high - low)
    low, high = step * (low // step), step * -(-high // step)
    return (low, high) if high > low else (low - step, high + step)


def _step(span: float) -> float:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / step <= 8:
            return float(step)
    return 10000.0


def _ticks(low: float, high: float) -> list[float]:
    step = _step(high - low)
    ticks, t = [], low
    while t <= high + 1e-9:
        ticks.append(t)
        t += step
    return ticks


def _heat(report: Report) -> list[list[dict[str, Any]]]:
    """The crosstable in the table's order: each cell's score (wins + ½ draws, of the games both played: the
    terminal table's figure) and its colour by that score (red below half, green above); ``exact``: to 0.1 %."""
    order = [report.entrants.index(r["bot"]) for r in report.rows]
    cells = []
    for i in order:
        line = []
        for j in order:
            score = None if i == j else report.score[i][j]
            text = "" if score is None else f"{100 * score:.0f}%"
            exact = "" if score is None else f"{100 * score:.1f}%"
            line.append({"score": score, "colour": _colour(score), "text": text, "exact": exact})
        cells.append(line)
    return cells


def _colour(score: float | None) -> str:
    if score is None:
        return "#eef0f4"
    t = max(-1.0, min(1.0, 2 * score - 1))  # -1 every game lost … 0 even … 1 every game won
    target = (46, 160, 90) if t > 0 else (214, 69, 65)
    a = abs(t)
    r, g, b = (round(255 + (c - 255) * a) for c in target)
    return f"#{r:02x}{g:02x}{b:02x}"


def _course(config: TournamentConfig,
            snapshots: list[tuple[int, Mapping[tuple[tuple[str, ...], tuple[int, ...]], int]]],
            teams: Any) -> dict[str, Any]:
    """The ratings after each of at most COURSE_POINTS prefixes of the games (``snapshots``: a prefix's length and
    its games counted by (seating, places), all a rating needs), as SVG polylines (x: games, y: rating), on a
    600 × 240 plot."""
    if not snapshots:
        return {"lines": [], "points": 0}
    n = snapshots[-1][0]
    marks = [m for m, _ in snapshots]
    series: dict[str, list[tuple[int, float]]] = {name: [] for name in config.entrants}
    for m, counted in snapshots:
        # The ratings need only how often each outcome happened (and the rows no faults, no deal pairs).
        tallies = Tallies(counts=dict(counted), faults=[0] * len(config.entrants))
        for r in report_of(config.entrants, tallies, teams=teams).rows:
            if r["rating"] is not None:
                series[r["bot"]].append((m, r["rating"]))
    values = [v for points in series.values() for _, v in points]
    low, high = _nice(min(values), max(values))
    width, height = 600.0, 240.0

    def xy(m: int, v: float) -> str:
        return f"{width * m / n:.1f},{height - height * (v - low) / (high - low):.1f}"

    lines: list[dict[str, Any]] = [
        {"bot": name, "colour": COLOURS[i % len(COLOURS)], "points": " ".join(xy(m, v) for m, v in points),
         "x": float(xy(*points[-1]).split(",")[0]), "y": float(xy(*points[-1]).split(",")[1])}
        for i, (name, points) in enumerate(series.items()) if points]
    label_y = -LABEL_GAP  # the names at the lines' ends, top to bottom, at least LABEL_GAP apart
    for line in sorted(lines, key=lambda line: float(line["y"])):
        label_y = line["label_y"] = max(float(line["y"]), label_y + LABEL_GAP)
    y_ticks = [{"y": round(height - height * (t - low) / (high - low), 1), "label": f"{t:.0f}"}
               for t in _ticks(low, high)]
    x_ticks = [{"x": round(width * m / n, 1), "label": str(m)} for m in (marks[0], marks[len(marks) // 2], n)]
    return {"lines": lines, "points": len(marks), "width": width, "height": height, "y_ticks": y_ticks,
            "x_ticks": x_ticks, "games": n}


def _faults(config: TournamentConfig, counts: Counter[tuple[str, str]]) -> dict[str, Any]:
    """Faults counted by (entrant, kind): the kinds that occurred, in the order of protocol.faults."""
    kinds = [str(k) for k in FaultKind if any(kind == str(k) for _, kind in counts)]
    bots = [{"bot": name, "counts": [counts[name, k] for k in kinds], "total": sum(counts[name, k] for k in kinds)}
            for name in config.entrants]
    return {"kinds": kinds, "bots": bots, "total": sum(counts.values())}
