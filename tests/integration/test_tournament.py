"""``referee tournament run | resume | table`` (referee/tournament_cli.py), for real: ``python -m referee`` in a
subprocess, with worker processes and a SQLite database.

One small durak tournament (3 bots, 2 seats, 20 deals: 3 tables × 2 rotations × 20 = 120 games) is played once
per module and read back by ``table`` and ``resume``. Bad input of any kind ends with exit code 2 and exactly
one line on stderr, ``referee: error: ...``, never a traceback; the database is then left as it was.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee
from proctable import proc_table

from referee.plugins import load_registry

BOTS = ["heuristic", "random", "first"]
RUN = ["run", "durak", "--bot", "heuristic", "--bot", "random", "--bot", "first", "--seats", "2", "--games", "20"]
TIMEOUT = 120
ZOO = Path(__file__).resolve().parents[1] / "fixtures" / "zoo"


def referee(*args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    return run_referee("tournament", *args, timeout=timeout)


def ok(*args: str) -> subprocess.CompletedProcess[str]:
    result = referee(*args)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result


def ok_json(*args: str) -> dict[str, Any]:
    return json.loads(ok(*args).stdout)  # the whole of stdout is the JSON document


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.splitlines()
    errors = [line for line in lines if line.startswith("referee: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    assert len(lines) == 1, f"stderr has more than the error line: {result.stderr!r}"
    return errors[0]


def snapshot(db: Path) -> list[tuple[Any, ...]]:
    """Every stored game with the time it was stored: what must not change when nothing is played."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT seq, key, seed, places, finished_at FROM games ORDER BY seq").fetchall()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    db = tmp_path_factory.mktemp("tournament") / "durak.db"
    result = ok(*RUN, "--db", str(db), "--workers", "2", "--json")
    return db, json.loads(result.stdout), result.stderr


# -------------------------------------------------------------------------------------------------- run


def test_run_prints_the_table_as_json(played: tuple[Path, dict[str, Any], str]) -> None:
    db, report, _ = played
    assert report["games"] == 120
    ratings = report["ratings"]
    assert [r["bot"] for r in ratings][0] == "heuristic"  # clearly the best of the three
    assert sorted(r["bot"] for r in ratings) == sorted(BOTS)
    assert [r["rank"] for r in ratings] == [1, 2, 3]
    for row in ratings:
        assert {"bot", "rating", "ci", "games", "faults", "mean_place", "first", "last", "rank"} <= set(row)
        assert row["games"] == 80  # two of the three tables, 2 rotations × 20 deals each
        assert row["faults"] == 0
        assert 1.0 <= row["mean_place"] <= 2.0
        assert 0.0 <= row["first"] <= 1.0 and 0.0 <= row["last"] <= 1.0
        assert row["ci"] > 0
    assert [r["rating"] for r in ratings] == sorted((r["rating"] for r in ratings), reverse=True)
    assert sum(r["rating"] for r in ratings) == pytest.approx(1500 * 3, abs=0.2)
    crosstable = report["crosstable"]
    assert crosstable["bots"] == BOTS  # in the order given
    ahead = crosstable["ahead"]
    assert len(ahead) == 3 and all(len(row) == 3 for row in ahead)
    for i in range(3):
        assert ahead[i][i] is None
        for j in range(3):
            if i != j:
                assert 0.0 <= ahead[i][j] <= 1.0
                assert ahead[i][j] + ahead[j][i] <= 1.0 + 1e-9  # draws count for neither
    score = crosstable["score"]  # what the crosstable prints: wins + ½ draws, so the two sides add up to 1
    for i in range(3):
        assert score[i][i] is None
        for j in range(3):
            if i != j:
                assert score[i][j] + score[j][i] == pytest.approx(1.0, abs=2e-4)
                assert score[i][j] >= ahead[i][j]
    heuristic, rnd = BOTS.index("heuristic"), BOTS.index("random")
    assert ahead[heuristic][rnd] > 0.5
    assert len(report["head_to_head"]) == 3  # two seats: every pair, W/D/L adding up to its 40 games
    for h in report["head_to_head"]:
        assert h["wins"] + h["draws"] + h["losses"] == h["games"] == 40
    assert len(snapshot(db)) == 120


def test_run_reports_progress_on_stderr(played: tuple[Path, dict[str, Any], str]) -> None:
    _, _, stderr = played
    assert "120 games" in stderr
    assert "120/120" in stderr
    assert "Traceback" not in stderr


def test_table_prints_the_same_ratings(played: tuple[Path, dict[str, Any], str]) -> None:
    db, report, _ = played
    again = ok_json("table", str(db), "--json")
    assert again["ratings"] == report["ratings"]
    assert again == report


def test_table_with_a_bootstrap_over_deals(played: tuple[Path, dict[str, Any], str]) -> None:
    db, report, _ = played
    boot = ok_json("table", str(db), "--bootstrap", "100", "--json")
    assert boot == ok_json("table", str(db), "--bootstrap", "100", "--json")  # seeded by the tournament seed
    by_bot = {r["bot"]: r for r in report["ratings"]}
    for row in boot["ratings"]:  # the same fit, other intervals
        assert row["rating"] == by_bot[row["bot"]]["rating"]
        assert 0 < row["ci"] < 1000 and row["ci"] != by_bot[row["bot"]]["ci"]


def test_games_lists_every_stored_game_in_schedule_order(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    listed = ok_json("games", str(db), "--json")["games"]
    stored = snapshot(db)
    assert [(g["seq"], g["key"], str(g["seed"]), json.dumps(g["places"])) for g in listed] == [
        (seq, key, seed, places) for seq, key, seed, places, _ in stored]
    assert all(sorted(g["bots"]) in (sorted(p) for p in (["heuristic", "random"], ["heuristic", "first"],
                                                         ["random", "first"])) for g in listed)
    assert all(g["decisions"] > 0 and g["faults"] == [] for g in listed)
    only = ok_json("games", str(db), "--bot", "first", "--json")["games"]
    assert len(only) == 80 and all("first" in g["bots"] for g in only)
    assert ok_json("games", str(db), "--faults", "--json") == {"games": []}
    text = ok("games", str(db), "--format", "github")
    assert text.stdout.splitlines()[0].startswith("| key") and len(text.stdout.splitlines()) == 2 + 120
    assert text.stderr == "120 games\n"


def test_games_of_an_unknown_entrant(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    assert_one_line_error(referee("games", str(db), "--bot", "nobody"), "nobody", "heuristic, random, first")


def test_record_of_a_stored_game_replays(played: tuple[Path, dict[str, Any], str], tmp_path: Path) -> None:
    db, _, _ = played
    listed = ok_json("games", str(db), "--json")["games"]
    game = listed[7]
    printed = json.loads(ok("record", str(db), game["key"]).stdout)
    assert printed["bots"] == game["bots"] and printed["result"]["places"] == game["places"]
    assert len(printed["actions"]) == game["decisions"] and printed["stderr"] == {}
    path = tmp_path / "game.json"
    ok("record", str(db), game["key"], "--out", str(path))
    assert json.loads(path.read_text()) == printed
    replayed = subprocess.run([sys.executable, "-m", "referee", "replay", str(path), "--json"], capture_output=True,
                              text=True, timeout=TIMEOUT)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["result"]["places"] == game["places"]


def test_record_of_an_unknown_key(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    assert_one_line_error(referee("record", str(db), "t9.d9.r9"), "t9.d9.r9", "referee tournament games")


def test_a_faulting_bot_is_listed_with_its_stderr_in_the_record(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    crasher = f"cmd:{sys.executable} {ZOO / 'crash_midgame.py'} 5"
    ok("run", "durak", "--bot", "heuristic", "--bot", crasher, "--games", "2", "--workers", "2", "--db", str(db))
    faulted = ok_json("games", str(db), "--faults", "--json")["games"]
    assert faulted and all(len(g["faults"]) == 1 and g["faults"][0]["kind"] == "crash" for g in faulted)
    game = faulted[0]
    seat = game["faults"][0]["seat"]
    assert game["bots"][seat] == "crash_midgame"
    listed = ok("games", str(db), "--faults", "--format", "csv").stdout.splitlines()
    assert listed[1].endswith(f",seat {seat} crash at decision {game['faults'][0]['decision']}")
    printed = json.loads(ok("record", str(db), game["key"]).stdout)
    assert "crash_midgame: exiting at request 6" in printed["stderr"][str(seat)]
    assert printed["faults"] == game["faults"]


def run_to_ten_percent(db: Path) -> subprocess.Popen[str]:
    """A run of 900 kazaki games on 2 workers into ``db``, once it has said it is at 10 %: 810 games are then left to
    play, so what a test does to it as soon as the line is read comes before it could finish."""
    command = [sys.executable, "-m", "referee", "tournament", "run", "kazaki", "--games", "300", "--workers", "2",
               "--db", str(db)]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    lines = [proc.stderr.readline()]  # the header
    while "(10%)" not in lines[-1]:  # 0%, and a line every 10 s on a slow machine, then 10%
        lines.append(proc.stderr.readline())
        assert lines[-1].startswith(tuple("0123456789")), lines
    return proc


def test_a_worker_killed_mid_run_is_one_line_and_resume_completes(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    proc = run_to_ten_percent(db)
    # Stopped as soon as the 10 % line is read, it cannot finish before the worker is killed, however slow this
    # process is. Its workers play on until they wait for it.
    proc.send_signal(signal.SIGSTOP)
    try:
        workers = [pid for (pid, _), (ppid, _, _) in proc_table().items() if ppid == proc.pid]
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
    finally:
        proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 2 and out == ""
    *progress, error = err.splitlines()
    assert all(" games (" in line and line.startswith(tuple("0123456789")) for line in progress), progress
    assert error.startswith(f"referee: error: worker process {workers[0]} died (exit code -9)")
    assert error.endswith(f"; {len(snapshot(db))} games are stored. Continue with: referee tournament resume {db}")
    assert ok_json("resume", str(db), "--json")["games"] == 900


def test_sigterm_stops_a_run_as_ctrl_c_does_and_resume_completes(tmp_path: Path) -> None:
    """A service manager's or a container's stop (SIGTERM) ended a run with no word (exit 143, no resume hint)."""
    db = tmp_path / "t.db"
    proc = run_to_ten_percent(db)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=TIMEOUT)
    stored = len(snapshot(db))
    assert proc.returncode == 143 and out == "", (proc.returncode, err)
    assert err.splitlines()[-1] == (f"referee: interrupted; {stored} games are stored. Continue with: referee "
                                    f"tournament resume {db}")
    assert "Traceback" not in err and 90 <= stored < 900
    assert ok_json("verify", str(db), "--json")["ok"] is True
    assert ok_json("resume", str(db), "--json")["games"] == 900


@pytest.mark.parametrize("command", ["table", "resume"])
def test_bootstrap_samples_are_bounded(played: tuple[Path, dict[str, Any], str], command: str) -> None:
    """--bootstrap 100000000 ran silently for minutes, on its way to a draws array of gigabytes."""
    db, _, _ = played
    assert_one_line_error(referee(command, str(db), "--bootstrap", "100001"),
                          "Invalid value for '--bootstrap': Input should be less than or equal to 100000")


@pytest.mark.parametrize("seed", [[], ["--seed", "1"]])
def test_a_run_makes_its_tournament_in_an_empty_file(tmp_path: Path, seed: list[str]) -> None:
    """A file made empty beforehand (mktemp) is where a run may put its tournament, with a drawn seed too."""
    db = tmp_path / "made-by-mktemp.db"
    db.write_bytes(b"")
    assert ok_json(*RUN[:-1], "1", "--db", str(db), "--workers", "1", "--json", *seed)["games"] == 6


@pytest.mark.parametrize("command", ["table", "games", "resume"])
def test_format_and_json_together_are_refused(played: tuple[Path, dict[str, Any], str], command: str) -> None:
    """--json won over --format without a word: a script asking for csv got JSON."""
    db, _, _ = played
    before = snapshot(db)
    assert_one_line_error(referee(command, str(db), "--format", "csv", "--json"),
                          "--format csv and --json are either-or: --json prints JSON, --format a table")
    assert snapshot(db) == before


def test_resume_of_a_finished_tournament_plays_nothing(played: tuple[Path, dict[str, Any], str]) -> None:
    db, report, _ = played
    before = snapshot(db)
    result = ok("resume", str(db), "--workers", "2", "--json")
    assert json.loads(result.stdout) == report
    assert snapshot(db) == before  # not one game played again, none rewritten


@pytest.mark.parametrize(("fmt", "marks"), [("github", ["| rank", "|---"]), ("latex", ["\\begin{tabular}",
                                                                                     "\\end{tabular}"])])
def test_table_formats(played: tuple[Path, dict[str, Any], str], fmt: str, marks: list[str]) -> None:
    db, report, _ = played
    out = ok("table", str(db), "--format", fmt).stdout
    assert out.startswith("120 games")
    for mark in marks:
        assert mark in out
    for row in report["ratings"]:
        assert row["bot"] in out
        assert f"{row['rating']:.0f}" in out


def test_table_as_csv_is_the_rating_table(played: tuple[Path, dict[str, Any], str]) -> None:
    """--format csv: a header row and one row per entrant, read back by the csv module; nothing else."""
    db, report, _ = played
    out = ok("table", str(db), "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["rank", "bot", "rating", "± 95%", "games", "mean place", "first %", "last %", "faults"]
    assert [(r[1], r[2], r[4]) for r in rows[1:]] == [
        (row["bot"], f"{row['rating']:.0f}", str(row["games"])) for row in report["ratings"]]


def test_tsv_is_tab_separated_without_padding(played: tuple[Path, dict[str, Any], str]) -> None:
    db, report, _ = played
    lines = ok("table", str(db), "--format", "tsv").stdout.splitlines()
    assert len(lines) == 1 + len(report["ratings"])
    assert lines[0] == "rank\tbot\trating\t± 95%\tgames\tmean place\tfirst %\tlast %\tfaults"
    for line in lines:
        cells = line.split("\t")
        assert len(cells) == 9 and all(c == c.strip() and c for c in cells), line


def test_games_as_csv_lists_every_stored_game(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    listed = ok_json("games", str(db), "--json")["games"]
    rows = list(csv.reader(io.StringIO(ok("games", str(db), "--format", "csv").stdout)))
    assert rows[0] == ["key", "bots (by seat)", "places", "decisions", "faults"]
    assert [(r[0], r[1], r[3]) for r in rows[1:]] == [
        (g["key"], ", ".join(g["bots"]), str(g["decisions"])) for g in listed]
    tsv = ok("games", str(db), "--format", "tsv").stdout.splitlines()
    assert [line.split("\t")[0] for line in tsv] == [r[0] for r in rows]


def test_resume_takes_a_format_too(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    out = ok("resume", str(db), "--format", "github").stdout
    assert "| rank" in out and "heuristic" in out


@pytest.mark.parametrize("command", ["table", "resume"])
def test_a_bad_format_is_one_line(played: tuple[Path, dict[str, Any], str], command: str) -> None:
    db, _, _ = played
    assert_one_line_error(referee(command, str(db), "--format", "nope"), "--format", "nope")


def test_a_bad_format_is_refused_before_playing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert_one_line_error(referee(*RUN, "--db", str(db), "--format", "nope"), "nope")
    assert not db.exists()


# -------------------------------------------------------------------------------------------- bad input


def test_an_unknown_bot(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert_one_line_error(referee("run", "durak", "--bot", "heuristic", "--bot", "nosuchbot", "--seats", "2",
                                  "--games", "1", "--db", str(db)), "nosuchbot")
    assert not db.exists()


def test_an_unknown_game(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert_one_line_error(referee("run", "chess", "--bot", "random", "--bot", "first", "--db", str(db)), "chess")
    assert not db.exists()


def test_a_registered_bot_that_does_not_play_the_game(tmp_path: Path) -> None:
    registry = load_registry()
    heuristic = registry.bots["heuristic"]
    others = sorted(game for game in registry.games if not heuristic.supports(game))
    if not others:
        pytest.skip("heuristic plays every registered game")
    game = others[0]
    db = tmp_path / "t.db"
    assert_one_line_error(referee("run", game, "--bot", "heuristic", "--bot", "random", "--games", "1",
                                  "--db", str(db)), "heuristic", f"does not play {game}")
    assert not db.exists()


def test_a_program_bot_that_does_not_play_the_game(tmp_path: Path) -> None:
    # a program says which games it plays in its hello; this one plays durak only
    script = tmp_path / "durak_only.py"
    script.write_text("from bots.first import FirstBot\nfrom protocol.sdk import run_bot\n\n"
                      "raise SystemExit(run_bot(FirstBot(), games=['durak']))\n")
    db = tmp_path / "t.db"
    result = referee("run", "kazaki", "--bot", f"cmd:{sys.executable} {script}", "--bot", "random", "--seats", "2",
                     "--games", "1", "--workers", "1", "--db", str(db))
    assert_one_line_error(result, "does not play kazaki")


DECLARES = f"cmd:{sys.executable} tests/fixtures/check/_declares.py"  # durak, 2 seats, transfer=true only


@pytest.mark.parametrize(("args", "why"), [
    (["run", "durak", "--seats", "3", "-o", "transfer=true"], "does not play durak at 3 seats (it plays 2 seats only)"),
    (["run", "durak", "--seats", "2"], "does not play durak with transfer=false (it plays transfer=true only)"),
    (["sprt", "durak", "--baseline", "random"],
     "does not play durak with transfer=false (it plays transfer=true only)"),
])
def test_an_entrant_whose_hello_excludes_the_configured_game_is_refused_before_any_game(
        tmp_path: Path, args: list[str], why: str) -> None:
    db = tmp_path / "t.db"
    who = ["--candidate", DECLARES] if args[0] == "sprt" else ["--bot", DECLARES, "--bot", "random", "--bot", "first"]
    size = ["--max-games", "2"] if args[0] == "sprt" else ["--games", "1"]
    result = referee(*args, *who, *size, "--workers", "1", "--db", str(db))
    assert_one_line_error(result, f"bot {DECLARES!r} {why}")
    assert not db.exists()


@pytest.mark.parametrize(("args", "why"), [
    (["-b", "random", "-b", "first", "-o", "transfer=true"], "at 3 seats (it plays 2 seats only)"),
    (["-b", "random"], "with transfer=false (it plays transfer=true only)"),
])
def test_play_refuses_a_bot_whose_hello_excludes_the_game(args: list[str], why: str) -> None:
    result = run_referee("play", "durak", "-b", DECLARES, *args, "--seed", "1")
    assert_one_line_error(result, f"bot {DECLARES!r} does not play durak {why}")
    assert result.stdout == ""


def test_an_entrant_plays_where_its_hello_allows(tmp_path: Path) -> None:
    ok("run", "durak", "--bot", DECLARES, "--bot", "random", "--seats", "2", "-o", "transfer=true", "--games", "1",
       "--workers", "1", "--seed", "1", "--db", str(tmp_path / "t.db"))


@pytest.mark.parametrize("seats", ["7", "1", "0"])
def test_seats_outside_the_games_range(tmp_path: Path, seats: str) -> None:
    db = tmp_path / "t.db"
    assert_one_line_error(referee(*RUN[:-4], "--seats", seats, "--games", "1", "--db", str(db)),
                          f"game 'durak' is for 2-6 players, got {seats} (--seats)")
    assert not db.exists()


def test_more_seats_than_entrants(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert_one_line_error(referee(*RUN[:-4], "--seats", "4", "--games", "1", "--db", str(db)), "4 seats", "3")
    assert not db.exists()


def test_an_unwritable_db(tmp_path: Path) -> None:
    db = tmp_path / "no" / "such" / "dir" / "t.db"
    assert_one_line_error(referee(*RUN, "--db", str(db), "--workers", "1"), str(db))
    assert not db.parent.exists()


def test_a_db_that_is_a_directory(tmp_path: Path) -> None:
    assert_one_line_error(referee(*RUN, "--db", str(tmp_path), "--workers", "1"), str(tmp_path))


def test_a_db_of_another_configuration_is_refused(played: tuple[Path, dict[str, Any], str]) -> None:
    db, _, _ = played
    before = snapshot(db)
    line = assert_one_line_error(referee(*RUN[:-1], "21", "--db", str(db), "--workers", "1"), "games", "resume")
    assert "different tournament (games: stored 20, given 21);" in line
    assert snapshot(db) == before


@pytest.mark.parametrize("command", ["table", "resume"])
def test_a_missing_db(tmp_path: Path, command: str) -> None:
    db = tmp_path / "missing.db"
    assert_one_line_error(referee(command, str(db)), str(db))
    assert not db.exists()


@pytest.mark.parametrize("command", ["table", "resume"])
def test_a_file_that_is_not_a_db(tmp_path: Path, command: str) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("not a database\n" * 100)
    assert_one_line_error(referee(command, str(db)), str(db))
    assert db.read_text() == "not a database\n" * 100


@pytest.mark.parametrize("command", ["table", "resume"])
def test_an_sqlite_file_without_a_tournament(tmp_path: Path, command: str) -> None:
    db = tmp_path / "empty.db"
    sqlite3.connect(db).execute("CREATE TABLE other (x)").connection.close()
    assert_one_line_error(referee(command, str(db)), str(db))
