"""The tournament table (tournaments/report.py) from stored rows.

The table's numbers are checked against the CLI in tests/integration/test_tournament.py; here, what a report
takes from the rows beyond seatings and places: the deals, which the bootstrap keeps together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from tournaments.report import build_report, interval_source
from tournaments.storage import GameRow


def row(seq: int, seed: int, seating: Sequence[str], places: Sequence[int]) -> GameRow:
    return GameRow(seq, f"t0.d{seed}.r{seq % 2}", seed, tuple(seating), tuple(places), (), 10)


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


def test_a_partial_table_says_how_many_games_of_how_many() -> None:
    rows = [row(i, 1000 + i // 2, ["a", "b"] if i % 2 == 0 else ["b", "a"], [1, 2]) for i in range(6)]
    report = build_report(["a", "b"], rows, scheduled=10)
    assert (report.played, report.scheduled, report.partial) == (6, 10, True)
    data = report.to_json()
    assert (data["games"], data["played"], data["scheduled"], data["partial"]) == (6, 6, 10, True)
    done = build_report(["a", "b"], rows, scheduled=6)
    assert done.partial is False and done.to_json()["partial"] is False
    # without a schedule (programmatic use), the rows are the whole tournament
    alone = build_report(["a", "b"], rows).to_json()
    assert (alone["played"], alone["scheduled"], alone["partial"]) == (6, 6, False)
    empty = build_report(["a", "b"], [], scheduled=4).to_json()
    assert (empty["games"], empty["played"], empty["scheduled"], empty["partial"]) == (0, 0, 4, True)


def test_an_entrant_without_games_is_unrated_and_ranked_after_the_rated() -> None:
    # c has not played yet (a partial table): b, who loses every game, still ranks above it
    rows = []
    for deal in range(10):
        rows.append(row(2 * deal, deal, ["a", "b"], [1, 2]))
        rows.append(row(2 * deal + 1, deal, ["b", "a"], [2, 1]))
    report = build_report(["c", "a", "b"], rows, scheduled=60)
    assert [(r["rank"], r["bot"]) for r in report.rows] == [(1, "a"), (2, "b"), (3, "c")]
    c = report.rows[2]
    assert c == {"rank": 3, "bot": "c", "rating": None, "ci": None, "games": 0, "mean_place": None,
                 "first": None, "last": None, "faults": 0}
    # the rated are fitted among themselves, centred at 1500 as if c were not entered
    two = build_report(["a", "b"], rows)
    assert [(r["rating"], r["ci"]) for r in report.rows[:2]] == [(r["rating"], r["ci"]) for r in two.rows]
    assert sum(r["rating"] for r in two.rows) == pytest.approx(3000, abs=0.2)
    for r in report.rows[:2]:
        assert isinstance(r["rating"], float) and isinstance(r["ci"], float)
    # the bootstrap too
    boot = build_report(["c", "a", "b"], rows, bootstrap_samples=20, seed=1)
    assert boot.rows[2]["rating"] is None and boot.rows[2]["ci"] is None and boot.rows[0]["ci"] is not None
    # no games at all: every entrant unrated, in entrant order
    empty = build_report(["c", "a", "b"], [], scheduled=60)
    assert [(r["rank"], r["bot"], r["rating"], r["ci"]) for r in empty.rows] == [
        (1, "c", None, None), (2, "a", None, None), (3, "b", None, None)]


def test_head_to_head_of_the_report_reads_deal_pairs() -> None:
    # a against b: deals 0-2 won from both seats (1), deal 3 one win and one draw (¾), deal 4 only half played
    rows = []
    for deal in range(4):
        rows.append(row(2 * deal, 50 + deal, ["a", "b"], [1, 2]))
        rows.append(row(2 * deal + 1, 50 + deal, ["b", "a"], [1, 1] if deal == 3 else [2, 1]))
    rows.append(row(8, 54, ["a", "b"], [2, 1]))
    report = build_report(["a", "b"], rows, scheduled=10)
    (h,) = report.head_to_head
    assert (h["games"], h["wins"], h["draws"], h["losses"], h["pairs"]) == (9, 7, 1, 1, 4)
    # pair scores 1, 1, 1, ¾: mean 0.9375; Elo of (3.75 + ½) / 5 = 0.85, variance (3.5625 − 4·0.9375² + ¼) / 5
    assert h["score"] == 0.9375
    assert h["elo"] == round(400 * math.log10(0.85 / 0.15), 1)
    half = 1.959963984540054 * math.sqrt((3.5625 - 4 * 0.9375**2 + 0.25) / 5 / 5)
    low, high = 0.85 - half, min(0.85 + half, 1 - 0.25 / 5)
    assert h["elo_low"] == round(400 * math.log10(low / (1 - low)), 1)
    assert h["elo_high"] == round(400 * math.log10(high / (1 - high)), 1)
    assert h["elo_error"] == pytest.approx((h["elo_high"] - h["elo_low"]) / 2, abs=0.1)
    # independent deals (a deck per game): no pairs, the games' figures
    alone = build_report(["a", "b"], [row(r.seq, r.seq, r.seating, r.places) for r in rows]).head_to_head[0]
    assert alone["pairs"] == 0 and alone["score"] == round(7.5 / 9, 4)
    assert (alone["wins"], alone["draws"], alone["losses"]) == (7, 1, 1)


def test_the_printed_table_marks_a_partial_one_and_the_unrated(capsys: pytest.CaptureFixture[str]) -> None:
    from tournaments.cli.common import print_report

    rows = [row(0, 9, ["a", "b"], [1, 2]), row(1, 9, ["b", "a"], [2, 1]), row(2, 10, ["a", "b"], [2, 1])]
    report = build_report(["a", "b", "c"], rows, scheduled=12)
    print_report(report, "simple", False, "off")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "3 of 12 games (partial: the tournament is not finished); sandbox: off"
    c = next(line for line in out[1:] if line.startswith("3 "))
    assert c.split() == ["3", "c", "-", "-", "0", "-", "-", "-", "0"]
    cross = out[out.index("crosstable, row over column (score: wins + ½ draws, of the games both played):") + 1:]
    assert [line.split() for line in cross[2:4]] == [["a", "67%"], ["b", "33%"]]
    # one of the two pairs of a and b is complete: the interval says where its figures come from
    h2h = out[out.index("head to head (Elo diff: 95% interval, from the deal pairs):") + 1:]
    assert h2h[0].split() == ["bot", "opponent", "games", "W/D/L", "pairs", "score", "Elo", "diff", "LOS"]
    assert h2h[2].split()[:5] == ["a", "b", "3", "2/0/1", "1"]
    print_report(report, "csv", False, "off")
    printed = capsys.readouterr()
    assert printed.out.splitlines()[3] == "3,c,-,-,0,-,-,-,0"
    assert printed.err == "referee: warning: a partial table: 3 of 12 games (partial: the tournament is not finished)\n"
    report.scheduled, report.seed = 3, 5  # every game stored: the first line as before, with the seed
    print_report(report, "simple", False, "off")
    assert capsys.readouterr().out.splitlines()[0] == "3 games, seed 5; sandbox: off"
    print_report(report, "csv", False)
    assert capsys.readouterr().err == ""


def test_the_crosstable_scores_a_draw_as_half() -> None:
    # a beat b 184 times, drew 71 and lost 145: a score of 54.9 %, though a finished ahead in only 46 % of the games
    results = [[1, 2]] * 184 + [[1, 1]] * 71 + [[2, 1]] * 145
    rows = [row(i, i, ["a", "b"], places) for i, places in enumerate(results)]
    report = build_report(["a", "b"], rows)
    assert report.score == [[None, round(219.5 / 400, 4)], [round(180.5 / 400, 4), None]]  # wins + ½ draws
    assert 0.548 < report.score[0][1] < 0.549
    assert report.ahead == [[None, 0.46], [0.3625, None]]  # kept: strictly ahead, a draw for neither
    data = report.to_json()["crosstable"]
    assert data == {"bots": ["a", "b"], "ahead": report.ahead, "score": report.score}
    (h,) = report.head_to_head  # the head-to-head's score (no deal pairs: the games') is the same
    assert h["score"] == report.score[0][1]


def test_the_crosstable_score_of_more_seats_counts_shared_places_as_half() -> None:
    # three seats: a ahead of both; then b and c share first, a last; then all three tie
    rows = [row(0, 0, ["a", "b", "c"], [1, 2, 3]), row(1, 1, ["a", "b", "c"], [3, 1, 1]),
            row(2, 2, ["a", "b", "c"], [1, 1, 1])]
    report = build_report(["a", "b", "c"], rows)
    assert report.score[0] == [None, 0.5, 0.5]  # against b: 1, 0, ½ of 3
    assert report.score[1] == [0.5, None, round(2 / 3, 4)]  # against c: 1, ½, ½
    assert report.score[2] == [0.5, round(1 / 3, 4), None]


@pytest.mark.parametrize(("paired", "source"), [
    ({"b", "c"}, "95% interval, from the deal pairs"),
    (set(), "95% interval, from the games (no deal pairs)"),
    ({"b"}, "95% interval, from the deal pairs, or the games where pairs is -"),
])
def test_the_head_to_head_says_where_its_interval_comes_from(capsys: pytest.CaptureFixture[str], paired: set[str],
                                                             source: str) -> None:
    # a plays b, then c, two deals each from both seats: the opponents in ``paired`` on duplicate deals (a deck dealt
    # from both seats: deal pairs), the others a deck per game (no pairs: the figures are the games')
    rows = []
    for i, seating in enumerate([["a", "b"], ["b", "a"]] * 2 + [["a", "c"], ["c", "a"]] * 2):
        rows.append(row(i, 10 + i // 2 if seating[seating[0] == "a"] in paired else 100 + i, seating, [1, 2]))
    report = build_report(["a", "b", "c"], rows)
    assert [h["pairs"] for h in report.head_to_head] == [2 if c in paired else 0 for c in ("b", "c")]
    assert interval_source(report.head_to_head) == source
    from tournaments.cli.common import print_report

    print_report(report, "simple", False)
    assert f"head to head (Elo diff: {source}):" in capsys.readouterr().out.splitlines()


def test_a_bots_time_limit_is_its_specs_own_or_the_tournaments() -> None:
    from tournaments.config import TournamentConfig
    from tournaments.report_html import move_limits, time_rows

    config = TournamentConfig("durak", {}, ["a", "b", "c", "d"], ["random", "[move-time=300 name=b] random",
                              "[name='x]y' cwd=/nowhere] cmd:bot", "[name='x]y' move-time=250] cmd:bot"], 2, 1, True, 1,
                              move_time_ms=800)
    limits = move_limits(config)
    assert limits == {"a": 800, "b": 300, "c": 800, "d": 250}  # a ']' in quotes does not end the prefix
    rows = time_rows(["a", "b", "c"], {"a": [400_000, 100, 200, 300], "b": [299_000], "d": [1]}, limits)
    assert [(r["bot"], r["us"], r["share"]) for r in rows] == [("a", [200, 400_000, 400_000, 400_000], "50%"),
                                                               ("b", [299_000] * 4, "100%")]
    assert rows[0]["bar"] == {"p50": 0.03, "p90": 50.0, "p99": 50.0, "max": 50.0, "over": False}
    assert [r["bank"] for r in rows] == [0, 0]  # no bank given


def test_a_bots_time_bank_is_its_specs_own_or_the_tournaments_and_its_row_says_it() -> None:
    from tournaments.config import TournamentConfig
    from tournaments.report_html import time_banks, time_rows

    config = TournamentConfig("durak", {}, ["a", "b", "c"], ["random", "[time-bank=0 name=b] random",
                              "[time-bank=2500 name=c] random"], 2, 1, True, 1, move_time_ms=800, time_bank_ms=1000)
    banks = time_banks(config)
    assert banks == {"a": 1000, "b": 0, "c": 2500}  # a bot's own time-bank=0 is no bank
    rows = time_rows(["a", "b", "c"], {"a": [900_000], "b": [100], "c": [3_000_000]}, {"a": 800, "b": 800, "c": 800},
                     banks)
    assert [(r["bot"], r["bank"], r["bar"]["over"]) for r in rows] == [("a", 1000, True), ("b", 0, False),
                                                                      ("c", 2500, True)]
