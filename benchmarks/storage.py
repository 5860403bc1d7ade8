"""Tournament storage (tournaments/storage.py): bytes per game, schema 1 against schema 2, and the main process's
stored games per second; plus :func:`make_database`, a synthetic N-game schema-2 database for the table's
benchmark (benchmarks/table.py imports it).

- **bytes per game**: the same real 2-seat durak games (``random`` against ``heuristic``, played once) stored in
  a schema-1 file (its row format, written as the referee before issue 15 wrote it) and in a schema-2 file; each
  file's size after ``PRAGMA wal_checkpoint(TRUNCATE)``, divided by the games;
- **stored games/s**: those games, encoded as workers encode them, fed by a fake executor through
  ``run_tournament``'s real main loop (batched commits, live ratings, a progress sink), against the same loop with
  the live ratings' update taken out, to show what it costs per game;
- **migration**: the CPU time to migrate that schema-1 file in place;
- **games()**: the µs per row of ``Store.games()`` over a synthetic database (``--rows``).

    python benchmarks/storage.py                       # 3,000 real games, 200,000 synthetic rows
    python benchmarks/storage.py --games 1000 --feed 50000 --rows 1000000
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import random
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import tournaments.worker as worker_module
from referee.match import GameRecord
from referee.plugins import load_registry
from referee.record import FORMAT, VERSION, record_to_dict
from tournaments.cli.common import _Reporter
from tournaments.config import TournamentConfig
from tournaments.ratings import LiveRatings
from tournaments.run import run_tournament
from tournaments.schedule import Scheduled
from tournaments.storage import FinishedGame, RecordTemplate, Store, encode_body
from tournaments.worker import GameWorker

__all__ = ["make_database"]


def make_database(path: str | Path, games: int, seats: int = 2, entrants: int = 4, game: str = "durak",
                  *, faulted: float = 0.01, seed: int = 1) -> Path:
    """A schema-2 tournament database of ``games`` synthetic games at ``path`` (replaced if it exists): a round
    robin of ``entrants`` bots (``bot1`` …, each ``random``) at tables of ``seats``, its first ``games`` scheduled
    games stored with random but valid places (a permutation of 1..seats), about ``faulted`` of them with one
    timeout fault; bodies of realistic size (60 choices) that do not replay (``record`` and ``verify`` are not for
    these files). Inserted with executemany in big transactions: about a second per 200,000 games here."""
    target = Path(path)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    engine = load_registry().game(game)
    names = [f"bot{i + 1}" for i in range(entrants)]
    probe = TournamentConfig(game=game, options=engine.configure({}), entrants=names, specs=["random"] * entrants,
                             seats=seats, games=1, duplicate=True, seed=seed)
    per_deal = probe.scheduled(engine.teams(seats))
    deals = max(1, -(-games // per_deal))
    config = TournamentConfig(game=game, options=engine.configure({}), entrants=names, specs=["random"] * entrants,
                              seats=seats, games=deals, duplicate=True, seed=seed)
    template = RecordTemplate.of(config.to_dict(), engine)
    rng = random.Random(seed)
    with Store(target, create=True) as store:
        store.save_config(config.to_dict())
    db = sqlite3.connect(target, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        bodies = [[_body(rng, seats, faults, template) for _ in range(64)] for faults in (0, 1)]
        placings = [json.dumps(p) for p in _permutations(seats)]

        def rows(jobs: Iterable[Scheduled]) -> Iterator[tuple[Any, ...]]:
            for job in jobs:
                faults = 1 if rng.random() < faulted else 0
                yield (job.seq, job.key, str(job.seed), json.dumps([names[e] for e in job.seating]),
                       rng.choice(placings), faults, 60, rng.choice(bodies[faults]))

        jobs = _first(config.jobs(engine.teams(seats)), games)
        while True:
            chunk = list(rows(_first(jobs, 200_000)))
            if not chunk:
                break
            db.execute("BEGIN")
            db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, julianday('now'))", chunk)
            db.execute("COMMIT")
        db.execute("PRAGMA journal_mode=WAL")
    finally:
        db.close()
    return target


def _first(items: Iterable[Scheduled], n: int) -> Iterator[Scheduled]:
    iterator = iter(items)
    for _ in range(n):
        try:
            yield next(iterator)
        except StopIteration:
            return


def _permutations(seats: int) -> list[list[int]]:
    from itertools import permutations

    return [list(p) for p in permutations(range(1, seats + 1))]


def _body(rng: random.Random, seats: int, faults: int, template: RecordTemplate) -> bytes:
    """A body of the size a real 60-decision game's has, with ``faults`` timeout faults (it does not replay)."""
    places = list(range(1, seats + 1))
    fault = [{"seat": 0, "kind": "timeout", "decision": 3, "message": "no answer in 1000 ms"}] * faults
    record = {"format": FORMAT, "version": VERSION, "game": template.game, "seats": seats, "seed": 0, "dealer": 0,
              "options": template.options, "policy": template.policy, "bots": [f"bot{i + 1}" for i in range(seats)],
              "actions": ["x"] * 60, "faults": fault,
              "result": {"game": template.game, "n": seats, "places": places, "rule_places": places,
                         "finishing_order": [[s] for s in range(seats)],
                         "rule_finishing_order": [[s] for s in range(seats)], "scores": [1] + [0] * (seats - 1),
                         "faults": fault, "aborted": False, "loser": seats - 1, "draw": False},
              "stderr": {}}
    choices = [min(int(rng.expovariate(0.6)), 30) for _ in range(60)]
    return encode_body(0, record, choices, template)


# ------------------------------------------------------------------------------------------- the benchmark

_SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, seed TEXT NOT NULL, seating TEXT NOT NULL,
    places TEXT NOT NULL, result TEXT NOT NULL, faults TEXT NOT NULL, decisions INTEGER NOT NULL,
    record TEXT NOT NULL, stderr TEXT NOT NULL, finished_at REAL NOT NULL);
"""


def real_games(count: int) -> tuple[TournamentConfig, list[FinishedGame], list[tuple[Any, ...]]]:
    """``count`` 2-seat durak games of random against heuristic (a round robin's first ones), each as the worker
    encodes it for schema 2 and as the referee before schema 2 wrote its row."""
    engine = load_registry().game("durak")
    config = TournamentConfig(game="durak", options=engine.configure({}), entrants=["random", "heuristic"],
                              specs=["random", "heuristic"], seats=2, games=-(-count // 2), duplicate=True, seed=1)
    worker = GameWorker(config)
    played: list[GameRecord] = []
    real_play = worker_module.play_game

    def keep(*args: Any, **kwargs: Any) -> GameRecord:
        played.append(real_play(*args, **kwargs))
        return played[-1]

    worker_module.play_game = keep  # type: ignore[assignment]
    finished, old_rows = [], []
    try:
        for job in _first(config.jobs(None), count):
            game = worker.play(job)
            record = played.pop()
            data = record_to_dict(record)
            data.pop("stderr")
            result = record.result.to_dict()
            finished.append(game)
            old_rows.append((job.seq, job.key, str(job.seed), json.dumps(list(game.seating)),
                             json.dumps(list(game.places)), json.dumps(result), json.dumps(result["faults"]),
                             game.decisions, json.dumps(data), json.dumps({})))
    finally:
        worker_module.play_game = real_play  # type: ignore[assignment]
        worker.close()
    return config, finished, old_rows


def file_bytes(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return path.stat().st_size


def bytes_per_game(directory: Path, config: TournamentConfig, finished: list[FinishedGame],
                   old_rows: list[tuple[Any, ...]]) -> tuple[float, float]:
    one, two = directory / "schema1.db", directory / "schema2.db"
    db = sqlite3.connect(one, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(_SCHEMA_1)
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config.to_dict(), sort_keys=True),))
    for row in old_rows:  # one transaction per game, as schema 1 was written
        db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, julianday('now'))", row)
    db.close()
    with Store(two, create=True) as store:
        store.save_config(config.to_dict())
        with store.batch() as batch:
            for game in finished:
                batch.add(game)
    return file_bytes(one) / len(old_rows), file_bytes(two) / len(finished)


def migration_seconds(directory: Path) -> float:
    """CPU seconds to migrate the schema-1 file :func:`bytes_per_game` wrote (its backup included)."""
    path = directory / "schema1.db"
    cpu = time.process_time()
    with Store(path, create=False) as store:
        store.lock()
        assert store.schema == 2
    return time.process_time() - cpu


class FeedExecutor:
    """An executor that plays nothing: each job comes back at once as a pre-encoded finished game."""

    def __init__(self, games: dict[str, FinishedGame]) -> None:
        self.games = games

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        for job in jobs:
            yield self.games[job.key]

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        pass


def feed(directory: Path, finished: list[FinishedGame], count: int, *, rate: bool) -> tuple[float, float]:
    """Stored games per second of ``run_tournament`` fed ``count`` games (4 entrants, 2 seats) by
    :class:`FeedExecutor`, with a progress sink (the command's own); ``rate``: with the live ratings' update.
    Per wall-clock second and per CPU second of this process (the machine is shared: the CPU figure is the
    steadier one)."""
    engine = load_registry().game("durak")
    names = ["random", "heuristic", "random#2", "heuristic#2"]
    probe = TournamentConfig(game="durak", options=engine.configure({}), entrants=names,
                             specs=["random", "heuristic", "random", "heuristic"], seats=2, games=1, duplicate=True,
                             seed=2)
    config = dataclasses.replace(probe, games=-(-count // probe.scheduled(None)))
    games = {}
    for i, job in enumerate(config.jobs(None)):
        seating = tuple(names[e] for e in job.seating)
        games[job.key] = finished[i % len(finished)]._replace(seq=job.seq, key=job.key, seed=job.seed,
                                                              seating=seating, seating_json=json.dumps(list(seating)))
    path = directory / f"feed-{rate}.db"
    real_update = LiveRatings.update
    if not rate:
        LiveRatings.update = lambda self, seating, places, teams=None: None  # type: ignore[method-assign]
    try:
        with Store(path, create=True) as store:
            start, cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stderr(io.StringIO()), _Reporter("games") as sink:
                played = run_tournament(store, config, engine, lambda c: FeedExecutor(games), sink)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        LiveRatings.update = real_update  # type: ignore[method-assign]
    assert played == len(games)
    return played / seconds, played / cpu


def update_cost(finished: list[FinishedGame], count: int = 20_000) -> float:
    """CPU µs per LiveRatings.update on 2-seat games."""
    live = LiveRatings(["random", "heuristic"])
    start = time.process_time()
    for i in range(count):
        game = finished[i % len(finished)]
        live.update(game.seating, game.places)
    return (time.process_time() - start) / count * 1e6


def read_rows(directory: Path, rows: int) -> tuple[float, float, float, float]:
    """(seconds to make the database, µs per row of Store.games() by the wall clock and by CPU time, CPU seconds
    of Store.tally())."""
    start = time.perf_counter()
    path = make_database(directory / "synthetic.db", rows)
    made = time.perf_counter() - start
    with Store(path, create=False, readonly=True) as store:
        start, cpu = time.perf_counter(), time.process_time()
        n = sum(1 for _ in store.games())
        per_row, per_row_cpu = ((time.perf_counter() - start) / n * 1e6, (time.process_time() - cpu) / n * 1e6)
        cpu = time.process_time()
        list(store.tally())
        tally = time.process_time() - cpu
    return made, per_row, per_row_cpu, tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="real durak games played (default 3000)")
    parser.add_argument("--feed", type=int, default=100_000, help="games fed through run_tournament")
    parser.add_argument("--rows", type=int, default=200_000, help="rows of the synthetic database read")
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        start = time.perf_counter()
        config, finished, old_rows = real_games(args.games)
        print(f"played {len(finished)} durak games (random vs heuristic) in {time.perf_counter() - start:.1f} s")
        one, two = bytes_per_game(directory, config, finished, old_rows)
        print(f"bytes per game: schema 1 {one:,.0f}, schema 2 {two:,.1f} ({one / two:.1f}x smaller); "
              f"schema-2 body {sum(len(g.body) for g in finished) / len(finished):.1f} bytes on average")
        migrated = migration_seconds(directory)
        print(f"migrating that schema-1 file to schema 2: {migrated:.1f} CPU s ({migrated / len(finished) * 1e3:.2f} "
              "ms per game)")
        (wall, cpu), (bare_wall, bare_cpu) = (feed(directory, finished, args.feed, rate=rate) for rate in (True, False))
        print(f"stored games/s through run_tournament ({args.feed:,} fed), per wall-clock / CPU second: "
              f"{wall:,.0f} / {cpu:,.0f} with the live ratings, {bare_wall:,.0f} / {bare_cpu:,.0f} without their "
              f"update; LiveRatings.update {update_cost(finished):.1f} CPU µs per game")
        made, per_row, per_row_cpu, tally = read_rows(directory, args.rows)
        print(f"synthetic database of {args.rows:,} games made in {made:.1f} s; Store.games() {per_row:.2f} µs "
              f"per row ({per_row_cpu:.2f} CPU µs); Store.tally() {tally:.2f} CPU s")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
