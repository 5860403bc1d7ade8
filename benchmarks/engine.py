"""Engine speed: random-vs-random games per second and decisions per second, one process.

Runs every registered game at 2, 4 and 6 seats where the game allows them (and at its smallest seat
count, so 3-player koroli52 is measured), through the referee's own game
runner (``referee.match.play_game``) with in-process ``random`` bots, and prints a table. Alongside, it
measures the bare engine loop (legal actions + apply, no runner), so the runner's overhead shows as a ratio
measured in the same run.

    python benchmarks/engine.py               # about 2 s per configuration
    python benchmarks/engine.py --seconds 5 --game durak
"""

from __future__ import annotations

import argparse
import random
import time

from tabulate import tabulate

from referee.match import play_game
from referee.plugins import load_registry


def bare_loop(game, seats: int, seconds: float) -> tuple[int, int, float]:
    """The engine alone: new_state, legal_actions, apply with a uniform random choice."""
    rng = random.Random(1)
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(seats, games)
        while state.to_act is not None:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return games, decisions, time.perf_counter() - start


def runner_loop(game, bot_factory, seats: int, seconds: float) -> tuple[int, int, float]:
    """The referee's runner with in-process bots (observations built lazily, faults handled)."""
    bots = [bot_factory() for _ in range(seats)]
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        record = play_game(game, bots, seed=games)
        decisions += record.decisions
        games += 1
    return games, decisions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration (default 2)")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--seats", type=int, action="append", help="only these seat counts (default 2, 4, 6)")
    args = parser.parse_args()
    registry = load_registry()
    random_bot = registry.bot("random").factory
    rows = []
    for game_id, entry in sorted(registry.games.items()):
        if args.game and game_id not in args.game:
            continue
        game = entry.game
        allowed = range(game.min_seats, game.max_seats + 1)
        for seats in args.seats or sorted({2, 4, 6, game.min_seats} & set(allowed)):
            if not game.min_seats <= seats <= game.max_seats:
                continue
            g, d, t = runner_loop(game, random_bot, seats, args.seconds)
            bg, bd, bt = bare_loop(game, seats, args.seconds)
            rows.append([game_id, seats, f"{g / t:,.0f}", f"{d / t:,.0f}", f"{1e6 * t / d:.2f}", f"{d / g:.0f}",
                         f"{bg / bt:,.0f}", f"{(bg / bt) / (g / t):.2f}"])
    print(tabulate(rows, headers=["game", "seats", "games/s", "decisions/s", "µs/decision", "decisions/game",
                                  "bare engine games/s", "bare/runner"], disable_numparse=True,
                   colalign=("left", "right", "right", "right", "right", "right", "right", "right")))


if __name__ == "__main__":
    main()
