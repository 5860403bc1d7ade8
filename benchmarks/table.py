"""How long ``referee tournament table`` and ``games`` take over many stored games, and how much memory (issue 15,
part 4): the table streams its rows, so its time grows linearly and its memory stays about flat.

For each N (default 10⁴, 10⁵, 10⁶) a synthetic 2-seat durak database of N games (4 entrants, duplicate deals) is
made once and cached under /tmp/referee-table-bench/ (keyed by N: the 10⁶ one takes minutes to make), then
``referee tournament table DB --json > /dev/null`` runs in a child process: its wall time, its CPU time (user +
system, steadier than the wall time when other work shares the cores) and its peak resident memory (``ru_maxrss`` of
that child, from ``os.wait4``: the whole process, the interpreter and imports included).
At the largest N, ``referee tournament games DB --json > /dev/null`` and ``games DB > /dev/null`` (the aligned
default format, two passes) too. Then, in this process, the µs per game
of ``LiveRatings.update`` (which the main process runs once per stored game) against openskill's
``PlackettLuce.rate`` it reproduces, at 2 and 4 seats. The database is
``benchmarks/storage.py``'s ``make_database`` (schema 2, random places, 1 % of the games with a fault).

Issue 39: at each N, ``table --json``, ``games --faults --json`` and ``report --replays 0`` each beside the raw scan
of the columns it needs (:data:`RAW_SCANS`: a plain ``sqlite3`` loop over exactly those, in a child process),
alternately ``--repeat`` times, and the ratio of their median CPU times. ``report`` replays games (the time per
move), which the synthetic games do not allow: it runs on a database of real games repeated (:func:`make_real`,
cached beside the others), without faults.

    python benchmarks/table.py                    # 10⁴, 10⁵, 10⁶
    python benchmarks/table.py --games 10000 100000 --bootstrap 100
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path("/tmp/referee-table-bench")


def make(games: int) -> Path:
    """The cached database of ``games`` games (made now, in a child process, if it is not there: a child's
    ``ru_maxrss`` counts the memory of the process it was forked from, so this one stays small)."""
    path = CACHE / f"durak-2x4-{games}.db"
    if not path.is_file():
        subprocess.run([sys.executable, __file__, "--make", str(games)], check=True, cwd=ROOT)
    return path


def make_here(games: int) -> Path:
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"durak-2x4-{games}.db"
    started = time.perf_counter()
    partial = path.with_suffix(".making")
    partial.unlink(missing_ok=True)
    sys.path.insert(0, str(ROOT))
    from benchmarks.storage import make_database

    make_database(partial, games, seats=2, entrants=4, game="durak")
    partial.rename(path)
    print(f"made {path} ({games} games) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def make_real(games: int) -> Path:
    """The cached database of ``games`` real games, for ``report`` (which replays some: the synthetic games do not
    replay): the 480 games of a real tournament (4 random bots at 2 seats, 40 duplicate deals), repeated with new
    keys and seq (deal numbers follow on), their seeds, seatings, places and bodies as played. None has a fault."""
    path = CACHE / f"durak-2x4-real-{games}.db"
    if not path.is_file():  # made in a child process, as make() does
        subprocess.run([sys.executable, __file__, "--make-real", str(games)], check=True, cwd=ROOT)
    return path


def make_real_here(games: int) -> Path:
    from tournaments.rows import TABLES

    path = CACHE / f"durak-2x4-real-{games}.db"
    CACHE.mkdir(exist_ok=True)
    template = CACHE / "durak-2x4-real-template.db"
    if not template.is_file():
        partial = template.with_suffix(".making")
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        subprocess.run([sys.executable, "-m", "referee", "tournament", "run", "durak", *["-b", "random"] * 4,
                        "--seats", "2", "--games", "40", "--seed", "7", "--db", str(partial)], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        partial.rename(template)
    partial = path.with_suffix(".making")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(template)
    rows = source.execute("SELECT seq, key, seed, seating, places, faults, decisions, body, finished_at FROM games "
                          "ORDER BY seq").fetchall()
    config = json.loads(source.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    source.close()
    deals = config["games"]
    cycles = -(-games // len(rows))
    config["games"] = deals * cycles
    db = sqlite3.connect(partial, isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    db.executescript(TABLES)
    db.execute("INSERT INTO meta VALUES ('schema', '2')")
    db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config, sort_keys=True),))
    db.execute("BEGIN")
    for cycle in range(cycles):
        chunk = []
        for seq, key, *rest in rows[:games - cycle * len(rows)]:
            table, deal, rotation = key.split(".")
            chunk.append((cycle * len(rows) + seq, f"{table}.d{int(deal[1:]) + cycle * deals}.{rotation}", *rest))
        db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    partial.rename(path)
    return path


def measure(*args: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: steadier than the wall time on a busy machine) and peak RSS (MB)
    of ``python -m referee ARGS > /dev/null`` in a child process."""
    return child(["-m", "referee", *args], f"referee {' '.join(args)}")


#: The raw scan of the columns a command needs: a plain sqlite3 loop over exactly those, which it cannot beat
#: without leaving rows or columns unread. ``table`` (and ``report``'s table) reads, in seq order, each game's seed
#: (its deal), seating and places, and the body of a game with a fault (which seat faulted); ``games --faults``
#: every column of the games with a fault (their key, seq, seed, bots, places, decisions, and the faults from the
#: body), and reads past the others.
RAW_SCANS = {
    "table": "SELECT seed, seating, places, faults, CASE WHEN faults != 0 THEN body END FROM games ORDER BY seq",
    "games --faults": "SELECT seq, key, seed, seating, places, faults, decisions, body FROM games WHERE faults != 0 "
                      "ORDER BY seq",
}
RAW = "import sqlite3, sys\nfor row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):\n    pass\n"


def raw_scan(db: Path, what: str) -> tuple[float, float, float]:
    """:func:`measure` of the raw scan of the columns ``what`` needs (:data:`RAW_SCANS`), in a child process."""
    return child(["-c", RAW, str(db), RAW_SCANS[what]], f"the raw scan for {what}")


def child(argv: list[str], what: str) -> tuple[float, float, float]:
    started = time.perf_counter()
    with open(os.devnull, "w") as null:
        process = subprocess.Popen([sys.executable, *argv], stdout=null, stderr=subprocess.PIPE, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{what} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def compared(scan_of: str, what: str, games: int, db: Path, *args: str, repeat: int = 1) -> list[list[str]]:
    """The command and the raw scan of the columns it needs (``RAW_SCANS[scan_of]``), one after the other,
    ``repeat`` times (each figure the median), and the ratio of their median CPU times."""
    scans, commands = [], []
    for _ in range(repeat):
        scans.append(raw_scan(db, scan_of))
        commands.append(measure(*args))
    scan, command = (tuple(statistics.median(m[k] for m in runs) for k in range(3)) for runs in (scans, commands))
    return [[*row(what, games, *command)[:-1], f"{scan[1]:.2f}", f"{command[1] / scan[1]:.2f}"],
            [*row(f"  raw scan for {scan_of}", games, *scan)[:-1], "", ""]]


def row(what: str, games: int | str, wall: float, cpu: float, rss: float, size: str = "") -> list[str]:
    rate = f"{games / cpu:,.0f}" if isinstance(games, int) else ""
    return [what, str(games), f"{wall:.2f}", f"{cpu:.2f}", rate, f"{rss:.0f}", size]


def live_ratings(games: int = 20_000) -> list[list[str]]:
    """CPU µs per game of LiveRatings.update and of openskill's rate() on the same random games, 2 and 4 seats."""
    import random

    from openskill.models import PlackettLuce

    from tournaments.ratings import LiveRatings

    rng = random.Random(1)
    names = [f"bot{i}" for i in range(6)]
    rows = []
    for seats in (2, 4):
        played = [(rng.sample(names, seats), [rng.randint(1, seats) for _ in range(seats)]) for _ in range(games)]
        live = LiveRatings(names)
        started = time.process_time()
        for seating, places in played:
            live.update(seating, places)
        ours = (time.process_time() - started) / games * 1e6
        model = PlackettLuce(tau=0.0)
        ratings = {n: model.rating(name=n) for n in names}
        started = time.process_time()
        for seating, places in played:
            new = model.rate([[ratings[n]] for n in seating], ranks=[float(p) for p in places])
            for n, (rating,) in zip(seating, new, strict=True):
                ratings[n] = rating
        theirs = (time.process_time() - started) / games * 1e6
        rows.append([f"{seats} seats", f"{ours:.1f}", f"{theirs:.1f}", f"{theirs / ours:.1f}"])
    return rows


def own_rss() -> float:
    """This process's peak RSS (MB): a child's ``ru_maxrss`` is at least this (it starts as a fork of it)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000, 1_000_000], metavar="N")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="B", help="also the table with --bootstrap B")
    parser.add_argument("--repeat", type=int, default=3, metavar="R",
                        help="measure each command and its raw scan R times, alternately (the medians)")
    parser.add_argument("--make", type=int, metavar="N", help=argparse.SUPPRESS)  # make() runs this in a child
    parser.add_argument("--make-real", type=int, metavar="N", help=argparse.SUPPRESS)  # make_real() too
    args = parser.parse_args()
    if args.make:
        make_here(args.make)
        return
    if args.make_real:
        make_real_here(args.make_real)
        return
    rows, ratios = [], []
    for n in args.games:
        db = make(n)
        size = f"{db.stat().st_size / n:.0f}"
        rows.append(row("table --json", n, *measure("tournament", "table", str(db), "--json"), size))
        if args.bootstrap:
            rows.append(row(f"table --bootstrap {args.bootstrap}", n,
                            *measure("tournament", "table", str(db), "--json", "--bootstrap", str(args.bootstrap))))
        ratios += compared("table", "table --json", n, db, "tournament", "table", str(db), "--json",
                           repeat=args.repeat)
        ratios += compared("games --faults", "games --faults --json", n, db, "tournament", "games", str(db),
                           "--faults", "--json", repeat=args.repeat)
        real = make_real(n)
        with tempfile.TemporaryDirectory() as out:
            ratios += compared("table", "report --replays 0 (real games)", n, real, "tournament", "report", str(real),
                               "--replays", "0", "-o", f"{out}/report.html", repeat=args.repeat)
    n = max(args.games)
    rows.append(row("games --json", n, *measure("tournament", "games", str(make(n)), "--json")))
    rows.append(row("games (simple)", n, *measure("tournament", "games", str(make(n)))))
    rows.append(row("referee --version (start-up)", "", *measure("--version")))
    rows.append(["(this process, which starts them)", "", "", "", "", f"{own_rss():.0f}", ""])
    print(tabulate(rows, headers=["command", "games", "wall s", "CPU s", "games/CPU s", "peak RSS MB", "bytes/game"],
                   disable_numparse=True))
    print(f"(one child process each, on {os.cpu_count()} cores; the load average was {os.getloadavg()[0]:.1f})")
    print()
    print("Each command beside the raw scan of the columns it needs (a plain sqlite3 loop over exactly those, "
          f"RAW_SCANS),\nmeasured one after the other in this run, {args.repeat} times (the medians); ratio: the "
          "command's CPU time over the scan's.")
    print(tabulate(ratios, headers=["command", "games", "wall s", "CPU s", "games/CPU s", "peak RSS MB",
                                    "raw scan CPU s", "ratio"], disable_numparse=True))
    print(f"(the load average was {os.getloadavg()[0]:.1f})")
    print()
    print(tabulate(live_ratings(), headers=["live ratings", "LiveRatings.update CPU µs/game",
                                            "openskill rate() CPU µs/game", "ratio"], disable_numparse=True))


if __name__ == "__main__":
    main()
