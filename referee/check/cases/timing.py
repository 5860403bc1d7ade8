"""4 timing: every action within its deadline, a short deadline too (docs/PROTOCOL.md section 8)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from protocol.faults import FaultKind
from referee.remote import LATENCY_GRACE

from ..harness import MOVE_TIME, SHORT_MOVE_TIME, Played, Run, Session
from ..verdicts import Finding, Level, broken, case, ok
from .helpers import TIMING_FAULTS, fault_lines, ms_text, one_game, play_all


def _stats(latencies: Sequence[float]) -> dict[str, float]:
    if not latencies:
        return {}
    ordered = sorted(latencies)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"replies": len(ordered), "p50_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(pct(0.95) * 1000, 3), "max_ms": round(ordered[-1] * 1000, 3)}


def _stats_text(stats: Mapping[str, float]) -> str:
    if not stats:
        return "no replies"
    return (f"{stats['replies']} replies: p50 {stats['p50_ms']:.1f} ms, p95 {stats['p95_ms']:.1f} ms, "
            f"max {stats['max_ms']:.1f} ms")


def _timing(run: Run, games: Sequence[Played], move_time: float, kinds: Iterable[FaultKind] | None) -> Finding:
    stats: dict[str, Any] = _stats(run.latencies())
    deadline_ms = int(move_time * 1000)
    text = f"{_stats_text(stats)} (deadline_ms {deadline_ms})"
    faults = fault_lines(games, kinds)
    if faults:
        return broken(f"{len(faults)} late or missing answer{'s' if len(faults) > 1 else ''}; {text}",
                      expected=f"every action within deadline_ms ({deadline_ms} ms; the referee allows "
                               f"{int(LATENCY_GRACE * 1000)} ms more)", actual=faults[0], **stats)
    late = [t for t in run.latencies() if t > move_time]
    if late:
        return broken(f"{len(late)} answer{'s' if len(late) > 1 else ''} after deadline_ms (within the grace); {text}",
                      expected=f"every action within deadline_ms ({deadline_ms} ms), not in the grace",
                      actual=f"slowest answer after {ms_text(max(late))}", breach=Level.SHOULD, **stats)
    return ok(text, **stats)


@case("4.1", "every action within deadline_ms; p50/p95/max recorded", section="8", level=Level.MUST)
def within_deadline(s: Session) -> Finding:
    games = s.shared("play", lambda: play_all(s))
    return _timing(s.runs["play"], games, MOVE_TIME, TIMING_FAULTS)


@case("4.2", f"a short deadline ({int(SHORT_MOVE_TIME * 1000)} ms) is still met", section="8", level=Level.MUST)
def short_deadline(s: Session) -> Finding:
    run, played = one_game(s, "short-deadline", move_time=SHORT_MOVE_TIME)
    return _timing(run, [played], SHORT_MOVE_TIME, None)
