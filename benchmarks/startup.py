"""How fast the ``referee`` command starts: whole processes, this tree against another checkout, in one run.

Each command is run as ``python -m referee ...`` with ``PYTHONPATH`` set to this tree (A) and to the other checkout
(B: a ``git worktree`` of the commit to compare with), taking turns A B A B so both see the same machine. Wall time
and CPU time (user + system, the children's own accounting) are measured per run; printed are the min and the median
of each, and the ratio B/A of the medians (how many times faster A starts).

    git worktree add /tmp/referee-base BASE_COMMIT
    python benchmarks/startup.py --other /tmp/referee-base [--runs 10]

Where the time goes, one import at a time: ``python -X importtime -m referee games 2> imports.txt``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = [
    ["--version"],
    ["games"],
    ["play", "durak", "-b", "random", "-b", "random", "--seed", "1"],
]


def run_once(tree: Path, args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``python -m referee ARGS`` run from ``tree``."""
    # as a user's installation runs: from bytecode caches (the warm-up writes them), whatever this shell says
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "referee", *args], env=env, cwd=tree, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"referee {' '.join(args)} failed in {tree}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def figures(runs: list[tuple[float, float]], k: int) -> tuple[float, float]:
    """The min and the median of figure ``k`` (0: wall, 1: CPU) of ``runs``."""
    values = [run[k] for run in runs]
    return min(values), statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--other", type=Path, required=True, help="the checkout to compare with (B)")
    parser.add_argument("--runs", type=int, default=10, help="runs of each command in each tree")
    args = parser.parse_args()
    trees = {"A": ROOT, "B": args.other.resolve()}
    print(f"A: {trees['A']}\nB: {trees['B']}\n{args.runs} runs each, taking turns; seconds: min / median")
    print(f"{'command':<50} {'A wall':>15} {'B wall':>15} {'B/A':>5} {'A cpu':>15} {'B cpu':>15} {'B/A':>5}")
    for command in COMMANDS:
        for tree in trees.values():  # a warm-up each: the file cache, the bytecode
            run_once(tree, command)
        runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
        for _ in range(args.runs):
            for name, tree in trees.items():
                runs[name].append(run_once(tree, command))

        cells = []
        for k in (0, 1):
            (a_min, a_med), (b_min, b_med) = figures(runs["A"], k), figures(runs["B"], k)
            cells += [f"{a_min:.3f} / {a_med:.3f}", f"{b_min:.3f} / {b_med:.3f}", f"{b_med / a_med:.1f}"]
        label = "referee " + " ".join(command)
        print(f"{label:<50} {cells[0]:>15} {cells[1]:>15} {cells[2]:>5} {cells[3]:>15} {cells[4]:>15} {cells[5]:>5}")


if __name__ == "__main__":
    main()
