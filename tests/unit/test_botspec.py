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
from referee.botspec import BotSpec, cannot_play, check_supports, parse_spec
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


def hello_bot(tmp_path: Path, games: list[str] | None) -> str:
    """A program that says hello (playing ``games``) and exits at bye or end of input."""
    script = tmp_path / "hello_bot.py"
    script.write_text(
        "import os, sys, msgpack\n"
        "u = msgpack.Unpacker(raw=False)\n"
        "while (data := os.read(0, 65536)):\n"
        "    u.feed(data)\n"
        "    for m in u:\n"
        "        if m['type'] == 'hello':\n"
        f"            os.write(1, msgpack.packb({{'type': 'hello', 'version': 1, 'name': 'hb', 'games': {games!r}}}))\n"
        "        elif m['type'] == 'bye':\n"
        "            sys.exit(0)\n")
    return f"cmd:{PY} {script}"


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


@pytest.mark.parametrize("where", ["missing/bot", "."])
def test_a_path_that_is_no_file_is_refused(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=rf"^bot {where!r}: no such file$"):
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
