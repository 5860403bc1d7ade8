"""How much stronger is ``heuristic`` than ``random``, and ``ismcts`` than ``heuristic``?

Two modes. The default (``heuristic`` against ``random``) plays fixed-seed games through the referee's runner.
``--ismcts`` measures ``ismcts`` against ``heuristic`` with the project's own SPRT (``referee tournament sprt``,
duplicate deals: docs/TOURNAMENTS.md), see below.

For every game the heuristic plays and every seat count asked for:

- games without teams: game ``i`` (seed ``--seed + i``) seats the heuristic at seat ``i mod seats`` and
  ``random`` everywhere else, so every seat is played equally often. A bot as strong as its opponents would
  finish first with probability 1/seats and last with probability 1/seats; the script prints the
  heuristic's first-place and last-place rates with 95% Wilson intervals, and both sides' mean places.
- team games (2 vs 2): the heuristic plays both seats of team ``i mod 2``, random the other team; an equal
  team would win half the games. The script prints the heuristic team's win rate with a Wilson interval.

    python benchmarks/strength.py --games 2000                    # every game, its default seat counts
    python benchmarks/strength.py --game durak --seats 2 3 -o transfer=true

``--ismcts DIR``: for every game and seat count asked for (by default every seat count the game allows),
``referee tournament sprt GAME -c ismcts:ms=MS -B heuristic``
(with two seats the two play each other in game pairs; with more, both sit against a field of ``heuristic``: in a
team game the field is the partner too) at ``--ms`` per move (default 100), to a decision (H0 elo 0, H1 elo
``--elo1``; ``--alpha`` and ``--beta`` its error rates, default 0.05) or ``--max-games`` (default 400), the database of
each in DIR (``GAME-SEATS-MSms.db``, then ``--seed``, ``--elo1``, ``--alpha`` and ``--beta`` where they are not their
defaults, ``-seed=5001-elo1=25``): run it again with the same arguments and it goes on where it stopped
(``referee tournament resume``: under the limits it stored), or only prints what is stored. It prints the table:
games, the share of the candidate's games it finished first (and the baseline's on the same deals), its mean place,
the Elo difference with its 95 % interval and the decision, and the playouts per move (from a few in-process games
of ``ismcts`` against ``heuristic`` after the test, as the workers cannot report them). ``--sweep`` does the same for
25, 50, 100, 200 and 400 ms in the one game and seat count given. A full run takes hours on two cores: run it piecewise,
two at a time at most (one a core: each SPRT's worker is pinned to the core the fewest other processes are pinned
to, so start the second a moment after the first), and never beside anything else busy, as the bot's budget is
wall-clock time.

    python benchmarks/strength.py --ismcts runs/ --game durak --seats 2
    python benchmarks/strength.py --ismcts runs/ --game durak --seats 2 --sweep --max-games 200
    python benchmarks/strength.py --ismcts runs/ --game kozel --seats 4 --setting guide=0   # the search alone
    python benchmarks/strength.py --ismcts runs/ --show      # the table of what runs/ stores, playing nothing
    # a run of 1,600 games on two cores, for its interval: bounds this wide stop it only on an overwhelming lead
    python benchmarks/strength.py --ismcts runs/ --game koroli --seats 4 --seed 17001 --elo1 25 --alpha 0.001 \
        --beta 0.001 --max-games 1600 --workers 2

``--setting KEY=VALUE`` adds a setting to the candidate's SPEC (``ismcts:ms=MS,KEY=VALUE``; its database is named
after it too).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

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
        places = play_game(game, bots, seed=first_seed + i, options=options).result.places
        best, worst = min(places), max(places)
        me = min(mine)
        stats.games += 1
        stats.first += places[me] == best
        stats.last += places[me] == worst and best != worst
        stats.heuristic_places.extend(places[s] for s in mine)
        stats.random_places.extend(places[s] for s in range(seats) if s not in mine)
    stats.seconds = time.perf_counter() - start
    return stats


SWEEP_MS = (25, 50, 100, 200, 400)


def sprt(folder: Path, game: str, seats: int, ms: int, args: argparse.Namespace) -> dict[str, object]:
    """One ``referee tournament sprt`` of ``ismcts:ms=MS`` against ``heuristic`` (resumed if its db exists) and what
    its stored games say: a row of the table as a dict."""
    db = database(folder, game, seats, ms, args)
    if args.show:
        return {"game": game, "seats": seats, "ms": ms, **stored(db), "seconds": 0.0}
    command = [sys.executable, "-m", "referee", "tournament", "sprt", game, "-c",
               ",".join([f"ismcts:ms={ms}", *args.setting]),
               "-B", "heuristic", "--seats", str(seats), "--elo1", str(args.elo1), "--alpha", str(args.alpha),
               "--beta", str(args.beta), "--max-games", str(args.max_games), "--workers", str(args.workers),
               "--db", str(db), "--seed", str(args.seed),
               "--json", *[f"--option={o}" for o in args.option]]
    if seats > 2:
        command += ["-f", "heuristic"] * (seats - 1)
    if db.exists():  # go on where it stopped, under the settings it stored (its own game limit among them)
        command = [sys.executable, "-m", "referee", "tournament", "resume", str(db), "--workers", str(args.workers)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{game} {seats} seats: {' '.join(command[1:])} failed: {done.stderr.strip()[-500:]}")
    return {"game": game, "seats": seats, "ms": ms, **stored(db), "seconds": time.perf_counter() - started}


def stored(db: Path) -> dict[str, object]:
    """What an SPRT's stored games say of its candidate against its baseline (part of a row of the table)."""
    table = subprocess.run([sys.executable, "-m", "referee", "tournament", "table", str(db), "--json"],
                           capture_output=True, text=True, check=True)
    outcome = json.loads(table.stdout)
    listed = subprocess.run([sys.executable, "-m", "referee", "tournament", "games", str(db), "--json"],
                            capture_output=True, text=True, check=True)
    mine: list[tuple[int, int]] = []  # (place, best place) of the candidate's and the baseline's seat
    theirs: list[tuple[int, int]] = []  # with two seats they meet; with a field, the baseline plays the same deals
    for row in json.loads(listed.stdout)["games"]:
        for name, kept in ((outcome["candidate"], mine), (outcome["baseline"], theirs)):
            if name in row["bots"]:
                kept.append((row["places"][row["bots"].index(name)], min(row["places"])))
    low, high = outcome["elo_interval"]
    return {"games": outcome["games"],
            "first": sum(p == b for p, b in mine) / max(1, len(mine)),
            "baseline first": sum(p == b for p, b in theirs) / max(1, len(theirs)),
            "mean place": sum(p for p, _ in mine) / max(1, len(mine)),
            "elo": outcome["elo"], "low": low, "high": high, "decision": outcome["decision"]}


def database(folder: Path, game: str, seats: int, ms: int, args: argparse.Namespace) -> Path:
    """The database of one SPRT in DIR: ``GAME-SEATS-MSms.db``, the --setting pairs after the budget, then the
    test's own arguments where they are not their defaults (``seed=5001``, ``elo1=25``, ``alpha=0.001``, …), so
    that a run on other deals or with other bounds is a database of its own, not the resumption of another."""
    test = [f"{key}={value}" for key, value, default in (("seed", args.seed, 1), ("elo1", f"{args.elo1:g}", "50"),
                                                          ("alpha", f"{args.alpha:g}", "0.05"),
                                                          ("beta", f"{args.beta:g}", "0.05"))
            if value != default]
    return folder / ("-".join([game, str(seats), f"{ms}ms", *args.setting, *test]) + ".db")


def playouts_per_move(game: Game, seats: int, ms: int, options: dict[str, str], settings: list[str],
                      games: int = 2) -> float:
    """Iterations per searched move of ``ismcts`` at ``ms``, in a few in-process games against ``heuristic``."""
    from bots.heuristic import HeuristicBot
    from referee.ismcts.bot import IsmctsBot

    given: dict[str, object] = {key: value for key, value in (pair.split("=", 1) for pair in settings)}
    iterations = moves = 0
    for i in range(games):
        me = IsmctsBot(None, ms=ms, **given)  # None: the built-in games
        bots: list[Bot] = [HeuristicBot() for _ in range(seats)]
        bots[i % seats] = me
        play_game(game, bots, seed=10_000 + i, options=options)
        iterations += me.iterations
        moves += me.searched
    return iterations / max(1, moves)


def ismcts_table(args: argparse.Namespace) -> None:
    folder = Path(args.ismcts)
    folder.mkdir(parents=True, exist_ok=True)
    registry = load_registry()
    options = dict(pair.split("=", 1) for pair in args.option)
    budgets = SWEEP_MS if args.sweep else (args.ms,)
    rows = []
    for game_id in args.game or sorted(g for g in registry.games if registry.bot("ismcts").supports(g)):
        game = registry.game(game_id)
        allowed = range(game.min_seats, game.max_seats + 1)
        for seats in [k for k in args.seats or allowed if k in allowed]:
            for ms in budgets:
                if args.show and not database(folder, game_id, seats, ms, args).exists():
                    continue
                row = sprt(folder, game_id, seats, ms, args)
                if not args.show:
                    row["playouts"] = playouts_per_move(game, seats, ms, options, args.setting)
                rows.append(row)
                print(f"{game_id} {seats} seats {ms} ms: {row['games']} games, {row['decision']}, "
                      f"{row['seconds']:.0f} s", file=sys.stderr, flush=True)
    print(tabulate([[r["game"], r["seats"], r["ms"], r["games"], f"{r['first']:.1%}", f"{r['baseline first']:.1%}",
                     f"{r['mean place']:.2f}", f"{r['elo']:+.0f} [{r['low']:+.0f}, {r['high']:+.0f}]",
                     r["decision"], f"{r['playouts']:.0f}" if "playouts" in r else "-"] for r in rows],
                   headers=["game", "seats", "ms", "games", "ismcts first", "heuristic first", "ismcts mean place",
                            "Elo (95% CI)", "SPRT", "playouts/move"], disable_numparse=True))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per game and seat count (default 2000)")
    parser.add_argument("--game", action="append", help="only this game (repeatable; default: all it plays)")
    parser.add_argument("--seats", type=int, nargs="+",
                        help="seat counts (default: 2, 3 and 4 where allowed; with --ismcts, every seat count the "
                        "game allows)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("-o", "--option", action="append", default=[], help="a game option KEY=VALUE")
    parser.add_argument("--ismcts", metavar="DIR", help="ismcts against heuristic by SPRT, databases in DIR")
    parser.add_argument("--ms", type=int, default=100, help="--ismcts: ismcts's time per move (default 100)")
    parser.add_argument("--sweep", action="store_true", help="--ismcts: at 25, 50, 100, 200 and 400 ms")
    parser.add_argument("--max-games", type=int, default=400, help="--ismcts: games at most (default 400)")
    parser.add_argument("--elo1", type=float, default=50.0, help="--ismcts: the SPRT's H1 (default 50)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="--ismcts: the SPRT's chance of accepting H1 when H0 holds (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="--ismcts: the SPRT's chance of accepting H0 when H1 holds (default 0.05; with "
                        "--alpha 0.001 --beta 0.001 the bounds are too wide to stop a run of a few thousand games: "
                        "a run of --max-games, for its interval)")
    parser.add_argument("--workers", type=int, default=1, help="--ismcts: worker processes (default 1)")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="--ismcts: one more setting of the candidate (ismcts:ms=MS,KEY=VALUE; repeatable)")
    parser.add_argument("--show", action="store_true", help="--ismcts: only print what DIR stores, play nothing")
    args = parser.parse_args(argv)
    if args.ismcts:
        ismcts_table(args)
        return
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
