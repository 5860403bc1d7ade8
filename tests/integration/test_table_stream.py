"""The streamed table (tournaments/report.py reads each game once, keeping counts) against the algorithm it
replaced (a list of every game, a dict of every deal; kept here verbatim as the reference), on real tournaments:
two seats under duplicate deals, four seats, a team game, a partial one, ones with faults, independent deals; and
``games`` (``--json``, csv, the aligned formats), written a game at a time, against the whole-list output they
replaced."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_process import run_referee

from referee.cli.tables import format_table
from referee.plugins import load_registry
from tournaments.cli.games import write_aligned, write_games_json
from tournaments.config import TournamentConfig
from tournaments.ratings import ELO, Fit, HeadToHead, Placing, _compile, _newton, _stages_of, fit
from tournaments.report import build_report, stored_report
from tournaments.sprt import PairedScores, deal_score
from tournaments.storage import GameRow, Store
from tournaments.tally import tally_rows, tally_store

SCHEMA1 = Path(__file__).resolve().parents[1] / "fixtures" / "schema1"

TOURNAMENTS = {  # name → the run's arguments after the game
    "duplicate2": ["durak", "-b", "heuristic", "-b", "random", "-b", "first", "--seats", "2", "--games", "12"],
    "independent2": ["durak", "-b", "heuristic", "-b", "random", "-b", "first", "--seats", "2", "--games", "6",
                     "--no-duplicate"],
    "four": ["durak", "-b", "heuristic", "-b", "random", "-b", "first", "-b", "random", "--seats", "4", "--games",
             "4"],
    "teams": ["kozel-nn", "-b", "heuristic", "-b", "random", "-b", "first", "-b", "random", "--games", "2"],
}


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tables")
    made = {}
    for name, args in TOURNAMENTS.items():
        db = folder / f"{name}.db"
        result = run_referee("tournament", "run", *args, "--seed", "3", "--workers", "2", "--db", str(db),
                             "--json", timeout=300)
        assert result.returncode == 0, result.stderr
        made[name] = db
    field = folder / "field.db"  # an SPRT with a field: four games of two pairs on every deck
    result = run_referee("tournament", "sprt", "durak", "--candidate", "heuristic", "--baseline", "random", "--field",
                         "first", "--max-games", "60", "--seed", "3", "--workers", "2", "--db", str(field), "--json",
                         timeout=300)
    assert result.returncode == 0, result.stderr
    made["field"] = field
    partial = folder / "partial.db"  # stopped after 5 of 12 rounds, the last deal of table 0 half played
    shutil.copy(made["duplicate2"], partial)
    with sqlite3.connect(partial) as db:
        db.execute("DELETE FROM games WHERE key NOT GLOB 't*.d[0-4].r*' OR key = 't0.d4.r1'")
    made["partial"] = partial
    for name in ("rr", "rr3"):  # faults: crashes and stderr (two seats), illegal actions (three)
        shutil.copy(SCHEMA1 / f"{name}.db", folder / f"{name}.db")
        made[name] = folder / f"{name}.db"
        shutil.copy(SCHEMA1 / f"{name}.db", folder / f"{name}-2.db")  # the same, migrated to schema 2
        with Store(folder / f"{name}-2.db", create=False) as store:
            store.lock()
        made[f"{name}-2"] = folder / f"{name}-2.db"
    return made


# ------------------------------------------------------------------------- the algorithm before, verbatim


def old_bootstrap(n: int, games: Sequence[Placing], *, samples: int, seed: int,
                  teams: Sequence[Sequence[int]] | None, deals: Sequence[Hashable]) -> Fit:
    base = fit(n, games, teams=teams)
    prior = (ELO / 1000.0) ** 2
    patterns: dict[Placing, int] = {}
    pattern_of = np.array([patterns.setdefault(game, len(patterns)) for game in games], dtype=np.intp)
    deal_ids: dict[Hashable, int] = {}
    deal_of = np.array([deal_ids.setdefault(d, len(deal_ids)) for d in deals], dtype=np.intp)
    stage_ids: dict[Any, int] = {}
    pair_stage, pair_pattern = [], []
    for game, p in patterns.items():
        for stage in _stages_of(game, teams):
            pair_stage.append(stage_ids.setdefault(stage, len(stage_ids)))
            pair_pattern.append(p)
    compiled = _compile(n, stage_ids)
    stage_of, pattern_pairs = np.array(pair_stage, dtype=np.intp), np.array(pair_pattern, dtype=np.intp)
    rng = np.random.default_rng(seed)
    draws = np.empty((samples, n))
    for k in range(samples):
        drawn = np.bincount(rng.integers(0, len(deal_ids), len(deal_ids)), minlength=len(deal_ids))
        pattern_counts = np.bincount(pattern_of, weights=drawn[deal_of], minlength=len(patterns))
        counts = np.bincount(stage_of, weights=pattern_counts[pattern_pairs], minlength=len(stage_ids))
        theta, _, _ = _newton(n, compiled, counts.tolist(), prior)
        draws[k] = ELO * (theta - theta.mean())
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return Fit(base.rating, (high - low) / 2, base.iterations)


def old_head_to_head(games: Sequence[Placing], a: int, b: int, deals: Sequence[Hashable]) -> HeadToHead:
    wins = draws = losses = 0
    by_deal: dict[Hashable, list[int]] = {}
    for i, (seating, places) in enumerate(games):
        if len(seating) != 2 or {a, b} != set(seating):
            continue
        pa, pb = places[seating.index(a)], places[seating.index(b)]
        if pa < pb:
            wins += 1
        elif pa > pb:
            losses += 1
        else:
            draws += 1
        by_deal.setdefault(deals[i], []).append(i)
    pairs = PairedScores()
    for members in by_deal.values():
        if len(members) != 2:
            continue
        (s1, p1), (s2, p2) = games[members[0]], games[members[1]]
        if s1 != s2[::-1]:
            continue
        first, second = (p1, p2) if s1[0] == a else (p2, p1)
        pairs.add(deal_score([first[0], second[1]], [first[1], second[0]]))  # each game: a against b
    return HeadToHead(a, b, wins, draws, losses, pairs if pairs.n else None)


def old_report(entrants: Sequence[str], rows: Sequence[GameRow], *, teams: Sequence[Sequence[int]] | None,
               bootstrap_samples: int, seed: int, scheduled: int) -> dict[str, Any]:
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    games: list[Placing] = []
    played = [0] * n
    place_sum = [0.0] * n
    first = [0] * n
    last = [0] * n
    faults = [0] * n
    ahead = [[0] * n for _ in range(n)]
    tied = [[0] * n for _ in range(n)]
    shared = [[0] * n for _ in range(n)]
    for row in rows:
        seating = tuple(index[name] for name in row.seating)
        places = tuple(row.places)
        games.append((seating, places))
        worst = max(places)
        for seat, e in enumerate(seating):
            played[e] += 1
            place_sum[e] += places[seat]
            first[e] += places[seat] == 1
            last[e] += places[seat] == worst and min(places) != worst
            for other_seat, o in enumerate(seating):
                if o != e:
                    shared[e][o] += 1
                    ahead[e][o] += places[seat] < places[other_seat]
                    tied[e][o] += places[seat] == places[other_seat]
        for fault in row.faults:
            faults[seating[fault.seat]] += 1
    deals = [row.seed for row in rows]
    rated = [i for i in range(n) if played[i]]
    ratings: list[float | None] = [None] * n
    cis: list[float | None] = [None] * n
    if games:
        compact = {e: k for k, e in enumerate(rated)}
        placings = [(tuple(compact[e] for e in seating), places) for seating, places in games]
        result = (old_bootstrap(len(rated), placings, samples=bootstrap_samples, seed=seed, teams=teams, deals=deals)
                  if bootstrap_samples else fit(len(rated), placings, teams=teams))
        for k, e in enumerate(rated):
            ratings[e], cis[e] = float(result.rating[k]), float(result.ci[k])
    order = sorted(rated, key=lambda i: -(ratings[i] or 0.0)) + [i for i in range(n) if not played[i]]
    table = [
        {
            "rank": rank,
            "bot": entrants[i],
            "rating": round(rating, 1) if (rating := ratings[i]) is not None else None,
            "ci": round(ci, 1) if (ci := cis[i]) is not None else None,
            "games": played[i],
            "mean_place": round(place_sum[i] / played[i], 3) if played[i] else None,
            "first": round(first[i] / played[i], 4) if played[i] else None,
            "last": round(last[i] / played[i], 4) if played[i] else None,
            "faults": faults[i],
        }
        for rank, i in enumerate(order, 1)
    ]
    share = [[round(ahead[i][j] / shared[i][j], 4) if shared[i][j] else None for j in range(n)] for i in range(n)]
    score = [[round((ahead[i][j] + tied[i][j] / 2) / shared[i][j], 4) if shared[i][j] else None for j in range(n)]
             for i in range(n)]
    pairs = []
    if games and all(len(s) == 2 for s, _ in games):
        for a in range(n):
            for b in range(a + 1, n):
                h = old_head_to_head(games, a, b, deals)
                if h.games:
                    elo, err = h.elo()
                    low, high = h.interval()
                    pairs.append({"bot": entrants[a], "opponent": entrants[b], "games": h.games, "wins": h.wins,
                                  "draws": h.draws, "losses": h.losses, "score": round(h.score, 4),
                                  "elo": round(elo, 1), "elo_error": round(err, 1), "los": round(h.los(), 4),
                                  "pairs": h.pair_count, "elo_low": round(low, 1), "elo_high": round(high, 1)})
    return {"games": len(games), "played": len(games), "scheduled": scheduled, "partial": len(games) < scheduled,
            "seed": None, "ratings": table, "crosstable": {"bots": list(entrants), "ahead": share, "score": score},
            "head_to_head": pairs}


# ---------------------------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", ["duplicate2", "independent2", "four", "teams", "partial", "rr", "rr3", "field"])
@pytest.mark.parametrize("samples", [0, 40])
def test_the_streamed_table_is_the_old_algorithms(databases: dict[str, Path], name: str, samples: int) -> None:
    registry = load_registry()
    with Store(databases[name], create=False, readonly=True) as store:
        config = TournamentConfig.from_dict(store.config() or {})
        teams = registry.game(config.game).teams(config.seats)
        scheduled = config.scheduled(teams)
        expected = old_report(config.entrants, list(store.games()), teams=teams, bootstrap_samples=samples,
                              seed=config.seed, scheduled=scheduled)
        streamed = build_report(config.entrants, store.games(), teams=teams, bootstrap_samples=samples,
                                seed=config.seed, scheduled=scheduled)
    assert json.dumps(streamed.to_json()) == json.dumps(expected)
    assert expected["games"] > 0
    if name in ("duplicate2", "partial", "rr", "field"):
        assert all(h["pairs"] > 0 for h in expected["head_to_head"])  # the deal pairs are exercised
    if name in ("rr", "rr3"):
        assert any(r["faults"] for r in expected["ratings"])
    if name == "partial":
        assert expected["partial"] and any(h["pairs"] * 2 < h["games"] for h in expected["head_to_head"])


@pytest.mark.parametrize("name", ["duplicate2", "teams", "rr", "rr3"])
def test_games_json_streamed_is_the_whole_list_printed(databases: dict[str, Path], name: str, tmp_path: Path) -> None:
    with Store(databases[name], create=False, readonly=True) as store:
        rows = list(store.games())
        with (tmp_path / "out.json").open("w") as out:
            write_games_json(iter(rows), out)
        with (tmp_path / "none.json").open("w") as out:
            write_games_json(iter([]), out)
    whole = {"games": [{"key": r.key, "seq": r.seq, "seed": r.seed, "bots": list(r.seating),
                        "places": list(r.places), "decisions": r.decisions, "faults": [f.to_dict() for f in r.faults]}
                       for r in rows]}
    assert (tmp_path / "out.json").read_text() == json.dumps(whole, indent=2, ensure_ascii=False) + "\n"
    assert (tmp_path / "none.json").read_text() == json.dumps({"games": []}, indent=2) + "\n"
    if name == "rr":  # both kinds of game: with faults (json.dumps) and without (by hand)
        assert any(g["faults"] for g in whole["games"]) and any(not g["faults"] for g in whole["games"])


@pytest.mark.parametrize("fmt", ["csv", "tsv", "simple"])
def test_games_csv_streamed_is_the_whole_table(databases: dict[str, Path], fmt: str) -> None:
    with Store(databases["rr"], create=False, readonly=True) as store:
        rows = [r for r in store.games() if "crash_midgame" in r.seating]
    table = [[r.key, ", ".join(r.seating), " ".join(map(str, r.places)), r.decisions,
              "; ".join(f"seat {f.seat} {f.kind} at decision {f.decision}" for f in r.faults) or "-"] for r in rows]
    assert all(len(r.faults) <= 1 for r in rows)  # one crash a game: the short form is the whole fault
    result = run_referee("tournament", "games", str(databases["rr"]), "--bot", "crash_midgame", "--format", fmt)
    assert result.returncode == 0, result.stderr
    assert result.stdout == format_table(table, ["key", "bots (by seat)", "places", "decisions", "faults"], fmt) + "\n"
    assert result.stderr == f"{len(rows)} games\n" and any(r.faults for r in rows)


@pytest.mark.parametrize("fmt", ["simple", "plain", "github", "grid", "psql", "rst", "latex", "html", "pipe", "orgtbl",
                                 "mediawiki"])
@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
def test_aligned_listings_printed_a_chunk_at_a_time_are_the_whole_table(databases: dict[str, Path], fmt: str,
                                                                       chunk: int) -> None:
    with Store(databases["rr"], create=False, readonly=True) as store:
        rows = [[r.key, ", ".join(r.seating), " ".join(map(str, r.places)), r.decisions,
                 "; ".join(f"seat {f.seat} {f.kind}" for f in r.faults) or "-"] for r in store.games()]
    headers = ["key", "bots (by seat)", "places", "decisions", "faults"]
    special = [[*rows[0][:1], "a|b, <c> & 'd' \\e_%$", *rows[0][2:]]]  # what a format could escape, late
    for table in (rows, rows[:1], [], [[*rows[0][:1], "bøt, ｗｉｄｅ", *rows[0][2:]], *rows], rows * 3 + special):
        out = io.StringIO()
        assert write_aligned(lambda table=table: iter(table), headers, fmt, out, chunk=chunk) == len(table)
        assert out.getvalue() == format_table(table, headers, fmt) + "\n"


SCHEMA2 = ["duplicate2", "independent2", "four", "teams", "partial", "rr-2", "rr3-2", "field"]


@pytest.mark.parametrize("name", SCHEMA2)
@pytest.mark.parametrize("held", [4096, 1])
def test_the_table_counted_in_sql_is_the_old_algorithms(databases: dict[str, Path], name: str, held: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``table`` counts a schema-2 database's deals by their texts (tournaments/tally.py), not row by row: the same
    tallies, in the same order, and the same table, however few distinct deals it holds at a time."""
    monkeypatch.setattr("tournaments.tally.DEALS_HELD", held)
    registry = load_registry()
    with Store(databases[name], create=False, readonly=True) as store:
        assert store.old is None
        config = TournamentConfig.from_dict(store.config() or {})
        teams = registry.game(config.game).teams(config.seats)
        expected = old_report(config.entrants, list(store.games()), teams=teams, bootstrap_samples=0,
                              seed=config.seed, scheduled=config.scheduled(teams))
        fast = tally_store(config.entrants, store)
        assert fast is not None  # counted in SQL, not read again row by row
        assert fast == tally_rows(config.entrants, store.games())
        assert list(fast.counts.items()) == list(tally_rows(config.entrants, store.games()).counts.items())
        report = stored_report(store, registry, 0)
        games = store.count()
        marks = sorted({1, 2, 5, games // 3, games // 2 + 1, games - 1, games + 5})  # the last: past the games
        snapshots = tally_store(config.entrants, store, marks)
        assert snapshots is not None
        ordered = [(mark, list(counts.items())) for mark, counts in snapshots.snapshots]
        assert ordered == [(mark, list(counts.items()))
                           for mark, counts in tally_rows(config.entrants, store.games(), marks=marks).snapshots]
        assert [mark for mark, _ in ordered] == [mark for mark in marks if mark <= games]
    expected["seed"] = config.seed if not expected["partial"] else None
    assert json.dumps(report.to_json()) == json.dumps(expected)
    if name in ("rr-2", "rr3-2"):
        assert any(r["faults"] for r in expected["ratings"])


@pytest.mark.parametrize(("column", "value"), [
    ("seed", "0{seed}"),  # the same number as the next game's seed: int() reads them alike
    ("seed", " {seed}"),
    ("seating", '[\n"{first}", "{second}"]'),  # JSON, with a newline
    ("places", "[1,\n2]"),
    ("places", "[1,  2]"),
])
def test_a_row_not_as_this_referee_writes_it_is_read_one_by_one(databases: dict[str, Path], tmp_path: Path,
                                                                column: str, value: str) -> None:
    """Where the texts of a row are not as this referee writes them (still valid), the table is the one the rows
    read one by one give: counted in SQL, it could split a deal or an outcome that they join."""
    path = tmp_path / "odd.db"
    shutil.copy(databases["duplicate2"], path)
    with sqlite3.connect(path) as db:
        seq, seed, seating = db.execute("SELECT seq, seed, seating FROM games ORDER BY seq LIMIT 1").fetchone()
        first, second = json.loads(seating)
        db.execute(f"UPDATE games SET {column} = ? WHERE seq = ?",
                   (value.format(seed=seed, first=first, second=second), seq))
    registry = load_registry()
    with Store(path, create=False, readonly=True) as store:
        config = TournamentConfig.from_dict(store.config() or {})
        teams = registry.game(config.game).teams(config.seats)
        expected = old_report(config.entrants, list(store.games()), teams=teams, bootstrap_samples=0,
                              seed=config.seed, scheduled=config.scheduled(teams))
        if column != "places" or "\n" in value:
            assert tally_store(config.entrants, store) is None
        report = stored_report(store, registry, 0)
    expected["seed"] = config.seed
    assert json.dumps(report.to_json()) == json.dumps(expected)


def test_games_json_built_by_hand_is_jsons_for_any_faults_and_text() -> None:
    """games --json writes its indented JSON by hand, games with faults included: json.dumps's text, to the byte,
    for quotes, backslashes, control characters and non-ASCII in any string, and for any number of faults."""
    from protocol.faults import Fault, FaultKind

    rng = np.random.default_rng(3)
    kinds = list(FaultKind)
    texts = ["", "no answer in 1000 ms", 'crash "x"\n\\ é ☃ \x01\u2028']
    rows = [GameRow(i, f"t0.d{i}.r0{texts[i % 3]}", int(rng.integers(0, 2**63)) * 2, ("a", 'b"', "ж\t"), (1, 3, 2),
                    tuple(Fault(int(rng.integers(3)), kinds[int(rng.integers(len(kinds)))], int(rng.integers(100)),
                                texts[int(rng.integers(3))]) for _ in range(i % 4)), int(rng.integers(100)))
            for i in range(40)]
    out = io.StringIO()
    write_games_json(rows, out)
    expected = {"games": [{"key": r.key, "seq": r.seq, "seed": r.seed, "bots": list(r.seating),
                           "places": list(r.places), "decisions": r.decisions,
                           "faults": [f.to_dict() for f in r.faults]} for r in rows]}
    assert out.getvalue() == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
