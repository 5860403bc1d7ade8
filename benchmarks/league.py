"""Games per second of a league (``referee league serve``) against ``referee tournament run``, same machine, same run.

Both are started as the command line starts them (durak, 2 seats, the in-process ``random``, ``first`` and
``heuristic``, ``--workers W``, no sandbox), and measured alike: the rows of the database counted at the start and
the end of a window of ``--seconds``, once the first game is stored (so start-up counts for neither). The league
serves its page meanwhile, watched by one client as a browser watches it (``/events``, and ``/api/state`` at each
event); ``--candidate`` adds a candidate under evaluation (its SPRT tally then runs at every game of it). The two
alternate ``--repeat`` times; the medians and their ratio are printed (the goal: at least 0.9), and the ratio of
each pair (run one after the other, so a busy machine slows both alike) with their median.

    python benchmarks/league.py                  # about 2 min on 2 cores
    python benchmarks/league.py --quick          # a smoke run of about 20 s
    python benchmarks/league.py --workers 1 --seconds 20 --repeat 5 --candidate
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["random", "first", "heuristic"]


def referee(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)  # type: ignore[call-overload]


def count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as con:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def window(proc: subprocess.Popen[bytes], db: Path, seconds: float) -> float:
    """Games per second stored during ``seconds``, once the first game is."""
    deadline = time.monotonic() + 120
    while count(db) == 0:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"no game was stored: {proc.stderr.read().decode() if proc.stderr else ''}")
        time.sleep(0.05)
    time.sleep(1.0)  # the workers are up
    start, t0 = count(db), time.monotonic()
    time.sleep(seconds)
    end, t1 = count(db), time.monotonic()
    return (end - start) / (t1 - t0)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def tournament(folder: Path, workers: int, seconds: float) -> float:
    db = folder / "t.db"
    args = ["tournament", "run", "durak", *[a for b in BOTS for a in ("--bot", b)], "--seats", "2", "--games",
            "1000000", "--workers", str(workers), "--sandbox", "off", "--seed", "1", "--db", str(db)]
    proc = referee(*args)
    try:
        return window(proc, db, seconds)
    finally:
        stop(proc)


def watch(url: str, done: threading.Event) -> None:
    """One browser's load: the event stream, and the state fetched at each event."""
    try:
        with urllib.request.urlopen(url + "events", timeout=30) as stream:
            for line in stream:
                if done.is_set():
                    return
                if line.startswith(b"event: changed"):
                    urllib.request.urlopen(url + "api/state", timeout=30).read()
    except OSError:
        return


def league(folder: Path, workers: int, seconds: float, candidate: bool, watched: bool = True) -> float:
    lg = folder / "lg"
    init = subprocess.run([sys.executable, "-m", "referee", "league", "init", str(lg), "durak", "--seats", "2",
                           *[a for b in BOTS for a in ("--bot", b)], "--sandbox", "off", "--seed", "1",
                           "--max-deals", "1000000", "--elo1", "1"], cwd=ROOT, capture_output=True, text=True)
    if init.returncode:
        raise SystemExit(init.stderr)
    if candidate:
        subprocess.run([sys.executable, "-m", "referee", "league", "add", "cand", "heuristic", "--league", str(lg)],
                       cwd=ROOT, check=True, capture_output=True)
    proc = referee("league", "serve", str(lg), "--port", "0", "--workers", str(workers))
    done = threading.Event()
    try:
        deadline = time.monotonic() + 60
        while not (lg / "server.json").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the league did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.05)
        url = json.loads((lg / "server.json").read_text())["url"]
        if watched:
            threading.Thread(target=watch, args=(url, done), daemon=True).start()
        return window(proc, lg / "league.db", seconds)
    finally:
        done.set()
        stop(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--candidate", action="store_true", help="a candidate under evaluation in the league")
    parser.add_argument("--unwatched", action="store_true", help="no client watches the league's page")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 repeat of 5 s")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.repeat = 5.0, 1
    runs: dict[str, list[float]] = {"tournament run": [], "league serve": []}
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="league-bench-") as tmp:
            runs["tournament run"].append(tournament(Path(tmp), args.workers, args.seconds))
            runs["league serve"].append(league(Path(tmp), args.workers, args.seconds, args.candidate,
                                                     not args.unwatched))
        print(f"repeat {i + 1}: tournament {runs['tournament run'][-1]:.1f} games/s, league "
              f"{runs['league serve'][-1]:.1f} games/s", flush=True)
    t, lg = statistics.median(runs["tournament run"]), statistics.median(runs["league serve"])
    print(f"durak, 2 seats, {', '.join(BOTS)}; {args.workers} workers; {args.repeat} × {args.seconds:g} s each"
          + ("; a candidate under evaluation" if args.candidate else "")
          + ("; nobody watches the page" if args.unwatched else "; one client watches the page"))
    pairs = [b / a for a, b in zip(runs["tournament run"], runs["league serve"], strict=True)]
    print(f"tournament run: {t:.1f} games/s (median); league serve: {lg:.1f} games/s; ratio {lg / t:.2f} "
          f"(goal ≥ 0.9); the pairs' ratios {', '.join(f'{r:.2f}' for r in pairs)}, median "
          f"{statistics.median(pairs):.2f}")


if __name__ == "__main__":
    main()
