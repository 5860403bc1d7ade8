"""The replay viewer's decision panel, time charts and fault keys, and both pages at a desktop's and a phone's width,
in a real headless Chromium (docs/HTML.md). The records are played here and given times and words by hand (what
the game loop measures), and what the page must show is computed here from the record and the engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_browser import browser, no_errors, open_page

from bots.heuristic import HeuristicBot
from bots.random import RandomBot
from protocol.bot import BotBase
from protocol.faults import FaultKind
from referee.cli.common import cli_registry
from referee.engine import State
from referee.html import replay_html
from referee.match import GameRecord, Said, play_game
from referee.record import replay

REGISTRY = cli_registry()
HOSTILE = "</pre><script>alert(1)</script><b>bold?</b>"


class Sometimes(BotBase):
    """Plays like the heuristic bot, but answers every fifth decision with an action that is never legal."""

    def __init__(self) -> None:
        self.inner = HeuristicBot()
        self.asked = 0

    def new_game(self, info: Any) -> None:
        self.inner.new_game(info)

    def act(self, decision: Any) -> Any:
        self.asked += 1
        return "attack(AS,AS)" if self.asked % 5 == 0 else self.inner.act(decision)


def to_act(record: GameRecord) -> list[int | None]:
    """The seat to act at each decision, from the engine."""
    seats: list[int | None] = []

    def listen(state: State, events: list[dict[str, Any]]) -> None:
        seats.append(state.to_act)

    replay(record, REGISTRY.game, listen)
    return seats


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with browser() as ctx:
        yield ctx


@pytest.fixture(scope="module")
def faulted(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameRecord, Path, list[int | None]]:
    """A durak game in which seat 1 faults now and then (policy continue), with times, notes and stderr."""
    record = play_game(REGISTRY.game("durak"), [HeuristicBot(), Sometimes()], seed=5, policy="continue")
    assert len(record.faults) >= 3
    seats = to_act(record)
    times = [1000 * (d + 1) if seats[d] == 0 else 37_000 for d in range(len(record.actions))]
    first = next(d for d, s in enumerate(seats) if s == 1)
    mine = next(d for d, s in enumerate(seats) if s == 0)
    said = {first: Said(HOSTILE, "thinking\n" + HOSTILE), mine: Said("a note of seat 0", "")}
    record = dataclasses.replace(record, times=times, said=said, stderr={0: "seat 0 starting\n", 1: HOSTILE})
    path = tmp_path_factory.mktemp("screens") / "faulted.html"
    path.write_text(replay_html(record, REGISTRY.game, limits=[100, None]), encoding="utf-8")
    return record, path, seats


def at(page: Any, address: str) -> int:
    page.evaluate(f"location.hash = {address!r}")
    return int(page.locator("body").get_attribute("data-decision"))


def test_the_decision_panel_shows_the_seats_time_note_and_stderr_to_it_and_the_referee_only(
        context: Any, faulted: tuple[GameRecord, Path, list[int | None]]) -> None:
    record, path, seats = faulted
    first = next(d for d, s in enumerate(seats) if s == 1)
    page = open_page(context)
    page.goto(path.as_uri() + "#d=4")
    assert seats[4] == 0
    assert page.locator("#took").inner_text() == "Answered in 5.0 ms (5.0% of its 100 ms limit)."
    page.goto(path.as_uri() + f"#d={first}")
    page.reload()
    assert page.locator("body").get_attribute("data-decision") == str(first)
    assert page.locator("#took").inner_text() == "Answered in 37.0 ms."  # no limit given for seat 1
    assert page.locator("#said-note").inner_text() == HOSTILE  # text, never markup
    assert page.locator("#said-stderr").inner_text() == "thinking\n" + HOSTILE
    assert page.locator("#decision script, #decision b").count() == 0
    at(page, f"#d={first}&seat=1")  # its own words in its own view
    assert page.locator("#said-note").inner_text() == HOSTILE
    assert page.locator("#stderr details:not([hidden])").evaluate_all("e => e.map(d => d.dataset.seat)") == ["1"]
    at(page, f"#d={first}&seat=0")  # not in another seat's
    text = page.locator("body").inner_text()
    assert "alert(1)" not in text and "thinking" not in text and page.locator("#took").count() == 0
    assert page.locator("#stderr details:not([hidden])").evaluate_all("e => e.map(d => d.dataset.seat)") == ["0"]
    assert page.locator("#time-charts .time-chart").evaluate_all("e => e.map(c => c.dataset.seat)") == ["0"]
    at(page, "#d=0")
    summaries = page.locator("#stderr summary").all_inner_texts()
    assert summaries == ["seat 0 (heuristic): 1 line(s)", f"seat 1 ({record.bots[1]}): 1 line(s)"]
    no_errors(page)


@pytest.mark.parametrize(("kind", "took"), [(FaultKind.TIMEOUT, "No answer in time (timeout): 37.0 ms."),
                                            (FaultKind.CRASH, "No answer in time (crash): 37.0 ms."),
                                            (FaultKind.ILLEGAL, "Answered in 37.0 ms.")])
def test_a_seat_that_did_not_answer_is_not_said_to_have_answered(
        context: Any, faulted: tuple[GameRecord, Path, list[int | None]], tmp_path: Path, kind: FaultKind,
        took: str) -> None:
    """A crash's decision said 'Answered in 1.4 ms' beside 'Fault: … crash': the time was the referee's wait."""
    record, _, _ = faulted
    first = record.faults[0]
    faults = (dataclasses.replace(first, kind=kind), *record.faults[1:])
    changed = dataclasses.replace(record, result=dataclasses.replace(record.result, faults=faults))
    path = tmp_path / "changed.html"
    path.write_text(replay_html(changed, REGISTRY.game), encoding="utf-8")
    page = open_page(context)
    page.goto(path.as_uri() + f"#d={first.decision}")
    assert page.locator("#took").inner_text() == took
    no_errors(page)


def test_the_time_charts_draw_each_asked_decision_and_mark_the_current_one(
        context: Any, faulted: tuple[GameRecord, Path, list[int | None]]) -> None:
    record, path, seats = faulted
    last = len(record.actions)
    page = open_page(context)
    page.goto(path.as_uri() + "#d=10")
    for seat in (0, 1):
        chart = page.locator(f'#time-charts .time-chart[data-seat="{seat}"]')
        drawn = chart.locator("rect.bar").evaluate_all("e => e.map(r => +r.dataset.decision)")
        assert drawn == [d for d in range(last) if seats[d] == seat]
        faults = chart.locator("rect.bar.fault").evaluate_all("e => e.map(r => +r.dataset.decision)")
        assert faults == sorted({f.decision for f in record.faults if f.seat == seat})
        assert float(chart.locator("line.now").get_attribute("x1")) == pytest.approx(600 * 10 / last, abs=0.05)
    head = page.locator('#time-charts .time-chart[data-seat="0"] .note').inner_text()
    longest = max(1000 * (d + 1) for d in range(last) if seats[d] == 0)
    assert f"longest {longest / 1000:.1f} ms" in head and "limit 100 ms" in head
    no_errors(page)


def test_the_fault_key_marks_and_links_go_to_the_faults(
        context: Any, faulted: tuple[GameRecord, Path, list[int | None]]) -> None:
    record, path, _ = faulted
    decisions = sorted({f.decision for f in record.faults})
    last = len(record.actions)
    page = open_page(context)
    page.goto(path.as_uri())
    assert page.locator("#marks .mark").evaluate_all("e => e.map(m => +m.dataset.decision)") == [
        f.decision for f in record.faults]
    page.keyboard.press("f")
    assert page.locator("body").get_attribute("data-decision") == str(decisions[0])
    assert page.locator(".fault-line").count() >= 1
    page.click("#next-fault")
    assert page.locator("body").get_attribute("data-decision") == str(decisions[1])
    page.keyboard.press("Shift+F")
    assert page.locator("body").get_attribute("data-decision") == str(decisions[0])
    page.locator("#marks .mark").nth(2).click()
    assert page.locator("body").get_attribute("data-decision") == str(record.faults[2].decision)
    page.keyboard.press("End")
    assert page.locator("#next-fault").is_disabled()
    page.goto(path.as_uri() + "#d=0&seat=0")  # seat 0 never faulted: in its view there is no fault to go to
    page.reload()
    assert page.locator("#marks .mark").count() == 0 and page.locator("#next-fault").is_disabled()
    # a link opens at its decision; past the end is the end, and the address says so; nonsense is the deal
    assert at(page, "#d=7") == 7
    assert at(page, "#d=99999") == last and page.evaluate("location.hash") == f"#d={last}"
    assert at(page, "#d=x") == 0 and page.evaluate("location.hash") == "#d=0"
    no_errors(page)


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int | None]]:
    bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()]
    record = play_game(REGISTRY.game("kozel-hvaleny"), bots, seed=11)
    record = dataclasses.replace(record, times=[2500] * len(record.actions))
    path = tmp_path_factory.mktemp("four") / "four.html"
    path.write_text(replay_html(record, REGISTRY.game, limits=[1000] * 4), encoding="utf-8")
    return path, to_act(record)


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
def test_the_replay_fits_the_width_keeps_its_controls_and_shows_the_hand_to_act(
        context: Any, four: tuple[Path, list[int | None]], width: int, height: int) -> None:
    path, seats = four
    page = open_page(context)
    page.set_viewport_size({"width": width, "height": height})
    for seat in range(4):
        decision = next(d for d, s in enumerate(seats) if s == seat and d > 8)
        page.goto(path.as_uri() + f"#d={decision}")
        page.reload()
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        hand = page.locator(".seat.to-act .hand").bounding_box()
        assert page.locator(".seat.to-act").get_attribute("data-seat") == str(seat)
        assert hand["y"] >= 0 and hand["y"] + hand["height"] <= height, (seat, hand)  # on the first screen
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    assert page.evaluate("window.scrollY") > 0
    for control in ("#prev", "#next", "#slider", "#next-fault", "#view"):
        box = page.locator(control).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height and box["x"] + box["width"] <= width, control
    before = int(page.locator("body").get_attribute("data-decision"))
    page.click("#next")
    assert page.locator("body").get_attribute("data-decision") == str(before + 1)
    no_errors(page)
