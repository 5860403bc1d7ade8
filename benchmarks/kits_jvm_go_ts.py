"""Per-request cost of the TypeScript, Go and Java starter kits' bots (bots/kits/, issue 38) against the Python
SDK's, by the method of protocol_overhead.py (b): durak, 2 seats, both seats the same subprocess bot (two
processes, reused across games, no sandbox), in interleaved rounds so that each sees the same load. Per decision:
the wall clock (the referee included, the same for all) and the CPU of the two bot processes; the first two games of
each bot are not counted (start-up, JIT warm-up: a bot process is reused for game after game).

Build the kits first (their README, or ``pytest tests/integration/test_kits.py``), then

    python benchmarks/kits_jvm_go_ts.py [--games 30] [--rounds 6] [--only "random"]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from functools import partial
from pathlib import Path

from protocol_overhead import Games

from referee.remote import RemoteBot
from referee.transport import ProcessTransport

ROOT = Path(__file__).resolve().parents[1]
KITS = ROOT / "bots" / "kits"
BOTS = {
    "python-sdk random": [sys.executable, "-m", "bots.random"],
    "typescript random": ["node", str(KITS / "typescript" / "random.js")],
    "go random": [str(KITS / "go" / "bin" / "random")],
    "java random": [str(KITS / "java" / "random")],
    "python lowest": [sys.executable, str(ROOT / "bots" / "examples" / "python" / "lowest.py")],
    "typescript lowest": ["node", str(KITS / "typescript" / "lowest.js")],
    "go lowest": [str(KITS / "go" / "bin" / "lowest")],
    "java lowest": [str(KITS / "java" / "lowest")],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games per bot and round")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--only", default="", help="only the bots whose name contains one of these (comma-separated)")
    args = parser.parse_args()
    only = [word for word in args.only.split(",") if word]
    runs: dict[str, tuple[Games, list[RemoteBot], list[float], list[float]]] = {}
    for name, argv in BOTS.items():
        if only and not any(word in name for word in only):
            continue
        bots = [RemoteBot(partial(ProcessTransport, argv, cwd=str(ROOT)), name=name) for _ in range(2)]
        for bot in bots:
            bot.start()
        run = Games(bots)
        run.run(2)  # start-up and warm-up: not counted
        run.meter = type(run.meter)(run.meter.pids)
        runs[name] = (run, bots, [], [])
    try:
        for _ in range(args.rounds):
            for run, _bots, walls, cpus in runs.values():
                wall, theirs, units = run.meter.wall, run.meter.theirs, run.meter.units
                run.run(args.games)
                n = run.meter.units - units
                walls.append((run.meter.wall - wall) / n * 1e6)
                if run.meter.theirs is not None and theirs is not None:
                    cpus.append((run.meter.theirs - theirs) / n * 1e6)
    finally:
        for _run, bots, _walls, _cpus in runs.values():
            for bot in bots:
                bot.close()
    print(f"durak, 2 seats, {args.games} games x {args.rounds} rounds per bot; medians of the rounds, per decision")
    for name, (run, _bots, walls, cpus) in runs.items():
        cpu = f"{statistics.median(cpus):5.0f} us" if cpus else "   n/a"
        print(f"{name:18}  wall {statistics.median(walls):5.0f} us (best round {min(walls):5.0f})  "
              f"bots' CPU {cpu}  ({run.meter.units} decisions)")


if __name__ == "__main__":
    main()
