"""Protocol overhead: the referee's cost per decision against the raw cost of a pipe round trip.

Measured in one run, on the same machine:

(a) the raw round trip of one msgpack frame through a pipe to a minimal Python echo process (tests/fixtures/echo.py),
    bare msgpack on both sides: write the frame, read the echo, decode it with ``msgpack.Unpacker``. The frame is a
    real durak request, observation included, so both sides move the bytes a decision moves. Nothing of the
    referee's is in it: it is the floor a Python referee and a Python bot cannot go below;
(a') the same round trip decoded by the referee's :class:`~protocol.wire.FrameDecoder` (its bounds and depth check,
    on a 1 KB frame): the definition of (a) before issue 15's profile, printed for comparison with earlier figures;
(a'') the same request answered by a short reply (the first legal action, a few dozen bytes; tests/fixtures/answer.py),
    as a bot that decides at once: issue 39's floor. By CPU, the referee per decision and the bot side per decision,
    each against what the answering process spends on one frame (targets 1.3 and 1.2);
(b) the referee's wall-clock per decision playing durak (2 seats) against two subprocess ``random`` bots
    (``python -m bots.random``, the Python SDK), everything included: the engine, the observation, building and
    encoding the request, the pipes, the bot's decoding, choice and reply, decoding the reply, applying it;
(b0) the same games against two bare bots (tests/fixtures/bare_bot.py: bare msgpack, the first legal action): the
    floor of both sides in the same games, with the same requests and the same company on the core;
(b1) the referee's work of as many decisions without bots or pipes, in this process, on the same deals played at
    random: the engine, then the observation, then the request built and encoded: what the referee must spend
    before it writes a byte;
(b2) the bot side alone: the frames the referee wrote to both seats in games like (b)'s, replayed by this process to
    one bot process at a time (a frame written, a request's reply read back, nothing else on the core), the SDK's
    random bot against the bare bot of (b0), on the very same frames; the bot's CPU from ``os.wait4`` less that of a
    run that only says hello. What the SDK's code costs, without what three processes on one core cost each other;
(c) what pinning can save (issue 15's pinned workers): a 1-byte round trip through a pipe to a process that only
    writes the byte back, both on one core, on two different cores, and unpinned, interleaved, the best of three;
    from it, how much faster (b) can be pinned than unpinned at most;
(d) what freezing costs (issue 33): (b) again with both bots in the sandbox, frozen between their requests by the
    cgroup freezer, by signals (the fallback without cgroups), and not frozen, interleaved rounds; the referee's CPU
    per decision against the one not frozen (the bound: at most 10 % more).

"The referee's cost per decision" is (b), and the ratio the issue targets is (b)/(a): wall clock per decision
over wall clock per raw round trip. To show where (b) goes, the CPU time of each process is printed per decision
(Linux: /proc; the referee's own from ``time.process_time``): the referee process, the two bots together, and the
two sides of the echo. With everything on one core (``taskset -c 0``), wall ≈ the sum of the CPU times.
The three are measured in interleaved rounds (``--rounds``), so that each sees the same load on a shared machine.
It also counts how many bot processes the games started (one per bot is the goal: processes are reused).

(e) with ``--kit NAME`` (the bots of a starter kit, bots/kits/NAME/kit.json, built) or ``--bot-argv CMD`` (any program
    bot), repeatable: the games of (b) again, both seats played by that bot, in the same interleaved rounds as (b), and
    per request (one decision is one request to one bot) the wall clock and the two bots' CPU against (b)'s Python SDK
    random bot (issue 38's bound: a kit's bot takes less than twice as long). (c) and (d) are then left out. The
    first :data:`WARM_UP` games of (b) and (e) are not counted (a JIT's warm-up: Java, node).

    taskset -c 0 python benchmarks/protocol_overhead.py [--games 300] [--echo 20000] [--rounds 10]
    python benchmarks/protocol_overhead.py --kit cpp --kit rust --games 100
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgpack

from protocol.bot import Decision
from protocol.wire import FrameDecoder, pack, packer, request
from referee import cgroups
from referee.games.durak import Durak
from referee.match import play_game
from referee.remote import RemoteBot
from referee.sandbox import Sandbox, probe
from referee.transport import ProcessTransport

#: the echo bot (a file, so that a test and the benchmark run the same one)
ECHO = str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "echo.py")
#: games each program bot plays before the timed rounds of (b) and (e): a bot process is reused for game after game
WARM_UP = 2
#: (a''): answers each request with a short reply (the first legal action), as a bot that decides at once
ANSWER = str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "answer.py")
#: (b0): a bare msgpack bot that plays the first legal action, as little as a bot can do: the floor in the same games
BARE = str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bare_bot.py")
#: the starter kits (docs/SDK.md), each described by its kit.json
KITS = Path(__file__).resolve().parents[1] / "bots" / "kits"

#: a program bot measured in (e): its name and how to start it (argv, working directory)
ProgramBot = tuple[str, list[str], str | None]


def kit_bots(name: str) -> list[ProgramBot]:
    """Every bot of the kit bots/kits/NAME (its kit.json), which must be built: ``NAME-BOT``, its argv, its folder."""
    folder = KITS / name
    try:
        kit = json.loads((folder / "kit.json").read_text(encoding="utf-8"))
    except OSError as error:
        raise SystemExit(f"protocol_overhead: no kit {name!r} ({error}); the kits: "
                         f"{', '.join(sorted(p.parent.name for p in KITS.glob('*/kit.json')))}") from None
    bots: list[ProgramBot] = []
    for bot, (first, *rest) in kit["bots"].items():
        program = str(folder / first) if "/" in first else first
        if "/" in first and not os.access(program, os.X_OK):
            raise SystemExit(f"protocol_overhead: {program} is not built: run the build of {folder / 'kit.json'}")
        bots.append((f"{name}-{bot}", [program, *rest], str(folder)))
    return bots


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


class Meter:
    """Wall clock, this process's CPU and some other processes' CPU, summed over the stretches of work measured with
    it (``with meter:``), and how many units (round trips, decisions) they did."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = pids
        self.wall = self.mine = 0.0
        self.theirs: float | None = 0.0
        self.units = 0

    def __enter__(self) -> Meter:
        self._at = time.perf_counter(), time.process_time(), cpu_seconds(self.pids)
        return self

    def __exit__(self, *exc: object) -> None:
        wall, mine, theirs = self._at
        self.wall += time.perf_counter() - wall
        self.mine += time.process_time() - mine
        now = cpu_seconds(self.pids)
        self.theirs = None if now is None or theirs is None or self.theirs is None else self.theirs + now - theirs

    def per_unit(self) -> tuple[float, float, float | None]:
        """Seconds per unit: wall, this process's CPU, the others' CPU (None where unknown)."""
        n = max(self.units, 1)
        return self.wall / n, self.mine / n, None if self.theirs is None else self.theirs / n


def bare_decoder() -> Callable[[bytes], list]:
    unpacker = msgpack.Unpacker(raw=False)

    def feed(data: bytes) -> list:
        unpacker.feed(data)
        return list(unpacker)
    return feed


class Echo:
    """(a) and (a'): round trips of one request-sized frame through a pipe to the echo process, the echo read back
    with ``decode``."""

    def __init__(self, transport: ProcessTransport, decode: Callable[[bytes], list]) -> None:
        self.data = pack(sample_request())
        self.fd_in, self.fd_out = transport._in, transport._out  # the raw pipe, no referee logic
        os.set_blocking(self.fd_out, True)
        self.decode = decode
        self.meter = Meter([transport.pid])

    def run(self, frames: int) -> None:
        data, fd_in, fd_out, decode = self.data, self.fd_in, self.fd_out, self.decode
        with self.meter:
            for _ in range(frames):
                os.write(fd_in, data)
                got: list = []
                while not got:
                    got = decode(os.read(fd_out, 65536))
        self.meter.units += frames


class Games:
    """(b): durak games, 2 seats, both seats subprocess random bots reused across games, seeds 0, 1, 2…"""

    def __init__(self, bots: list[RemoteBot]) -> None:
        self.bots, self.game, self.seed = bots, Durak(), 0
        self.counted_from = 0  # the first game the meter counts (after the warm-up)
        self.meter = Meter([b.transport.pid for b in bots if isinstance(b.transport, ProcessTransport)])

    @property
    def games(self) -> int:
        """The games the meter counts."""
        return self.seed - self.counted_from

    def run(self, games: int) -> None:
        with self.meter:
            for _ in range(games):
                record = play_game(self.game, self.bots, seed=self.seed)
                assert not record.faults, record.faults
                self.seed += 1
                self.meter.units += record.decisions


class Compute:
    """(b1): the referee's work of a decision without a bot or a pipe, in this process: the engine alone (legal
    actions, apply), then with each decision's observation built, then with its request built and encoded as well;
    CPU seconds per decision of each, on (b)'s deals (seeds 0, 1, 2…) played at random."""

    STAGES = ("engine", "+ observation", "+ request encoded")

    def __init__(self) -> None:
        self.cpu = dict.fromkeys(self.STAGES, 0.0)
        self.decisions = dict.fromkeys(self.STAGES, 0)
        self.seed = 0

    def run(self, games: int) -> None:
        import random

        game, encode = Durak(), packer()
        for depth, stage in enumerate(self.STAGES):
            started = time.process_time()
            for seed in range(self.seed, self.seed + games):
                state, rng, since = game.new_state(2, seed), random.Random(seed), [0, 0]
                while (seat := state.to_act) is not None:
                    legal = state.legal_actions()
                    if depth:
                        observation = state.observe(seat, since[seat])
                        since[seat] = state.log_size
                        if depth > 1:
                            encode(request(id=seat, observation=observation, legal=[a.text for a in legal],
                                           deadline_ms=1000))
                    state._apply(legal[int(rng.random() * len(legal))])
                    self.decisions[stage] += 1
            self.cpu[stage] += time.process_time() - started
        self.seed += games

    def per_decision(self, stage: str) -> float:
        return self.cpu[stage] / max(self.decisions[stage], 1)


class Recording(ProcessTransport):
    """A transport that keeps a copy of every frame it writes (for (b2))."""

    def __init__(self, argv: list[str], frames: list[bytes]) -> None:
        super().__init__(argv)
        self.frames = frames

    def send(self, message: dict, deadline: float) -> None:
        self.frames.append(pack(message))
        super().send(message, deadline)


class Alone:
    """(b2): each bot of ``argvs`` fed the frames two SDK random bots were written in ``games`` durak games (seat 0's,
    then seat 1's: one hello, then their games), alone, ``passes`` times over in one process, in ``rounds``
    interleaved rounds; CPU µs per request, the median of the rounds."""

    def __init__(self, games: int) -> None:
        seats: list[list[bytes]] = [[], []]
        def recorder(frames: list[bytes]) -> Callable[[], ProcessTransport]:
            return lambda: Recording([sys.executable, "-m", "bots.random"], frames)

        bots = [RemoteBot(recorder(frames), name="random") for frames in seats]
        try:
            for b in bots:
                b.start()
            for seed in range(games):
                play_game(Durak(), bots, seed=seed)
        finally:
            for b in bots:
                b.close()
        kinds = [[msgpack.unpackb(f)["type"] for f in frames] for frames in seats]
        self.hello = seats[0][:1]
        self.frames = [f for frames, types in zip(seats, kinds, strict=True)
                       for f, kind in zip(frames, types, strict=True) if kind not in ("hello", "bye")]
        self.answered = [msgpack.unpackb(f)["type"] == "request" for f in self.frames]

    def _run(self, argv: list[str], passes: int) -> tuple[float, int]:
        """CPU seconds of a bot fed the hello and then the frames ``passes`` times, and the requests it answered."""
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        fd_in, fd_out, unpacker, requests = process.stdin.fileno(), process.stdout.fileno(), msgpack.Unpacker(), 0
        stream = list(zip(self.frames, self.answered, strict=True))
        try:
            for frame, answered in [(f, True) for f in self.hello] + stream * passes:
                os.write(fd_in, frame)
                if answered:  # its reply read back before the next frame: one request in flight, as in a game
                    while next(unpacker, None) is None:
                        data = os.read(fd_out, 65536)
                        if not data:
                            raise BrokenPipeError
                        unpacker.feed(data)
                    requests += 1
        except BrokenPipeError:
            process.kill()
            process.wait()
            raise SystemExit(f"protocol_overhead: {' '.join(argv)} ended early in (b2)") from None
        process.stdin.close()
        _, status, usage = os.wait4(process.pid, 0)
        process.stdout.close()
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"protocol_overhead: {' '.join(argv)} failed in (b2)")
        return usage.ru_utime + usage.ru_stime, requests - len(self.hello)

    def per_request(self, argvs: dict[str, list[str]], requests: int, rounds: int) -> dict[str, float]:
        """Each bot's CPU seconds per request, fed about ``requests`` requests a run (the CPU time the kernel
        reports moves in clock ticks: a run must take many of them)."""
        passes = max(1, -(-requests // max(1, sum(self.answered))))
        runs: dict[str, list[float]] = {name: [] for name in argvs}
        for _ in range(rounds):
            for name, argv in argvs.items():
                hello, _ = self._run(argv, 0)
                used, requests = self._run(argv, passes)
                runs[name].append((used - hello) / requests)
        return {name: statistics.median(v) for name, v in runs.items()}


def sandboxed_bots(cgroups_mode: str) -> list[RemoteBot]:
    """Two subprocess random bots in the sandbox, their cgroups as ``REFEREE_CGROUPS=cgroups_mode`` makes them."""
    os.environ[cgroups.MODE_ENV] = cgroups_mode
    cgroups.support.cache_clear()
    try:
        bots = [RemoteBot(lambda: ProcessTransport([sys.executable, "-m", "bots.random"], popen=Sandbox().popen),
                          name="random") for _ in range(2)]
        for b in bots:
            b.start()
    finally:
        os.environ.pop(cgroups.MODE_ENV)
        cgroups.support.cache_clear()
    return bots


class Unfrozen:
    """Sandboxed bots whose transports do not freeze them (their groups set aside until they close)."""

    def __init__(self, bots: list[RemoteBot]) -> None:
        self.bots = bots
        self.groups = []
        for b in bots:
            assert isinstance(b.transport, ProcessTransport)
            b.transport.resume()  # frozen after its hello
            self.groups.append(b.transport.group)
            b.transport.group = None

    def close(self) -> None:
        for b, group in zip(self.bots, self.groups, strict=True):
            assert isinstance(b.transport, ProcessTransport)
            b.transport.group = group
            b.close()


def freezing(games: int, rounds: int) -> dict[str, Games] | None:
    """(d): the referee's cost per decision as in (b), the bots in the sandbox: frozen between their requests by the
    cgroup freezer, by signals (no cgroups), and not frozen; interleaved rounds. None without a working sandbox."""
    if probe() is not None:
        return None
    kinds = {"cgroup freezer": sandboxed_bots("auto"), "signals": sandboxed_bots("off")}
    plain = Unfrozen(sandboxed_bots("auto"))
    runs = {**{name: Games(bots) for name, bots in kinds.items()}, "not frozen": Games(plain.bots)}
    try:
        for i in range(rounds):
            for run in runs.values():
                run.run(games // rounds + (i < games % rounds))
    finally:
        plain.close()
        for bots in kinds.values():
            for b in bots:
                b.close()
    return runs


def program_bots(argv: list[str], cwd: str | None, name: str) -> list[RemoteBot]:
    """Two processes of one program bot, for the two seats of a game."""
    return [RemoteBot(lambda: ProcessTransport(argv, cwd=cwd), name=name) for _ in range(2)]


def measure(games: int, frames: int, rounds: int,
            others: Sequence[ProgramBot] = ()) -> tuple[Echo, Echo, Echo, Games, Games, Compute, list[int],
                                                        dict[str, Games]]:
    """(a), (a') and (b), and (e) for each of ``others``, in ``rounds`` interleaved rounds, so that each sees the same
    machine (others' work on a shared machine comes and goes: measured one after the other, a ratio would compare
    two different loads)."""
    echo = ProcessTransport([sys.executable, ECHO])
    answer = ProcessTransport([sys.executable, ANSWER])
    bots = program_bots([sys.executable, "-m", "bots.random"], None, "random")
    bare = program_bots([sys.executable, BARE], None, "bare")
    extra = {name: program_bots(argv, cwd, name) for name, argv, cwd in others}
    everyone = bots + bare + [b for pair in extra.values() for b in pair]
    try:
        for b in everyone:  # started outside the timed loop: process start-up is not a decision's cost
            b.start()
        raw, checked, played = Echo(echo, bare_decoder()), Echo(echo, FrameDecoder(1 << 20).feed), Games(bots)
        short, floor, compute = Echo(answer, bare_decoder()), Games(bare), Compute()
        compared = {name: Games(pair) for name, pair in extra.items()}
        for run in (played, floor, *compared.values()):  # warm-up, not counted: a JIT (Java, node) compiles a loop
            run.run(WARM_UP)
            run.meter, run.counted_from = Meter(run.meter.pids), run.seed
        for i in range(rounds):
            raw.run(frames // rounds)
            checked.run(frames // rounds)
            short.run(frames // rounds)
            for run in (played, floor, *compared.values()):
                run.run(games // rounds + (i < games % rounds))
            compute.run(games // rounds + (i < games % rounds))
        starts = [b.starts for b in bots]
    finally:
        echo.close()
        answer.close()
        for b in everyone:
            b.close()
    return raw, checked, short, played, floor, compute, starts, compared


#: (c)'s other side: writes back each byte it reads, one read and one write per round trip, nothing else
PONG = "import os\nwhile os.write(1, os.read(0, 1)):\n    pass\n"


def wake_ups(round_trips: int) -> dict[str, float] | None:
    """(c): seconds per 1-byte round trip through a pipe to a process that only writes the byte back, with both
    processes on one core, on two different cores, and free to run anywhere (as this process may): the cost of the
    wake-ups themselves, which is all that pinning can save. None where a process cannot be pinned, or with one core
    (this process, started with ``taskset -c 0``, may still place itself and the other on any core of the machine)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    mine = os.sched_getaffinity(0)
    cores = sorted(os.sched_getaffinity(os.getppid()) | mine)
    try:
        os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
        cores = sorted(os.sched_getaffinity(0))
    except OSError:
        pass
    if len(cores) < 2:
        os.sched_setaffinity(0, mine)
        return None
    pong = subprocess.Popen([sys.executable, "-c", PONG], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert pong.stdin and pong.stdout
    fd_in, fd_out = pong.stdin.fileno(), pong.stdout.fileno()
    placements = {"one core": ({cores[0]}, {cores[0]}), "two cores": ({cores[0]}, {cores[1]}),
                  "unpinned": (set(cores), set(cores))}
    times: dict[str, float] = {name: float("inf") for name in placements}
    try:
        for _ in range(3):  # interleaved, the best of three: the least disturbed by other load
            for name, (here, there) in placements.items():
                os.sched_setaffinity(0, here)
                os.sched_setaffinity(pong.pid, there)
                os.write(fd_in, b"x")
                os.read(fd_out, 1)
                start = time.perf_counter()
                for _ in range(round_trips):
                    os.write(fd_in, b"x")
                    os.read(fd_out, 1)
                times[name] = min(times[name], (time.perf_counter() - start) / round_trips)
    finally:
        os.sched_setaffinity(0, mine)
        pong.stdin.close()
        pong.wait(5)
        pong.stdout.close()
    return times


def _us(seconds: float | None) -> str:
    return "   n/a" if seconds is None else f"{seconds * 1e6:6.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games for (b) (default 300)")
    parser.add_argument("--echo", type=int, default=20000, help="round trips for (a) and for (a') (default 20000)")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds of (a), (a') and (b) (default 10)")
    parser.add_argument("--kit", action="append", default=[], metavar="NAME",
                        help="(e): also measure the bots of bots/kits/NAME (built) against (b)'s SDK random bot")
    parser.add_argument("--bot-argv", action="append", default=[], metavar="CMD",
                        help="(e): also measure the program bot CMD (split like a shell would), likewise")
    args = parser.parse_args()
    others = [bot for kit in args.kit for bot in kit_bots(kit)]
    others += [(os.path.basename(shlex.split(cmd)[-1]), shlex.split(cmd), None) for cmd in args.bot_argv]
    raw_echo, checked_echo, short_echo, played, floor, compute, starts, compared = measure(
        args.games, args.echo, max(1, args.rounds), others)
    (raw, raw_own, raw_other), (checked, checked_own, checked_other) = raw_echo.meter.per_unit(), \
        checked_echo.meter.per_unit()
    (per_decision, referee, bots), decisions = played.meter.per_unit(), played.meter.units
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(f"cores this run may use: {affinity if affinity is not None else 'unknown'}; load average "
          f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "")
    print("                                                    wall µs   CPU µs: this side | the other")
    print(f"(a)  raw msgpack echo round trip, {len(raw_echo.data)}-byte frame:  {_us(raw)}   {_us(raw_own)} (main) | "
          f"{_us(raw_other)} (echo)   ({raw_echo.meter.units} round trips)")
    print(f"(a') the same, read by the referee's FrameDecoder:  {_us(checked)}   {_us(checked_own)} (main) | "
          f"{_us(checked_other)} (echo)")
    print(f"(b)  referee cost per decision, durak 2 seats:      {_us(per_decision)}   {_us(referee)} (referee) | "
          f"{_us(bots)} (both bots)   ({decisions} decisions in {played.games} games, "
          f"{played.games / played.meter.wall:.0f} games/s)")
    print(f"(b)/(a) = {per_decision / raw:.2f}   (b)/(a') = {per_decision / checked:.2f}   "
          f"(issue 15's target: (b)/(a) ≤ 1.3)")
    if bots is not None and raw_other is not None:  # CPU time: what other work on a busy machine inflates least
        print(f"by CPU time, (referee + bots)/(main + echo) = {(referee + bots) / (raw_own + raw_other):.2f}; "
              f"the referee alone against the main side of (a): {referee / raw_own:.2f}")
    short, short_own, short_other = short_echo.meter.per_unit()
    print(f"(a'') the request answered by a short reply, as a bot that decides at once (tests/fixtures/answer.py): "
          f"{_us(short)} wall, {_us(short_own)} (main) | {_us(short_other)} (answer)")
    if bots is not None and short_other is not None:
        print(f"issue 39, by CPU against what the answering process spends on the frame: the referee "
              f"{referee / short_other:.2f} (target ≤ 1.3), the bot side (one bot a decision) {bots / short_other:.2f} "
              f"(target ≤ 1.2)")
    _, floor_referee, floor_bots = floor.meter.per_unit()
    print(f"(b0) the games of (b) against two bare bots (tests/fixtures/bare_bot.py: the first legal action, as little "
          f"as a bot can do): {_us(floor_referee)} (referee) | {_us(floor_bots)} (both bots) CPU µs a decision")
    if bots is not None and floor_bots:
        print(f"     the Python SDK's random bot against the bare bot, in the same games: {bots / floor_bots:.2f}; the "
              f"referee against the bare bot's side: {referee / floor_bots:.2f}")
    stages = [compute.per_decision(stage) for stage in Compute.STAGES]
    print("(b1) the referee's work of (b) without bots or pipes, CPU µs a decision: " + ", ".join(
        f"{stage} {_us(cost).strip()}" for stage, cost in zip(Compute.STAGES, stages, strict=True)))
    if short_other:
        left = _us(1.3 * short_other - stages[-1]).strip()
        print(f"     {stages[-1] / short_other:.2f} times what the answering process of (a'') spends on a frame, "
              f"before one byte is written: the referee's 1.3 would leave {left} µs for its pipes, its bounds and its "
              f"loop (the answering process: {_us(short_other).strip()} µs for its whole frame)")
    print(f"bot processes started for {played.seed} games: {sum(starts)} ({' + '.join(map(str, starts))}, "
          f"one per bot)")
    alone = Alone(max(10, args.games // 10)).per_request(
        {"sdk": [sys.executable, "-m", "bots.random"], "bare": [sys.executable, BARE]}, requests=40_000,
        rounds=max(3, args.rounds))
    print(f"(b2) the bot side alone, the frames of {max(10, args.games // 10)} games replayed to one bot at a time: "
          f"the SDK's random bot {_us(alone['sdk']).strip()}, the bare bot {_us(alone['bare']).strip()} CPU µs a "
          f"request: {alone['sdk'] / alone['bare']:.2f}"
          + (f" (in the games, (b)/(b0) by bot: {bots / floor_bots:.2f})" if bots is not None and floor_bots else ""))
    if compared:
        print_programs(played, compared)
        return
    wake = wake_ups(max(1000, args.echo // 4))
    if wake is not None:
        one, two, free = wake["one core"], wake["two cores"], wake["unpinned"]
        print(f"(c)  1-byte pipe round trip to a process that only answers (the wake-ups alone): {_us(one).strip()} "
              f"µs on one core, {_us(two).strip()} µs across two cores, {_us(free).strip()} µs unpinned (best of 3)")
        saved, crossed = (per_decision + free - one) / per_decision, (per_decision + two - one) / per_decision
        print(f"     pinned against unpinned saves {_us(free - one).strip()} µs a round trip: (b)'s decision of "
              f"{_us(per_decision).strip()} µs (one round trip) is at most {saved:.2f}× faster pinned; were every "
              f"unpinned round trip to cross cores (+{_us(two - one).strip()} µs), at most {crossed:.2f}×")
    print_freezing(args.games, max(1, args.rounds))


def print_programs(python: Games, compared: dict[str, Games]) -> None:
    """(e): each program bot against the Python SDK random bot of (b), per request."""
    base_wall, _, base_bots = python.meter.per_unit()
    print("(e)  per request (durak, 2 seats, both seats the same bot), against the Python SDK random bot of (b):")
    print(f"     {'bot':<22} wall µs  referee CPU µs  bots' CPU µs   × the SDK's (wall, bots' CPU)")
    rows = [("python-sdk-random", python), *compared.items()]
    for name, run in rows:
        wall, referee, bots = run.meter.per_unit()
        cpu = "" if bots is None or not base_bots else f"  ×{bots / base_bots:.2f}"
        print(f"     {name:<22} {_us(wall)}   {_us(referee)}          {_us(bots)}       ×{wall / base_wall:.2f}{cpu}   "
              f"({run.meter.units} requests in {run.games} games)")
    print("     (the bots' CPU is read from /proc in clock ticks: give it enough --games, a few hundred)")
    print("     (issue 38's bound: a kit's bot answers in less than twice the time of the SDK's random bot)")


def print_freezing(games: int, rounds: int) -> None:
    runs = freezing(games, rounds)
    if runs is None:
        print(f"(d)  freezing: not measured, the sandbox does not work here ({probe()})")
        return
    base_wall, base_cpu, _ = runs["not frozen"].meter.per_unit()
    print(f"(d)  the same games, both bots in the sandbox ({cgroups.support().describe()}):")
    for name, run in runs.items():
        wall, cpu, _ = run.meter.per_unit()  # (the bots' own CPU is not read: their processes are inside bwrap)
        print(f"     {name:<15} {_us(wall)} wall µs  {_us(cpu)} referee CPU µs   "
              f"referee CPU ×{cpu / base_cpu:.3f}, wall ×{wall / base_wall:.3f} of not frozen   "
              f"({run.meter.units} decisions)")
    print("     (issue 33's bound: freezing adds at most 10 % to the referee's cost per decision)")


if __name__ == "__main__":
    main()
