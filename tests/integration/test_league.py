"""``referee league`` for real (docs/LEAGUE.md): the server as a process on a free port, its page in Chromium at
1280 and 390 px, a candidate added from the command line while it runs reaching a verdict, the token refused when
missing or wrong, a bot that cannot start suspended, and a SIGKILL mid-play followed by a restart leaving every
stored game once. Test-sized: durak at two seats, in-process bots, one worker."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import ROOT, run_referee
from html_browser import browser, no_errors, open_page
from league_server import LeagueServer, init_league

COUNTING = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'league' / 'counting.py'}"
SMALL = ("--max-deals", "40", "--elo0", "0", "--elo1", "150", "--suspend-after", "3")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LeagueServer, str]]:
    folder = tmp_path_factory.mktemp("league") / "lg"
    token = init_league(folder, "--bot", "random", "--bot", "first", *SMALL)
    server = LeagueServer(folder)
    try:
        yield server, token
    finally:
        server.stop()


def _stored(state: dict[str, Any]) -> int:
    return int(state["stored"])


def test_a_running_league_evaluates_suspends_and_shows_it_live(league: tuple[LeagueServer, str]) -> None:
    server, token = league
    server.wait(lambda s: _stored(s) >= 20)
    done = run_referee("league", "add", "cand", "heuristic", "--league", str(server.folder))
    assert done.returncode == 0, done.stderr
    state = server.wait(lambda s: s["evaluations"].get("cand", {}).get("verdict") in ("accepted", "rejected", "open"))
    ev = state["evaluations"]["cand"]
    assert ev["baseline"] in ("random", "first") and ev["deals"] >= 1 and ev["course"]
    shown = json.loads(run_referee("league", "show", "--json", "--league", str(server.folder)).stdout)
    row = next(b for b in shown["bots"] if b["name"] == "cand")
    assert row["role"] == "candidate" and row["evaluation"]["verdict"] == ev["verdict"]
    assert shown["server"] == server.url
    games = server.get("/api/games?bot=cand")["games"]  # it played only benchmarks, and only on its own deals
    assert games and all(g["key"].startswith("e") and set(g["bots"]) - {"cand"} <= {"random", "first"}
                         for g in games)
    time.sleep(1.5)  # decided: the deal in flight finishes, and no deal of it starts any more
    played = server.get("/api/state")["evaluations"]["cand"]["games"]
    assert played - ev["games"] <= 8
    time.sleep(1.5)
    assert server.get("/api/state")["evaluations"]["cand"]["games"] == played

    # a bot that cannot start is suspended with its reason, not retried for ever
    status, reply = server.post("/api/bots", {"name": "broken", "spec": "cmd:/nonexistent/bot",
                                              "role": "benchmark"}, token)
    assert status == 201, reply
    state = server.wait(lambda s: any(b["name"] == "broken" and b["state"] == "suspended"
                                      for b in s["roster"]["bots"]))
    bot = next(b for b in state["roster"]["bots"] if b["name"] == "broken")
    assert "3 games in a row" in bot["reason"] and "crash" in bot["reason"], bot
    played = state["bots"]["broken"]["games"]
    time.sleep(1.5)
    assert server.get("/api/state")["bots"]["broken"]["games"] == played  # not retried for ever
    page = server.get("/api/bots/broken")
    assert page["state"] == "suspended" and page["faults"].get("crash", 0) >= 3

    # a bot's page: its time per move against the limit, and the counters its notes report
    status, reply = server.post("/api/bots", {"name": "counting", "spec": COUNTING, "role": "benchmark"}, token)
    assert status == 201, reply
    server.wait(lambda s: s["bots"].get("counting", {}).get("games", 0) >= 4)
    page = server.get("/api/bots/counting")
    assert page["counters"]["depth"]["mean"] == 3 and page["counters"]["nodes"]["decisions"] >= 4, page
    assert page["time_per_move"][0]["moves"] >= 4 and page["move_limit_ms"] == 200
    assert page["time_per_move"][0]["bank"] == 0  # this league gives no time bank
    _look_at_the_page(server)


def test_changes_need_the_token(league: tuple[LeagueServer, str]) -> None:
    server, token = league
    for given in (None, "wrong"):
        status, reply = server.post("/api/bots", {"name": "sneaky", "spec": "cmd:touch /tmp/pwned"}, given)
        assert status == 401 and "token" in reply["error"], reply
        status, reply = server.post("/api/bots/first/retire", None, given)
        assert status == 401, reply
    assert "sneaky" not in {b["name"] for b in server.get("/api/state")["roster"]["bots"]}
    done = run_referee("league", "retire", "first", "--token", "wrong", "--league", str(server.folder))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "token is wrong" in done.stderr, done.stderr
    status, reply = server.post("/api/bots", {"name": "x y", "spec": "random"}, token)  # bad input: a 400, one line
    assert status == 400 and "bad bot name" in reply["error"]
    status, reply = server.post("/api/bots", {"name": "first", "spec": "random"}, token)
    assert status == 409 and "already" in reply["error"]
    status, reply = server.get_status("/api/games?result=first")  # a filter of a bot's needs the bot
    assert status == 400 and "give bot too" in reply["error"]
    second = run_referee("league", "serve", str(server.folder), "--port", "0")
    assert second.returncode == 2 and "another server plays the league" in second.stderr, second.stderr
    status, reply = server.get_status("/api/bots/nobody")
    assert status == 404 and "no bot" in reply["error"]

    # stop and start, with the token: the games in flight finish, then none is played until start
    assert server.post("/api/stop", None, "wrong")[0] == 401
    assert server.post("/api/stop", None, token)[0] == 200
    stored = _stored(server.wait(lambda s: s["state"] == "paused"))
    time.sleep(1.0)
    assert _stored(server.get("/api/state")) == stored
    assert server.post("/api/start", None, token)[0] == 200
    server.wait(lambda s: _stored(s) > stored)


def test_another_host_needs_read_only_or_a_token(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    init_league(folder, "--bot", "random")
    (folder / "token").unlink()
    done = run_referee("league", "serve", str(folder), "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2 and "--read-only" in done.stderr and "Traceback" not in done.stderr, done.stderr
    server = LeagueServer(folder, "--host", "0.0.0.0", "--read-only")  # read-only, it may listen there
    try:
        assert server.get("/api/state")["game"] == "durak"
        status, reply = server.post("/api/stop", None, "anything")
        assert status == 403 and "read-only" in reply["error"], reply
    finally:
        server.stop()
    assert "open to other machines on 0.0.0.0" in (folder / "serve.log").read_text()  # it warned
    done = run_referee("tournament", "resume", str(folder / "league.db"))
    assert done.returncode == 2 and "holds a league" in done.stderr, done.stderr
    done = run_referee("tournament", "table", str(folder / "league.db"), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["seed"] is None  # a league's seed is never shown


def _look_at_the_page(server: LeagueServer) -> None:
    """At 1280 px the leaderboard changes as games finish, a filter narrows the games, a game opens in the viewer;
    at 390 px nothing is wider than the screen and it updates too."""
    with browser() as context:
        page = open_page(context)
        page.goto(server.url)
        first = int(page.locator("#stored").inner_text())
        cell = page.locator('#board tr[data-bot="random"] td.games')
        before = cell.inner_text()
        page.wait_for_function("n => Number(document.getElementById('stored').textContent) > n", arg=first)
        page.wait_for_function("t => document.querySelector('#board tr[data-bot=\"random\"] td.games').textContent "
                               "!== t", arg=before)  # the row is drawn again, with its new count
        assert page.locator("#evaluations .evaluation[data-bot='cand'] svg.sprt polyline").count() == 1
        assert "broken is suspended" in page.locator("#suspended").inner_text()
        assert "stored since this list was made" in page.locator("#newer").inner_text()  # the list is not redrawn
        newest = page.locator("#games tbody tr").first.get_attribute("data-key")
        with page.expect_navigation():
            page.click("#newer-link")
        assert page.locator("#games tbody tr").first.get_attribute("data-key") != newest

        every = page.locator("#games tbody tr").count()
        page.select_option("select[name=bot]", "random")
        page.select_option("select[name=seat]", "0")
        page.select_option("select[name=fault]", "none")
        page.click("form.filters button")
        page.wait_for_url("**bot=random**")
        rows = page.locator("#games tbody tr td:nth-child(2)").all_inner_texts()
        assert rows and all(r.startswith("random (") for r in rows)
        keys = page.locator("#games tbody tr").evaluate_all("els => els.map(e => e.dataset.key)")
        assert len(keys) <= every
        page.locator("#games tbody a").first.click()
        page.wait_for_selector("#controls")
        assert page.url.endswith("/games/" + keys[0])
        assert page.locator("#back").inner_text() == "back to the league"
        no_errors(page)

        narrow = open_page(context)
        narrow.set_viewport_size({"width": 390, "height": 844})
        narrow.goto(server.url)
        assert narrow.evaluate("document.documentElement.scrollWidth") <= 390
        assert narrow.locator("#board tr").count() >= 3 and narrow.locator("form.filters").is_visible()
        before = int(narrow.locator("#stored").inner_text())
        narrow.wait_for_function("n => Number(document.getElementById('stored').textContent) > n", arg=before)
        no_errors(narrow)


def test_a_sigkill_mid_play_loses_no_game_and_plays_none_twice(tmp_path: Path) -> None:
    folder = tmp_path / "crash"
    init_league(folder, "--bot", "random", "--bot", "first", "--bot", "heuristic", "--max-deals", "400",
                "--elo0", "0", "--elo1", "5")
    run_referee("league", "add", "cand", "heuristic", "--league", str(folder))
    server = LeagueServer(folder)
    try:
        server.wait(lambda s: _stored(s) >= 150 and s["evaluations"].get("cand", {}).get("games", 0) > 10)
    finally:
        server.stop(kill=True)
    db = folder / "league.db"
    with sqlite3.connect(db) as con:
        before = {key: seed for key, seed in con.execute("SELECT key, seed FROM games")}
    restarted = LeagueServer(folder)
    try:
        state = restarted.wait(lambda s: s["played_now"] >= 100)
        assert not state["errors"], state["errors"]
    finally:
        restarted.stop()
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT key, seed FROM games").fetchall()
        seqs = con.execute("SELECT COUNT(DISTINCT seq) FROM games").fetchone()[0]
    after = dict(rows)
    assert len(after) == len(rows) == seqs  # every game once
    assert all(after.get(key) == seed for key, seed in before.items())  # none lost, none replaced
    assert len(after) >= len(before) + 100
    # it went on where it stopped: each deal of the evaluation and each pool round begun before the kill is whole
    def unit(key: str) -> str:
        return key.rsplit(".", 1)[0]

    units: dict[str, int] = {}
    for key in after:
        units[unit(key)] = units.get(unit(key), 0) + 1
    begun = {unit(key) for key in before}
    assert begun and all(units[u] == (4 if u.startswith("e") else 2) for u in begun), \
        {u: units[u] for u in begun if units[u] != (4 if u.startswith("e") else 2)}
    assert "Traceback" not in (folder / "serve.log").read_text()
    _verify(db, len(after))


def _verify(db: Path, games: int) -> None:
    """``tournament verify`` holds every game of a league to the game its key names by the league's rules (the deck
    seed, the seating) and to its record; a forged seed of a pool game and of an evaluation's game are named."""
    done = run_referee("tournament", "verify", str(db), "--json")
    checked = json.loads(done.stdout)
    assert done.returncode == 0 and checked["ok"] and checked["games"] == checked["scheduled"] == games, done.stdout
    with sqlite3.connect(db) as con:
        forged = [con.execute("SELECT key FROM games WHERE key LIKE ? LIMIT 1", (f"{kind}%",)).fetchone()[0]
                  for kind in ("p", "e")]
        con.executemany("UPDATE games SET seed = seed + 1 WHERE key = ?", [(key,) for key in forged])
    done = run_referee("tournament", "verify", str(db))
    assert done.returncode == 1 and f"{games} stored games of the league" in done.stdout, done.stdout
    named = {line.split(":")[0] for line in done.stdout.splitlines() if "the schedule says" in line}
    assert named == set(forged), done.stdout
