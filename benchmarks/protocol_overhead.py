"""Protocol overhead: the referee's cost per decision against the raw cost of a pipe round trip.

Measured in one run, on the same machine:

(a) the raw round trip of one msgpack frame through a pipe to a minimal Python echo process (tests/fixtures/echo.py),
    bare msgpack on both sides: write the frame, read the echo, decode it with ``msgpack.Unpacker``. The frame is a
    real durak request, observation included, so both sides move the bytes a decision moves. Nothing of the
    referee's is in it: it is the floor a Python referee and a Python bot cannot go below;
(a') the same round trip decoded by the referee's :class:`~protocol.wire.FrameDecoder` (its bounds and depth check,
    on a 1 KB frame): the definition of (a) before issue 15's profile, printed for comparison with earlier figures;
(b) the referee's wall-clock per decision playing durak (2 seats) against two subprocess ``random`` bots
    (``python -m bots.random``, the Python SDK), everything included: the engine, the observation, building and
    encoding the request, the pipes, the bot's decoding, choice and reply, decoding the reply, applying it.

"The referee's cost per decision" is (b), and the ratio the issue targets is (b)/(a): wall clock per decision
over wall clock per raw round trip. To show where (b) goes, the CPU time of each process is printed per decision
(Linux: /proc; the referee's own from ``time.process_time``): the referee process, the two bots together, and the
two sides of the echo. With everything on one core (``taskset -c 0``), wall ≈ the sum of the CPU times.
It also counts how many bot processes the games started (one per bot is the goal: processes are reused).

    taskset -c 0 python benchmarks/protocol_overhead.py [--games 300] [--echo 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgpack

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


def cpu_seconds(pids: Sequence[int]) -> float | None:
    """The CPU time (user + system) the processes ``pids`` have used so far; None where /proc does not tell."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    try:
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    except (OSError, IndexError, ValueError):
        return None
    return total / tick


class Split:
    """Wall clock, this process's CPU and some children's CPU over a stretch of work, each per unit of it."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = pids
        self.wall, self.mine, self.theirs = time.perf_counter(), time.process_time(), cpu_seconds(pids)

    def stop(self, units: int) -> tuple[float, float, float | None]:
        theirs = cpu_seconds(self.pids)
        return ((time.perf_counter() - self.wall) / units, (time.process_time() - self.mine) / units,
                None if theirs is None or self.theirs is None else (theirs - self.theirs) / units)


def bare_decoder() -> Callable[[bytes], list]:
    unpacker = msgpack.Unpacker(raw=False)

    def feed(data: bytes) -> list:
        unpacker.feed(data)
        return list(unpacker)
    return feed


def echo_round_trip(frames: int, decode: Callable[[bytes], list]) -> tuple[tuple[float, float, float | None], int]:
    """Seconds per round trip of one request-sized frame through a pipe to an echo process (wall, own CPU, the echo
    process's CPU), the echoed frame read back with ``decode``; and the frame's size."""
    data = pack(sample_request())
    transport = ProcessTransport([sys.executable, ECHO])
    try:
        fd_in, fd_out = transport._in, transport._out  # the raw pipe, no referee logic
        os.set_blocking(fd_out, True)
        split = Split([transport.pid])
        for _ in range(frames):
            os.write(fd_in, data)
            got: list = []
            while not got:
                got = decode(os.read(fd_out, 65536))
        figures = split.stop(frames)
    finally:
        transport.close()
    return figures, len(data)


def referee_per_decision(games: int) -> tuple[tuple[float, float, float | None], int, list[int]]:
    """Seconds per decision (wall, the referee's CPU, the bots' CPU), durak 2 seats, both seats subprocess random
    bots reused across games; the decisions; each bot's process starts."""
    bots = [RemoteBot(lambda: ProcessTransport([sys.executable, "-m", "bots.random"]), name="random")
            for _ in range(2)]
    game = Durak()
    try:
        for b in bots:  # start outside the timed loop: process start-up is counted separately below
            b.start()
        pids = [b.transport.pid for b in bots if isinstance(b.transport, ProcessTransport)]
        decisions = 0
        split = Split(pids)
        for seed in range(games):
            record = play_game(game, bots, seed=seed)
            assert not record.faults, record.faults
            decisions += record.decisions
        figures = split.stop(decisions)
        starts = [b.starts for b in bots]
    finally:
        for b in bots:
            b.close()
    return figures, decisions, starts


def _us(seconds: float | None) -> str:
    return "   n/a" if seconds is None else f"{seconds * 1e6:6.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games for (b) (default 300)")
    parser.add_argument("--echo", type=int, default=20000, help="round trips for (a) and (a') (default 20000)")
    args = parser.parse_args()
    (raw, raw_own, raw_echo), size = echo_round_trip(args.echo, bare_decoder())
    (checked, checked_own, checked_echo), _ = echo_round_trip(args.echo, FrameDecoder(1 << 20).feed)
    (per_decision, referee, bots), decisions, starts = referee_per_decision(args.games)
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(f"cores this run may use: {affinity if affinity is not None else 'unknown'}")
    print("                                                    wall µs   CPU µs: this side | the other")
    print(f"(a)  raw msgpack echo round trip, {size}-byte frame:  {_us(raw)}   {_us(raw_own)} (main) | "
          f"{_us(raw_echo)} (echo)   ({args.echo} round trips)")
    print(f"(a') the same, read by the referee's FrameDecoder:  {_us(checked)}   {_us(checked_own)} (main) | "
          f"{_us(checked_echo)} (echo)")
    print(f"(b)  referee cost per decision, durak 2 seats:      {_us(per_decision)}   {_us(referee)} (referee) | "
          f"{_us(bots)} (both bots)   ({decisions} decisions in {args.games} games, "
          f"{1 / (per_decision * decisions / args.games):.0f} games/s)")
    print(f"(b)/(a) = {per_decision / raw:.2f}   (b)/(a') = {per_decision / checked:.2f}   "
          f"(issue 15's target: (b)/(a) ≤ 1.3)")
    if bots is not None and raw_echo is not None:  # CPU time: what other work on a busy machine inflates least
        print(f"by CPU time, (referee + bots)/(main + echo) = {(referee + bots) / (raw_own + raw_echo):.2f}; "
              f"the referee alone against the main side of (a): {referee / raw_own:.2f}")
    print(f"bot processes started for {args.games} games: {sum(starts)} ({' + '.join(map(str, starts))}, one per bot)")

if __name__ == "__main__":
    main()
