"""What several groups of cases share: showing frames and faults, and the complete games they play."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from protocol.faults import FaultKind

from ..harness import Event, Played, Run, Session, jsonable
from ..verdicts import Finding, broken, ok

QUIET_TIME = 0.3  # how long the suite listens for frames the bot should not send
#: The faults of time (case 4.1, PROTOCOL.md section 8); case 3.1 looks at every other kind.
TIMING_FAULTS = frozenset({FaultKind.TIMEOUT, FaultKind.STALL})
PLAY_FAULTS = frozenset(FaultKind) - TIMING_FAULTS


def ms_text(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def show(event: Event | None, limit: int = 160) -> str:
    """A received or sent frame in one line: its JSON, or the bytes (hex and text) that were not a frame."""
    if event is None:
        return "nothing"
    if event.kind == "garbage":
        text = event.data[:48].decode("ascii", "replace")
        text = "".join(c if " " <= c <= "~" else "." for c in text)
        return f"bytes {event.data[:24].hex(' ')}{' …' if len(event.data) > 24 else ''} ({text!r}): {event.note}"
    text = json.dumps(jsonable(event.value), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + " …"


def _fault_line(played: Played, fault: Any) -> str:
    return f"{played.where()}, decision {fault.decision}: {fault.kind}: {fault.message}"


def fault_lines(games: Sequence[Played], kinds: Iterable[FaultKind] | None = None) -> list[str]:
    wanted = set(kinds) if kinds is not None else None
    return [_fault_line(p, f) for p in games for f in p.faults if wanted is None or f.kind in wanted]


def games_text(games: Sequence[Played]) -> str:
    by_game: dict[str, list[int]] = {}
    for p in games:
        by_game.setdefault(p.game, []).append(p.seats)
    parts = []
    for game_id, seats in by_game.items():
        lo, hi = min(seats), max(seats)
        parts.append(f"{game_id} {lo}-{hi} seats" if lo != hi else f"{game_id} {lo} seats")
    return f"{len(games)} game{'s' if len(games) != 1 else ''} ({', '.join(parts)})"


def no_faults(games: Sequence[Played], what: str, **data: Any) -> Finding:
    """OK when the bot had no fault in ``games``; else the first fault as the actual outcome."""
    faults = fault_lines(games)
    if faults:
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        return broken(f"{len(faults)} fault{'s' if len(faults) > 1 else ''} {what}",
                      expected="complete games without a fault", actual=faults[0] + more, faults=faults, **data)
    return ok(f"{games_text(games)} {what}: no fault", **data)



def one_game(s: Session, name: str, *, twist: Callable[[], Any] | None = None, move_time: float | None = None,
              seats: int | None = None, options: dict[str, Any] | None = None,
              opponents: list[Any] | None = None, game: str | None = None) -> tuple[Run, Played]:
    """One complete game of the main game (fewest seats) in a fresh process, then bye."""
    run = s.run(name)
    program = s.program(run, twist=twist, **({"move_time": move_time} if move_time else {}))
    game_id = game or s.main_game
    n = seats or s.fewest(game_id)
    seed = s.seed_for(name, game_id, n)
    try:
        played = program.play(game_id, n, seat=seed % n, seed=seed, options=options, opponents=opponents)
    finally:
        program.close()
    return run, played



def play_all(s: Session) -> list[Played]:
    """Shared by 1.2, 1.3, 3.1 and 4.1: one complete game per game and seat count, each in a fresh process."""
    run = s.run("play")
    games = []
    for game_id in s.games:
        counts = s.seat_counts(game_id)
        for n in counts:
            if s.asked() is not None and n not in (counts[0], counts[-1]):
                continue  # a slow bot (docs/CHECK.md, "Time"): the fewest and the most seats only
            seed = s.seed_for("play", game_id, n)
            program = s.program(run)
            try:
                games.append(program.play(game_id, n, seat=seed % n, seed=seed))
            finally:
                program.close()
    return games


