"""Tournament speed and rating quality: workers, subprocess bots, the final fit, and duplicate deals.

Measured in one run:

(a) the speed-up of 2 workers over 1 on the same schedule (kazaki, 3 seats, in-process ``heuristic``,
    ``random`` and ``first``), timing ``tournaments.run.run_tournament`` end to end into a fresh SQLite file
    (pool start-up, storage and live ratings included), sized for about ``--seconds`` at 1 worker; both runs
    must store the same results;
(b) the same with subprocess bots (``cmd:PYTHON -m bots.heuristic`` and so on) at 1 and 2 workers, and how
    many bot processes were started (the goal: one per entrant per worker);
(c) the time of the final fit (``tournaments.ratings.fit``) on 100,000 synthetic 4-seat games of 8 entrants of
    known strengths (Plackett-Luce, sampled with numpy), and how far the recovered ratings are from the truth;
(d) on a synthetic field of 4 entrants of known strengths, with an explicit luck of the deal, how much
    duplicate deals narrow the ratings at an equal number of games, and which confidence interval sees it
    (see the text printed with the table);
(e) the Dask executor on a local cluster of 2 workers (``--scheduler local:2``) against the local executor with 2
    workers and with 1, on the same schedule as (a): games/s end to end and without the cluster's start-up, CPU per
    game, and the Dask overhead per game (CPU against the local executor at 2 workers), local 2 and Dask alternating
    ``--repeat`` times (medians of the pairs); the results must be equal;
(f) program bots (``cmd:PYTHON -m bots.random``, durak, 2 seats) with ``--affinity auto`` (pinned) against ``off``
    at 1 and 2 workers: games/s and µs of wall time per decision.

    python benchmarks/tournament.py                  # about 5 min on 2 cores
    python benchmarks/tournament.py --quick          # a smoke run of about 10 s
    python benchmarks/tournament.py --seconds 20 --repeat 5 --reps 500

A shared machine makes (a) noisy: the script measures how many cores two busy processes actually get (a CPU
spin probe) and the CPU time of each run, so that a low speed-up can be told apart from a busy machine.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import resource
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tabulate import tabulate

from referee.plugins import load_registry
from tournaments.config import TournamentConfig
from tournaments.executor import Executor, Placement
from tournaments.local import LocalExecutor
from tournaments.ratings import ELO, bootstrap, fit
from tournaments.run import run_tournament
from tournaments.schedule import schedule, schedule_size
from tournaments.storage import Store
from tournaments.worker import GameWorker

GAME = "kazaki"
SEATS = 3
BOTS = ["heuristic", "random", "first"]
PIDLOG = "REFEREE_BENCH_PIDLOG"
RUNS = itertools.count(1)

# A bot command that notes its pid in the file named by $REFEREE_BENCH_PIDLOG, then runs ``python -m MODULE``
# unchanged: bot processes are started inside worker processes, so the parent counts them through this file.
COUNTED = ("import os, runpy, sys; f = open(os.environ[{env!r}], 'a'); f.write(f'{{os.getpid()}}\\n'); "
           "f.close(); sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")


def config_for(specs: list[str], deals: int) -> TournamentConfig:
    game = load_registry().game(GAME)
    return TournamentConfig(game=GAME, options=game.configure({}), entrants=list(BOTS), specs=specs, seats=SEATS,
                            games=deals, duplicate=True, seed=1)


def calibrate(specs: list[str], seconds: float) -> float:
    """Games per second of one in-process GameWorker (bot start-up excluded), over about ``seconds``."""
    config = config_for(specs, 10_000)
    worker = GameWorker(config)
    jobs = iter(schedule(len(BOTS), SEATS, 10_000, seed=99))
    try:
        worker.play(next(jobs))  # start the bots
        played, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            worker.play(next(jobs))
            played += 1
        return played / (time.perf_counter() - start)
    finally:
        worker.close()


def _spin(iterations: int, barrier: object, out: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    start = time.perf_counter()
    x = 0
    for i in range(iterations):
        x += i
    out.put(time.perf_counter() - start)  # type: ignore[attr-defined]


def parallel_capacity(seconds: float) -> float:
    """How many cores this machine gives right now: the work two busy processes do at once, relative to one
    (2.0 on two free cores; less when the cores are shared with other load or are hyperthreads)."""
    ctx = multiprocessing.get_context("fork")
    iterations = int(seconds * 15_000_000)

    def run(k: int) -> float:
        barrier, out = ctx.Barrier(k), ctx.Queue()
        procs = [ctx.Process(target=_spin, args=(iterations, barrier, out)) for _ in range(k)]
        for proc in procs:
            proc.start()
        times = [out.get() for _ in procs]
        for proc in procs:
            proc.join()
        return max(times)

    return 2 * run(1) / run(2)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (worker processes and, through them, bots)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


STARTUP: list[float] = []  # seconds the last timed_run spent making its executor (a Dask cluster starts)


def timed_run(config: TournamentConfig, workers: int, folder: str,
              make: Callable[[TournamentConfig], Executor] | None = None,
              ) -> tuple[float, float, dict[str, list[int]], int]:
    """Wall and CPU seconds for run_tournament into a new database; the stored places by key; the faults. ``make``:
    the executor (default: LocalExecutor with ``workers``); the seconds it took to make are left in STARTUP."""
    path = Path(folder) / f"run{next(RUNS)}-w{workers}.db"
    game = load_registry().game(config.game)
    STARTUP[:] = [0.0]

    def timed_make(c: TournamentConfig) -> Executor:
        begun = time.perf_counter()
        executor = make(c) if make is not None else LocalExecutor(c, workers)
        STARTUP[0] = time.perf_counter() - begun
        return executor

    cpu, start = cpu_seconds(), time.perf_counter()
    with Store(path, create=True) as store:
        played = run_tournament(store, config, game, timed_make)
    elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    with Store(path, create=False) as store:
        rows = list(store.games())
    assert played == len(rows) == schedule_size(len(config.entrants), config.seats, config.games)
    DECISIONS[:] = [decisions(path)]
    return elapsed, cpu, {r.key: list(r.places) for r in rows}, sum(len(r.faults) for r in rows)


DECISIONS: list[int] = []  # the decisions of the last timed_run's games


def decisions(path: Path) -> int:
    import sqlite3

    with sqlite3.connect(path) as conn:
        (count,) = conn.execute("SELECT sum(decisions) FROM games").fetchone()
    conn.close()
    return int(count or 0)


def part_e(seconds: float, folder: str, repeat: int) -> None:
    """Dask local:2 against local 2 and local 1 workers, the same schedule; local 2 and Dask alternate ``repeat``
    times, so that a change of the machine's load hits both, and the ratios are the medians of those pairs."""
    from tournaments.dask_executor import DaskExecutor

    rate = calibrate(BOTS, min(2.0, seconds / 4))
    deals = max(1, round(seconds * rate / SEATS))
    config = config_for(BOTS, deals)
    total = schedule_size(len(BOTS), SEATS, deals)
    runs = [("local, 1 worker", 1, None)] + [("local, 2 workers", 2, None),
                                             ("dask local:2", 2, lambda c: DaskExecutor(c, Placement(
                                                 2, scheduler="local:2")))] * max(1, repeat)
    rows, results, steady, cpus = [], [], {}, {}
    for label, workers, make in runs:
        elapsed, cpu, places, _ = timed_run(config, workers, folder, make)
        startup = STARTUP[0]
        results.append(places)
        steady.setdefault(label, []).append(total / (elapsed - startup))
        cpus.setdefault(label, []).append(cpu)
        rows.append([label, f"{elapsed:.2f}", f"{startup:.2f}", f"{total / elapsed:,.0f}",
                     f"{total / (elapsed - startup):,.0f}", f"{cpu:.2f}", f"{1e3 * cpu / total:.3f}"])
    print(f"(e) {GAME}, {SEATS} seats, in-process {', '.join(BOTS)}: {total} games, run_tournament end to end; "
          f"the Dask cluster's start-up (workers spawned, bots checked) shown apart; local 2 and Dask alternate")
    print(tabulate(rows, headers=["executor", "seconds", "of it start-up", "games/s", "games/s after start-up",
                                  "CPU s", "CPU ms/game"], disable_numparse=True, colalign=("left",) + ("right",) * 6))
    before = cpu_seconds()
    DaskExecutor(config, Placement(2, scheduler="local:2")).close()  # a cluster started and closed, no game
    idle = cpu_seconds() - before
    pairs = list(zip(steady["local, 2 workers"], steady["dask local:2"], cpus["local, 2 workers"],
                     cpus["dask local:2"], strict=True))
    ratio = float(np.median([d / loc for loc, d, _, _ in pairs]))
    overhead = 1e3 * float(np.median([dc - lc for _, _, lc, dc in pairs])) / total
    same = "yes" if all(r == results[0] for r in results) else "NO"
    median = " (median of the pairs)" if len(pairs) > 1 else ""
    print(f"dask local:2 / local 2 workers, games/s after start-up: {ratio:.2f}{median} (target ≥ 0.90); Dask "
          f"overhead{median}: {overhead:+.3f} ms CPU per game with the start-up, {overhead - 1e3 * idle / total:+.3f} "
          f"without it (a cluster started and closed with no game costs {idle:.2f} s CPU); same results: {same}\n")


def part_f(seconds: float, folder: str) -> None:
    """Program bots pinned (--affinity auto) against unpinned (off), at 1 and 2 workers."""
    global GAME, SEATS
    saved = GAME, SEATS
    GAME, SEATS = "durak", 2
    try:
        specs = [f"cmd:{shlex.join([sys.executable, '-m', 'bots.random'])}"] * 2 + ["random"]
        rate = calibrate(specs, min(2.0, seconds / 4))
        deals = max(1, round(seconds * rate / 6))
        config = config_for(specs, deals)
        total = schedule_size(len(BOTS), SEATS, deals)
        rows = []
        for workers in (1, 2):
            per = {}
            for affinity in ("off", "auto", "off", "auto"):  # alternating, so that a change of load hits both
                elapsed, _, _, _ = timed_run(config, workers, folder,
                                             lambda c, w=workers, a=affinity: LocalExecutor(c, w, affinity=a))
                per.setdefault(affinity, []).append((elapsed, DECISIONS[0]))
            best = {a: min(runs) for a, runs in per.items()}
            for affinity, (elapsed, count) in best.items():
                rows.append([workers, "pinned" if affinity == "auto" else "unpinned", f"{elapsed:.2f}",
                             f"{total / elapsed:,.0f}", f"{1e6 * elapsed * workers / count:.0f}",
                             f"{best['off'][0] / elapsed:.2f}" if affinity == "auto" else ""])
    finally:
        GAME, SEATS = saved
    print(f"(f) durak, 2 seats, two program bots (python -m bots.random) and in-process random: {total} games, best "
          f"of 2 per row; µs per decision = wall time × workers / decisions")
    print(tabulate(rows, headers=["workers", "affinity", "seconds", "games/s", "µs/decision (per worker)",
                                  "pinned speed-up"], disable_numparse=True, colalign=("right",) * 6))
    print("(target ≥ 1.8× pinned; pinning saves the cross-core wake-up of each round trip, not the referee's and "
          "the bot's own CPU per decision, which bounds the gain)\n")


def part_a(seconds: float, folder: str, probe: float, repeat: int) -> None:
    rate = calibrate(BOTS, min(2.0, seconds / 4))
    deals = max(1, round(seconds * rate / SEATS))
    config = config_for(BOTS, deals)
    total = schedule_size(len(BOTS), SEATS, deals)
    before = parallel_capacity(probe)
    rows, ratios, results, faults = [], [], [], 0
    for _ in range(repeat):  # 1 and 2 workers alternate, so that a change in the machine's load hits both
        t1, c1, places1, f1 = timed_run(config, 1, folder)
        t2, c2, places2, f2 = timed_run(config, 2, folder)
        ratios.append(t1 / t2)
        results += [places1, places2]
        faults += f1 + f2
        rows += [[1, f"{t1:.2f}", f"{total / t1:,.0f}", "", f"{c1:.2f}", f"{c1 / t1:.2f}", f"{1e3 * c1 / total:.2f}"],
                 [2, f"{t2:.2f}", f"{total / t2:,.0f}", f"{t1 / t2:.2f}", f"{c2:.2f}", f"{c2 / t2:.2f}",
                  f"{1e3 * c2 / total:.2f}"]]
    after = parallel_capacity(probe)
    print(f"(a) {GAME}, {SEATS} seats, in-process {', '.join(BOTS)}: {total} games ({deals} duplicate deals × "
          f"{SEATS} rotations), run_tournament end to end into a new SQLite file; {os.cpu_count()} CPUs")
    print(tabulate(rows, headers=["workers", "seconds", "games/s", "speed-up", "CPU s", "cores busy",
                                  "CPU ms/game"], disable_numparse=True, colalign=("right",) * 7))
    same = "yes" if all(r == results[0] for r in results) else "NO"
    median = float(np.median(ratios))
    print(f"speed-up of 2 workers over 1: {median:.2f}×{' (median)' if repeat > 1 else ''}  (target ≥ 1.8× on 2 "
          f"free cores); same results at 1 and 2 workers: {same}; faults: {faults}")
    print(f"cores this machine gave two busy processes (a CPU spin probe, before / after): {before:.2f} / "
          f"{after:.2f}; below 2 the machine is shared with other load and the speed-up is capped by it\n")


def part_b(seconds: float, folder: str) -> None:
    specs = ["cmd:" + shlex.join([sys.executable, "-c", COUNTED.format(env=PIDLOG, module=f"bots.{b}")])
             for b in BOTS]
    os.environ[PIDLOG] = str(Path(folder) / "pids-calibration.txt")
    rate = calibrate(specs, min(2.0, seconds / 4))
    deals = max(1, round(seconds * rate / SEATS))
    config = config_for(specs, deals)
    total = schedule_size(len(BOTS), SEATS, deals)
    rows = []
    base = 0.0
    for workers in (1, 2):
        log = Path(folder) / f"pids-{workers}.txt"
        log.write_text("")
        os.environ[PIDLOG] = str(log)
        elapsed, cpu, _, faults = timed_run(config, workers, folder)
        started = len(log.read_text().split())
        base = base or elapsed
        rows.append([workers, f"{elapsed:.2f}", f"{total / elapsed:,.0f}", f"{base / elapsed:.2f}",
                     f"{cpu / elapsed:.2f}", started, len(BOTS) * workers, faults])
    print(f"(b) {GAME}, {SEATS} seats, subprocess bots (python -m bots.{', bots.'.join(BOTS)}): {total} games")
    print(tabulate(rows, headers=["workers", "seconds", "games/s", "speed-up", "cores busy",
                                  "bot processes started", "expected (entrants × workers)", "faults"],
                   disable_numparse=True, colalign=("right",) * 8))
    print("(each bot command notes its pid in a file before running the module, so that processes started inside "
          "worker processes can be counted)\n")


def plackett_luce(rng: np.random.Generator, strength: np.ndarray) -> np.ndarray:
    """Places (1 = best) per row of log-strengths: sorting strength + Gumbel noise is a Plackett-Luce draw."""
    noisy = strength + rng.gumbel(size=strength.shape)
    order = np.argsort(-noisy, axis=1)
    places = np.empty_like(order)
    np.put_along_axis(places, order, np.arange(1, strength.shape[1] + 1)[None, :], axis=1)
    return places


def as_games(seating: np.ndarray, places: np.ndarray) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return list(zip(map(tuple, seating.tolist()), map(tuple, places.tolist()), strict=True))


def part_c(count: int) -> None:
    rng = np.random.default_rng(2024)
    elo = np.array([-350.0, -250.0, -150.0, -50.0, 50.0, 150.0, 250.0, 350.0])
    theta = elo / ELO
    n, k = len(elo), 4
    seating = np.argsort(rng.random((count, n)), axis=1)[:, :k]  # 4 distinct entrants in random seats
    games = as_games(seating, plackett_luce(rng, theta[seating]))
    start = time.perf_counter()
    result = fit(n, games)
    elapsed = time.perf_counter() - start
    error = result.rating - (1500 + elo)
    inside = int(np.sum(np.abs(error) <= result.ci))
    print(f"(c) final fit, {count:,} synthetic 4-seat games, {n} entrants of known strengths "
          f"(Elo {', '.join(f'{e:+.0f}' for e in elo)})")
    print(f"fit time: {elapsed:.3f} s  (target ≤ 2 s; {result.iterations} Newton iterations)")
    print(f"error of the recovered ratings: RMS {np.sqrt(np.mean(error ** 2)):.1f} Elo, max "
          f"{np.max(np.abs(error)):.1f} Elo; mean 95% half-width {np.mean(result.ci):.1f} Elo; "
          f"truth inside the interval for {inside} of {n} (on average 7.6 of 8 for a right 95% interval)")
    start = time.perf_counter()
    boot = bootstrap(n, games, samples=20, seed=1)
    each = (time.perf_counter() - start - elapsed) / 20  # less the fit that bootstrap() also makes
    print(f"bootstrap (--bootstrap B) on the same games: {1e3 * each:.0f} ms per sample (B = 200: "
          f"{200 * each + elapsed:.1f} s); mean half-width {np.mean(boot.ci):.1f} Elo\n")


def tournament(rng: np.random.Generator, theta: np.ndarray, seats: int, deals: int, duplicate: bool, luck: float,
               seed: int, boot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One synthetic tournament on the real schedule; a deal (deck seed) gives seat s the luck term ℓ_s,
    added to the log-strength of whoever sits there. Returns the fitted ratings, the information-matrix
    half-widths and (with ``boot`` samples, else NaN) the half-widths of the bootstrap over deals."""
    jobs = list(schedule(len(theta), seats, deals, seed=seed, duplicate=duplicate))
    seating = np.array([job.seating for job in jobs])
    _, deal = np.unique([job.seed for job in jobs], return_inverse=True)
    deal_luck = rng.normal(0.0, luck, (deal.max() + 1, seats))
    places = plackett_luce(rng, theta[seating] + deal_luck[deal.ravel()])
    games = as_games(seating, places)
    result = fit(len(theta), games)
    by_deal = (bootstrap(len(theta), games, samples=boot, seed=seed, deals=[job.seed for job in jobs]).ci if boot
               else np.full(len(theta), np.nan))
    return result.rating, result.ci, by_deal


def part_d(reps: int, games: int, lucks: list[float], boot_reps: int, boot_samples: int) -> None:
    elo = np.array([-150.0, -50.0, 50.0, 150.0])
    theta = elo / ELO
    rows = []
    for seats in (2, 4):
        per_deal = schedule_size(len(elo), seats, 1)
        deals = max(1, games // per_deal)
        for luck in lucks:
            stats = {}
            for duplicate in (False, True):
                rng = np.random.default_rng([seats, int(luck * 100), int(duplicate)])
                fitted = np.array([tournament(rng, theta, seats, deals, duplicate, luck, seed,
                                              boot_samples if seed < boot_reps else 0) for seed in range(reps)])
                ratings, cis, boots = fitted[:, 0, :], fitted[:, 1, :], fitted[:boot_reps, 2, :]
                stats[duplicate] = (float(np.mean(cis)), float(np.mean(np.std(ratings, axis=0, ddof=1))),
                                    float(np.mean(boots)))
            (ci_i, sd_i, bt_i), (ci_d, sd_d, bt_d) = stats[False], stats[True]
            rows.append([f"{seats} ({per_deal * deals} games)", f"{luck:g}", f"{ci_i:.1f}", f"{ci_d:.1f}",
                         f"{sd_i:.1f}", f"{sd_d:.1f}", f"{sd_d / sd_i:.2f}", f"{bt_i:.1f}", f"{bt_d:.1f}",
                         f"{bt_d / bt_i:.2f}", f"{ci_i / (1.96 * sd_i):.2f}", f"{ci_d / (1.96 * sd_d):.2f}",
                         f"{bt_d / (1.96 * sd_d):.2f}"])
    print(f"(d) duplicate against independent deals: 4 entrants (Elo {', '.join(f'{e:+.0f}' for e in elo)}), "
          f"{reps} tournaments each way per row ({boot_reps} of them also bootstrapped over deals, {boot_samples} "
          "samples), the same schedule size both ways")
    print(tabulate(rows, headers=["seats (games)", "luck σ", "CI indep", "CI dup", "spread indep", "spread dup",
                                  "spread dup/indep", "boot indep", "boot dup", "boot dup/indep",
                                  "CI/1.96·spread indep", "CI/1.96·spread dup", "boot/1.96·spread dup"],
                   disable_numparse=True, colalign=("left",) + ("right",) * 12))
    print("""
Model: each deal gives seat s a luck term ℓ_s ~ N(0, σ²) (in units of log-strength; 1 ≈ 174 Elo), added to the
log-strength of whoever sits in seat s; the finishing order is then a Plackett-Luce draw. Independent deals: a new
deal for every game. Duplicate: one deal is replayed under every seat rotation of its table, so every entrant gets
every seat's luck once. CI = mean 95% half-width reported by fit() (from the information matrix); spread = standard
deviation of an entrant's fitted rating across the repeated tournaments (Elo, mean over entrants); boot = mean 95%
half-width of the bootstrap over deals (`--bootstrap B`: all the games of a drawn deal stay together).

The empirical spread is the true precision, and it is what duplicate deals narrow ('spread dup/indep'). The
information-matrix CI cannot see it: it is computed game by game, and a single game's outcome has the same
distribution either way, so under duplicate it is conservative ('CI/1.96·spread dup' above 1). The bootstrap over
deals does see it, because it keeps the rotations of a deck together: it narrows with the spread ('boot dup/indep')
and stays close to the true precision ('boot/1.96·spread dup' near 1). With σ = 0 there is no luck to balance and
the two schedules are equivalent.""")
    print(f"(With {reps} tournaments per row a spread is known to about ±{100 / np.sqrt(2 * (reps - 1)):.0f}%, "
          f"so a ratio to about ±{100 * np.sqrt(2) / np.sqrt(2 * (reps - 1)):.0f}%.)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="target time at 1 worker in (a) and (b) "
                        "(default 10)")
    parser.add_argument("--fit-games", type=int, default=100_000, help="synthetic games for (c) (default 100000)")
    parser.add_argument("--reps", type=int, default=300, help="tournaments per row in (d) (default 300)")
    parser.add_argument("--games", type=int, default=600, help="games per tournament in (d) (default 600)")
    parser.add_argument("--boot-reps", type=int, default=20, help="tournaments per row in (d) that are also "
                        "bootstrapped over deals (default 20)")
    parser.add_argument("--boot-samples", type=int, default=100, help="bootstrap samples in (d) (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="run (a) this many times, 1 and 2 workers "
                        "alternating, and (e)'s local 2 workers and Dask likewise; the medians are reported "
                        "(default 3)")
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run of a few seconds")
    parser.add_argument("--parts", default="abcdef", help="which parts to run (default abcdef)")
    args = parser.parse_args()
    lucks = [0.0, 0.5, 1.0, 2.0]
    if args.quick:
        args.seconds, args.fit_games, args.reps, args.games, lucks = 1.0, 10_000, 30, 240, [0.0, 1.0]
        args.boot_reps, args.boot_samples = 5, 50
        args.repeat = 1
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
        if "a" in args.parts:
            part_a(args.seconds, folder, 0.5 if args.quick else 3.0, args.repeat)
        if "b" in args.parts:
            part_b(args.seconds, folder)
        if "e" in args.parts:
            part_e(args.seconds, folder, args.repeat)
        if "f" in args.parts:
            part_f(args.seconds, folder)
    if "c" in args.parts:
        part_c(args.fit_games)
    if "d" in args.parts:
        part_d(args.reps, args.games, lucks, args.boot_reps, args.boot_samples)


if __name__ == "__main__":
    main()
