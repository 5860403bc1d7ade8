"""Engine speed: random-vs-random games per second, decisions per second and search playouts per second.

Runs every registered game at 2, 4 and 6 seats where the game allows them (and at its smallest seat count, so
3-player koroli52 is measured) and prints a table of four loops, each measured in the same run:

- ``runner``: the referee's own game runner (``referee.match.play_game``) with in-process ``random`` bots;
- ``timed``: the same runner, each bot under the clock of program bots (``referee.clock.Clocked``), as ``referee
  play`` and the tournaments run an in-process bot;
- ``bare``: the engine alone (new_state, legal_actions, apply with a uniform random choice), so the runner's
  overhead shows as the ratio bare/runner;
- ``playout``: what a tree search does (issue 17): ``clone()`` a mid-game position, then legal_actions/apply with
  random choices to the end. Positions are taken a third of the way into random games (eight seeds, cycled).

With ``--baseline PATH`` (another checkout of the project, for example a git worktree of an older commit) the same
loops also run on that checkout's engine, in a second process, interleaved with this one's round by round (so a
busy machine slows both alike), and the table shows both figures and their ratio::

    python benchmarks/engine.py                      # about 2 s per loop and configuration
    python benchmarks/engine.py --seconds 5 --game durak --seats 2
    git worktree add /tmp/base <old-commit>
    python benchmarks/engine.py --game durak --seats 2 --baseline /tmp/base
    python benchmarks/engine.py --baseline /tmp/base --clock cpu   # on a busy machine: each side's CPU time
    git worktree remove /tmp/base

Each side runs in its own process (``--worker``: JSON requests on stdin, one JSON answer per line), importing the
engine of its checkout; the loops themselves are this file's, so both sides run the same benchmark code.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tabulate import tabulate

LOOPS = ("runner", "timed", "bare", "playout")
Clock = Callable[[], float]
#: How a loop is timed: wall time, or the process's own CPU time (on a shared, busy machine the fairer of the two:
#: another process's load hardly changes it).
CLOCKS: dict[str, Clock] = {"wall": time.perf_counter, "cpu": time.process_time}
HERE = Path(__file__).resolve()


# ------------------------------------------------------------------------------ the loops (worker side)


def bare_loop(game: Any, seats: int, seconds: float, clock: Clock = time.perf_counter) -> tuple[int, int, float]:
    """The engine alone: new_state, legal_actions, apply with a uniform random choice."""
    rng = random.Random(1)
    games = decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = game.new_state(seats, games)
        while state.to_act is not None:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
        games += 1
    return games, decisions, clock() - start


def runner_loop(game: Any, seats: int, seconds: float, clock: Clock = time.perf_counter, *,
                timed: bool = False) -> tuple[int, int, float]:
    """The referee's runner with in-process random bots (observations built lazily, faults handled); ``timed``:
    each bot under the clock of program bots (:class:`referee.clock.Clocked`, 1 s a move), as ``referee play`` and
    the tournaments run an in-process bot."""
    from referee.clock import Clocked, TimeControl
    from referee.match import play_game
    from referee.plugins import load_registry

    factory = load_registry().bot("random").factory
    bots = [Clocked(factory(), time=TimeControl.from_ms(1000)) if timed else factory() for _ in range(seats)]
    games = decisions = 0
    start = clock()
    while clock() - start < seconds:
        record = play_game(game, bots, seed=games)
        decisions += len(record.actions)
        games += 1
    return games, decisions, clock() - start


def search_positions(game: Any, seats: int, count: int = 8) -> list[Any]:
    """Mid-game positions: a third of the way into ``count`` random games (the moves of a search's root)."""
    positions = []
    for seed in range(count):
        rng = random.Random(seed)
        state = game.new_state(seats, seed)
        length = 0
        while state.to_act is not None:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
            length += 1
        rng = random.Random(seed)
        state = game.new_state(seats, seed)
        for _ in range(length // 3):
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
        positions.append(state)
    return positions


def playout_loop(game: Any, seats: int, seconds: float, clock: Clock = time.perf_counter) -> tuple[int, int, float]:
    """A search's inner loop: clone a position, then random legal_actions/apply to the end of the game."""
    positions = search_positions(game, seats)
    rng = random.Random(1)
    playouts = decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = positions[playouts % len(positions)].clone()
        while state.to_act is not None:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
        playouts += 1
    return playouts, decisions, clock() - start


def worker() -> None:
    """Answer requests ``{"game", "seats", "loop", "seconds", "clock"}`` on stdin with ``{"count", "decisions",
    "time"}``."""
    from referee.plugins import load_registry

    registry = load_registry()
    loops: dict[str, Callable[..., tuple[int, int, float]]] = {
        "runner": runner_loop, "timed": partial(runner_loop, timed=True), "bare": bare_loop, "playout": playout_loop}
    for line in sys.stdin:
        request = json.loads(line)
        game = registry.games[request["game"]].game
        count, decisions, took = loops[request["loop"]](game, request["seats"], request["seconds"],
                                                        CLOCKS[request["clock"]])
        print(json.dumps({"count": count, "decisions": decisions, "time": took}), flush=True)


# ----------------------------------------------------------------------------- the driver (table side)


class Worker:
    """A worker process importing the engine of the checkout at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        env = dict(os.environ, PYTHONPATH=str(root))
        self.process = subprocess.Popen([sys.executable, str(HERE), "--worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env, cwd=root)

    def run(self, game: str, seats: int, loop: str, seconds: float, clock: str) -> dict[str, float]:
        assert self.process.stdin and self.process.stdout
        request = {"game": game, "seats": seats, "loop": loop, "seconds": seconds, "clock": clock}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit(f"the benchmark worker of {self.root} stopped")
        result: dict[str, float] = json.loads(answer)
        return result

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait()


def measure(workers: list[Worker], game: str, seats: int, loop: str, seconds: float, rounds: int,
            clock: str) -> list[dict[str, float]]:
    """Each worker's totals over ``rounds`` interleaved rounds of ``seconds / rounds`` each."""
    totals = [{"count": 0.0, "decisions": 0.0, "time": 0.0} for _ in workers]
    for _ in range(rounds):
        for total, w in zip(totals, workers, strict=True):
            for key, value in w.run(game, seats, loop, seconds / rounds, clock).items():
                total[key] += value
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per loop and configuration (default 2)")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--seats", type=int, action="append", help="only these seat counts (default 2, 4, 6)")
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="also run the engine of the checkout at PATH, interleaved, and show the ratios")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per figure (default 3)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="time the loops by wall time (default) or by each process's own CPU time (fairer on "
                             "a busy machine)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    if args.baseline is not None and not (args.baseline / "referee" / "engine.py").is_file():
        print(f"error: {args.baseline} is not a checkout of the project (no referee/engine.py)", file=sys.stderr)
        raise SystemExit(2)
    from referee.plugins import load_registry

    registry = load_registry()
    workers = [Worker(HERE.parents[1])]
    if args.baseline is not None:
        workers.insert(0, Worker(args.baseline.resolve()))
    rows = []
    try:
        for game_id, entry in sorted(registry.games.items()):
            if args.game and game_id not in args.game:
                continue
            game = entry.game
            allowed = set(range(game.min_seats, game.max_seats + 1))
            for seats in args.seats or sorted({2, 4, 6, game.min_seats} & allowed):
                if seats not in allowed:
                    continue
                figures = {loop: measure(workers, game_id, seats, loop, args.seconds, args.rounds, args.clock)
                           for loop in LOOPS}
                rows.append(_row(game_id, seats, figures))
    finally:
        for w in workers:
            w.close()
    if args.baseline is None:
        headers = ["game", "seats", "games/s", "µs/decision", "decisions/game", "timed games/s",
                   "bare engine games/s", "bare/runner", "playouts/s"]
    else:
        headers = ["game", "seats", "games/s base → now", "ratio", "µs/decision now", "timed base → now", "ratio",
                   "bare games/s base → now", "ratio", "bare/runner now", "playouts/s base → now", "ratio"]
    print(tabulate(rows, headers=headers, disable_numparse=True, colalign=("left",) + ("right",) * (len(headers) - 1)))


def _row(game_id: str, seats: int, figures: dict[str, list[dict[str, float]]]) -> list[str]:
    """One table row: the current checkout's figures, and with a baseline both sides' and their ratio."""
    def rate(f: dict[str, float]) -> float:
        return f["count"] / f["time"]

    now = {loop: figures[loop][-1] for loop in LOOPS}
    per_decision = f"{1e6 * now['runner']['time'] / now['runner']['decisions']:.2f}"
    bare_runner = f"{rate(now['bare']) / rate(now['runner']):.2f}"
    if len(figures["runner"]) == 1:
        decisions = f"{now['runner']['decisions'] / now['runner']['count']:.0f}"
        return [game_id, str(seats), f"{rate(now['runner']):,.0f}", per_decision, decisions,
                f"{rate(now['timed']):,.0f}", f"{rate(now['bare']):,.0f}", bare_runner, f"{rate(now['playout']):,.0f}"]
    cells = []
    for loop in LOOPS:
        base, new = rate(figures[loop][0]), rate(figures[loop][1])
        cells.append((f"{base:,.0f} → {new:,.0f}", f"{new / base:.2f}"))
    return [game_id, str(seats), *cells[0], per_decision, *cells[1], *cells[2], bare_runner, *cells[3]]


if __name__ == "__main__":
    main()
