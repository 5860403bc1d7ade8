"""The tournament table (tournaments/report.py) from stored rows.

The table's numbers are checked against the CLI in tests/integration/test_tournament.py; here, what a report
takes from the rows beyond seatings and places: the deals, which the bootstrap keeps together.
"""

from __future__ import annotations

import pytest

from referee.results import GameResult
from tournaments.report import build_report
from tournaments.storage import GameRow


def row(seq: int, seed: int, seating: list[str], places: list[int] | tuple[int, ...]) -> GameRow:
    order = tuple((seat,) for seat in sorted(range(len(places)), key=lambda s: places[s]))
    result = GameResult("durak", len(places), tuple(places), tuple(places), order, order, (0,) * len(places))
    return GameRow(seq, f"t0.d{seed}.r{seq % 2}", seed, seating, result, 10)


def test_the_bootstrap_keeps_the_rotations_of_a_deck_together() -> None:
    # Two equal bots and decks that decide the game (the first seat always wins), each deck dealt both ways
    # round as duplicate deals do: each deal is one win each, so resampling deals never moves the ratings.
    rows = []
    for deal in range(300):
        rows.append(row(2 * deal, 1000 + deal, ["a", "b"], [1, 2]))
        rows.append(row(2 * deal + 1, 1000 + deal, ["b", "a"], [1, 2]))
    report = build_report(["a", "b"], rows, bootstrap_samples=100, seed=1)
    assert [r["ci"] for r in report.rows] == [0.0, 0.0]
    # The same results, each game dealt its own deck: now the resampling splits them.
    alone = build_report(["a", "b"], [row(r.seq, r.seq, r.seating, r.places) for r in rows], bootstrap_samples=100,
                         seed=1)
    assert all(r["ci"] > 5 for r in alone.rows)
    assert [r["rating"] for r in alone.rows] == pytest.approx([1500.0, 1500.0])
