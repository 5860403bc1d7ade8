"""Screenshots of the replay viewer, the tournament report and the league's page for docs/HTML.md, docs/LEAGUE.md
and the README: plays a game and a small tournament (fixed seeds, in a temporary folder), writes their pages, runs a
small league for some seconds (``referee league serve``), and saves PNGs into docs/images/ with the headless
Chromium the browser tests use (tests/integration/html_browser.py: Debian's /usr/bin/chromium through Playwright).

    python tools/screenshots.py [--out docs/images] [--only league.png ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from html_browser import browser, no_errors, open_page  # noqa: E402

#: (file, page, address suffix, viewport width, viewport height)
SHOTS = [
    ("replay.png", "game.html", "#d={noted}", 1280, 1100),
    ("replay-phone.png", "game.html", "#d={noted}", 390, 844),
    ("replay-seat.png", "kazaki.html", "#d=9&seat=1", 1280, 820),
    ("report.png", "report.html", "", 1280, 1100),
    ("report-games.png", "report.html", "#time-per-move", 1280, 1000),
]

#: (file, address path, viewport width, viewport height) of the league's page, served while it plays
LEAGUE_SHOTS = [
    ("league.png", "/", 1280, 1000),
    ("league-phone.png", "/", 390, 844),
]


def referee(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder of the PNGs")
    parser.add_argument("--only", nargs="+", metavar="PNG", help="make only these (league.png, report.png, …)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.only or [name for name, *_ in SHOTS + LEAGUE_SHOTS])
    if wanted & {name for name, *_ in LEAGUE_SHOTS}:
        league(args.out, wanted)
    if not wanted & {name for name, *_ in SHOTS}:
        return
    with tempfile.TemporaryDirectory(prefix="referee-shots-") as folder:
        work = Path(folder)
        shutil.copy(ROOT / "bots" / "examples" / "python" / "thinker.py", work / "thinker.py")  # it leaves notes
        referee("play", "durak", "-b", "heuristic", "-b", f"cmd:{Path(sys.executable).name} thinker.py", "-b",
                "heuristic", "--seed", "7", "--move-time", "40", "--record", "game.json", cwd=work)
        referee("replay", "game.json", "--html", "game.html", cwd=work)
        said = json.loads((work / "game.json").read_text(encoding="utf-8"))["said"]
        noted = min((int(d) for d in said if int(d) >= 12), default=14)  # a decision where thinker left a note
        referee("play", "kazaki", "-b", "heuristic", "-b", "random", "--seed", "3", "--record", "kazaki.json",
                cwd=work)
        referee("replay", "kazaki.json", "--html", "kazaki.html", cwd=work)
        for name in ("illegal.py", "_zoo.py"):  # a bot that faults, copied: the page shows its SPEC as given
            shutil.copy(ROOT / "tests" / "fixtures" / "zoo" / name, work / name)
        illegal = f"[name=illegal] cmd:{Path(sys.executable).name} illegal.py"
        referee("tournament", "run", "durak", "-b", "heuristic", "-b", "random", "-b", "first", "-b", "random",
                "-b", illegal, "--sandbox", "off", "--seats", "3", "--games", "2", "--seed", "1", "--db", "t.db",
                "--workers", "2", cwd=work)
        referee("tournament", "report", "t.db", "-o", "report.html", "--replays", "6", cwd=work)
        with browser() as context:
            for name, page_file, suffix, width, height in SHOTS:
                if name not in wanted:
                    continue
                page = open_page(context)
                page.set_viewport_size({"width": width, "height": height})
                page.goto((work / page_file).as_uri() + suffix.format(noted=noted))
                page.wait_for_load_state("load")
                page.screenshot(path=str(args.out / name))
                no_errors(page)
                page.close()
                print(args.out / name)


def league(out: Path, wanted: set[str]) -> None:
    """A small league served for some seconds: three benchmarks, a candidate under evaluation, a bot that cannot
    start (suspended); its page at each LEAGUE_SHOTS width."""
    with tempfile.TemporaryDirectory(prefix="referee-league-shots-") as folder:
        work = Path(folder)
        referee("league", "init", "lg", "durak", "--seats", "2", "--bot", "random", "--bot", "first", "--bot",
                "heuristic", "--seed", "1", "--sandbox", "off", "--elo1", "60", "--max-deals", "400",
                "--suspend-after", "3", cwd=work)
        referee("league", "add", "v2", "heuristic", "--league", "lg", cwd=work)
        referee("league", "add", "broken", "cmd:./no-such-bot", "--no-check", "--league", "lg", cwd=work)
        server = subprocess.Popen([sys.executable, "-m", "referee", "league", "serve", "lg", "--port", "0",
                                   "--workers", "1"], cwd=work, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            url = _served(work / "lg" / "server.json")
            time.sleep(6)  # the pool and the candidate play; the broken bot is suspended
            with browser() as context:
                for name, path, width, height in LEAGUE_SHOTS:
                    if name not in wanted:
                        continue
                    page = open_page(context)
                    page.set_viewport_size({"width": width, "height": height})
                    page.goto(url.rstrip("/") + path)
                    page.wait_for_timeout(1500)  # a live update or two
                    page.screenshot(path=str(out / name))
                    no_errors(page)
                    page.close()
                    print(out / name)
        finally:
            os.kill(server.pid, signal.SIGINT)
            server.wait(timeout=60)


def _served(path: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            data: Any = json.loads(path.read_text())
            urllib.request.urlopen(data["url"] + "api/state", timeout=10).read()
            return str(data["url"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise SystemExit("the league server did not start")


if __name__ == "__main__":
    main()
