"""referee/botspec.py: how a SPEC names a bot (a registered name, ``cmd:…``, a path), the bot ``make`` builds from
it, and the one-line refusals (``cannot_play``, ``check_supports``). Programs here are small Python scripts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import BotCrashed, BotTimeout, ConfigError
from referee.botspec import (
    BotSpec,
    cannot_play,
    check_supports,
    declared_excludes,
    default_field,
    entrant_names,
    parse_spec,
)
from referee.clock import Clocked, TimeControl
from referee.plugins import BotEntry, Registry, Source
from referee.remote import RemoteBot
from referee.wirelog import WireLog

PY = sys.executable


class Quiet:
    """An in-process bot that is never asked anything here."""

    name = "quiet"


def registry() -> Registry:
    source = Source("test", "0")
    return Registry(bots={
        "anything": BotEntry("anything", Quiet, "plays every game", None, source),  # type: ignore[arg-type]
        "durakist": BotEntry("durakist", Quiet, "plays durak only", ("durak",), source),  # type: ignore[arg-type]
    })


def hello_script(path: Path, hello: str) -> Path:
    """Write a program that answers the handshake with the Python expression ``hello`` (evaluated in the bot) and
    exits at bye or end of input."""
    path.write_text(
        "import os, sys, msgpack\n"
        "u = msgpack.Unpacker(raw=False)\n"
        "while (data := os.read(0, 65536)):\n"
        "    u.feed(data)\n"
        "    for m in u:\n"
        "        if m['type'] == 'hello':\n"
        f"            os.write(1, msgpack.packb({hello}))\n"
        "        elif m['type'] == 'bye':\n"
        "            sys.exit(0)\n")
    return path


def hello_bot(tmp_path: Path, games: list[str] | None) -> str:
    """A program that says hello (playing ``games``) and exits at bye or end of input."""
    hello = f"{{'type': 'hello', 'version': 1, 'name': 'hb', 'games': {games!r}}}"
    return f"cmd:{PY} {hello_script(tmp_path / 'hello_bot.py', hello)}"


# ------------------------------------------------------------------------------------------------ parse_spec


def test_a_registered_name_is_an_in_process_bot_with_its_games() -> None:
    assert parse_spec("durakist", registry()) == BotSpec("durakist", "durakist", None, ("durak",))
    assert parse_spec("anything", registry()) == BotSpec("anything", "anything", None, None)


def test_cmd_is_split_like_a_shell_and_named_after_its_script() -> None:
    spec = parse_spec("cmd:python3 -u 'my bots/the bot.py' --level \"2 3\"", registry())
    assert spec.argv == ("python3", "-u", "my bots/the bot.py", "--level", "2 3")
    assert spec.name == "the bot" and spec.registered_games is None


@pytest.mark.parametrize(("spec", "name"), [
    ("cmd:python3 -m bots.random", "bots.random"),  # the module of -m
    ("cmd:node bot.js", "bot"),  # the first script-like argument's stem
    ("cmd:./mybot --fast", "mybot"),  # else the program's name
    ("cmd:durakist", "durakist"),  # cmd: always names a program, even one spelled like a registered bot
])
def test_a_commands_display_name(spec: str, name: str) -> None:
    parsed = parse_spec(spec, registry())
    assert parsed.name == name and parsed.argv is not None


@pytest.mark.parametrize("spec", ["cmd:", "cmd:   "])
def test_an_empty_command_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"^bot 'cmd:\s*': 'cmd:' needs a command, like 'cmd:python3 mybot.py'$"):
        parse_spec(spec, registry())


def test_a_command_that_cannot_be_split_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^bot \"cmd:python3 'bot.py\": cannot split the command \(No closing "
                                          r"quotation\)$"):
        parse_spec("cmd:python3 'bot.py", registry())


def test_an_executable_path_is_a_program_run_by_its_full_path(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    for spec in (str(bot), "./mybot.py", "mybot.py"):  # a file here needs no slash
        assert parse_spec(spec, registry()) == BotSpec(spec, "mybot", (str(bot.resolve()),))


def test_a_file_that_is_not_executable_is_refused_with_the_fix(tmp_path: Path) -> None:
    bot = tmp_path / "bot.js"
    bot.write_text("")
    bot.chmod(0o644)
    with pytest.raises(ConfigError) as caught:
        parse_spec(str(bot), registry())
    assert str(caught.value) == (f"bot {str(bot)!r} is not executable (chmod +x it, or use 'cmd:INTERPRETER "
                                 f"{bot}')")


def test_a_path_that_is_no_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^bot 'missing/bot': no such file$"):
        parse_spec("missing/bot", registry())


@pytest.mark.parametrize("where", [".", "sub", "sub/"])
def test_a_folder_is_refused_as_a_folder(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder was refused as 'no such file', which it plainly is not."""
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=rf"^bot {where!r} is a folder, not a program \(give the program's file"):
        parse_spec(where, registry())


def test_a_registered_name_wins_over_a_file_of_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "anything").write_text("")
    monkeypatch.chdir(tmp_path)
    assert parse_spec("anything", registry()).argv is None


def test_an_unknown_name_is_one_line_naming_the_choices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        parse_spec("deepblue", registry())
    assert str(caught.value) == ("unknown bot 'deepblue': not a registered bot (anything, durakist), not "
                                 "'cmd:COMMAND', and no such file")
    with pytest.raises(ConfigError, match=r"not a registered bot \(none\)"):
        parse_spec("deepblue", Registry())


# ------------------------------------------------------------------------------------------------ make


def test_make_wraps_a_registered_bot_in_the_clock() -> None:
    limits = TimeControl(move_time=0.25, time_bank=2.0)
    bot = parse_spec("durakist", registry()).make(registry(), time=limits)
    assert isinstance(bot, Clocked) and isinstance(bot.bot, Quiet) and bot.time == limits


def test_make_starts_a_program_through_the_sandbox_and_logs_its_wire(tmp_path: Path) -> None:
    started: list[list[str]] = []

    class Recording:
        def popen(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
            started.append(argv)
            return subprocess.Popen(argv, **kwargs)

    spec = parse_spec(hello_bot(tmp_path, ["durak"]), registry())
    log = WireLog(tmp_path / "wire.jsonl")
    limits = TimeControl(move_time=0.5)
    bot = spec.make(registry(), time=limits, sandbox=Recording(), wire_log=log)  # type: ignore[arg-type]
    assert isinstance(bot, RemoteBot) and bot.name == "hello_bot" and bot.time == limits
    assert started == []  # nothing starts before it is needed
    try:
        bot.start()
        assert bot.games == ["durak"]
    finally:
        bot.close()
    assert started == [list(spec.argv or ())]
    wire = [json.loads(line) for line in (tmp_path / "wire.jsonl").read_text().splitlines()]
    assert [(e["bot"], e["dir"], e["msg"]["type"]) for e in wire] == [
        ("hello_bot", "to-bot", "hello"), ("hello_bot", "from-bot", "hello"), ("hello_bot", "to-bot", "bye")]


# ------------------------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(("error", "code", "stderr", "line"), [
    (BotTimeout("no hello within the handshake time (5 s)"), -9, "",
     "bot 'cmd:x' cannot play: no hello within the handshake time (5 s); killed by signal 9 (by the referee); "
     "nothing on stderr"),
    (BotCrashed("bot closed its stdout (exit code 1)"), 1,
     "node:internal/x\n    at Module._load (node:x)\nError: Cannot find package 'msgpack'\n    at y\nNode.js v20\n",
     "bot 'cmd:x' cannot play: bot closed its stdout (exit code 1); it exited before its hello; stderr: Error: "
     "Cannot find package 'msgpack'"),
    (BotCrashed("bot refused the handshake: no"), 3, "", "bot 'cmd:x' cannot play: bot refused the handshake: no; "
     "exit status 3; nothing on stderr"),
    (BotCrashed("bot closed its stdout (killed by signal 11)"), -11, "boom\x1b[2J\n",
     "bot 'cmd:x' cannot play: bot closed its stdout (killed by signal 11); killed by signal 11; stderr: "
     "boom\\x1b[2J"),
    ("cannot start", None, "", "bot 'cmd:x' cannot play: cannot start; still running; nothing on stderr"),
])
def test_cannot_play_is_one_line_with_the_status_and_the_useful_stderr(error: Any, code: int | None, stderr: str,
                                                                        line: str) -> None:
    text = cannot_play("cmd:x", error, code, stderr)
    assert text == line and "\n" not in text


def test_check_supports_reads_a_registered_bots_games() -> None:
    spec = parse_spec("durakist", registry())
    bot = spec.make(registry(), time=TimeControl())
    check_supports(bot, spec, "durak")
    with pytest.raises(ConfigError, match=r"^bot 'durakist' does not play kozel \(it plays: durak\)$"):
        check_supports(bot, spec, "kozel")
    anything = parse_spec("anything", registry())
    check_supports(anything.make(registry(), time=TimeControl()), anything, "kozel")  # games None: every game


@pytest.mark.parametrize(("games", "plays"), [(["durak", "kazaki"], "durak, kazaki"), ([], "nothing")])
def test_check_supports_starts_a_program_and_reads_its_hello(tmp_path: Path, games: list[str], plays: str) -> None:
    spec = parse_spec(hello_bot(tmp_path, games), registry())
    bot = spec.make(registry(), time=TimeControl())
    try:
        with pytest.raises(ConfigError) as caught:
            check_supports(bot, spec, "kozel")
        assert str(caught.value) == f"bot {spec.spec!r} does not play kozel (it plays: {plays})"
        assert bot.alive  # started once, and kept for the games it plays
    finally:
        bot.close()


def test_check_supports_lets_a_program_play_any_game_when_its_hello_names_none(tmp_path: Path) -> None:
    spec = parse_spec(hello_bot(tmp_path, None), registry())
    bot = spec.make(registry(), time=TimeControl())
    try:
        check_supports(bot, spec, "kozel")
    finally:
        bot.close()


def test_check_supports_refuses_a_program_that_cannot_start_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nsys.stderr.write('ModuleNotFoundError: No module named nowhere\\n')\nsys.exit(1)\n")
    spec = parse_spec(f"cmd:{PY} {script}", registry())
    bot = spec.make(registry(), time=TimeControl())
    with pytest.raises(ConfigError) as caught:
        check_supports(bot, spec, "durak")
    assert str(caught.value) == (f"bot {spec.spec!r} cannot play: bot closed its stdout (exit code 1); it exited "
                                 "before its hello; stderr: ModuleNotFoundError: No module named nowhere")
    bot.close()


# ------------------------------------------------------------------------------------- the settings prefix


def cwd_bot(folder: Path) -> Path:
    """A program that says hello under the name of the folder it runs in."""
    return hello_script(folder / "cwd_bot.py", "{'type': 'hello', 'version': 1, 'name': os.getcwd()}")


def test_a_prefix_gives_the_entrant_its_name_clock_and_folder(tmp_path: Path) -> None:
    spec = f"[name=v7 move-time=500 time-bank=2000 cwd={tmp_path}] cmd:python3 bot.py"
    assert parse_spec(spec, registry()) == BotSpec(spec, "bot", ("python3", "bot.py"), None, given_name="v7",
                                                   move_time_ms=500, time_bank_ms=2000, cwd=str(tmp_path))
    assert parse_spec(spec, registry()).display_name == "v7"


@pytest.mark.parametrize(("spec", "field", "value"), [
    ("[name='my bot'] anything", "given_name", "my bot"),  # quoted as a shell would
    ('[name="a ] b"] anything', "given_name", "a ] b"),  # a ']' inside quotes does not close the prefix
    (r"[name=a\]b] anything", "given_name", "a]b"),  # nor an escaped one
    ("[move-time=1]anything", "move_time_ms", 1),  # no space needed after the ']'
    ("[  time-bank=0  ]   anything", "time_bank_ms", 0),
    (f"[move-time={2**31 - 1}] anything", "move_time_ms", 2**31 - 1),
    ("[] anything", "given_name", None),  # an empty prefix sets nothing
])
def test_prefix_values(spec: str, field: str, value: object) -> None:
    parsed = parse_spec(spec, registry())
    assert getattr(parsed, field) == value and parsed.name == "anything" and parsed.spec == spec


def test_a_spec_without_a_prefix_is_parsed_as_before() -> None:
    parsed = parse_spec("cmd:python3 bot.py", registry())
    assert parsed == BotSpec("cmd:python3 bot.py", "bot", ("python3", "bot.py"))
    assert parsed.display_name == "bot" and parsed.time_control(TimeControl()) is not None


@pytest.mark.parametrize(("spec", "message"), [
    ("[name=a anything", r"the settings prefix has no closing '\]'"),
    ("[name='a] anything", r"no closing '\]'"),  # the quote swallows the ']'
    ("[color=red] anything", r"unknown setting 'color' \(keys: name, move-time, time-bank, cwd\)"),
    ("[fast] anything", r"the setting 'fast' is not KEY=VALUE"),
    ("[name=a name=b] anything", "name= is given twice"),
    ("[move-time=0] anything", "move-time= takes whole milliseconds from 1 to 2147483647, got '0'"),
    ("[move-time=-5] anything", "move-time= takes whole milliseconds"),
    ("[move-time=1.5] anything", "move-time= takes whole milliseconds"),
    (f"[move-time={2**31}] anything", "move-time= takes whole milliseconds"),
    ("[time-bank=-1] anything", "time-bank= takes whole milliseconds from 0 to"),
    ("[time-bank=１] anything", "time-bank= takes whole milliseconds"),  # a full-width digit is no number here
    ("[name=] anything", "name='' must be 1-64 printable characters"),
    ("[name=' a'] anything", "without spaces at either end"),
    ("[name=a\x1bb] anything", "printable"),
    (f"[name={'x' * 65}] anything", "1-64"),
    ("[cwd=/no/such/folder] cmd:python3 bot.py", "cwd='/no/such/folder' is not a folder"),
    ("[cwd=] cmd:python3 bot.py", "cwd='' is not a folder"),
    ("[cwd=.] anything", "cwd= is for programs, and 'anything' runs inside the referee"),
    ("[name=x]", "the settings are not followed by a bot"),
    ("[name=x]   ", "the settings are not followed by a bot"),
    ("[name=x] nothing-here", "unknown bot"),
])
def test_a_bad_prefix_is_one_line(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_spec(spec, registry())
    assert "\n" not in str(caught.value) and f"bot {spec!r}" in str(caught.value)


def test_a_path_after_cwd_is_found_in_that_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "v7").mkdir()
    program = tmp_path / "v7" / "bot"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    parsed = parse_spec("[cwd=v7] ./bot", registry())
    assert parsed.argv == (str(program),) and parsed.cwd == str(tmp_path / "v7") and parsed.name == "bot"
    with pytest.raises(ConfigError, match=r"no such file in v7"):
        parse_spec("[cwd=v7] ./other", registry())


def test_the_entrants_settings_override_the_commands_time_control() -> None:
    base = TimeControl(move_time=1.0, time_bank=3.0, handshake_time=5.0, stall_after=3)
    assert parse_spec("anything", registry()).time_control(base) is base
    assert parse_spec("[move-time=250] anything", registry()).time_control(base) == TimeControl(0.25, 3.0)
    assert parse_spec("[time-bank=0] anything", registry()).time_control(base) == TimeControl(1.0, 0.0)
    assert parse_spec("[move-time=20 time-bank=1500] anything", registry()).time_control(base) == \
        TimeControl(0.02, 1.5)


def test_make_gives_an_in_process_bot_its_own_clock_and_name() -> None:
    base = TimeControl(move_time=1.0, time_bank=2.0)
    bot = parse_spec("[name=quick move-time=200] durakist", registry()).make(registry(), time=base)
    assert isinstance(bot, Clocked) and isinstance(bot.bot, Quiet)
    assert bot.time == TimeControl(0.2, 2.0) and bot.clock.limits == bot.time and bot.clock.allowed == 2.2
    assert bot.name == "quick"
    plain = parse_spec("durakist", registry()).make(registry(), time=base)
    assert isinstance(plain, Clocked) and plain.time == base and plain.name == "quiet"  # as before: the bot's own


def test_make_gives_a_program_its_own_clock_name_and_folder(tmp_path: Path) -> None:
    folder = tmp_path / "its folder"
    folder.mkdir()
    cwd_bot(folder)
    spec = parse_spec(f"[name=v7 time-bank=750 cwd='{folder}'] cmd:{PY} cwd_bot.py", registry())
    log = WireLog(tmp_path / "wire.jsonl")
    bot = spec.make(registry(), time=TimeControl(move_time=0.5), wire_log=log)
    assert isinstance(bot, RemoteBot) and bot.name == "v7"
    assert bot.time == TimeControl(0.5, 0.75) and bot.clock.allowed == 1.25
    try:
        bot.start()
        assert bot.bot_name == str(folder)  # it runs in its cwd
    finally:
        bot.close()
    assert {json.loads(line)["bot"] for line in (tmp_path / "wire.jsonl").read_text().splitlines()} == {"v7"}


def test_a_program_without_cwd_runs_in_the_referees_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd_bot(tmp_path)
    monkeypatch.chdir(tmp_path)
    bot = parse_spec(f"cmd:{PY} cwd_bot.py", registry()).make(registry(), time=TimeControl())
    assert isinstance(bot, RemoteBot)
    try:
        bot.start()
        assert bot.bot_name == str(tmp_path)
    finally:
        bot.close()


# ------------------------------------------------------------------------------------------------ names


def names(*specs: str) -> list[str]:
    return entrant_names([parse_spec(spec, registry()) for spec in specs])


def scripts(tmp_path: Path, *paths: str) -> None:
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")


def test_the_same_spec_twice_is_self_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scripts(tmp_path, "bot")
    (tmp_path / "bot").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert names("anything", "durakist", "anything", "anything") == ["anything", "durakist", "anything#2",
                                                                      "anything#3"]
    # the same program, spelled two ways, is the same bot
    assert names("./bot", "bot", f"{tmp_path}/bot") == ["bot", "bot#2", "bot#3"]
    assert names("cmd:python3 bot.py", "cmd:python3 bot.py") == ["bot", "bot#2"]
    assert names("[move-time=5] anything", "[move-time=5] anything") == ["anything", "anything#2"]


def test_different_programs_of_one_name_are_told_apart_by_their_path(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    scripts(tmp_path, "v6/bot.py", "v7/bot.py", "a/x/bot.py", "b/x/bot.py")
    monkeypatch.chdir(tmp_path)
    assert names("cmd:python3 v6/bot.py", "cmd:python3 v7/bot.py", "anything") == ["v6/bot", "v7/bot", "anything"]
    assert names("cmd:python3 a/x/bot.py", "cmd:python3 b/x/bot.py") == ["a/x/bot", "b/x/bot"]
    # cwd= is where a relative script is
    assert names("[cwd=v6] cmd:python3 bot.py", "[cwd=v7] cmd:python3 bot.py") == ["v6/bot", "v7/bot"]
    assert names("[cwd=v6] cmd:python3 -m bot", "[cwd=v7] cmd:python3 -m bot") == ["v6/bot", "v7/bot"]
    # listed again, each copy is self-play of its own
    assert names("cmd:python3 v6/bot.py", "cmd:python3 v7/bot.py", "cmd:python3 v6/bot.py") == [
        "v6/bot", "v7/bot", "v6/bot#2"]


def test_bots_of_one_path_told_apart_by_their_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scripts(tmp_path, "bot.py")
    monkeypatch.chdir(tmp_path)
    assert names("cmd:python3 bot.py --depth 3", "cmd:python3 bot.py --depth 5") == [
        "bot (cmd:python3 bot.py --depth 3)", "bot (cmd:python3 bot.py --depth 5)"]
    assert names("anything", "[move-time=200] anything") == ["anything", "anything ([move-time=200] anything)"]


def test_given_names_are_kept_and_must_be_unique(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scripts(tmp_path, "v6/bot.py", "v7/bot.py")
    monkeypatch.chdir(tmp_path)
    assert names("[name=old] cmd:python3 v6/bot.py", "[name=new] cmd:python3 v7/bot.py") == ["old", "new"]
    assert names("[name=mine] anything", "anything") == ["mine", "anything"]
    with pytest.raises(ConfigError, match=r"^two entrants are given name='x': each needs a name of its own$"):
        names("[name=x] anything", "[name=x] durakist")
    with pytest.raises(ConfigError, match=r"name='anything' is also the name of the entrant 'anything'"):
        names("[name=anything] durakist", "anything")


def test_a_tournament_reads_a_registered_bots_games_through_its_settings() -> None:
    """With a prefix the SPEC is no registry key: the tournament's start-up check still reads the bot's games."""
    from tournaments.cli.common import check_programs

    check_programs(["[move-time=50] durakist", "anything"], registry(), "durak", TimeControl())
    with pytest.raises(ConfigError, match=r"^bot 'durakist' does not play kozel \(it plays: durak\)$"):
        check_programs(["[move-time=50] durakist", "anything"], registry(), "kozel", TimeControl())


class Slow(Quiet):
    """A registered bot that asks to stay out of a default field."""

    default_field = False


class Person(Quiet):
    """A registered bot that is a person at the terminal (docs/HUMAN.md)."""

    interactive = True


def test_the_default_field_is_every_bot_of_the_game_but_a_person_and_a_bot_that_asks_to_stay_out() -> None:
    source = Source("test", "0")
    found = Registry(bots={name: BotEntry(name, factory, "", games, source)  # type: ignore[arg-type]
                           for name, factory, games in [("zeta", Quiet, None), ("alpha", Quiet, None),
                                                        ("durakist", Quiet, ("durak",)), ("slow", Slow, None),
                                                        ("person", Person, None)]})
    assert default_field(found, "durak") == ["alpha", "durakist", "zeta"]
    assert default_field(found, "kozel") == ["alpha", "zeta"]
    assert default_field(found, "durak", leave_out=["zeta"]) == ["alpha", "durakist"]
    assert parse_spec("slow", found).name == "slow"  # named, it is seated like any other


def test_ismcts_and_human_stay_out_of_the_built_in_default_field() -> None:
    from referee.plugins import load_registry
    built_in = load_registry(entry_points=False)
    assert {"ismcts", "human"} <= set(built_in.bots)
    assert default_field(built_in, "durak") == ["first", "heuristic", "random"]


# ------------------------------------------------------------------------------------ declared seats and options

DURAK = {"transfer": False, "throw_after_take": True, "withdraw": False, "redeal_five": False, "max_bouts": 1000}


@pytest.mark.parametrize(("seats", "options", "game", "n", "values", "why"), [
    (None, None, "durak", 3, DURAK, None),
    ([2], None, "durak", 2, DURAK, None),
    ([2], None, "durak", 3, DURAK, "at 3 seats (it plays 2 seats only)"),
    ([4, 2, 2], None, "durak", 3, DURAK, "at 3 seats (it plays 2, 4 seats only)"),
    (None, {"durak": {"transfer": [True]}}, "durak", 2, DURAK,
     "with transfer=false (it plays transfer=true only)"),
    (None, {"durak": {"transfer": [True]}}, "durak", 2, {**DURAK, "transfer": True}, None),
    (None, {"durak": {"max_bouts": [1, 1000]}}, "durak", 2, DURAK, None),
    (None, {"durak": {"max_bouts": [True]}}, "durak", 2, {**DURAK, "max_bouts": 1},
     "with max_bouts=1 (it plays max_bouts=true only)"),  # True is not 1
    (None, {"durak": {"transfer": [1]}}, "durak", 2, {**DURAK, "transfer": True},
     "with transfer=true (it plays transfer=1 only)"),
    (None, {"kazaki": {"transfer": [True]}, "durak": None}, "durak", 2, DURAK, None),  # another game's
    (None, {"durak": {"no_such_option": [True]}}, "durak", 2, DURAK, None),  # an option durak does not have
    (None, {"durak": {"transfer": ["\x1b[2Jx"]}}, "durak", 2, DURAK,
     "with transfer=false (it plays transfer=\\x1b[2Jx only)"),  # shown, not obeyed
])
def test_declared_excludes(seats: Any, options: Any, game: str, n: int, values: dict[str, Any],
                           why: str | None) -> None:
    assert declared_excludes(seats, options, game, n, values) == why


def declaring_bot(tmp_path: Path, declared: str) -> str:
    hello = f"{{'type': 'hello', 'version': 1, 'name': 'hb', 'games': None, {declared}}}"
    return f"cmd:{PY} {hello_script(tmp_path / 'declaring_bot.py', hello)}"


@pytest.mark.parametrize(("declared", "seats", "options", "message"), [
    ("'seats': [2]", 2, DURAK, None),
    ("'seats': [2]", 3, DURAK, "does not play durak at 3 seats (it plays 2 seats only)"),
    ("'options': {'durak': {'transfer': [True]}}", 2, DURAK,
     "does not play durak with transfer=false (it plays transfer=true only)"),
    ("'seats': [2, 3], 'options': {'durak': {'transfer': [False]}}", 3, DURAK, None),
])
def test_check_supports_honours_a_programs_declaration(tmp_path: Path, declared: str, seats: int,
                                                       options: dict[str, Any], message: str | None) -> None:
    spec = parse_spec(declaring_bot(tmp_path, declared), registry())
    bot = spec.make(registry(), time=TimeControl())
    try:
        if message is None:
            check_supports(bot, spec, "durak", seats, options)
        else:
            with pytest.raises(ConfigError) as caught:
                check_supports(bot, spec, "durak", seats, options)
            assert str(caught.value) == f"bot {spec.spec!r} {message}"
    finally:
        bot.close()


@pytest.mark.parametrize("declared", ["'seats': [0, 'x']", "'seats': 'all'", "'options': {'durak': {'transfer': 1}}",
                                      "'options': [[[[[]]]]]", "'seats': list(range(70000))"])
def test_a_hostile_declaration_is_a_one_line_refusal(tmp_path: Path, declared: str) -> None:
    spec = parse_spec(declaring_bot(tmp_path, declared), registry())
    bot = spec.make(registry(), time=TimeControl())
    try:
        with pytest.raises(ConfigError) as caught:
            check_supports(bot, spec, "durak", 2, DURAK)
        text = str(caught.value)
        assert text.startswith(f"bot {spec.spec!r} cannot play: ") and "\n" not in text, text
        assert "bad hello" in text or "larger than" in text, text
    finally:
        bot.close()
