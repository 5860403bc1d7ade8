"""What the sandbox costs (referee/sandbox.py): program bots with ``--sandbox on`` against ``off``, in one run.

Three figures, each measured both ways, taking turns so that both see the same machine (load included):

(a) bot start: from starting the process to its hello (``python -m bots.random``: interpreter start, imports,
    handshake; under the sandbox also bwrap setting up the namespaces and mounts), median of ``--starts``;
(b) µs per decision: durak, 2 seats, both seats ``python -m bots.random`` processes reused across games, everything
    included (engine, observation, encoding, the bot's reply);
(c) games/s of the same games (one process, no workers).

    python benchmarks/sandbox.py [--games 200] [--starts 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from referee.match import play_game
from referee.plugins import load_registry
from referee.remote import RemoteBot
from referee.sandbox import Sandbox, probe
from referee.transport import ProcessTransport

ARGV = [sys.executable, "-m", "bots.random"]
DURAK = load_registry().game("durak")


def remote(sandbox: Sandbox) -> RemoteBot:
    return RemoteBot(lambda: ProcessTransport(ARGV, popen=sandbox.popen), name="random")


def true_time(sandbox: Sandbox) -> float:
    """Seconds to run ``true`` to its end: the sandbox's own set-up and tear-down, alone."""
    start = time.perf_counter()
    sandbox.popen(["true"]).wait()
    return time.perf_counter() - start


def start_time(sandbox: Sandbox) -> float:
    """Seconds from starting the bot to its hello."""
    bot = remote(sandbox)
    start = time.perf_counter()
    bot.start()
    elapsed = time.perf_counter() - start
    bot.close()
    return elapsed


def play(settings: dict[str, Sandbox], games: int, batch: int = 10) -> dict[str, tuple[float, int]]:
    """Seconds of play and decisions per setting for ``games`` games between two program bots (started before
    the clock), the settings taking turns every ``batch`` games."""
    bots = {name: [remote(sandbox) for _ in range(2)] for name, sandbox in settings.items()}
    totals = {name: (0.0, 0) for name in settings}
    try:
        for pair in bots.values():
            for bot in pair:
                bot.start()
        for first in range(0, games, batch):
            for name, pair in bots.items():
                decisions = 0
                start = time.perf_counter()
                for seed in range(first, min(first + batch, games)):
                    record = play_game(DURAK, pair, seed=seed)
                    assert not record.faults, record.faults
                    decisions += record.decisions
                seconds, before = totals[name]
                totals[name] = (seconds + time.perf_counter() - start, before + decisions)
        return totals
    finally:
        for pair in bots.values():
            for bot in pair:
                bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per setting for (b) and (c) (default 200)")
    parser.add_argument("--starts", type=int, default=20, help="bot starts per setting for (a) (default 20)")
    args = parser.parse_args()
    problem = probe()
    if problem is not None:
        sys.exit(f"the sandbox does not work here: {problem}")
    settings = {"off": Sandbox(enabled=False), "on": Sandbox()}
    starts: dict[str, list[float]] = {name: [] for name in settings}
    trues: dict[str, list[float]] = {name: [] for name in settings}
    for _ in range(args.starts):  # interleaved
        for name, sandbox in settings.items():
            starts[name].append(start_time(sandbox))
            trues[name].append(true_time(sandbox))
    played = play(settings, args.games)
    start_ms = {name: statistics.median(times) * 1000 for name, times in starts.items()}
    true_ms = {name: statistics.median(times) * 1000 for name, times in trues.items()}
    per_decision = {name: seconds / decisions * 1e6 for name, (seconds, decisions) in played.items()}
    rate = {name: args.games / seconds for name, (seconds, _) in played.items()}
    print(f"{'':28}{'off':>10}{'on':>10}{'on/off':>9}")
    print(f"(0) run 'true', ms          {true_ms['off']:10.1f}{true_ms['on']:10.1f}"
          f"{true_ms['on'] / true_ms['off']:9.2f}   (the sandbox's set-up alone)")
    print(f"(a) bot start to hello, ms  {start_ms['off']:10.1f}{start_ms['on']:10.1f}"
          f"{start_ms['on'] / start_ms['off']:9.2f}   (median of {args.starts})")
    print(f"(b) µs per decision         {per_decision['off']:10.1f}{per_decision['on']:10.1f}"
          f"{per_decision['on'] / per_decision['off']:9.2f}   ({played['on'][1]} decisions, durak 2 seats)")
    print(f"(c) games/s                 {rate['off']:10.1f}{rate['on']:10.1f}{rate['on'] / rate['off']:9.2f}"
          f"   ({args.games} games each)")


if __name__ == "__main__":
    main()
