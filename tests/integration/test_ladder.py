"""Ladders and gauntlets (issue 14, parts 3 and 4): an entrant joins a stored tournament and plays only the tables
that involve it, the stored games stay and count; a gauntlet's candidates play only with the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from referee.cli import app
from tournaments.storage import Store


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["tournament", *args], catch_exceptions=False)


def rows(db: Path) -> dict[str, tuple[list[str], list[int], str | None]]:
    with Store(db, create=False, readonly=True) as store:
        return {row.key: (row.seating, row.places, json.dumps(store.record(row.key), sort_keys=True))
                for row in store.games()}


def test_an_entrant_joins_and_plays_only_its_tables(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    first = cli("run", "durak", "-b", "random", "-b", "first", "-n", "6", "--seed", "5", "-w", "1", "--db", str(db))
    assert first.exit_code == 0, first.stderr
    before = rows(db)
    joined = cli("join", str(db), "-b", "heuristic", "-w", "1", "--json")
    assert joined.exit_code == 0, joined.stderr
    after = rows(db)
    assert before.items() <= after.items()  # every stored game stays, as it was
    new = {key: value for key, value in after.items() if key not in before}
    assert len(new) == 2 * 6 * 2  # two new tables (with random, with first), two rotations, six deals
    assert all("heuristic" in seating for seating, _, _ in new.values())
    table = json.loads(joined.stdout)
    assert {r["bot"]: r["games"] for r in table["ratings"]} == {"heuristic": 24, "first": 24, "random": 24}
    assert cli("verify", str(db)).exit_code == 0
    again = cli("resume", str(db), "-w", "1", "--json")  # nothing is left to play
    assert again.exit_code == 0 and rows(db) == after


def test_a_ladder_keeps_the_names_it_had(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert cli("run", "durak", "-b", "random", "-b", "first", "-n", "2", "-w", "1", "--db", str(db)).exit_code == 0
    assert cli("join", str(db), "-b", "random", "-w", "1").exit_code == 0  # a second random: self-play
    with Store(db, create=False, readonly=True) as store:
        config = store.config()
    assert config is not None and config["entrants"] == ["random", "first", "random#2"]
    assert config["extra"]["stages"] == [["round_robin", 2], ["join", 2, 3]]


def test_join_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    missing = cli("join", str(db), "-b", "random")
    assert missing.exit_code == 2 and "no tournament database" in missing.stderr
    assert cli("run", "durak", "-b", "random", "-b", "first", "-n", "2", "-w", "1", "--db", str(db)).exit_code == 0
    unknown = cli("join", str(db), "-b", "nobody")
    assert unknown.exit_code == 2 and len(unknown.stderr.splitlines()) == 1 and "unknown bot 'nobody'" in unknown.stderr
    sprt_db = tmp_path / "s.db"
    assert cli("sprt", "durak", "-c", "heuristic", "-B", "random", "--elo1", "100", "-w", "1",
               "--db", str(sprt_db)).exit_code == 0
    refused = cli("join", str(sprt_db), "-b", "first")
    assert refused.exit_code == 2 and "holds an SPRT" in refused.stderr


def test_a_gauntlet_plays_its_candidates_against_the_field_only(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    result = cli("run", "durak", "-b", "random", "-b", "first", "-b", "random", "-g", "heuristic", "-k", "3",
                 "-n", "2", "-w", "1", "--db", str(db), "--json")
    assert result.exit_code == 0, result.stderr
    games = rows(db)
    assert len(games) == 3 * 3 * 2  # the candidate with each pair of the three field bots, 3 rotations, 2 deals
    assert all(seating.count("heuristic") == 1 for seating, _, _ in games.values())
    data = json.loads(result.stdout)
    assert data["scheduled"] == data["played"] == 18 and data["partial"] is False
    assert cli("verify", str(db)).exit_code == 0
    # a candidate joining the gauntlet later plays the field only, too
    joined = cli("join", str(db), "-b", "first", "-w", "1")
    assert joined.exit_code == 0, joined.stderr
    new = {k: v for k, v in rows(db).items() if k not in games}
    assert len(new) == 18 and all("first#2" in seating and "heuristic" not in seating for seating, _, _ in new.values())


def test_a_gauntlet_too_small_for_its_seats_is_one_line(tmp_path: Path) -> None:
    result = cli("run", "durak", "-b", "random", "-g", "heuristic", "-k", "3", "--db", str(tmp_path / "g.db"))
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "a gauntlet at 3 seats needs a field of at least 2 bots" in result.stderr
    assert not (tmp_path / "g.db").exists()


def test_another_command_on_a_gauntlet_or_a_ladder_with_a_drawn_seed_is_refused(tmp_path: Path) -> None:
    """Without --seed the stored seed is taken; the stored stages must not be, or a round robin's command runs
    (and reports) the gauntlet, and the ladder's first command reads as a damaged database."""
    gauntlet = tmp_path / "g.db"
    common = ["durak", "-n", "2", "-w", "1"]
    assert cli("run", *common, "-b", "random", "-b", "first", "--gauntlet", "heuristic",
               "--db", str(gauntlet)).exit_code == 0
    before = rows(gauntlet)
    robin = cli("run", *common, "-b", "random", "-b", "first", "-b", "heuristic", "--db", str(gauntlet))
    assert robin.exit_code == 2 and "holds a different tournament" in robin.stderr, robin.stderr
    assert rows(gauntlet) == before
    ladder = tmp_path / "l.db"
    assert cli("run", *common, "-b", "random", "-b", "first", "--db", str(ladder)).exit_code == 0
    assert cli("join", str(ladder), "-b", "heuristic", "-w", "1").exit_code == 0
    again = cli("run", *common, "-b", "random", "-b", "first", "--db", str(ladder))
    assert again.exit_code == 2 and "holds a different tournament" in again.stderr, again.stderr


def test_join_on_a_running_tournament_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert cli("run", "durak", "-b", "random", "-b", "first", "-n", "2", "-w", "1", "--db", str(db)).exit_code == 0
    with Store(db, create=False, readonly=True) as store:
        before = store.config()
    with Store(db, create=False) as running:
        running.lock()  # another process playing into it
        refused = cli("join", str(db), "-b", "heuristic", "-w", "1")
    assert refused.exit_code == 2 and "another process is running this tournament" in refused.stderr
    with Store(db, create=False, readonly=True) as store:
        assert store.config() == before  # heuristic did not join
