"""Is the SPRT of tournaments/sprt.py right, and what do duplicate deals save? A synthetic model, many tests.

A deal gives each seat a luck ``L ~ N(0, luck)``; a game on it ranks the seats by ``L + skill + N(0, noise)``
(the field and the baseline have skill 0, the candidate ``delta``). Under *duplicate substitution* the candidate
and the baseline play the same deal from every seat; under *independent deals* the baseline plays another deal.
The skill that makes the candidate ``elo`` better (the test's own definition: its expected paired score) is found
by simulation. For each setting the benchmark runs many complete tests and prints

- the false positive rate (H1 accepted with equal bots) next to alpha,
- the power (H1 accepted at the elo1 difference) next to 1 − beta,
- the mean number of games to a decision, duplicate against independent deals, and their ratio.

Then, once on real games (``--real``, the default; ``--no-real`` skips it), the command's own runner plays
``heuristic`` against ``random`` to a decision: 2-seat durak as game pairs, 4-seat koroli against a field of
three ``random``; it prints the deals, games and seconds each took.

    python benchmarks/sprt.py                     # 2 and 4 seats, 600 tests each, then the real runs
    python benchmarks/sprt.py --tests 1000 --seats 4 --elo1 10 --no-real
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from sprt_oc import simulate
from tabulate import tabulate

from tournaments.sprt import SprtSettings, elo_to_score


def deal_scores(rng: np.random.Generator, tests: int, deals: int, seats: int, delta: float, luck: float,
                noise: float, duplicate: bool) -> np.ndarray:
    """Paired scores y (tests × deals). Duplicate: each bot plays one deal from every seat (the same deal for
    both). Independent: each of those games is dealt anew."""

    def places(skill: float, lucks: np.ndarray) -> np.ndarray:
        # lucks (tests, deals, game, seat): game g puts the bot in seat g; its place there (1 first)
        perf = lucks + rng.normal(0.0, noise, (tests, deals, seats, seats))
        eye = np.eye(seats, dtype=bool)
        perf = perf + skill * eye  # the bot's seat in each game
        mine = perf[:, :, eye]  # (tests, deals, seats): the bot's performance in game g, seat g
        return 1 + (perf > mine[:, :, :, None]).sum(axis=3)

    if duplicate:  # one deal: both bots, every seat
        lucks = rng.normal(0.0, luck, (tests, deals, 1, seats)).repeat(seats, axis=2)
        other = lucks
    else:  # every game on a deal of its own
        lucks = rng.normal(0.0, luck, (tests, deals, seats, seats))
        other = rng.normal(0.0, luck, (tests, deals, seats, seats))
    mine, theirs = places(delta, lucks), places(0.0, other)  # tournaments/sprt.py: who finished ahead, by seat
    return np.where(mine < theirs, 1.0, np.where(mine > theirs, 0.0, 0.5)).mean(axis=2)


def skill_for(elo: float, seats: int, luck: float, noise: float, rng: np.random.Generator) -> float:
    """The candidate's skill whose expected paired score is the Elo score of ``elo`` (bisection, simulated)."""
    target = elo_to_score(elo)
    low, high = -3.0, 3.0
    for _ in range(30):
        mid = (low + high) / 2
        mean = deal_scores(rng, 1, 200_000, seats, mid, luck, noise, duplicate=True).mean()
        low, high = (mid, high) if mean < target else (low, mid)
    return (low + high) / 2


def run_tests(rng: np.random.Generator, tests: int, seats: int, delta: float, luck: float, noise: float,
              duplicate: bool, settings: SprtSettings, max_deals: int) -> tuple[float, float]:
    """``tests`` complete SPRTs (benchmarks/sprt_oc.py's loop: tournaments/sprt.py's LLR and bounds) on deals drawn
    from the paired scores of 100,000 simulated deals: the share that accepted H1 and the mean games to a decision."""
    ys = deal_scores(rng, 1, 100_000, seats, delta, luck, noise, duplicate)[0]
    counts = np.bincount(np.rint(ys * 2 * seats).astype(int), minlength=2 * seats + 1)
    accepted, deals, _ = simulate(counts / counts.sum(), settings, tests, rng, max_deals=max_deals)
    return accepted, deals * 2 * seats  # the candidate's and the baseline's game from every seat of a deal


def real_runs(settings: SprtSettings) -> None:
    """heuristic against random, to a decision, through tournaments.sprt_run (one worker, in-process bots)."""
    import tempfile

    from referee.plugins import load_registry
    from tournaments.config import TournamentConfig
    from tournaments.local import LocalExecutor
    from tournaments.sprt_plan import SprtPlan
    from tournaments.sprt_run import run_sprt
    from tournaments.storage import Store

    registry = load_registry()
    rows = []
    for game, seats, field in (("durak", 2, []), ("koroli", 4, ["random"] * 3)):
        specs = ["heuristic", "random", *field]
        config = TournamentConfig(game=game, options=registry.game(game).configure({}),
                                  entrants=["heuristic", "random", *(f"random#{i + 2}" for i in range(len(field)))],
                                  specs=specs, seats=seats, games=100_000, duplicate=True, seed=2026,
                                  extra={"sprt": SprtPlan.settings_dict(settings)})
        with tempfile.TemporaryDirectory() as folder, Store(f"{folder}/sprt.db", create=True) as store:
            started = time.perf_counter()
            state = run_sprt(store, config, lambda c: LocalExecutor(c, 1))
            rows.append([f"{game} {seats} seats", "pairs" if not field else "field of 3 random", state.deals,
                         state.games, f"{state.llr:.2f}", f"{state.elo:+.0f} [{state.elo_low:+.0f}, "
                         f"{state.elo_high:+.0f}]", str(state.decision), f"{time.perf_counter() - started:.1f}"])
    print(f"\nReal games, heuristic (candidate) against random (baseline), seed 2026, elo0={settings.elo0:g} "
          f"elo1={settings.elo1:g}:")
    print(tabulate(rows, headers=["game", "opponents", "deals", "games", "LLR", "Elo [95%]", "decision", "s"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=600, help="complete tests per setting (default 600)")
    parser.add_argument("--seats", type=int, action="append", help="seat counts (default 2 and 4)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=20.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--luck", type=float, default=1.0, help="spread of a seat's deal luck (default 1)")
    parser.add_argument("--noise", type=float, default=0.5, help="spread of the play on a deal (default 0.5)")
    parser.add_argument("--max-deals", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real", action=argparse.BooleanOptionalAction, default=True,
                        help="also run real games to a decision (default: yes)")
    args = parser.parse_args()
    settings = SprtSettings(args.elo0, args.elo1, args.alpha, args.beta)
    settings.check()
    rng = np.random.default_rng(args.seed)
    rows = []
    started = time.perf_counter()
    for seats in args.seats or [2, 4]:
        at_elo0 = skill_for(args.elo0, seats, args.luck, args.noise, rng) if args.elo0 else 0.0
        at_elo1 = skill_for(args.elo1, seats, args.luck, args.noise, rng)
        games: dict[tuple[bool, str], float] = {}
        for duplicate in (True, False):
            fp, games[duplicate, "0"] = run_tests(rng, args.tests, seats, at_elo0, args.luck, args.noise, duplicate,
                                                  settings, args.max_deals)
            power, games[duplicate, "1"] = run_tests(rng, args.tests, seats, at_elo1, args.luck, args.noise,
                                                     duplicate, settings, args.max_deals)
            rows.append([seats, "duplicate" if duplicate else "independent", f"{fp:.3f}", f"{args.alpha:g}",
                         f"{power:.3f}", f"{1 - args.beta:g}", f"{games[duplicate, '0']:.0f}",
                         f"{games[duplicate, '1']:.0f}"])
        for h in ("0", "1"):
            rows[-2 if h == "0" else -1].append("")
        rows[-2][-1] = (f"{games[True, '0'] / games[False, '0']:.2f} / {games[True, '1'] / games[False, '1']:.2f}")
    print(f"SPRT elo0={args.elo0:g} elo1={args.elo1:g} alpha={args.alpha:g} beta={args.beta:g}; luck {args.luck:g}, "
          f"noise {args.noise:g}; {args.tests} tests per cell; 95% error of a rate ±"
          f"{Z(args.tests, args.alpha):.3f} at alpha")
    print(tabulate(rows, headers=["seats", "deals", "false positive", "alpha", "power", "1-beta",
                                  "games (elo0)", "games (elo1)", "dup/indep games (elo0 / elo1)"]))
    print(f"{time.perf_counter() - started:.1f} s")
    if args.real:
        real_runs(settings)


def Z(tests: int, rate: float) -> float:  # noqa: N802 - the half-width of a binomial 95 % interval
    return 1.96 * math.sqrt(rate * (1 - rate) / tests)


if __name__ == "__main__":
    main()
