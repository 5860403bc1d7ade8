"""Protocol overhead: the referee's cost per decision against the raw cost of a pipe round trip.

Measured in one run, on the same machine:

(a) the raw round trip of one msgpack frame through a pipe to a minimal Python echo process (the frame is a
    real durak request, observation included, so both sides move the same bytes);
(b) the referee's wall-clock cost per decision playing durak (2 seats) against two subprocess ``random`` bots
    (``python -m bots.random``), everything included: engine, observation, encoding, the bot's reply;

and prints both and (b)/(a). It also counts how many bot processes 100 games started (one per bot is the
goal: processes are reused across games).

    python benchmarks/protocol_overhead.py [--games 300] [--echo 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from protocol.bot import Decision
from protocol.wire import FrameDecoder, pack, request
from referee.games.durak import Durak
from referee.match import play_game
from referee.remote import RemoteBot
from referee.transport import ProcessTransport

#: the echo bot (a file, so that a test and the benchmark run the same one)
ECHO = str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "echo.py")


def sample_request() -> dict:
    """A real request frame from the middle of a durak game."""
    state = Durak().new_state(2, 7)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    seat = state.to_act
    d = Decision(seat, state.legal_actions(), lambda: state.observe(seat, 0))
    return request(id=1, observation=d.observation, legal=[a.text for a in d.legal], deadline_ms=1000)


def echo_round_trip(frames: int) -> tuple[float, int]:
    """Seconds per round trip of one request-sized frame through a pipe to an echo process."""
    message = sample_request()
    data = pack(message)
    transport = ProcessTransport([sys.executable, ECHO])
    decoder = FrameDecoder(1 << 20)
    try:
        fd_in, fd_out = transport._in, transport._out  # the raw pipe, no referee logic
        os.set_blocking(fd_out, True)
        start = time.perf_counter()
        for _ in range(frames):
            os.write(fd_in, data)
            got: list = []
            while not got:
                got = decoder.feed(os.read(fd_out, 65536))
        elapsed = time.perf_counter() - start
    finally:
        transport.close()
    return elapsed / frames, len(data)


def referee_per_decision(games: int) -> tuple[float, int, list[int]]:
    """Seconds per decision, durak 2 seats, both seats subprocess random bots reused across games."""
    bots = [RemoteBot(lambda: ProcessTransport([sys.executable, "-m", "bots.random"]), name="random")
            for _ in range(2)]
    game = Durak()
    try:
        for b in bots:  # start outside the timed loop: process start-up is counted separately below
            b.start()
        decisions = 0
        start = time.perf_counter()
        for seed in range(games):
            record = play_game(game, bots, seed=seed)
            assert not record.faults, record.faults
            decisions += record.decisions
        elapsed = time.perf_counter() - start
        starts = [b.starts for b in bots]
    finally:
        for b in bots:
            b.close()
    return elapsed / decisions, decisions, starts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games for (b) (default 300)")
    parser.add_argument("--echo", type=int, default=20000, help="round trips for (a) (default 20000)")
    args = parser.parse_args()
    raw, size = echo_round_trip(args.echo)
    per_decision, decisions, starts = referee_per_decision(args.games)
    print(f"(a) raw msgpack echo round trip, {size}-byte frame: {raw * 1e6:8.1f} µs  ({args.echo} round trips)")
    print(f"(b) referee cost per decision, durak 2 seats:     {per_decision * 1e6:8.1f} µs  "
          f"({decisions} decisions in {args.games} games, {1 / (per_decision * decisions / args.games):.0f} games/s)")
    print(f"(b)/(a) = {per_decision / raw:.2f}   (target ≤ 1.5)")
    print(f"bot processes started for {args.games} games: {sum(starts)} ({' + '.join(map(str, starts))}, one per bot)")


if __name__ == "__main__":
    main()
