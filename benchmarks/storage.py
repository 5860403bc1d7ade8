"""Tournament storage (tournaments/storage.py): bytes per game, schema 1 against schema 2, and the main process's
stored games per second; plus :func:`make_database`, a synthetic N-game schema-2 database for the table's
benchmark (benchmarks/table.py imports it).

- **bytes per game**: the same real 2-seat durak games (``random`` against ``heuristic``, played once) stored in
  a schema-1 file (its row format, written as the referee before issue 15 wrote it) and in a schema-2 file; each
  file's size after ``PRAGMA wal_checkpoint(TRUNCATE)``, divided by the games;
- **stored games/s**: those games, encoded as workers encode them, fed by a fake executor through
  ``run_tournament``'s real main loop (batched commits, live ratings, a progress sink), against the same loop with
  the live ratings' update taken out, to show what it costs per game;
- **games()**: the µs per row of ``Store.games()`` over a synthetic database (``--rows``).

    python benchmarks/storage.py                       # 3,000 real games, 200,000 synthetic rows
    python benchmarks/storage.py --games 1000 --feed 50000 --rows 1000000
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from referee.plugins import load_registry
from referee.record import FORMAT, VERSION
from tournaments.config import TournamentConfig
from tournaments.schedule import Scheduled
from tournaments.storage import RecordTemplate, Store, encode_body

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
