"""How much stronger is ``heuristic`` than ``random``? Plays fixed-seed games and prints loss rates.

For every game and seat count, game ``i`` (seed ``--seed + i``) seats the heuristic at seat ``i mod seats``
and ``random`` everywhere else, so every seat is played equally often. A bot as strong as its opponents
would be the loser of a decided game with probability 1/seats; the script prints the heuristic's loss rate
among decided games with a 95% Wilson interval, and the mean places of both sides.

    python benchmarks/strength.py --games 2000                 # durak and kazaki, 2 and 4 seats
    python benchmarks/strength.py --game durak --seats 3 --transfer

The games are driven directly through the engine API (a later change may use the referee's runner).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.heuristic import HeuristicBot  # noqa: E402
from bots.random import RandomBot  # noqa: E402
from protocol.bot import Bot, Decision, GameInfo  # noqa: E402
from referee.engine import Result  # noqa: E402
from referee.games.durak import Durak, Kazaki  # noqa: E402

GAMES = {"durak": Durak(), "kazaki": Kazaki()}
MASK64 = (1 << 64) - 1


def bot_seed(seed: int, seat: int) -> int:
    """A bot seed per game and seat (not the referee's one-way hash, but just as reproducible)."""
    return (seed * 0x9E3779B97F4A7C15 + seat * 0xBF58476D1CE4E5B9 + 1) & MASK64


def play(game_id: str, seats: int, seed: int, bots: list[Bot], options: dict[str, object]) -> Result:
    """One game through the engine loop; each seat observes only the events since its last decision."""
    state = GAMES[game_id].new_state(seats, seed, options)
    for seat, bot in enumerate(bots):
        bot.new_game(GameInfo(game=game_id, options=state.options, seat=seat, seats=seats,
                              bot_seed=bot_seed(seed, seat)))
    since = [0] * seats
    while state.to_act is not None:
        seat = state.to_act

        def observe(seat: int = seat) -> dict[str, object]:
            obs = state.observe(seat, since[seat])
            since[seat] = state.log_size
            return obs

        state.apply(bots[seat].act(Decision(seat, state.legal_actions(), observe)))
    result = state.result()
    for bot in bots:
        bot.game_over(result.to_dict())
    return result


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Stats:
    game: str
    seats: int
    games: int = 0
    losses: int = 0
    draws: int = 0
    aborted: int = 0
    heuristic_places: list[int] = field(default_factory=list)
    random_places: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def decided(self) -> int:
        return self.games - self.draws - self.aborted

    def report(self) -> str:
        rate = self.losses / self.decided if self.decided else float("nan")
        low, high = wilson(self.losses, self.decided)
        mean_h = sum(self.heuristic_places) / len(self.heuristic_places)
        mean_r = sum(self.random_places) / len(self.random_places)
        return "\n".join([
            f"{self.game}, {self.seats} seats: {self.games} games ({self.decided} decided, {self.draws} draws, "
            f"{self.aborted} aborted) in {self.seconds:.1f}s",
            f"  heuristic loss rate {rate:.1%} of decided games (equal bot: {1 / self.seats:.1%}), "
            f"95% Wilson CI [{low:.1%}, {high:.1%}]",
            f"  mean place: heuristic {mean_h:.2f}, random {mean_r:.2f} (places 1..{self.seats})",
        ])


def run(game_id: str, seats: int, games: int, first_seed: int, options: dict[str, object]) -> Stats:
    stats = Stats(game_id, seats)
    start = time.perf_counter()
    heuristic = HeuristicBot()
    randoms = [RandomBot() for _ in range(seats)]
    for i in range(games):
        seed = first_seed + i
        me = i % seats
        bots: list[Bot] = [heuristic if s == me else randoms[s] for s in range(seats)]
        result = play(game_id, seats, seed, bots, options)
        stats.games += 1
        if result.aborted:
            stats.aborted += 1
        elif result.extra["loser"] is None:
            stats.draws += 1
        elif result.extra["loser"] == me:
            stats.losses += 1
        places = result.places
        stats.heuristic_places.append(places[me])
        stats.random_places.extend(places[s] for s in range(seats) if s != me)
    stats.seconds = time.perf_counter() - start
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per game and seat count (default 2000)")
    parser.add_argument("--game", choices=["durak", "kazaki", "all"], default="all",
                        help="which game (default: both durak and kazaki)")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4], help="seat counts (default: 2 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("--transfer", action="store_true", help="play with transfer=true (perevodnoy)")
    args = parser.parse_args(argv)
    games = ["durak", "kazaki"] if args.game == "all" else [args.game]
    options: dict[str, object] = {"transfer": True} if args.transfer else {}
    for game_id in games:
        for seats in args.seats:
            print(run(game_id, seats, args.games, args.seed, options).report(), flush=True)


if __name__ == "__main__":
    main()
