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

from referee.cli.common import cli_registry
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
    table = json.loads(run_referee("tournament", "table", str(tournament), "--json").stdout)
    games = json.loads(run_referee("tournament", "games", str(tournament), "--json").stdout)["games"]
    pages = sum(1 for g in games if g["faults"]) + min(4, sum(1 for g in games if not g["faults"]))
    assert done.stdout == f"{out}: 12 games, {pages} replay pages in {tmp_path / 'site' / 'report-games'}\n"
    text = out.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "<script src" not in text
    assert "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline';" in text  # its own only

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
    links = page.locator("#games a.replay")
    faulted = [g["key"] for g in games if g["faults"]]
    clean = [g["key"] for g in games if not g["faults"]]
    assert faulted and links.count() == len(faulted) + min(4, len(clean))
    linked = page.locator("#games tr[data-key]:has(a.replay)").evaluate_all("els => els.map(e => e.dataset.key)")
    assert linked == [g["key"] for g in games if g["faults"] or g["key"] in clean[:4]]  # every game with a fault
    no_errors(page)

    key = faulted[0]  # a faulted game's link opens its replay at its first fault
    game = next(g for g in games if g["key"] == key)
    first = min(f["decision"] for f in game["faults"])
    page.click(f'#games tr[data-key="{key}"] a.replay')
    page.locator(f'body[data-decision="{first}"]').wait_for(state="attached")
    assert page.url.endswith(f"#d={first}")
    assert all(f"seat {s}: {bot}" in page.locator("header").inner_text() for s, bot in enumerate(game["bots"]))
    record = json.loads(run_referee("tournament", "record", str(tournament), key).stdout)
    fault = next(f for f in record["faults"] if f["decision"] == first)
    line = page.locator(".fault-line").first
    assert line.inner_text().startswith(f"Fault: seat {fault['seat']} (illegal) illegal: ")
    assert line.inner_text().endswith(" instead")
    played = record["actions"][fault["decision"]]  # the default action, its cards drawn as cards
    cards = re.findall(r"(?:10|[2-9JQKA])[CDHS]", played)
    drawn = line.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn[len(drawn) - len(cards):] == cards if cards else line.inner_text().endswith(f"{played} instead")
    page.keyboard.press("f")  # the next fault
    later = sorted(f["decision"] for f in record["faults"] if f["decision"] > first)
    assert page.locator("body").get_attribute("data-decision") == str(later[0] if later else first)
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
    clean = [r.key for r in rows if not r.faults]
    order = [r.key for r in rows]
    assert [r.key for r in page.replays] == sorted({*faulted, *clean[:2]}, key=order.index)
    assert [g["key"] for g in page.games] == sorted({*order[:3], *faulted, *clean[:2]}, key=order.index)
    assert [g["key"] for g in page.games if g["href"]] == [r.key for r in page.replays]
    assert all(g["href"].endswith(f"#d={min(int(w.rsplit(' ', 1)[1]) for w in g['faults'])}")
               for g in page.games if g["faults"])
    missing = 11 - len(page.games)
    assert f"{len(page.games)} of 11 games listed" in text
    assert (f"({missing} not listed: the list holds the first 3 in schedule order" in text) == (missing > 0)
    assert "every game with a fault, opened at its first fault, and at most 2 others" in text
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


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[GameRow]]:
    """60 games, the illegal bot's with faults, written as a report: more rows than a page of the list."""
    folder = tmp_path_factory.mktemp("many")
    db = folder / "t.db"
    done = run_referee("tournament", "run", "durak", "-b", "first", "-b", "random", "-b", f"[name=illegal] {ILLEGAL}",
                       "--seats", "2", "--games", "10", "--seed", "4", "--db", str(db), "--workers", "2",
                       "--sandbox", "off", "--on-fault", "continue", "--json")
    assert done.returncode == 0, done.stderr
    out = folder / "report.html"
    with Store(db, create=False, readonly=True) as store:
        rows = list(store.games())
        report_html.write_report(store, cli_registry(), out, replays=0)
    assert len(rows) == 60
    return out, rows


SHOWN = "() => [...document.querySelectorAll('#games tr[data-key]:not([hidden])')].map(e => e.dataset.key)"


def test_fault_counts_lead_to_their_games_and_the_list_filters_sorts_and_pages(
        context: Any, many: tuple[Path, list[GameRow]]) -> None:
    out, rows = many
    by_key = {r.key: r for r in rows}
    page = open_page(context)
    page.goto(out.as_uri())
    assert page.evaluate(SHOWN) == [r.key for r in rows[:50]]  # a page of 50, in schedule order
    assert page.locator("#games-shown").inner_text() == "All 60 listed games, 50 a page."
    page.click("#page-next")
    assert page.evaluate(SHOWN) == [r.key for r in rows[50:]]
    assert page.locator("#page-next").is_disabled() and page.locator("#page-where").inner_text() == "51–60 of 60"
    page.click("#page-prev")

    page.click('#faults tr[data-bot="illegal"] a[data-kind="illegal"]')  # the count leads to the games it counts
    counted = [r.key for r in rows if any(r.seating[f.seat] == "illegal" and str(f.kind) == "illegal"
                                          for f in r.faults)]
    assert counted and page.evaluate(SHOWN) == counted
    assert page.evaluate("location.hash") == "#games?bot=illegal&kind=illegal"
    assert page.locator("#f-bot").input_value() == "illegal"
    assert page.locator("#games").bounding_box()["y"] < 200  # scrolled to the list

    page.click("#f-reset")
    page.select_option("#f-bot", "first")
    page.select_option("#f-place", "1")
    won = [r.key for r in rows if any(b == "first" and p == 1 for b, p in zip(r.seating, r.places, strict=True))]
    assert page.evaluate(SHOWN) == won[:50] and 0 < len(won) < 60
    assert page.locator("#games-shown").inner_text().startswith(f"{len(won)} of the 60 listed games match")
    page.click("#f-reset")
    page.select_option("#f-kind", "none")
    assert page.evaluate(SHOWN) == [r.key for r in rows if not r.faults]
    page.select_option("#f-bot", "illegal")  # with a bot: its own faults
    assert page.evaluate(SHOWN) == [r.key for r in rows if "illegal" in r.seating and not any(
        r.seating[f.seat] == "illegal" for f in r.faults)]
    page.click("#f-reset")
    least = sorted(r.decisions for r in rows)[30]
    page.fill("#f-min", str(least))
    assert page.evaluate(SHOWN) == [r.key for r in rows if r.decisions >= least]

    page.click("#f-reset")
    page.click('#games th[data-sort="d"]')  # fewest decisions first, then most
    shown = page.evaluate(SHOWN)
    assert [by_key[k].decisions for k in shown] == sorted(r.decisions for r in rows)[:50]
    page.click('#games th[data-sort="d"]')
    shown = page.evaluate(SHOWN)
    assert [by_key[k].decisions for k in shown] == sorted((r.decisions for r in rows), reverse=True)[:50]
    page.evaluate("location.hash = '#games?bot=nobody&kind=illegal'")  # not an entrant: any bot
    assert page.locator("#f-bot").input_value() == "" and len(page.evaluate(SHOWN)) == len(
        [r for r in rows if any(str(f.kind) == "illegal" for f in r.faults)])
    no_errors(page)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_report_fits_the_width(context: Any, many: tuple[Path, list[GameRow]], width: int) -> None:
    page = open_page(context)
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(many[0].as_uri())
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    for panel in ("#ratings", "#crosstable", "#faults", "#games", "#ratings td.bar", "#ratings td:last-child"):
        box = page.locator(panel).first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, panel  # the bars and the faults on screen
    no_errors(page)


def test_the_time_per_move_is_drawn_against_each_bots_limit(
        tournament: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, Any]] = []

    def move_times(self: Store, limit_games: int, find_game: Any = None, *, enough: Any = None) -> dict[str, list[int]]:
        asked.append((limit_games, enough))
        return {"heuristic": list(range(1, 1001)), "illegal": [2_500_000]}

    monkeypatch.setattr(Store, "move_times", move_times)
    with Store(tournament, create=False, readonly=True) as store:
        page = report_html.report_page(store, cli_registry(), replays=0)
        entrants = store.config()["entrants"]
    assert asked == [(report_html.TIMES_GAMES, (entrants, report_html.TIMES_MOVES))]
    assert [(t["bot"], t["values"], t["limit"], t["share"]) for t in page.times] == [
        ("heuristic", ["500 µs", "900 µs", "990 µs", "1.0 ms"], 1000, "0.1%"),
        ("illegal", ["2500 ms"] * 4, 1000, "250%")]
    assert page.times[1]["bar"] == {"p50": 100, "p90": 100, "p99": 100, "max": 100, "over": True}
    text = " ".join(report_html.render(page).split())
    assert '<tr data-bot="illegal"><td class="text">illegal</td><td>1</td>' in text
    assert 'class="longest over"' in text and "as many as give each bot 5,000 moves, 1,000 at most" in text
    assert ">bank</th>" not in text and "time bank" not in text  # no bot has one


def test_a_time_bank_is_shown_beside_the_limit_and_a_move_past_the_limit_is_said_to_spend_it(
        tournament: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Store, "move_times",
                        lambda self, limit_games, find_game=None, enough=None: {"illegal": [2_500_000]})
    monkeypatch.setattr(report_html, "time_banks", lambda config: {"illegal": 2000})
    with Store(tournament, create=False, readonly=True) as store:
        page = report_html.report_page(store, cli_registry(), replays=0)
    text = " ".join(report_html.render(page).split())
    assert ">bank</th>" in text and "<td>1000 ms</td> <td>2000 ms</td> <td>250%</td>" in text
    assert "a bot with a time bank may go past it by what is left of its bank in that game, without a timeout" in text


def test_the_time_per_move_of_a_real_tournament_is_measured_for_every_bot(tournament: Path) -> None:
    with Store(tournament, create=False, readonly=True) as store:
        times = store.move_times(report_html.TIMES_GAMES)
        page = report_html.report_page(store, cli_registry(), replays=0)
        entrants = store.config()["entrants"]
    assert set(times) == set(entrants) and all(times[name] for name in entrants)
    assert [t["bot"] for t in page.times] == entrants


def test_the_time_per_move_stops_at_the_first_game_that_gives_every_bot_enough_moves(tournament: Path) -> None:
    with Store(tournament, create=False, readonly=True) as store:
        entrants = store.config()["entrants"]
        whole = store.move_times(report_html.TIMES_GAMES)
        few = store.move_times(report_html.TIMES_GAMES, enough=(entrants, 20))
        enough = [store.move_times(games) for games in range(1, store.count() + 1)]
    first = next(times for times in enough if all(len(times.get(name, ())) >= 20 for name in entrants))
    assert few == first != whole  # the newest games, up to the first that leaves no bot short, and no further
    assert all(whole[name][:len(few[name])] == few[name] for name in entrants)  # each bot's newest moves


def test_a_hostile_bot_name_stays_text_in_the_links_and_filters(context: Any, tmp_path: Path) -> None:
    name = '<i>a&"b</i> #x=1&bot=z'
    db = tmp_path / "t.db"
    done = run_referee("tournament", "run", "durak", "-b", f"[name='{name}'] random", "-b", "first", "--games", "2",
                       "--seed", "2", "--db", str(db), "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "report.html"
    with Store(db, create=False, readonly=True) as store:
        report_html.write_report(store, cli_registry(), out, replays=1)
    page = open_page(context)
    page.goto(out.as_uri())
    assert page.locator("i").count() == 0  # no element from the name
    assert name in page.locator("#f-bot option").all_inner_texts()
    page.evaluate(f"location.hash = '#games?bot=' + encodeURIComponent({json.dumps(name)})")
    assert page.locator("#f-bot").input_value() == name
    assert len(page.evaluate(SHOWN)) == 4  # every game has it
    page.select_option("#f-bot", "first")
    assert page.evaluate("location.hash") == "#games?bot=first"
    no_errors(page)
