"""Each decision's time and the bot's own words (issue 35): measured and attributed by the game loop
(referee/match.py), sent by program bots as the reply's ``debug`` (docs/PROTOCOL.md 5.6), kept within a budget by
tournaments (referee.said.said_within). Program bots are scripted with MockTransport (tests/unit/test_remote.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bots.random import RandomBot
from protocol.bot import NOTE_LIMIT, Answer, BotBase, Decision
from referee.clock import Clocked, TimeControl
from referee.match import play_game
from referee.plugins import load_registry
from referee.record import record_from_dict, record_to_dict
from referee.remote import RemoteBot
from referee.said import DECISION_STDERR, Said, dropped_mark, keep_tail, said_within, tail_of
from referee.transport import MockTransport


def good_hello() -> dict[str, Any]:
    return {"type": "hello", "version": 1, "name": "talking", "games": ["durak"]}

DURAK = load_registry().game("durak")


class Talking:
    """A scripted program bot: answers each request with its first legal action, a note, and stderr lines written
    while it was asked; writes a start-up line on stderr before any game, and crashes at request ``crash_at``."""

    def __init__(self, note: Callable[[int], Any] = lambda n: f"request {n}", crash_at: int | None = None) -> None:
        self.note = note
        self.crash_at = crash_at
        self.requests: list[dict[str, Any]] = []
        self.transport: MockTransport | None = None

    def connect(self) -> MockTransport:
        self.transport = MockTransport(self.handle)
        return self.transport

    def handle(self, message: dict[str, Any]) -> list[dict[str, Any]] | None:
        assert self.transport is not None
        if message["type"] == "hello":
            self.transport.stderr += "starting up\n"
            return [good_hello()]
        if message["type"] != "request":
            return None
        self.requests.append(message)
        n = len(self.requests)
        self.transport.stderr += f"thinking {n}\n"
        if n == self.crash_at:
            from protocol.errors import BotCrashed

            self.transport.stderr += "Traceback: boom\n"
            raise BotCrashed("the process died")
        return [{"type": "action", "id": message["id"], "action": message["legal"][0], "debug": self.note(n)}]


def remote(script: Talking, **limits: Any) -> RemoteBot:
    return RemoteBot(script.connect, name="talking", time=TimeControl(move_time=0.25, **limits))


def actors(record: Any) -> list[int]:
    state = DURAK.new_state(record.seats, record.seed, record.options, dealer=record.dealer)
    seats = []
    for text in record.actions:
        seats.append(state.to_act)
        state.apply(state.parse_action(text))
    return seats


def test_each_decision_of_a_program_bot_has_its_time_note_and_stderr() -> None:
    script = Talking()
    record = play_game(DURAK, [remote(script), RandomBot()], seed=3)
    seats = actors(record)
    asked = [d for d, seat in enumerate(seats) if seat == 0 and d in record.said]
    assert len(record.times) == len(record.actions)
    assert len(asked) == len(script.requests) > 5
    for n, d in enumerate(asked, start=1):  # what it wrote before its first request goes with the first
        assert record.said[d] == Said(f"request {n}", ("starting up\n" if n == 1 else "") + f"thinking {n}\n")
        assert isinstance(record.times[d], int)
    # the whole game's stderr, in the order it was written, as before decisions had their own
    assert record.stderr == {0: "starting up\n" + "".join(f"thinking {n}\n" for n in range(1, len(asked) + 1))}
    assert all(seats[d] == 0 for d in record.said)  # the random bot, in process, says nothing


def test_every_decision_a_seat_was_asked_is_timed() -> None:
    """In-process bots are timed around ``act``; a seat not asked (after a crash, below) has None."""
    record = play_game(DURAK, [RandomBot(), RandomBot()], seed=11)
    assert len(record.times) == len(record.actions) and all(type(t) is int and t >= 0 for t in record.times)


def test_a_crash_keeps_what_the_bot_wrote_at_that_decision() -> None:
    script = Talking(crash_at=3)
    record = play_game(DURAK, [remote(script), RandomBot()], seed=3)
    fault, = record.faults
    assert fault.kind == "crash"
    assert record.said[fault.decision].stderr == "thinking 3\nTraceback: boom\n"
    assert record.times[fault.decision] is not None
    later = [d for d, seat in enumerate(actors(record)) if seat == 0 and d > fault.decision]
    assert later and all(record.times[d] is None for d in later)  # not asked again (C-7)


@pytest.mark.parametrize(("note", "kept"), [
    ("x" * (NOTE_LIMIT + 5), "x" * NOTE_LIMIT + "[… 5 more characters cut]"),
    (12, "[the note is int, not text]"),
    ("", None),
])
def test_a_note_is_bounded_and_must_be_text(note: Any, kept: str | None) -> None:
    script = Talking(note=lambda n: note)
    record = play_game(DURAK, [remote(script), RandomBot()], seed=3)
    notes = {said.note for said in record.said.values()}
    assert notes == ({kept} if kept is not None else {""})


def test_the_request_announces_the_bank_left() -> None:
    script = Talking()
    play_game(DURAK, [remote(script, time_bank=1.5), RandomBot()], seed=3)
    assert {r["bank_ms"] for r in script.requests} == {1500}
    assert {r["deadline_ms"] for r in script.requests} == {1750}


class Noting(BotBase):
    name = "noting"

    def __init__(self) -> None:
        self.deadlines: list[Any] = []

    def act(self, decision: Decision) -> Answer:
        self.deadlines.append(decision.deadline)
        return Answer(decision.legal[-1], f"{len(decision.legal)} legal")


def test_an_in_process_bot_notes_its_answer_and_is_given_the_clock() -> None:
    bot = Noting()
    record = play_game(DURAK, [Clocked(bot, time=TimeControl(move_time=0.5, time_bank=2.0)), RandomBot()],
                       seed=5)
    assert record.said and all(said.note.endswith(" legal") and not said.stderr for said in record.said.values())
    assert {(d.deadline_ms, d.bank_ms) for d in bot.deadlines} == {(2500, 2000)}
    again = record_from_dict(record_to_dict(record))
    assert again.said == record.said and again.times == record.times


def test_the_budget_keeps_the_fault_first_then_in_order_and_says_what_it_cut() -> None:
    said = {1: Said("a" * 10), 4: Said("b" * 10, "c" * 10), 7: Said("", "d" * 30)}
    assert said_within(said, None) == said
    kept = said_within(said, 45, first=[7])
    assert kept[7] == said[7] and kept[1] == said[1]
    assert kept[4].note == "b" * 5 and kept[4].stderr.startswith("[… the game's budget of 45 characters")
    assert "the words of 1 decision are not kept whole" in kept[4].stderr
    nothing = said_within(said, 0)
    assert list(nothing) == [1] and nothing[1].note == "" and "3 decisions" in nothing[1].stderr


def test_a_decision_keeps_the_end_of_a_flood_of_stderr() -> None:
    script = Talking()
    flood = "x" * (DECISION_STDERR + 100)
    original = script.handle

    def handle(message: dict[str, Any]) -> list[dict[str, Any]] | None:
        if message["type"] == "request" and script.transport is not None:
            script.transport.stderr += flood
        return original(message)

    script.handle = handle  # type: ignore[method-assign]
    record = play_game(DURAK, [remote(script), RandomBot()], seed=3)
    first = record.said[min(record.said)].stderr
    assert first.startswith("[… 123 earlier bytes dropped]\n") and first.endswith("thinking 1\n")
    assert len(first.split("\n", 1)[1].encode()) == DECISION_STDERR


def test_a_tail_is_cut_by_bytes_and_never_inside_a_character() -> None:
    assert tail_of("short", 100) == ("short", 0)
    kept, cut = tail_of("я" * 10, 5)  # two bytes each: the half of the first kept one goes too
    assert (kept, cut) == ("я" * 2, 16)
    assert keep_tail("я" * 10, 5) == "[… 16 earlier bytes dropped]\n" + "я" * 2
    assert keep_tail("abc", 10, dropped=7) == dropped_mark(7) + "abc"  # bytes dropped before, counted in the mark
