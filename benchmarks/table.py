"""How long ``referee tournament table`` and ``games`` take over many stored games, and how much memory (issue 15,
part 4): the table streams its rows, so its time grows linearly and its memory stays about flat.

For each N (default 10⁴, 10⁵, 10⁶) a synthetic 2-seat durak database of N games (4 entrants, duplicate deals) is
made once and cached under /tmp/referee-table-bench/ (keyed by N: the 10⁶ one takes minutes to make), then
``referee tournament table DB --json > /dev/null`` runs in a child process: its wall time, and its peak resident
memory (``ru_maxrss`` of that child, from ``os.wait4``: the whole process, the interpreter and imports included).
At the largest N, ``referee tournament games DB --json > /dev/null`` too. Then, in this process, the µs per game
of ``LiveRatings.update`` (which the main process runs once per stored game) against openskill's
``PlackettLuce.rate`` it reproduces, at 2 and 4 seats. The database comes from
``benchmarks/storage.py``'s ``make_database`` when it is there, else from rows copied from a small real tournament
through the Store's public write API (``add_game``).

    python benchmarks/table.py                    # 10⁴, 10⁵, 10⁶
    python benchmarks/table.py --games 10000 100000 --bootstrap 100
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path("/tmp/referee-table-bench")
ENTRANTS = ["heuristic", "random", "first", "random#2"]


def make(games: int) -> Path:
    """The cached database of ``games`` games (made now if it is not there)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"durak-2x4-{games}.db"
    if path.is_file():
        return path
    started = time.perf_counter()
    partial = path.with_suffix(".making")
    partial.unlink(missing_ok=True)
    try:
        sys.path.insert(0, str(ROOT))
        from benchmarks.storage import make_database  # type: ignore[import-not-found]
    except ImportError:
        copy_templates(partial, games)
    else:
        make_database(partial, games, seats=2, entrants=4, game="durak")
    partial.rename(path)
    print(f"made {path} ({games} games) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def copy_templates(path: Path, games: int) -> None:
    """``games`` games through Store.add_game: the rows of a small real tournament, repeated deal by deal under new
    keys and seeds (each deal's two games from one real deal, so deal pairs stay pairs)."""
    from tournaments.storage import Store

    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.db"
        subprocess.run([sys.executable, "-m", "referee", "tournament", "run", "durak", *sum((["-b", b.split("#")[0]]
                        for b in ENTRANTS), []), "--seats", "2", "--games", "10", "--seed", "1", "--db", str(small)],
                       check=True, capture_output=True, cwd=ROOT)
        with Store(small, create=False, readonly=True) as store:
            config = store.config()
            assert config is not None
            deals: dict[tuple[str, str], list[tuple[object, dict]]] = {}  # the table's two games of each deal
            rows = list(store.games())
            for one, two in zip(rows[::2], rows[1::2], strict=True):
                deals.setdefault(tuple(one.seating), []).append(((one, store.record(one.key)),
                                                                 (two, store.record(two.key))))
    tables = [(a, b) for i, a in enumerate(ENTRANTS) for b in ENTRANTS[i + 1:]]
    per_table = -(-games // (2 * len(tables)))
    with Store(path, create=True) as store:
        store.save_config({**config, "games": per_table})
        seq = 0
        for t, table in enumerate(tables):
            for deal in range(per_table):
                for (row, record) in deals[table][deal % len(deals[table])]:
                    if seq >= games:
                        return
                    record = {k: v for k, v in record.items() if k != "stderr"}
                    store.add_game(seq, f"t{t}.d{deal}.r{seq % 2}", 1_000_003 * t + deal, list(row.seating),
                                   record, {})
                    seq += 1


def measure(*args: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``python -m referee ARGS > /dev/null`` in a child process."""
    started = time.perf_counter()
    with open(os.devnull, "w") as null:
        child = subprocess.Popen([sys.executable, "-m", "referee", *args], stdout=null, stderr=subprocess.PIPE,
                                 cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"referee {' '.join(args)} failed: {child.stderr.read().decode() if child.stderr else ''}")
    return wall, usage.ru_maxrss / 1024


def live_ratings(games: int = 20_000) -> list[list[str]]:
    """µs per game of LiveRatings.update and of openskill's rate() on the same random games, 2 and 4 seats."""
    import random

    from openskill.models import PlackettLuce

    from tournaments.ratings import LiveRatings

    rng = random.Random(1)
    names = [f"bot{i}" for i in range(6)]
    rows = []
    for seats in (2, 4):
        played = [(rng.sample(names, seats), [rng.randint(1, seats) for _ in range(seats)]) for _ in range(games)]
        live = LiveRatings(names)
        started = time.perf_counter()
        for seating, places in played:
            live.update(seating, places)
        ours = (time.perf_counter() - started) / games * 1e6
        model = PlackettLuce(tau=0.0)
        ratings = {n: model.rating(name=n) for n in names}
        started = time.perf_counter()
        for seating, places in played:
            new = model.rate([[ratings[n]] for n in seating], ranks=[float(p) for p in places])
            for n, (rating,) in zip(seating, new, strict=True):
                ratings[n] = rating
        theirs = (time.perf_counter() - started) / games * 1e6
        rows.append([f"{seats} seats", f"{ours:.1f}", f"{theirs:.1f}", f"{theirs / ours:.1f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000, 1_000_000], metavar="N")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="B", help="also the table with --bootstrap B")
    args = parser.parse_args()
    rows = []
    for n in args.games:
        db = make(n)
        size = db.stat().st_size / n
        wall, rss = measure("tournament", "table", str(db), "--json")
        rows.append(["table --json", n, f"{wall:.2f}", f"{n / wall:,.0f}", f"{rss:.0f}", f"{size:.0f}"])
        if args.bootstrap:
            wall, rss = measure("tournament", "table", str(db), "--json", "--bootstrap", str(args.bootstrap))
            rows.append([f"table --bootstrap {args.bootstrap}", n, f"{wall:.2f}", f"{n / wall:,.0f}", f"{rss:.0f}",
                         f"{size:.0f}"])
    n = max(args.games)
    wall, rss = measure("tournament", "games", str(make(n)), "--json")
    rows.append(["games --json", n, f"{wall:.2f}", f"{n / wall:,.0f}", f"{rss:.0f}", ""])
    base_wall, base_rss = measure("--version")
    rows.append(["referee --version (start-up)", "", f"{base_wall:.2f}", "", f"{base_rss:.0f}", ""])
    print(tabulate(rows, headers=["command", "games", "wall s", "games/s", "peak RSS MB", "bytes/game"],
                   disable_numparse=True))
    print(f"(one child process each, on {os.cpu_count()} cores; the load average was {os.getloadavg()[0]:.1f})")
    print()
    print(tabulate(live_ratings(), headers=["live ratings", "LiveRatings.update µs/game", "openskill rate() µs/game",
                                            "ratio"], disable_numparse=True))


if __name__ == "__main__":
    main()
