"""The SPRT's operating characteristic: realised error rates and deals to a decision, simulated, before and after.

**The games.** A deal gives each seat a luck ``N(0, luck)``; a game on it ranks the seats (or, in a team game, the
two teams by the sum of their members) by luck + skill + ``N(0, noise)``, rounded to a multiple of ``grain`` so
that shared places happen. The field and the baseline have skill 0, the candidate the skill whose expected paired
score (tournaments/sprt.py: the comparisons of its places with the baseline's) is the logistic score of the true
Elo difference. A scenario's distribution of paired scores is measured once on 60,000 deals (common random
numbers, so the expected score rises with the skill), and the tests draw their deals from it, independently.

**The tests.** For each scenario, each (elo0, elo1) and each true difference, ``--tests`` complete SPRTs run until
they decide; the first table prints the realised alpha (the share that accepted H1 at elo0) and beta (H0 at elo1) and
the mean deals to a decision (ASN) of three tests on the same kind of streams: tournaments/sprt.py's (the
multinomial LLR, Wald's bounds moved in by the expected overshoot), the "exact" one (the same LLR against Wald's
bounds: fastchess's and fishtest's GSPRT) and the one before issue 34 (the normal approximation with a variance
prior of one deal at ¼; ``--no-before`` skips it). With 2,000 tests a realised rate of 0.05 is measured to ± 0.01
(95 %). The second table is the operating characteristic: at true differences beyond H0 (by the hypotheses'
width), at H0, between, at H1 and beyond H1, the share of tests that accepted H1 and the ASN, this test against the
exact one. The figures, before and after each change of the test, are in docs/benchmarks/sprt_oc.md;
benchmarks/sprt_calibration.py shows which bounds would hold the error rates at the wide hypotheses, and why
overshoot corrections do not reach them.

    python benchmarks/sprt_oc.py                       # the whole grid (about an hour and a half on one core)
    python benchmarks/sprt_oc.py --scenario "2 seats" --hyp 0,100 --tests 2000
    python benchmarks/sprt_oc.py --part oc --tests 1000  # only the operating characteristic over the truths
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.sprt import Model, SprtSettings, elo_to_score, llr_and_step  # noqa: E402


@dataclass(frozen=True)
class Scenario:
    """A game shape: seats, whether there is a field (False: two seats, the baseline is the opponent), teams."""

    name: str
    seats: int
    field: bool = True
    teams: bool = False
    luck: float = 1.0
    noise: float = 0.6
    grain: float = 0.25

    @property
    def resolution(self) -> int:
        return 2 * self.seats


SCENARIOS = [
    Scenario("2 seats", 2, field=False),
    Scenario("3 seats", 3),
    Scenario("4 seats", 4),
    Scenario("6 seats", 6),
    Scenario("team (4 seats)", 4, teams=True),
]
GRID = [(0.0, 5.0), (0.0, 20.0), (0.0, 100.0), (0.0, 200.0), (300.0, 350.0), (-400.0, -300.0)]


def truths(elo0: float, elo1: float) -> list[float]:
    """The true differences of the operating characteristic: beyond H0 (by the hypotheses' width), at H0, between
    the two, at H1 and beyond H1."""
    width = elo1 - elo0
    return [elo0 - width, elo0, (elo0 + elo1) / 2, elo1, elo1 + width]


def _places(perf: np.ndarray, teams: bool) -> np.ndarray:
    """Places (1 first; shared places equal) from performances (..., seats); teams: seats 0, 2 against 1, 3."""
    if teams:
        team = perf[..., 0::2].sum(axis=-1, keepdims=True), perf[..., 1::2].sum(axis=-1, keepdims=True)
        a = np.where(team[0] >= team[1], 1, 3)
        b = np.where(team[1] >= team[0], 1, 3)
        return np.concatenate([a, b, a, b], axis=-1)
    return 1 + (perf[..., None, :] > perf[..., :, None]).sum(axis=-1)


def paired_scores(scenario: Scenario, skill: float, deals: int, seed: int) -> np.ndarray:
    """The paired scores of ``deals`` deals (common random numbers for a seed): the mean over seats s of the
    comparison of the candidate's place in seat s with the baseline's (in the same game without a field, in the
    twin game with one)."""
    rng = np.random.default_rng(seed)
    k = scenario.seats
    luck = rng.normal(0.0, scenario.luck, (deals, 1, k))
    eye = np.eye(k)
    perf_c = luck + rng.normal(0.0, scenario.noise, (deals, k, k)) + skill * eye  # game s: the candidate in seat s
    perf_c = np.round(perf_c / scenario.grain)
    places_c = _places(perf_c, scenario.teams)
    mine = places_c[:, np.arange(k), np.arange(k)]
    if not scenario.field:  # the baseline is the opponent, in the same game
        theirs = places_c[:, np.arange(k), 1 - np.arange(k)]
    else:
        perf_b = np.round((luck + rng.normal(0.0, scenario.noise, (deals, k, k))) / scenario.grain)
        theirs = _places(perf_b, scenario.teams)[:, np.arange(k), np.arange(k)]
    return (np.where(mine < theirs, 1.0, np.where(mine > theirs, 0.0, 0.5))).mean(axis=1)


def distribution(scenario: Scenario, elo: float, seed: int = 7, deals: int = 60_000) -> np.ndarray | None:
    """The probabilities of the paired scores j / (2K) when the candidate is ``elo`` better (bisection on skill);
    None when no skill gets there: with a field, a baseline that finishes first 1 time in K leaves even a perfect
    candidate level there, so its expected score stays below 1 − 1/(2K)."""
    target = elo_to_score(elo)
    low, high = -8.0, 8.0
    for _ in range(40):
        mid = (low + high) / 2
        if paired_scores(scenario, mid, deals, seed).mean() < target:
            low = mid
        else:
            high = mid
    ys = paired_scores(scenario, (low + high) / 2, deals, seed)
    if abs(ys.mean() - target) > 0.002:  # beyond the best (or worst) a bot can do against this field
        return None
    counts = np.bincount(np.rint(ys * scenario.resolution).astype(int), minlength=scenario.resolution + 1)
    return counts / counts.sum()


def old_llr(counts: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The test before issue 34: the normal approximation with a variance prior of one deal at ¼."""
    values = np.linspace(0.0, 1.0, counts.shape[-1])
    n = counts.sum(axis=-1)
    mean = (counts * values).sum(axis=-1) / n
    variance = ((counts * values**2).sum(axis=-1) - n * mean * mean + 0.25) / (n + 1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def simulate(probs: np.ndarray, settings: SprtSettings, tests: int, rng: np.random.Generator, *,
             test: str = "after", max_deals: int = 400_000) -> tuple[float, float, float]:
    """``tests`` complete SPRTs on deals drawn from ``probs``: the share that accepted H1, the mean deals to a
    decision, and the share undecided at ``max_deals``. ``test``: "after" (tournaments/sprt.py), "exact" (its LLR
    against Wald's bounds, as fastchess decides) or "before" (the normal approximation of before issue 34)."""
    h0, h1 = settings.hypotheses
    counts = np.zeros((tests, len(probs)))
    active = np.arange(tests)
    accepted = np.zeros(tests, dtype=bool)
    deals = np.zeros(tests)
    cumulative = np.cumsum(probs)
    for deal in range(1, max_deals + 1):
        drawn = np.minimum(np.searchsorted(cumulative, rng.random(len(active)), side="right"), len(probs) - 1)
        counts[active, drawn] += 1
        if test == "before":
            ratio, lower, upper = old_llr(counts[active], h0, h1), settings.lower, settings.upper
        else:
            ratio, spread = llr_and_step(counts[active], h0, h1, settings.model)
            lower, upper = settings.bounds(spread) if test == "after" else (settings.lower, settings.upper)
        up, down = ratio >= upper, ratio <= lower
        done = up | down
        accepted[active[up]] = True
        deals[active[done]] = deal
        active = active[~done]
        if not len(active):
            break
    deals[active] = max_deals
    return float(accepted.mean()), float(deals.mean()), len(active) / tests


def characteristic(scenarios: list[Scenario], grid: list[tuple[float, float]], settings_of, tests: int,
                   rng: np.random.Generator) -> list[list[str]]:
    """One row per scenario and hypotheses: at each of :func:`truths`, the share of tests that accepted H1 and the
    mean deals to a decision, this test against the exact one ("after/exact")."""
    rows = []
    for scenario in scenarios:
        for elo0, elo1 in grid:
            settings = settings_of(elo0, elo1)
            row = [scenario.name, f"({elo0:g}, {elo1:g})"]
            for truth in truths(elo0, elo1):
                probs = distribution(scenario, truth)
                if probs is None:
                    row.append(f"{truth:g}: unreachable")
                    continue
                (h1, asn, _), (h1x, asnx, _) = (simulate(probs, settings, tests, rng, test=test)
                                                for test in ("after", "exact"))
                row.append(f"{truth:g}: {h1:.3f}/{h1x:.3f}, {asn:.0f}/{asnx:.0f}")
            rows.append(row)
            print(tabulate([row], tablefmt="plain"), flush=True, file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=2000, help="complete tests per point (default 2000)")
    parser.add_argument("--scenario", action="append", help="only these scenarios (by name)")
    parser.add_argument("--hyp", action="append", help="only these hypotheses, as ELO0,ELO1")
    parser.add_argument("--model", choices=[m.value for m in Model], default="logistic")
    parser.add_argument("--before", action=argparse.BooleanOptionalAction, default=True,
                        help="also the test before issue 34 (default: yes)")
    parser.add_argument("--part", choices=["errors", "oc", "both"], default="both",
                        help="errors: alpha and beta at the hypotheses; oc: the share accepting H1 at truths beyond, "
                             "at and between them (default: both)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    scenarios = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    grid = [tuple(float(x) for x in h.split(",")) for h in args.hyp] if args.hyp else GRID
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    if args.part != "oc":
        errors(scenarios, grid, args, rng)
    if args.part != "errors":
        rows = characteristic(scenarios, grid, lambda e0, e1: SprtSettings(e0, e1, model=Model(args.model)),
                              args.tests, rng)
        print(f"\noperating characteristic: at each true Elo difference, the share of tests accepting H1 and the "
              f"mean deals to a decision, this test/the exact one; {args.tests} tests per point; model {args.model}; "
              f"{time.perf_counter() - started:.0f} s")
        print(tabulate(rows, headers=["scenario", "(elo0, elo1)", "beyond H0", "at H0", "between", "at H1",
                                      "beyond H1"], tablefmt="github"))


def errors(scenarios: list[Scenario], grid: list[tuple[float, float]], args: argparse.Namespace,
           rng: np.random.Generator) -> None:
    """The table of realised alpha and beta, with their ASN, of the three tests."""
    rows = []
    started = time.perf_counter()
    for scenario in scenarios:
        for elo0, elo1 in grid:
            settings = SprtSettings(elo0, elo1, model=Model(args.model))
            row = [scenario.name, f"({elo0:g}, {elo1:g})"]
            for truth in (elo0, elo1):
                probs = distribution(scenario, truth)
                if probs is None:
                    row += ["unreachable", "-"] * (3 if args.before else 2)
                    continue
                for test in ("after", "exact", "before")[:3 if args.before else 2]:
                    h1, asn, open_ = simulate(probs, settings, args.tests, rng, test=test)
                    rate = h1 if truth == elo0 else 1 - h1
                    row += [f"{rate:.3f}", f"{asn:.0f}" + (f" ({open_:.1%} open)" if open_ else "")]
            rows.append(row)
            print(tabulate([row], tablefmt="plain"), flush=True, file=sys.stderr)
    tests = ("", " exact", " before")[:3 if args.before else 2]
    headers = ["scenario", "(elo0, elo1)"]
    for error in ("alpha", "beta"):
        for test in tests:
            headers += [f"{error}{test}", f"ASN{test}"]
    print(f"nominal alpha = beta = 0.05; {args.tests} tests per point; model {args.model}; "
          f"{time.perf_counter() - started:.0f} s")
    print(tabulate(rows, headers=headers, tablefmt="github"))


if __name__ == "__main__":
    main()
