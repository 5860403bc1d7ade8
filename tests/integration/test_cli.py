"""The command line (referee/cli/): games, bots, play, replay; errors as one line and exit code 2.

Most tests drive the typer app in-process with :class:`typer.testing.CliRunner` (click >= 8.2 keeps stdout and
stderr apart in ``result.stdout`` / ``result.stderr``); a few run the installed ``referee`` script for real.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from cli_process import run_referee
from typer.testing import CliRunner

from referee.cli import app
from referee.cli.common import command_tree
from referee.cli.tables import fitted_table

PLAY = ["play", "durak", "--bot", "random", "--bot", "first"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def run(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result


def ok(runner: CliRunner, *args: str) -> Any:
    result = run(runner, *args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def ok_json(runner: CliRunner, *args: str) -> Any:
    return json.loads(ok(runner, *args).stdout)


def game_of(summary: dict[str, Any]) -> dict[str, Any]:
    """A game's ``--json`` summary without its measured ``times`` (the game itself repeats; the clock does not)."""
    assert len(summary.pop("times")) == summary["decisions"]
    return summary


def assert_one_line_error(result: Any, *fragments: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("referee: error: "), lines[0]
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# ------------------------------------------------------------------------------------------------ games, bots


def wide(runner: CliRunner, *args: str) -> Any:
    """A command run at a terminal wide enough for its tables' rows to stay on one line."""
    result = runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "400"})
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def test_games_table(runner: CliRunner) -> None:
    out = wide(runner, "games").stdout
    lines = out.splitlines()
    assert "game" in lines[0] and "seats" in lines[0]
    rows = {line.split()[0]: line for line in lines[2:]}
    assert {"kazaki", "durak"} <= set(rows)
    for game_id in ("kazaki", "durak"):
        assert " 2-6 " in rows[game_id]
        assert "max_bouts=1000" in rows[game_id]
    assert "redeal_five=true" in rows["kazaki"]
    assert "redeal_five=false" in rows["durak"]


def test_games_json(runner: CliRunner) -> None:
    data = ok_json(runner, "games", "--json")
    games = {g["id"]: g for g in data["games"]}
    assert {"kazaki", "durak"} <= set(games)
    expected_defaults = {
        "kazaki": {"transfer": False, "throw_after_take": False, "withdraw": True, "redeal_five": True,
                   "max_bouts": 1000},
        "durak": {"transfer": False, "throw_after_take": True, "withdraw": False, "redeal_five": False,
                  "max_bouts": 1000},
    }
    for game_id, defaults in expected_defaults.items():
        game = games[game_id]
        assert (game["min_seats"], game["max_seats"]) == (2, 6)
        assert game["teams"] is False
        assert game["title"]
        assert {o["name"]: o["default"] for o in game["options"]} == defaults
        for option in game["options"]:
            assert option["type"] == type(option["default"]).__name__
            assert option["help"]
        assert game["source"]["package"] == "referee"


def test_bots_table(runner: CliRunner) -> None:
    out = wide(runner, "bots").stdout
    for name in ("random", "first", "heuristic"):
        assert re.search(rf"^{name}\s", out, re.M), out


@pytest.mark.parametrize(("command", "key", "ids"), [("games", "games", "id"), ("bots", "bots", "name")])
def test_the_tables_fit_an_80_column_terminal(runner: CliRunner, command: str, key: str, ids: str) -> None:
    """Every line fits COLUMNS=80, every game and bot still starts a row, and nothing is lost (a row wraps)."""
    result = runner.invoke(app, [command], catch_exceptions=False, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80, "\n".join(line for line in lines if len(line) > 80)
    starts = [line.split()[0] for line in lines[2:] if line and not line[0].isspace()]
    assert starts == [row[ids] for row in ok_json(runner, command, "--json")[key]], result.stdout
    def letters(text: str) -> list[str]:  # what the table says, however it is wrapped and underlined
        return sorted(c for c in text if not c.isspace() and c != "-")

    assert letters(result.stdout) == letters(wide(runner, command).stdout)


def test_a_fitted_table_wraps_only_what_does_not_fit() -> None:
    rows = [["durak", "Cossacks-Robbers (Казаки-разбойники) and a long tail of words"], ["kozel", "Kozel"]]
    one_line = fitted_table(rows, ["game", "title"], width=200).splitlines()
    assert one_line == ["game   title", "-----  " + "-" * len(rows[0][1]), f"durak  {rows[0][1]}", "kozel  Kozel"]
    narrow = fitted_table(rows, ["game", "title"], width=24).splitlines()
    assert max(map(len, narrow)) <= 24
    assert narrow[2:] == ["durak  Cossacks-Robbers", "       (Казаки-", "       разбойники) and a",
                          "       long tail of", "       words", "", "kozel  Kozel"]


def test_bots_json(runner: CliRunner) -> None:
    data = ok_json(runner, "bots", "--json")
    bots = {b["name"]: b for b in data["bots"]}
    assert {"random", "first", "heuristic"} <= set(bots)
    assert bots["random"]["games"] is None
    assert bots["first"]["games"] is None
    assert sorted(bots["heuristic"]["games"]) == ["durak", "kazaki", "koroli", "koroli52", "kozel", "kozel-hvaleny",
                                                  "kozel-nn"]
    for bot in bots.values():
        assert bot["description"]
        assert set(bot["source"]) == {"package", "version"}


# ------------------------------------------------------------------------------------------------ play


def test_play_prints_a_table_with_both_seats(runner: CliRunner) -> None:
    result = ok(runner, *PLAY, "--seed", "7")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("durak with 2 seats, seed 7")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["seat", "bot"])
    rows = [line.split() for line in lines[header + 2:header + 4]]
    assert [r[:2] for r in rows] == [["0", "random"], ["1", "first"]]
    assert sorted(r[2] for r in rows) == ["1", "2"]  # places
    assert re.search(r"^\d+ decisions", lines[-1])
    assert result.stderr == ""  # a given seed is not echoed


def test_play_json_keys(runner: CliRunner) -> None:
    data = ok_json(runner, *PLAY, "--seed", "7", "--json")
    assert {"game", "options", "seed", "decisions", "aborted", "finishing_order", "seats"} <= set(data)
    assert data["game"] == "durak"
    assert data["seed"] == 7
    assert data["options"]["throw_after_take"] is True
    assert isinstance(data["decisions"], int) and data["decisions"] > 0
    assert data["aborted"] is False
    assert sorted(s for group in data["finishing_order"] for s in group) == [0, 1]
    assert [s["seat"] for s in data["seats"]] == [0, 1]
    assert [s["bot"] for s in data["seats"]] == ["random", "first"]
    for seat in data["seats"]:
        assert {"seat", "bot", "place", "score", "faults"} <= set(seat)
        assert seat["faults"] == []
    assert sorted(s["place"] for s in data["seats"]) == [1, 2]


def test_play_json_says_how_the_program_bots_ran(runner: CliRunner) -> None:
    """"sandbox": "on" when the program bots ran in the sandbox, "off" otherwise; in-process bots never do."""
    from referee.sandbox import probe

    assert ok_json(runner, *PLAY, "--seed", "7", "--json")["sandbox"] == "off"
    assert ok_json(runner, *PLAY, "--seed", "7", "--json", "--sandbox", "on")["sandbox"] == "off"  # no program
    program = ["play", "durak", "-b", "random", "-b", f"cmd:{sys.executable} -m bots.random", "--seed", "7", "--json"]
    assert ok_json(runner, *program, "--sandbox", "off")["sandbox"] == "off"
    without = subprocess.run([sys.executable, "-m", "referee", *program], capture_output=True, text=True,
                             env={**os.environ, "PATH": "/nonexistent"}, timeout=60)  # (probe() is cached)
    assert without.returncode == 0 and json.loads(without.stdout)["sandbox"] == "off", without.stderr
    assert "referee: warning: " in without.stderr  # auto where bwrap is missing: one warning, then off
    if probe() is not None:
        pytest.skip("the sandbox does not work here (tests/integration/test_sandbox.py says why)")
    assert ok_json(runner, *program)["sandbox"] == "on"
    assert ok_json(runner, *program, "--sandbox", "on")["sandbox"] == "on"


def test_play_options_and_seats(runner: CliRunner) -> None:
    data = ok_json(runner, "play", "kazaki", "-b", "random", "-b", "first", "-b", "heuristic", "--seed", "3",
                   "-o", "transfer=true", "-o", "max_bouts=50", "--json")
    assert data["options"]["transfer"] is True
    assert data["options"]["max_bouts"] == 50
    assert [s["bot"] for s in data["seats"]] == ["random", "first", "heuristic"]


def test_same_seed_same_result(runner: CliRunner) -> None:
    first = ok_json(runner, *PLAY, "--seed", "12345", "--json")
    second = ok_json(runner, *PLAY, "--seed", "12345", "--json")
    assert game_of(first) == game_of(second)


def test_without_seed_a_seed_is_printed_and_reproduces_the_game(runner: CliRunner) -> None:
    result = ok(runner, *PLAY, "--json")
    match = re.search(r"--seed (\d+)", result.stderr)
    assert match, result.stderr
    seed = int(match.group(1))
    data = json.loads(result.stdout)
    assert data["seed"] == seed
    again = ok_json(runner, *PLAY, "--seed", str(seed), "--json")
    assert game_of(again) == game_of(data)


def test_a_drawn_seed_has_64_bits(runner: CliRunner) -> None:
    """A 32-bit seed could be found from one seat's hand by trying them all, and then every hand is known."""
    drawn = []
    for _ in range(4):  # all four below 2^32 by chance: 2^-128
        match = re.search(r"--seed (\d+)", ok(runner, *PLAY, "--json").stderr)
        assert match
        drawn.append(int(match.group(1)))
    assert max(drawn) >= 2**32 and all(0 <= s < 2**64 for s in drawn), drawn


def test_verbose_narrates_the_actions(runner: CliRunner) -> None:
    out = ok(runner, *PLAY, "--seed", "7", "--verbose").stdout
    assert "attacks with" in out
    assert "covers" in out
    assert re.search(r"takes \d+ cards?", out)
    assert out.index("attacks with") < out.index("seat  bot")  # narration comes before the result table


def test_verbose_json_keeps_stdout_pure_json(runner: CliRunner) -> None:
    result = ok(runner, *PLAY, "--seed", "7", "--verbose", "--json")
    data = json.loads(result.stdout)
    assert data["seed"] == 7
    assert "attacks with" in result.stderr


def test_record_then_replay_gives_the_same_result(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    played = ok_json(runner, *PLAY, "--seed", "7", "--record", str(path), "--json")
    assert path.exists()
    replayed = ok_json(runner, "replay", str(path), "--json")
    assert replayed == {k: v for k, v in played.items() if k != "sandbox"}  # a record does not say how bots ran


def test_replay_table_and_verbose(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    played = ok(runner, *PLAY, "--seed", "7", "--record", str(path)).stdout
    replayed = ok(runner, "replay", str(path)).stdout
    assert replayed == played
    narrated = ok(runner, "replay", str(path), "--verbose").stdout
    assert "attacks with" in narrated


@pytest.mark.parametrize("extra", [[], ["--json"], ["--html", "out.html"]])
def test_a_record_with_a_bot_missing_is_one_line(runner: CliRunner, tmp_path: Path, extra: list[str]) -> None:
    """Bots of a record are not checked against anything, but their count is: one bot short was a traceback."""
    path = tmp_path / "game.json"
    ok(runner, *PLAY, "--seed", "7", "--record", str(path))
    data = json.loads(path.read_text())
    data["bots"] = data["bots"][:1]
    path.write_text(json.dumps(data))
    html = [str(tmp_path / e) if e.endswith(".html") else e for e in extra]
    assert_one_line_error(run(runner, "replay", str(path), *html), "'bots' must name the bot of each of the 2 seats")
    assert not (tmp_path / "out.html").exists()


def test_on_fault_continue_is_recorded(runner: CliRunner) -> None:
    data = ok_json(runner, *PLAY, "--seed", "7", "--on-fault", "continue", "--json")
    assert data["policy"] == "continue"


# ------------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(("args", "fragments"), [
    (["play", "chess", "-b", "random", "-b", "first"], ["unknown game 'chess'", "durak", "kazaki"]),
    ([*PLAY, "-o", "colour=red"], ["no option 'colour'"]),
    ([*PLAY, "-o", "transfer=maybe"], ["'transfer'", "true or false"]),
    ([*PLAY, "-o", "max_bouts=lots"], ["'max_bouts'", "whole number"]),
    ([*PLAY, "-o", "max_bouts=0"], ["'max_bouts'"]),
    ([*PLAY, "-o", "transfer"], ["KEY=VALUE", "'transfer'"]),
    ([*PLAY, "-o", "=true"], ["KEY=VALUE"]),
    ([*PLAY, "-o", "transfer="], ["KEY=VALUE"]),
    (["play", "durak", "-b", "random"], ["2-6", "got 1"]),
    (["play", "durak", *["-b", "random"] * 7], ["2-6", "got 7"]),
    (["play", "durak", "-b", "random", "-b", "deepblue"], ["unknown bot 'deepblue'", "random"]),
    ([*PLAY, "--seed", "7", "--on-fault", "ignore"], ["fault policy", "'ignore'"]),
    ([*PLAY, "--seed", "-1"], ["seed"]),
    ([*PLAY, "--seed", str(2**64)], ["seed"]),
    ([*PLAY, "--seed", "7", "--dealer", "5"], ["dealer"]),
])
def test_bad_play_input_is_one_error_line_and_exit_code_2(runner: CliRunner, args: list[str],
                                                          fragments: list[str]) -> None:
    assert_one_line_error(run(runner, *args), *fragments)


@pytest.mark.parametrize("args", [
    [*PLAY, "--on-fault", "ignore"],
    [*PLAY, "--dealer", "5"],
    [*PLAY, "-o", "transfer=maybe"],
    ["play", "durak", "-b", "random", "-b", "deepblue"],
])
def test_bad_play_input_without_seed_prints_no_seed_line(runner: CliRunner, args: list[str]) -> None:
    # A game that never starts has no seed to repeat: stderr must still be exactly the error line.
    assert_one_line_error(run(runner, *args))


def test_missing_record(runner: CliRunner, tmp_path: Path) -> None:
    assert_one_line_error(run(runner, "replay", str(tmp_path / "absent.json")), "cannot read record")


def test_record_that_is_not_json(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("not json at all\n", encoding="utf-8")
    assert_one_line_error(run(runner, "replay", str(path)), "not valid JSON")


def test_record_of_the_wrong_format(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "pgn", "version": 1}), encoding="utf-8")
    assert_one_line_error(run(runner, "replay", str(path)), "not a referee record")


def recorded(runner: CliRunner, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A durak game's record file (seed 7) and its data, to tamper with."""
    path = tmp_path / "game.json"
    ok(runner, *PLAY, "--seed", "7", "--record", str(path))
    return path, json.loads(path.read_text(encoding="utf-8"))


def replay_error(runner: CliRunner, path: Path, data: dict[str, Any], *fragments: str) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")
    assert_one_line_error(run(runner, "replay", str(path)), *fragments)


def test_tampered_record(runner: CliRunner, tmp_path: Path) -> None:
    path, data = recorded(runner, tmp_path)
    assert data["actions"][0].startswith("attack(")  # the first decision is an attack: take is not legal
    data["actions"][0] = "take"
    replay_error(runner, path, data, "action 0")


def test_truncated_record(runner: CliRunner, tmp_path: Path) -> None:
    path, data = recorded(runner, tmp_path)
    data["actions"], data["times"] = data["actions"][:5], data["times"][:5]
    replay_error(runner, path, data, "stops after 5 actions")


def test_record_of_an_unknown_game(runner: CliRunner, tmp_path: Path) -> None:
    path, data = recorded(runner, tmp_path)
    data["game"] = "chess"
    replay_error(runner, path, data, "unknown game 'chess'")


def test_unwritable_record_path(runner: CliRunner, tmp_path: Path) -> None:
    assert_one_line_error(run(runner, *PLAY, "--seed", "7", "--record", str(tmp_path / "nodir" / "g.json")),
                          "cannot write the record")


# ------------------------------------------------------------------------------------------------ the real script


@pytest.fixture
def script() -> str:
    path = shutil.which("referee")
    if path is None:
        pytest.skip("the referee console script is not installed")
    return path


def test_installed_script_plays_like_the_app(script: str, runner: CliRunner) -> None:
    proc = subprocess.run([script, *PLAY, "--seed", "7", "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert game_of(json.loads(proc.stdout)) == game_of(ok_json(runner, *PLAY, "--seed", "7", "--json"))


def test_version_is_the_package_version(script: str) -> None:
    """``--version`` prints the running code's ``referee.__version__`` (reading the installed metadata would cost
    a third of the command's start-up): it is the installed distribution's version."""
    from importlib.metadata import version

    import referee

    proc = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"referee {version('referee')}\n" == f"referee {referee.__version__}\n"


COMMANDS = sorted(list(path) for path in command_tree(typer.main.get_command(app)))  # plugins' commands too


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "referee")
def test_help_shows_metavars_not_types(runner: CliRunner, command: list[str]) -> None:
    """No typer placeholders (<str>, <list[str]>, <int range>, {game}): every value is named (GAME, SPEC, N, …)."""
    assert len(COMMANDS) >= 12  # referee, its 5 commands and the tournament group's 6
    text = ok(runner, *command, "--help").stdout
    assert not re.search(r"<[a-z][a-z\[\] ]*>|\{[a-z_]+\}", text), text
    usage = text.splitlines()[0]
    assert usage.startswith("Usage: referee")
    for word in usage.split()[2 + len(command):]:
        assert word.strip("[]") in ("OPTIONS", "COMMAND", "ARGS...") or word.strip("[]").isupper(), usage


def test_help_metavars_of_play_and_run(runner: CliRunner) -> None:
    play = ok(runner, "play", "--help").stdout
    assert play.splitlines()[0] == "Usage: referee play [OPTIONS] GAME"
    for shown in ("-b, --bot SPEC", "-o, --option KEY=VALUE", "--seed N", "--dealer SEAT", "--move-time MS",
                  "--time-bank MS", "--record FILE", "--on-fault forfeit|continue"):
        assert shown in play, shown
    assert "forfeit (" in play and "continue (" in play  # the choices, each with what it means
    run_help = ok(runner, "tournament", "run", "--help").stdout
    for shown in ("-k, --seats K", "-n, --games N", "-w, --workers W", "--db FILE", "--format FMT", "csv, tsv"):
        assert shown in run_help, shown
    assert ok(runner, "tournament", "record", "--help").stdout.splitlines()[0] == (
        "Usage: referee tournament record [OPTIONS] DB KEY")


def test_usage_errors_name_the_metavar(script: str) -> None:
    proc = subprocess.run([script, "play"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "referee: error: Missing argument 'GAME'. (see 'referee play --help')\n"


def test_installed_script_reports_errors_in_one_line(script: str) -> None:
    proc = subprocess.run([script, "play", "chess", "-b", "random", "-b", "first"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: unknown game 'chess'"), proc.stderr


def test_play_json_seats_carry_their_team_in_team_games(runner: CliRunner) -> None:
    """C-2, C-10: seats 0 and 2 form team A, seats 1 and 3 team B; each --json seat says its team."""
    data = ok_json(runner, "play", "kozel-hvaleny", *["--bot", "random"] * 4, "--seed", "3", "--json")
    assert [s["team"] for s in data["seats"]] == ["A", "B", "A", "B"]
    winners = data["result"]["teams"][data["result"]["winner_team"]]
    assert all(data["seats"][s]["place"] == 1 for s in winners)


def test_play_json_seats_carry_their_final_title_in_koroli52(runner: CliRunner) -> None:
    """K52: the result's final titles and the Emperor reach the seats of --json."""
    data = ok_json(runner, "play", "koroli52", *["--bot", "random"] * 3, "--seed", "3", "--json")
    assert [s["title"] for s in data["seats"]] == data["result"]["titles"]
    assert [s["emperor"] for s in data["seats"]].count(True) <= 1
    assert "team" not in data["seats"][0]


@pytest.mark.parametrize(("command", "what"), [
    ([*PLAY, "--seed", "7", "--record", "{folder}"], "the record"),
    (["replay", "{game}", "--html", "{folder}"], "the replay page"),
    (["check", "cmd:python3 -m bots.random", "--game", "durak", "--cases", "3.2", "--report", "{folder}"],
     "the report"),
    (["tournament", "record", "{db}", "t1.d0.r0", "-o", "{folder}"], "the record"),
    (["tournament", "record", "{db}", "t1.d0.r0", "--html", "{folder}"], "the replay page"),
    (["tournament", "report", "{db}", "-o", "{folder}"], "the report"),
])
def test_an_output_path_that_is_a_folder_is_refused_before_any_work(
        runner: CliRunner, tmp_path: Path, command: list[str], what: str) -> None:
    """Each was refused only after the game, the cases or the report were done ("Is a directory")."""
    game, db, folder = tmp_path / "game.json", tmp_path / "t.db", tmp_path / "out"
    folder.mkdir()
    ok(runner, *PLAY, "--seed", "7", "--record", str(game))
    ok(runner, "tournament", "run", "durak", "-b", "random", "-b", "first", "--games", "1", "--seed", "1", "--db",
       str(db), "--workers", "1", "--json")
    args = [a.format(folder=folder, game=game, db=db) for a in command]
    result = run(runner, *args)
    assert_one_line_error(result, f"cannot write {what} to {folder}: it is a folder (give a file name)")
    assert result.stdout == "" and list(folder.iterdir()) == []  # refused before a game was played or a page written


@pytest.mark.parametrize("command", [PLAY, ["tournament", "run", "durak", "-b", "random", "-b", "first", "--db",
                                            "{tmp}/t.db"]])
@pytest.mark.parametrize("item", ["1BAD=x", "=x", "A-B"])
def test_a_bad_bot_env_is_refused_even_without_a_program_bot(tmp_path: Path, command: list[str], item: str) -> None:
    """--bot-env was checked only when a program bot was seated: with in-process bots any text was taken."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    done = run_referee(*args, "--bot-env", item)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"referee: error: Invalid value for '--bot-env': takes NAME=VALUE or NAME, "
                                        f"got {item!r} (see 'python -m referee "
                                        f"{'play' if args[0] == 'play' else 'tournament run'} --help')"]
    assert not (tmp_path / "t.db").exists()
