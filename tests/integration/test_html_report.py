"""The tournament report (tournaments/report_html.py, docs/HTML.md) in a real headless Chromium: its rating table,
heat map and fault counts say what 'referee tournament table --json' says, and a game's link opens that game's
replay, which links back."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import ROOT, run_referee
from html_browser import browser, no_errors, open_page

from referee.cli_common import cli_registry
from tournaments import report_html
from tournaments.report import build_report
from tournaments.storage import GameRow, Store

ILLEGAL = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'zoo' / 'illegal.py'}"


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with browser() as ctx:
        yield ctx


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tournament")
    db = folder / "t.db"
    done = run_referee("tournament", "run", "durak", "-b", "heuristic", "-b", "random", "-b",
                       f"[name=illegal] {ILLEGAL}", "--seats", "2", "--games", "2", "--seed", "3", "--db", str(db),
                       "--workers", "1", "--sandbox", "off", "--json")
    assert done.returncode == 0, done.stderr
    return db


def test_the_report_shows_the_table_and_links_each_replay(context: Any, tournament: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "report.html"
    out.parent.mkdir()
    done = run_referee("tournament", "report", str(tournament), "-o", str(out), "--replays", "4")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out}: 12 games, 4 replay pages in {tmp_path / 'site' / 'report-games'}\n"
    table = json.loads(run_referee("tournament", "table", str(tournament), "--json").stdout)
    games = json.loads(run_referee("tournament", "games", str(tournament), "--json").stdout)["games"]
    text = out.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "<script" not in text

    page = open_page(context)
    page.goto(out.as_uri())
    rows = page.locator("#ratings tr[data-bot]")
    assert rows.evaluate_all("els => els.map(e => e.dataset.bot)") == [r["bot"] for r in table["ratings"]]
    assert page.locator("#ratings td.rating").all_inner_texts() == [f"{r['rating']:.0f}" for r in table["ratings"]]
    assert page.locator("#ratings rect.interval").count() == len(table["ratings"])
    names = [r["bot"] for r in table["ratings"]]
    index = {name: i for i, name in enumerate(table["crosstable"]["bots"])}
    heat = page.locator("#crosstable tr").evaluate_all(
        "rows => rows.slice(1).map(r => [...r.querySelectorAll('td')].map(td => td.innerText))")
    assert heat == [["" if a == b else f"{100 * table['crosstable']['score'][index[a]][index[b]]:.0f}%"
                     for b in names] for a in names]  # the score, wins + ½ draws, as the page says:
    assert "score: wins + ½ draws, of the games both played" in page.locator("#score-legend").inner_text()
    assert "A shared place counts for every bot sharing it" in page.locator("#places-legend").inner_text()
    assert page.locator("#ratings th", has_text="first %").get_attribute("title") == (
        "the share of its games with place 1; a shared first place counts for every bot sharing it")
    # every head-to-head has its deal pairs: the interval says so
    assert all(h["pairs"] > 0 for h in table["head_to_head"])
    assert page.locator("#interval-legend").inner_text().startswith("Elo diff: 95% interval, from the deal pairs")
    faults = {r["bot"]: r["faults"] for r in table["ratings"]}
    assert faults["illegal"] > 0
    shown = page.locator("#faults tr").evaluate_all(
        "rows => rows.slice(1).map(r => [r.cells[0].innerText, r.cells[r.cells.length - 1].innerText])")
    assert {bot: int(n) for bot, n in shown} == faults
    assert page.locator("#seed").inner_text() == "3"  # complete: the seed is shown
    assert page.locator("#course polyline").count() == 3
    listed = page.locator("#games tr[data-key]").evaluate_all("els => els.map(e => e.dataset.key)")
    assert listed == [g["key"] for g in games]
    links = page.locator("#games a")
    assert links.count() == 4
    faulted = [g["key"] for g in games if g["faults"]]
    linked = page.locator("#games tr[data-key]:has(a)").evaluate_all("els => els.map(e => e.dataset.key)")
    assert linked == sorted(faulted[:4], key=[g["key"] for g in games].index)  # the games with a fault first
    no_errors(page)

    key = linked[0]
    page.click(f'#games tr[data-key="{key}"] a')
    page.locator('body[data-decision="0"]').wait_for(state="attached")
    game = next(g for g in games if g["key"] == key)
    assert all(f"seat {s}: {bot}" in page.locator("header").inner_text() for s, bot in enumerate(game["bots"]))
    page.click("#next")
    assert page.locator("body").get_attribute("data-decision") == "1"
    record = json.loads(run_referee("tournament", "record", str(tournament), key).stdout)
    fault = record["faults"][0]
    page.evaluate(f"location.hash = '#d={fault['decision']}'")
    page.locator(f'body[data-decision="{fault["decision"]}"]').wait_for(state="attached")
    line = page.locator(".fault-line").first
    assert line.inner_text().startswith(f"Fault: seat {fault['seat']} (illegal) illegal: ")
    assert line.inner_text().endswith(" instead")
    played = record["actions"][fault["decision"]]  # the default action, its cards drawn as cards
    cards = re.findall(r"(?:10|[2-9JQKA])[CDHS]", played)
    drawn = line.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn[len(drawn) - len(cards):] == cards if cards else line.inner_text().endswith(f"{played} instead")
    no_errors(page)
    page.click("#back")
    page.wait_for_selector("#ratings")
    assert page.url == out.as_uri()
    no_errors(page)


def test_record_writes_a_stored_games_viewer(tournament: Path, tmp_path: Path) -> None:
    done = run_referee("tournament", "record", str(tournament), "t0.d0.r0", "--html", str(tmp_path / "g.html"))
    assert done.returncode == 0 and done.stdout == "", done.stderr  # the page instead of the record
    assert 'id="replay-data"' in (tmp_path / "g.html").read_text(encoding="utf-8")
    both = run_referee("tournament", "record", str(tournament), "t0.d0.r0", "--html", str(tmp_path / "h.html"),
                       "--out", str(tmp_path / "g.json"))
    assert both.returncode == 0 and (tmp_path / "h.html").is_file()
    assert json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))["format"] == "referee-record"


def test_a_bad_output_path_is_one_line(tournament: Path, tmp_path: Path) -> None:
    done = run_referee("tournament", "report", str(tournament), "-o", str(tmp_path / "missing" / "r.html"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("referee: error: cannot write") and done.stderr.count("\n") == 1


def test_a_partial_tournament_keeps_its_seed_and_a_big_one_is_bounded(
        tournament: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Until every scheduled game is played the seed is not on the page (it would tell the deals to come); the
    replays and the list are bounded (the games with a fault first), and the page says so."""
    partial = tmp_path / "partial.db"
    partial.write_bytes(tournament.read_bytes())
    with sqlite3.connect(partial) as conn:
        conn.execute("DELETE FROM games WHERE seq = (SELECT MAX(seq) FROM games)")
    monkeypatch.setattr(report_html, "LISTED", 3)
    with Store(partial, create=False, readonly=True) as store:
        rows = list(store.games())
        page = report_html.report_page(store, cli_registry(), replays=2)
    text = " ".join(report_html.render(page).split())
    assert page.report.partial and page.report.seed is None
    assert 'id="seed">shown once the tournament is complete<' in text and "partial: 11 of 12 games" in text
    faulted = [r.key for r in rows if r.faults]
    assert [r.key for r in page.replays] == faulted[:2]
    order = [r.key for r in rows]
    assert [g["key"] for g in page.games] == sorted({*order[:3], *faulted[:2]}, key=order.index)
    assert [g["key"] for g in page.games if g["href"]] == faulted[:2]
    assert f"{len(page.games)} of 11 games listed" in text and "the first 3 in schedule order" in text
    assert "at most 2: the games with a fault first" in text
    assert page.course["points"] <= report_html.COURSE_POINTS


def test_a_heat_map_cell_is_the_score_with_draws_as_half() -> None:
    """184 wins, 71 draws and 145 losses are a score of 54.9 %: a green 55 %, not the red 46 % of the games won."""
    results = [(1, 2)] * 184 + [(1, 1)] * 71 + [(2, 1)] * 145
    rows = [GameRow(i, f"t0.d{i}.r0", i, ("a", "b"), places, (), 10) for i, places in enumerate(results)]
    report = build_report(["a", "b"], rows)
    assert [r["bot"] for r in report.rows] == ["a", "b"]
    heat = report_html._heat(report)
    (mine, theirs) = heat[0][1], heat[1][0]
    assert (mine["text"], mine["exact"], theirs["text"], theirs["exact"]) == ("55%", "54.9%", "45%", "45.1%")
    red, green = int(mine["colour"][1:3], 16), int(mine["colour"][3:5], 16)
    assert green > red  # green: above half
    assert heat[0][0] == {"score": None, "colour": "#eef0f4", "text": "", "exact": ""}
