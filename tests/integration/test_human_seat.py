"""The human seat (docs/HUMAN.md) played by typing, through a pseudo-terminal (pexpect): whole games of durak and
kozel-nn against heuristic bots, a wrong entry and ``?`` on the way, answers by number and by text, and the record
checked to hold exactly the typed actions at the human's decisions. Also: leaving with Ctrl-D, and the commands that
refuse a human seat."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pexpect
import pytest
from cli_process import ROOT, run_referee

from referee.plugins import load_registry
from referee.record import read_record

PROMPT = r"Your move \[1-(\d+)[^\]]*\][^:\n]*: "
OPTION = re.compile(r"^\s+(\d+)  .*?   (\S+)\s*$", re.MULTILINE)


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return pexpect.spawn(sys.executable, ["-m", "referee", *args], cwd=str(ROOT), env=env, encoding="utf-8",
                         timeout=30, dimensions=(200, 200))


def options(screen: str) -> dict[int, str]:
    """The numbered options of the last screen: number → action text."""
    part = screen[screen.rfind("Your options"):]
    return {int(n): text for n, text in OPTION.findall(part)}


def play_by_typing(child: pexpect.spawn) -> tuple[list[str], str]:
    """Answer every prompt until the game ends: mostly "1", every third decision the last option's text; at the
    first prompt a wrong number, a word and ``?`` first. The typed actions, and everything after the last prompt."""
    typed: list[str] = []
    while child.expect([PROMPT, "The game is over"]) == 0:
        shown = options(child.before)
        assert len(shown) == int(child.match.group(1)) and shown
        if not typed:
            child.sendline(str(len(shown) + 1))  # no such option: asked again
            child.expect("is not one of your options")
            child.expect(PROMPT)
            child.sendline("hello")
            child.expect("is not one of your options")
            child.expect(PROMPT)
            child.sendline("?")
            child.expect("Answer with the number")
            child.expect(PROMPT)
        if len(typed) % 3 == 2:
            typed.append(shown[len(shown)])
            child.sendline(shown[len(shown)].lower())  # the text, in any case
        else:
            typed.append(shown[1])
            child.sendline("1")
    child.expect(pexpect.EOF)
    return typed, child.before


def human_actions(record_path: Path, seat: int) -> list[str]:
    """The actions of ``seat`` at the decisions it was asked (a lone ``pass`` is applied without asking, C-6)."""
    stored = read_record(record_path)
    state = load_registry().game(stored.game).new_state(stored.seats, stored.seed, stored.options,
                                                        dealer=stored.dealer)
    mine = []
    for text in stored.actions:
        legal = state.legal_actions()
        if state.to_act == seat and not (len(legal) == 1 and legal[0].kind == "pass"):
            mine.append(text)
        state.apply(state.parse_action(text))
    return mine


@pytest.mark.parametrize(("game", "bots", "seat"), [
    ("durak", ["human", "heuristic", "heuristic"], 0),
    ("kozel-nn", ["heuristic", "human", "heuristic", "heuristic"], 1),
])
def test_a_whole_game_played_by_typing(tmp_path: Path, game: str, bots: list[str], seat: int) -> None:
    record = tmp_path / "game.json"
    child = spawn("play", game, *(a for b in bots for a in ("--bot", b)), "--seed", "11", "--record", str(record))
    child.expect(f"You play seat {seat} of {len(bots)} in {game}")
    typed, tail = play_by_typing(child)
    child.close()
    assert child.exitstatus == 0
    assert re.search(r"\d+ decisions", tail)  # the result's last line
    assert re.search(rf"^\s+{seat}\s+human\s", tail, re.MULTILINE)
    assert human_actions(record, seat) == typed
    assert json.loads(record.read_text())["result"]["faults"] == []  # typing errors are never faults


def test_the_screen_shows_the_hand_the_trump_and_the_others(tmp_path: Path) -> None:
    child = spawn("play", "kozel-hvaleny", "--bot", "human", "--bot", "heuristic", "--bot", "heuristic",
                  "--bot", "heuristic", "--seed", "3")
    child.expect("with seat 2 as your partner")
    child.expect(PROMPT)
    screen = child.before
    for expected in ("Since your last turn:", "Players:", "seat 0 (you)", "seat 2, partner", "Your hand (9):",
                     "Your options"):
        assert expected in screen
    assert re.search("[♣♦♥♠] (clubs|diamonds|hearts|spades)", screen)
    child.sendeof()
    child.expect("seat 0 leaves the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_end_of_input_leaves_the_game_as_a_crash_fault_and_the_clock_never_applies(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    child = spawn("play", "durak", "--bot", "heuristic", "--bot", "[move-time=1] human", "--seed", "2",
                  "--record", str(record))
    child.expect(PROMPT)
    time.sleep(0.2)  # far beyond the 1 ms move time and the 50 ms grace: a timed bot would fault
    child.sendline("1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("seat 1 leaves the game: the referee plays its default actions to the end, recorded as a crash "
                 "fault")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    faults = json.loads(record.read_text())["result"]["faults"]
    assert [(f["seat"], f["kind"], f["message"]) for f in faults] == [(1, "crash", "the human left the game")]


def test_ctrl_c_at_the_prompt_leaves_the_game_and_a_program_bot_plays_on() -> None:
    child = spawn("play", "kozel", "--bot", "human", "--bot", f"cmd:{sys.executable} -m bots.random",
                  "--sandbox", "off", "--seed", "4")
    child.expect(PROMPT)
    child.sendintr()  # the terminal's SIGINT: the program runs in a session of its own, so only the referee gets it
    child.expect("seat 0 leaves the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert re.search(r"^\s+1\s+bots\.random\s.*-\s*$", child.before, re.MULTILINE)  # no fault of the program


@pytest.mark.parametrize(("args", "line"), [
    (["play", "durak", "--bot", "human", "--bot", "human"], "2 human seats: one at most"),
    (["play", "durak", "--bot", "human", "--bot", "random", "--json"], "--json cannot be used with 'human'"),
    (["play", "durak", "--bot", "human", "--bot", "random", "-v"], "--verbose cannot be used with 'human'"),
    (["check", "human"], "bot 'human' is a person at the terminal: 'referee check' plays bots only"),
    (["tournament", "run", "durak", "--bot", "human", "--bot", "random", "--games", "2", "--db", "{db}"],
     "bot 'human' is a person at the terminal: 'referee tournament' plays bots only"),
])
def test_commands_that_cannot_seat_a_person_refuse_it_in_one_line(tmp_path: Path, args: list[str], line: str) -> None:
    done = run_referee(*(a.replace("{db}", str(tmp_path / "t.db")) for a in args))
    assert done.returncode == 2
    assert line in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t.db").exists()


def test_a_tournament_of_every_registered_bot_leaves_the_human_out(tmp_path: Path) -> None:
    done = run_referee("tournament", "run", "kozel", "--seats", "2", "--games", "1", "--seed", "1", "--workers", "1",
                       "--db", str(tmp_path / "t.db"))
    assert done.returncode == 0, done.stderr
    assert "kozel: 3 entrants (first, heuristic, random)," in done.stderr
