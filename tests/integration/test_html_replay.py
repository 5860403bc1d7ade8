"""The replay viewer (referee/html, docs/HTML.md) in a real headless Chromium: stepping by the buttons, the arrow
keys, the slider and a ``#d=`` link shows the hands, the table and the scores the engine has at that decision, and
a seat's view shows no card that seat's observation did not hold. The expected values come from the engine here,
never from the page's data."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import run_referee
from html_browser import browser, no_errors, open_page

from bots.heuristic import HeuristicBot
from bots.random import RandomBot
from referee.cli.common import cli_registry
from referee.engine import State
from referee.html import replay_data, replay_html
from referee.html.replay import SAID_SHOWN
from referee.match import GameRecord, Said, play_game
from referee.record import replay, write_record

REGISTRY = cli_registry()
CARD = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b|\b[0-9][KRTF]\b")
#: Every game, with a seat count and the options that keep its game short.
GAMES = [("durak", 3, {}), ("kazaki", 4, {}), ("kozel", 2, {}), ("kozel-hvaleny", 4, {}), ("kozel-nn", 4, {}),
         ("koroli", 4, {"reign_deals": 1}), ("koroli52", 3, {})]
#: Per-seat and per-team fields the scores panel shows, where a game's observation has them.
SCORES = ("points", "totals", "tricks", "hand_sizes", "stage_counts", "bargain_net", "eyes", "game_points",
          "tricks_taken")


def played(game_id: str, seats: int, options: dict[str, Any], seed: int = 11) -> GameRecord:
    bots: list[Any] = [HeuristicBot() if s % 2 == 0 else RandomBot() for s in range(seats)]
    return play_game(REGISTRY.game(game_id), bots, seed=seed, options=options)


def positions(record: GameRecord) -> list[dict[str, Any]]:
    """At each decision, from the engine: each seat's observation (its events since the previous decision
    included) and the referee's view of the table."""
    out: list[dict[str, Any]] = []
    since = [0]

    def listen(state: State, events: list[dict[str, Any]]) -> None:
        out.append({"observed": [state.observe(s, since[0]) for s in range(state.seats)]})
        since[0] = state.log_size

    replay(record, REGISTRY.game, listen)
    return out


def cards_in(value: Any) -> set[str]:
    """Every card text anywhere in a decoded JSON value."""
    if isinstance(value, str):
        return set(CARD.findall(value)) if CARD.fullmatch(value) or "(" in value else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def table_cards(observation: dict[str, Any]) -> list[str]:
    if isinstance(observation.get("table"), list):
        return [c for p in observation["table"] for c in (p["card"], p["cover"]) if c]
    return [p["card"] for p in observation.get("trick") or []]


def shown_text(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with browser() as ctx:
        yield ctx


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[GameRecord, Path, list[dict[str, Any]]]]:
    """Each game's record, its page, and its positions from the engine."""
    folder = tmp_path_factory.mktemp("replays")
    made = {}
    for game_id, seats, options in GAMES:
        record = played(game_id, seats, options)
        path = folder / f"{game_id}.html"
        path.write_text(replay_html(record, REGISTRY.game), encoding="utf-8")
        made[game_id] = (record, path, positions(record))
    return made


#: What the page shows, read in one call: the decision, each seat's hand, the table, the turned-up card, the scores.
SNAPSHOT = """() => {
  const cards = (sel) => [...document.querySelectorAll(sel)].map(e => e.dataset.card);
  const cells = (sel, key) => { const out = {}; for (const td of document.querySelectorAll(sel)) {
    (out[td.dataset.field] ??= {})[td.dataset[key]] = td.innerText; } return out; };
  const hands = {}; for (const s of document.querySelectorAll(".seat")) hands[s.dataset.seat] = cards(
    `.seat[data-seat="${s.dataset.seat}"] .hand [data-card]`);
  return {decision: document.body.dataset.decision, hands, table: cards("#table-cards [data-card]"),
          trump_card: cards("#trump-card [data-card]")[0] ?? null,
          seats: cells("#seat-scores td[data-field]", "seat"), teams: cells("#team-scores td[data-field]", "team")};
}"""


#: A seat's view, read in one call: every card drawn, the page's text, each seat's face-up cards.
SEAT_VIEW = """() => ({
  drawn: [...document.querySelectorAll("[data-card]")].map(e => e.dataset.card),
  text: document.body.innerText,
  hands: Object.fromEntries([...document.querySelectorAll(".seat")].map(s => [s.dataset.seat,
    [...s.querySelectorAll(".hand [data-card]")].map(e => e.dataset.card)])),
})"""


def check_position(page: Any, record: GameRecord, position: dict[str, Any], decision: int) -> None:
    """The page (everything view) at ``decision`` shows the engine's hands, table and scores."""
    shown = page.evaluate(SNAPSHOT)
    assert shown["decision"] == str(decision)
    observed = position["observed"]
    assert shown["hands"] == {str(s): o["hand"] for s, o in enumerate(observed)}, decision
    assert shown["table"] == table_cards(observed[0]), decision
    assert shown["trump_card"] == observed[0].get("trump_card"), decision
    for field in SCORES:
        value = observed[0].get(field)
        if isinstance(value, list) and len(value) == record.seats and all(
                v is None or isinstance(v, int | str) for v in value):
            assert shown["seats"][field] == {str(s): shown_text(v) for s, v in enumerate(value)}, (field, decision)
        elif isinstance(value, dict) and value and all(isinstance(v, int) for v in value.values()):
            assert shown["teams"][field] == {t: shown_text(v) for t, v in value.items()}, (field, decision)


def test_stepping_by_buttons_keys_slider_and_link_shows_the_engines_state(
        context: Any, pages: dict[str, tuple[GameRecord, Path, list[dict[str, Any]]]]) -> None:
    record, path, expected = pages["kozel-hvaleny"]
    last = len(expected) - 1
    page = open_page(context)
    page.goto(path.as_uri())
    check_position(page, record, expected[0], 0)
    for _ in range(3):
        page.click("#next")
    check_position(page, record, expected[3], 3)
    page.click("#prev")
    check_position(page, record, expected[2], 2)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_position(page, record, expected[4], 4)
    page.keyboard.press("End")
    check_position(page, record, expected[last], last)
    assert page.locator("#result").count() == 1
    page.keyboard.press("Home")
    check_position(page, record, expected[0], 0)
    page.locator("#slider").fill(str(last // 2))
    check_position(page, record, expected[last // 2], last // 2)
    assert page.evaluate("location.hash") == f"#d={last // 2}"
    page.goto(path.as_uri() + "#d=17")
    page.reload()
    check_position(page, record, expected[17], 17)
    page.evaluate("location.hash = '#d=9'")
    page.locator('body[data-decision="9"]').wait_for(state="attached")
    check_position(page, record, expected[9], 9)
    page.click("#play")  # steps on by itself until paused
    page.locator('body[data-decision="10"]').wait_for(state="attached")
    page.click("#play")
    assert page.locator("#play").inner_text() == "play"
    decision = int(page.locator("body").get_attribute("data-decision"))
    check_position(page, record, expected[decision], decision)
    no_errors(page)


@pytest.mark.parametrize("game_id", [g for g, _, _ in GAMES])
def test_every_game_shows_the_engines_hands_table_and_scores(
        context: Any, pages: dict[str, tuple[GameRecord, Path, list[dict[str, Any]]]], game_id: str) -> None:
    record, path, expected = pages[game_id]
    page = open_page(context)
    page.goto(path.as_uri())
    for decision in sorted({*range(0, len(expected), max(1, len(expected) // 8)), len(expected) - 1}):
        page.evaluate(f"location.hash = '#d={decision}'")
        page.locator(f'body[data-decision="{decision}"]').wait_for(state="attached")
        check_position(page, record, expected[decision], decision)
    no_errors(page)


@pytest.mark.parametrize("game_id", [g for g, _, _ in GAMES])
def test_a_seats_view_shows_only_what_its_observation_held(
        context: Any, pages: dict[str, tuple[GameRecord, Path, list[dict[str, Any]]]], game_id: str) -> None:
    record, path, expected = pages[game_id]
    seat = 1
    page = open_page(context)
    page.goto(path.as_uri() + f"#d=0&seat={seat}")
    assert page.locator("#view").input_value() == str(seat)
    step = max(1, len(expected) // 12)
    checked = 0
    for decision in range(0, len(expected), step):
        page.evaluate(f"location.hash = '#d={decision}&seat={seat}'")
        page.locator(f'body[data-decision="{decision}"]').wait_for(state="attached")
        observed = expected[decision]["observed"]
        allowed = cards_in(observed[seat])
        hidden = set().union(*(set(o["hand"]) for s, o in enumerate(observed) if s != seat)) - allowed
        shown = page.evaluate(SEAT_VIEW)
        drawn, written = set(shown["drawn"]), set(CARD.findall(shown["text"]))
        assert not (drawn | written) & hidden, (decision, (drawn | written) & hidden)
        assert drawn | written <= allowed, (decision, (drawn | written) - allowed)
        assert shown["hands"] == {str(s): observed[seat]["hand"] if s == seat else [] for s in range(record.seats)}
        checked += 1
    assert checked >= 10
    page.select_option("#view", "all")  # back to everything: every hand is shown again
    assert page.locator(".seat .hand [data-card]").count() == sum(len(o["hand"]) for o in expected[
        int(page.locator("body").get_attribute("data-decision"))]["observed"])
    no_errors(page)


def test_the_commands_write_the_page(tmp_path: Path) -> None:
    record = played("durak", 2, {})
    write_record(record, tmp_path / "game.json")
    done = run_referee("replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "game.html"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "game.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "http://" not in text and "https://" not in text
    assert 'id="replay-data"' in text and "<script src" not in text and "<link" not in text
    bad = run_referee("replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "no" / "game.html"))
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("referee: error: cannot write") and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("field,value", [("times", "fast"), ("times", [1, 2]), ("said", {"0": {"note": 7}}),
                                         ("said", {"x": {"note": "hi"}})])
def test_a_damaged_time_or_note_is_one_line_and_no_page(tmp_path: Path, field: str, value: Any) -> None:
    record = played("durak", 2, {})
    write_record(record, tmp_path / "game.json")
    data = json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))
    data[field] = value
    (tmp_path / "game.json").write_text(json.dumps(data), encoding="utf-8")
    done = run_referee("replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "game.html"))
    assert done.returncode != 0 and done.stdout == "" and not (tmp_path / "game.html").exists()
    assert done.stderr.startswith("referee: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert f"'{field}'" in done.stderr and "Traceback" not in done.stderr


def test_the_pages_data_holds_the_times_the_words_capped_and_the_limits() -> None:
    record = played("durak", 2, {})
    times: list[int | None] = [7] * len(record.actions)
    long = "x" * (SAID_SHOWN + 5)
    record = dataclasses.replace(record, times=times, said={2: Said(long + "end", ""), 3: Said("", "")})
    data = replay_data(record, REGISTRY.game, [250, None])
    assert data["times"] == times and data["limits"] == [250, None]
    assert data["said"] == {"2": {"note": (long + "end")[-SAID_SHOWN:], "stderr": ""}}  # nothing said: left out
    assert replay_data(dataclasses.replace(record, times=[], said={}), REGISTRY.game)["limits"] == [None, None]
