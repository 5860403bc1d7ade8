"""The progress of ``referee tournament verify`` on long runs (tournaments/verify.py)."""

from __future__ import annotations

from tournaments.verify import Mismatch, Ticker


def test_progress_lines_come_only_on_long_runs_and_not_at_the_end() -> None:
    # A clock of the test's own: with the real one, a test descheduled for 50 ms on a loaded machine would see a
    # line too many
    lines: list[str] = []
    now = [100.0]
    ticker = Ticker(lines.append, every=10, after=2, clock=lambda: now[0])
    now[0] += 1.5
    ticker(1, 10)
    assert lines == []  # a short run prints nothing
    now[0] += 0.5
    ticker(2, 10)
    now[0] += 9.5
    ticker(3, 10)  # at most one line every 'every' seconds
    assert lines == ["verified 2/10 games (20%)"]
    now[0] += 0.5
    ticker(4, 10)
    now[0] += 20
    ticker(10, 10)  # the end is said by the summary, not by a progress line
    assert lines == ["verified 2/10 games (20%)", "verified 4/10 games (40%)"]


def test_a_mismatch_is_one_line_with_its_key() -> None:
    assert Mismatch("t0.d1.r0", ["places: a", "faults: b"]).line() == "t0.d1.r0: places: a; faults: b"
