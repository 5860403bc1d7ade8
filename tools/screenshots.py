"""Screenshots of the replay viewer and the tournament report for docs/HTML.md and the README: plays a game and a
small tournament (fixed seeds, in a temporary folder), writes their pages, and saves PNGs into docs/images/ with
the headless Chromium the browser tests use (tests/integration/html_browser.py: Debian's /usr/bin/chromium through
Playwright).

    python tools/screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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


def referee(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder of the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
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
                page = open_page(context)
                page.set_viewport_size({"width": width, "height": height})
                page.goto((work / page_file).as_uri() + suffix.format(noted=noted))
                page.wait_for_load_state("load")
                page.screenshot(path=str(args.out / name))
                no_errors(page)
                page.close()
                print(args.out / name)


if __name__ == "__main__":
    main()
