"""The progress of ``referee tournament verify`` on long runs (tournaments/verify.py)."""

from __future__ import annotations

import time

from tournaments.verify import Mismatch, Ticker


def test_progress_lines_come_only_on_long_runs_and_not_at_the_end() -> None:
    lines: list[str] = []
    ticker = Ticker(lines.append, every=0.05, after=0.05)
    ticker(1, 10)
    assert lines == []  # a short run prints nothing
    time.sleep(0.06)
    ticker(2, 10)
    ticker(3, 10)  # at most one line every 'every' seconds
    time.sleep(0.06)
    ticker(10, 10)  # the end is said by the summary, not by a progress line
    assert lines == ["verified 2/10 games (20%)"]


def test_a_mismatch_is_one_line_with_its_key() -> None:
    assert Mismatch("t0.d1.r0", ["places: a", "faults: b"]).line() == "t0.d1.r0: places: a; faults: b"
