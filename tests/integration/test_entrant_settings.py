"""Entrants' own settings (a SPEC's ``[KEY=VALUE …]`` prefix, docs/CLI.md "Bot SPECs") in real tournaments: a
move-time of one entrant reaches that entrant only, resume makes the same entrants again from the stored SPECs, an
old database (SPECs without a prefix) resumes under its stored names; and a program started in its ``cwd=`` under
the sandbox writes nowhere but its private /tmp."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee

from referee.botspec import parse_spec
from referee.clock import TimeControl
from referee.plugins import load_registry
from referee.remote import RemoteBot
from referee.sandbox import Sandbox, probe
from tournaments.storage import Store

ZOO = Path(__file__).resolve().parents[1] / "fixtures" / "zoo"
PY = sys.executable


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return run_referee("tournament", *args)


def ok(*args: str) -> str:
    result = referee(*args)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def stored_row(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    finally:
        conn.close()


def unplayed_copy(db: Path, copy: Path) -> Path:
    """A database holding ``db``'s configuration, as stored, and no game: what resume has to play from it."""
    with Store(copy, create=True) as store:
        store.save_config(json.loads(stored_row(db)))
    assert stored_row(copy) == stored_row(db)
    return copy


def deadlines(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


# --------------------------------------------------------------------------------- a clock per entrant


def hasty_and_patient(tmp_path: Path) -> tuple[list[str], Path, Path]:
    """Two copies of a program that thinks 0.4 s over its first move of each game: one under a 100 ms move limit of
    its own, one under the command's 200 ms with a 600 ms bank of its own."""
    hasty, patient = tmp_path / "hasty.deadlines", tmp_path / "patient.deadlines"
    slow = f"cmd:{PY} {ZOO / 'slow.py'} 0.4"
    return [f"[name=hasty move-time=100] {slow} {hasty}", f"[name=patient time-bank=600] {slow} {patient}"], \
        hasty, patient


def run_args(specs: list[str], db: Path) -> list[str]:
    return ["run", "durak", *(a for spec in specs for a in ("-b", spec)), "--games", "2", "--seed", "5",
            "--workers", "1", "--sandbox", "off", "--move-time", "200", "--db", str(db), "--json"]


def faults_by_bot(games: list[dict[str, Any]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"hasty": set(), "patient": set()}
    for game in games:
        for fault in game["faults"]:
            found[game["bots"][fault["seat"]]].add(fault["kind"])
    return found


def test_only_the_entrant_with_the_short_move_time_times_out(tmp_path: Path) -> None:
    specs, hasty, patient = hasty_and_patient(tmp_path)
    db = tmp_path / "t.db"
    table = json.loads(ok(*run_args(specs, db)))
    config = json.loads(stored_row(db))
    assert config["specs"] == specs and config["entrants"] == ["hasty", "patient"]  # stored as given
    assert config["move_time_ms"] == 200 and "time_bank_ms" not in config  # the command's, untouched
    assert sorted(r["bot"] for r in table["ratings"]) == ["hasty", "patient"]
    games = json.loads(ok("games", str(db), "--json"))["games"]
    assert len(games) == 4
    assert faults_by_bot(games) == {"hasty": {"timeout"}, "patient": set()}
    for game in games:  # the hasty bot's first move of every game, at least
        assert any(game["bots"][f["seat"]] == "hasty" for f in game["faults"]), game
    assert set(deadlines(hasty)) == {100}  # its own move limit, no bank
    got = deadlines(patient)
    assert got[0] == 800 and got.count(800) >= 4 and min(got) < 800  # 200 + its own bank, spent and restored


def test_resume_makes_the_same_entrants_from_the_stored_specs(tmp_path: Path) -> None:
    specs, hasty, patient = hasty_and_patient(tmp_path)
    db = tmp_path / "t.db"
    ok(*run_args(specs, db))
    first = json.loads(ok("games", str(db), "--json"))["games"]
    hasty.unlink()
    patient.unlink()
    copy = unplayed_copy(db, tmp_path / "copy.db")
    ok("resume", str(copy), "--workers", "1", "--json")
    again = json.loads(ok("games", str(copy), "--json"))["games"]
    assert [g["bots"] for g in again] == [g["bots"] for g in first]
    assert faults_by_bot(again) == {"hasty": {"timeout"}, "patient": set()}
    assert set(deadlines(hasty)) == {100} and deadlines(patient)[0] == 800
    assert json.loads(ok("verify", str(copy), "--json"))["ok"] is True


# ---------------------------------------------------------------------------------------------- names


def two_bot_pys(tmp_path: Path) -> list[str]:
    """Two different programs both called bot.py (in v6/ and v7/): the random bot, started through runpy."""
    specs = []
    for version in ("v6", "v7"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "bot.py").write_text("import runpy\nrunpy.run_module('bots.random', "
                                                   "run_name='__main__')\n")
        specs.append(f"cmd:{PY} {tmp_path / version / 'bot.py'}")
    return specs


def test_two_programs_called_bot_are_told_apart_and_the_same_one_twice_is_self_play(tmp_path: Path) -> None:
    specs = two_bot_pys(tmp_path)
    db = tmp_path / "t.db"
    table = json.loads(ok("run", "durak", "-b", specs[0], "-b", specs[1], "-b", specs[0], "--seats", "2",
                          "--games", "1", "--seed", "1", "--workers", "1", "--sandbox", "off", "--db", str(db),
                          "--json"))
    assert json.loads(stored_row(db))["entrants"] == ["v6/bot", "v7/bot", "v6/bot#2"]
    assert sorted(r["bot"] for r in table["ratings"]) == ["v6/bot", "v6/bot#2", "v7/bot"]


def test_an_old_database_keeps_its_stored_names_on_resume(tmp_path: Path) -> None:
    """A database stored before the names told programs apart: its entrants stay 'bot' and 'bot#2'."""
    specs = two_bot_pys(tmp_path)
    db = tmp_path / "old.db"
    row = {"duplicate": True, "entrants": ["bot", "bot#2"], "extra": {"sandbox": {
        "env": [], "file_size_mb": 64, "memory_mb": 2048, "mode": "off", "processes": 256}}, "game": "durak",
        "games": 1, "move_time_ms": 1000, "options": {}, "policy": "forfeit", "seats": 2, "seed": 1, "specs": specs}
    with Store(db, create=True) as store:
        store.save_config(row)
    before = stored_row(db)
    table = json.loads(ok("resume", str(db), "--workers", "1", "--json"))
    assert sorted(r["bot"] for r in table["ratings"]) == ["bot", "bot#2"]
    assert {tuple(sorted(g["bots"])) for g in json.loads(ok("games", str(db), "--json"))["games"]} == \
        {("bot", "bot#2")}
    assert stored_row(db) == before  # never rewritten


# ---------------------------------------------------------------------------------- cwd in the sandbox

WRITER = """\
import os, sys, msgpack
def attempt(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        return "wrote"
    except OSError as exc:
        return type(exc).__name__
report = ",".join(attempt(p) for p in ["owned", "../escaped", os.environ.get("TARGET", "/nonexistent/x"),
                                        "/tmp/" + os.environ.get("MINE", "mine")])
u = msgpack.Unpacker(raw=False)
while (data := os.read(0, 65536)):
    u.feed(data)
    for m in u:
        if m["type"] == "hello":
            os.write(1, msgpack.packb({"type": "hello", "version": 1, "name": os.getcwd() + " " + report}))
        elif m["type"] == "bye":
            sys.exit(0)
"""


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside /tmp (pytest's tmp_path is in /tmp, which is the bot's own private tmpfs in the sandbox,
    so that writes there would say nothing)."""
    where = Path(tempfile.mkdtemp(prefix="referee-cwd-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


@pytest.mark.parametrize("script_in_cwd", [True, False], ids=["script-in-cwd", "script-elsewhere"])
def test_a_program_in_its_cwd_writes_nothing_outside_its_private_tmp(outside_tmp: Path, script_in_cwd: bool) -> None:
    problem = probe()
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the sandbox does not work: {problem}")
        pytest.skip(f"the sandbox does not work here: {problem}")
    tmp_path = outside_tmp
    folder, elsewhere = tmp_path / "bots" / "v7", tmp_path / "elsewhere"
    folder.mkdir(parents=True)
    elsewhere.mkdir()
    script = (folder if script_in_cwd else elsewhere) / "writer.py"
    script.write_text(WRITER)
    target, mine = tmp_path / "target", f"mine-{uuid.uuid4().hex}"
    sandbox = Sandbox(env=(f"TARGET={target}", f"MINE={mine}"))
    spec = parse_spec(f"[cwd={folder}] cmd:{PY} {script.name if script_in_cwd else script}", load_registry())
    bot = spec.make(load_registry(), time=TimeControl(), sandbox=sandbox)
    assert isinstance(bot, RemoteBot)
    try:
        bot.start()
        where, report = str(bot.bot_name).rsplit(" ", 1)
    finally:
        bot.close()
    assert where == str(folder)  # it runs in its cwd, inside the sandbox too
    own, parent, outside, private = report.split(",")
    assert "wrote" not in (own, parent, outside), report  # its cwd, the folder above it, a file of the referee's
    assert private == "wrote"  # its /tmp is its own
    assert sorted(p.name for p in folder.iterdir()) == (["writer.py"] if script_in_cwd else [])
    assert not (folder.parent / "escaped").exists() and not target.exists()
    assert not Path("/tmp", mine).exists()  # not the referee's /tmp


def test_without_the_sandbox_the_same_program_writes_in_its_cwd(tmp_path: Path) -> None:
    """The contrast: what the sandbox stops, a program run as it is does (docs/SECURITY.md)."""
    folder = tmp_path / "v7"
    folder.mkdir()
    (folder / "writer.py").write_text(WRITER)
    spec = parse_spec(f"[cwd={folder}] cmd:{PY} writer.py", load_registry())
    bot = spec.make(load_registry(), time=TimeControl(), sandbox=Sandbox(enabled=False, env=("MINE=unused",)))
    assert isinstance(bot, RemoteBot)
    try:
        bot.start()
    finally:
        bot.close()
    assert (folder / "owned").read_text() == "x" and (tmp_path / "escaped").read_text() == "x"


# ------------------------------------------------------------------------------------------ play and check


def command(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, cwd=cwd)


def test_play_gives_one_seat_its_own_clock_and_name(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine.deadlines", tmp_path / "theirs.deadlines"
    slow = f"cmd:{PY} {ZOO / 'slow.py'} 0"
    result = command("play", "durak", "--bot", f"[name=quick move-time=300 time-bank=50] {slow} {mine}",
                     "--bot", f"{slow} {theirs}", "--move-time", "700", "--seed", "4", "--sandbox", "off", "--json")
    assert result.returncode == 0, result.stderr
    assert [s["bot"] for s in json.loads(result.stdout)["seats"]] == ["quick", "slow"]
    got = deadlines(mine)
    assert got[0] == 350 and max(got) == 350 and min(got) >= 300  # its own 300 ms and 50 ms bank
    assert set(deadlines(theirs)) == {700}  # the command's


def test_play_json_without_settings_is_as_before() -> None:
    plain = command("play", "durak", "--bot", "random", "--bot", "heuristic", "--seed", "9", "--json")
    empty = command("play", "durak", "--bot", "[] random", "--bot", "heuristic", "--seed", "9", "--json")
    assert plain.returncode == empty.returncode == 0
    data, empty_data = json.loads(plain.stdout), json.loads(empty.stdout)
    for summary in (data, empty_data):
        del summary["times"]  # measured: the clock does not repeat
    assert empty_data == data  # an empty prefix changes nothing, not even the name
    named = command("play", "durak", "--bot", "[name=r] random", "--bot", "heuristic", "--seed", "9", "--json")
    named_data = json.loads(named.stdout)
    del named_data["times"]
    assert named_data["seats"][0]["bot"] == "r"
    named_data["seats"][0]["bot"] = "random"
    assert named_data == data  # the name is all a name= changes


@pytest.mark.parametrize(("args", "line"), [
    (["play", "durak", "--bot", "[name=a random", "--bot", "first"],
     "referee: error: bot '[name=a random': the settings prefix has no closing ']' (like '[move-time=500] random')"),
    (["play", "durak", "--bot", "[name=me] random", "--bot", "[name=me] first"],
     "referee: error: two entrants are given name='me': each needs a name of its own"),
    (["tournament", "run", "durak", "--bot", "[speed=3] random", "--bot", "first"],
     "referee: error: bot '[speed=3] random': unknown setting 'speed' (keys: name, move-time, time-bank, cwd)"),
    (["tournament", "run", "durak", "--bot", "[name=first] random", "--bot", "first"],
     "referee: error: name='first' is also the name of the entrant 'first': give another name"),
    (["check", "[time-bank=5] cmd:python3 bot.py"],
     "referee: error: bot '[time-bank=5] cmd:python3 bot.py': referee check sets the deadlines its cases test "
     "(docs/CHECK.md, \"4 timing\"): drop move-time= and time-bank="),
])
def test_a_bad_setting_is_one_line_and_exit_2(tmp_path: Path, args: list[str], line: str) -> None:
    result = run_referee(*args, *(["--db", str(tmp_path / "t.db")] if "run" in args else []), cwd=None)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", line + "\n")
    assert not (tmp_path / "t.db").exists()


def test_check_runs_the_program_in_its_cwd_under_its_name(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "bots" / "examples" / "python"
    report = tmp_path / "report.json"
    result = command("check", f"[name=ex cwd={examples}] cmd:{PY} mybot.py", "--cases", "1.1", "--seed", "1",
                     "--report", str(report), "--sandbox", "off", cwd=tmp_path)  # no mybot.py here
    assert result.returncode == 0, result.stderr
    assert "cannot play" not in result.stderr and "1.1" in result.stdout + result.stderr
    assert "mybot.py" in report.read_text()
