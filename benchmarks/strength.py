"""How much stronger is ``heuristic`` than ``random``? Plays fixed-seed games through the referee's runner.

For every game the heuristic plays and every seat count asked for:

- games without teams: game ``i`` (seed ``--seed + i``) seats the heuristic at seat ``i mod seats`` and
  ``random`` everywhere else, so every seat is played equally often. A bot as strong as its opponents would
  finish first with probability 1/seats and last with probability 1/seats; the script prints the
  heuristic's first-place and last-place rates with 95% Wilson intervals, and both sides' mean places.
- team games (2 vs 2): the heuristic plays both seats of team ``i mod 2``, random the other team; an equal
  team would win half the games. The script prints the heuristic team's win rate with a Wilson interval.

    python benchmarks/strength.py --games 2000                    # every game, its default seat counts
    python benchmarks/strength.py --game durak --seats 2 3 -o transfer=true
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

from tabulate import tabulate

from protocol.bot import Bot
from referee.engine import Game
from referee.match import play_game
from referee.plugins import load_registry
from tournaments.ratings import wilson


@dataclass
class Stats:
    game: str
    seats: int
    team_game: bool
    games: int = 0
    first: int = 0  # games the heuristic (team) finished first, alone or tied
    last: int = 0  # games it finished last while someone finished ahead of it
    heuristic_places: list[int] = field(default_factory=list)
    random_places: list[int] = field(default_factory=list)
    seconds: float = 0.0

    def row(self) -> list[str]:
        first_low, first_high = wilson(self.first, self.games)
        last_low, last_high = wilson(self.last, self.games)
        equal = 0.5 if self.team_game else 1 / self.seats
        mean_h = sum(self.heuristic_places) / len(self.heuristic_places)
        mean_r = sum(self.random_places) / len(self.random_places)
        return [
            self.game, str(self.seats), "team" if self.team_game else "alone", str(self.games),
            f"{self.first / self.games:.1%} [{first_low:.1%}, {first_high:.1%}]",
            f"{self.last / self.games:.1%} [{last_low:.1%}, {last_high:.1%}]", f"{equal:.1%}",
            f"{mean_h:.2f} / {mean_r:.2f}", f"{self.seconds:.1f}",
        ]


def run(game: Game, seats: int, games: int, first_seed: int, options: dict[str, str],
        heuristic: Bot, randoms: list[Bot]) -> Stats:
    teams = game.teams(seats)
    stats = Stats(game.id, seats, teams is not None)
    start = time.perf_counter()
    for i in range(games):
        mine = set(teams[i % 2]) if teams else {i % seats}
        partner = [heuristic] + [type(heuristic)() for _ in range(len(mine) - 1)]
        bots = [partner.pop() if s in mine else randoms[s] for s in range(seats)]
        places = play_game(game, bots, seed=first_seed + i, options=options).result["places"]
        best, worst = min(places), max(places)
        me = min(mine)
        stats.games += 1
        stats.first += places[me] == best
        stats.last += places[me] == worst and best != worst
        stats.heuristic_places.extend(places[s] for s in mine)
        stats.random_places.extend(places[s] for s in range(seats) if s not in mine)
    stats.seconds = time.perf_counter() - start
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per game and seat count (default 2000)")
    parser.add_argument("--game", action="append", help="only this game (repeatable; default: all it plays)")
    parser.add_argument("--seats", type=int, nargs="+", help="seat counts (default: 2, 3 and 4 where allowed)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("-o", "--option", action="append", default=[], help="a game option KEY=VALUE")
    args = parser.parse_args(argv)
    registry = load_registry()
    entry = registry.bot("heuristic")
    options = dict(pair.split("=", 1) for pair in args.option)
    rows = []
    for game_id in args.game or sorted(g for g in registry.games if entry.supports(g)):
        game = registry.game(game_id)
        allowed = range(game.min_seats, game.max_seats + 1)
        for seats in [k for k in args.seats or (2, 3, 4) if k in allowed]:
            randoms = [registry.bot("random").factory() for _ in range(seats)]
            stats = run(game, seats, args.games, args.seed, options, entry.factory(), randoms)
            rows.append(stats.row())
            print(f"{game_id} {seats} seats done", file=sys.stderr, flush=True)
    print(tabulate(rows, headers=["game", "seats", "heuristic plays", "games", "first (95% CI)",
                                  "last (95% CI)", "equal bot", "mean place h / r", "seconds"],
                   disable_numparse=True))


if __name__ == "__main__":
    main()
