"""A zoo of broken bots (tests/fixtures/zoo/) against ``heuristic``, in real processes (RULES.md C-6, C-7).

Each zoo bot plays seat 0 of a two-seat durak game through RemoteBot and ProcessTransport; seat 1 is the
in-process heuristic. For every bot: the game completes, the faults are exactly the expected kinds at the
expected decisions (re-derived by replaying the record), the fault policy puts the heuristic first, and after
``close()`` nothing of the bot is left: neither its process, nor its process group, nor a grandchild it started.

Deadlines are short (0.2 s per move) and every game runs under a watchdog, so a hang fails instead of hanging.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from proctable import group_members

from bots.heuristic import HeuristicBot
from protocol.errors import BotStalled
from protocol.wire import PROTOCOL_VERSIONS
from referee.clock import TimeControl
from referee.games.durak import Durak
from referee.match import Fault, GameRecord, play_game
from referee.remote import RemoteBot
from referee.transport import STDERR_CAP, ProcessTransport

ZOO = Path(__file__).resolve().parent.parent / "fixtures" / "zoo"
DURAK = Durak()
MOVE_TIME = 0.2
HANDSHAKE_TIME = 1.0
WATCHDOG = 20.0
SEED = 11
ZOO_SEAT, HEURISTIC_SEAT = 0, 1


# ------------------------------------------------------------------------------------------------ helpers


class Zoo:
    """One zoo bot behind RemoteBot, remembering every process it started (and the pid file of a grandchild)."""

    def __init__(self, argv: list[str], name: str, child_pidfile: Path | None = None) -> None:
        self.argv = argv + (["--child", str(child_pidfile)] if child_pidfile else [])
        self.child_pidfile = child_pidfile
        self.transports: list[ProcessTransport] = []
        self.bot = RemoteBot(self._connect, name=name,
                             time=TimeControl(move_time=MOVE_TIME, handshake_time=HANDSHAKE_TIME))

    def _connect(self) -> ProcessTransport:
        transport = ProcessTransport(self.argv)
        self.transports.append(transport)
        return transport

    @property
    def pids(self) -> list[int]:
        return [t.pid for t in self.transports]

    def child_pid(self) -> int:
        assert self.child_pidfile is not None
        deadline = time.monotonic() + 5
        while not self.child_pidfile.exists():
            assert time.monotonic() < deadline, "the zoo bot never started its grandchild"
            time.sleep(0.01)
        return int(self.child_pidfile.read_text())


def zoo(script: str, *args: str, child: Path | None = None) -> Zoo:
    return Zoo([sys.executable, str(ZOO / script), *args], name=Path(script).stem, child_pidfile=child)


def play(bot: Any, *, seed: int = SEED, zoo_seat: int = ZOO_SEAT) -> GameRecord:
    """play_game under a watchdog thread: a hung referee fails the test instead of hanging the run."""
    bots: list[Any] = [None, None]
    bots[zoo_seat] = bot
    bots[1 - zoo_seat] = HeuristicBot()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["record"] = play_game(DURAK, bots, seed=seed)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(WATCHDOG)
    assert not thread.is_alive(), f"play_game did not finish within {WATCHDOG} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["record"]


def close(z: Zoo) -> None:
    done = threading.Event()

    def run() -> None:
        z.bot.close()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(WATCHDOG), "close() did not return"


def trace(record: GameRecord) -> list[int]:
    """The seat to act at every decision, re-derived by replaying the record; asserts the game completed."""
    state = DURAK.new_state(record.seats, record.seed, record.options, dealer=record.dealer)
    seats = []
    for text in record.actions:
        seat = state.to_act
        assert seat is not None, "the record goes on after the game ended"
        seats.append(seat)
        state.apply(state.parse_action(text))
    assert state.to_act is None, "the game did not complete"
    return seats


def zoo_decisions(record: GameRecord, seat: int = ZOO_SEAT) -> list[int]:
    return [i for i, s in enumerate(trace(record)) if s == seat]


def kinds(record: GameRecord) -> list[str]:
    return [f.kind for f in record.faults]


def assert_forfeit(record: GameRecord, seat: int = ZOO_SEAT) -> None:
    """The faulted zoo seat is last and the heuristic first, whatever the rules gave (policy ``forfeit``)."""
    assert record.faults and all(f.seat == seat for f in record.faults)
    assert record.result.places[1 - seat] == 1
    assert record.result.places[seat] == 2
    assert record.result.to_dict()["faults"] == [f.to_dict() for f in record.faults]


def _process_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] not in ("Z", "X")


def assert_gone(z: Zoo, timeout: float = 10.0) -> None:
    """Nothing of the bot remains: its processes are reaped, their process groups are empty, a grandchild died."""
    assert z.transports, "the bot was never started"
    for pid in z.pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    deadline = time.monotonic() + timeout
    while True:
        left = {pid: group_members(pid) for pid in z.pids}
        left = {pid: members for pid, members in left.items() if members}
        child_alive = z.child_pidfile is not None and _process_alive(z.child_pid())
        if not left and not child_alive:
            return
        assert time.monotonic() < deadline, f"bot processes remain: groups {left}, grandchild alive: {child_alive}"
        time.sleep(0.02)


@pytest.fixture
def pidfile(tmp_path: Path) -> Path:
    return tmp_path / "grandchild.pid"


@pytest.fixture
def closing() -> Iterator[list[Zoo]]:
    """Zoo bots registered here are closed even when a test fails half-way."""
    made: list[Zoo] = []
    yield made
    for z in made:
        try:
            z.bot.close()
        except Exception:  # noqa: BLE001,S110 - cleanup only
            pass


# ------------------------------------------------------------------------------------------------ handshake


def test_crash_at_handshake(closing: list[Zoo]) -> None:
    z = zoo("crash_at_handshake.py")
    closing.append(z)
    record = play(z.bot)
    trace(record)
    assert record.faults == (Fault(ZOO_SEAT, "crash", 0, record.faults[0].message),)
    assert "exit code 3" in record.faults[0].message
    assert_forfeit(record)
    assert "giving up before the handshake" in record.stderr.get(ZOO_SEAT, "")
    close(z)
    assert_gone(z)


def test_crash_at_handshake_next_game_tries_a_fresh_process(closing: list[Zoo]) -> None:
    # docs/PROTOCOL.md section 9: a failure while a game starts is that game's fault; "the next game tries a
    # fresh process".
    z = zoo("crash_at_handshake.py")
    closing.append(z)
    for game in range(2):
        record = play(z.bot, seed=SEED + game)
        assert kinds(record) == ["crash"]
        assert record.faults[0].decision == 0
        assert z.bot.starts == game + 1
    close(z)
    assert_gone(z)


# ------------------------------------------------------------------------------------------------ crashes


@pytest.mark.parametrize("after", [0, 3])
def test_crash_mid_game(closing: list[Zoo], after: int) -> None:
    z = zoo("crash_midgame.py", str(after))
    closing.append(z)
    record = play(z.bot)
    decisions = zoo_decisions(record)
    assert len(decisions) > after
    assert kinds(record) == ["crash"]
    assert record.faults[0].decision == decisions[after]  # the request it did not answer
    assert_forfeit(record)
    assert f"exiting at request {after + 1}" in record.stderr.get(ZOO_SEAT, "")
    close(z)
    assert_gone(z)


def test_crash_mid_game_then_a_new_process_next_game(closing: list[Zoo]) -> None:
    z = zoo("crash_midgame.py", "2")
    closing.append(z)
    first = play(z.bot)
    assert kinds(first) == ["crash"]
    assert first.faults[0].decision == zoo_decisions(first)[2]
    assert z.bot.starts == 1
    # the new process answers 2 requests too, then exits again: a crash in this game as well, on a new process
    second = play(z.bot, seed=SEED + 1)
    assert z.bot.starts == 2
    assert kinds(second) == ["crash"]
    assert second.faults[0].decision == zoo_decisions(second)[2]
    close(z)
    assert_gone(z)


def test_a_bot_that_exits_leaving_a_child_on_its_pipes_is_a_crash_not_a_stall(closing: list[Zoo]) -> None:
    """Its pipes stay open (the child holds them), so its end shows at no read or write: the request after its last
    answer times out, and then the referee finds the process gone: a crash (C-7), not timeouts ending in a stall."""
    z = zoo("exit_leaving_a_child.py", "3")
    closing.append(z)
    record = play(z.bot)
    decisions = zoo_decisions(record)
    assert kinds(record) == ["crash"], record.faults
    assert record.faults[0].decision == decisions[3] and "exited (exit code 1)" in record.faults[0].message
    close(z)
    assert_gone(z)


def test_exit_at_the_end_of_each_game_is_no_fault_and_restarts(closing: list[Zoo]) -> None:
    z = zoo("exit_after_game.py")
    closing.append(z)
    first = play(z.bot)
    assert first.faults == ()
    second = play(z.bot, seed=SEED + 1)
    assert second.faults == (), second.faults
    assert z.bot.starts == 2
    trace(second)
    close(z)
    assert_gone(z)


# ------------------------------------------------------------------------------------------------ silence


def test_never_answers_times_out_then_stalls(closing: list[Zoo], pidfile: Path) -> None:
    z = zoo("silent.py", child=pidfile)
    closing.append(z)
    start = time.monotonic()
    record = play(z.bot)
    elapsed = time.monotonic() - start
    decisions = zoo_decisions(record)
    assert kinds(record) == ["timeout", "timeout", "stall"]
    assert [f.decision for f in record.faults] == decisions[:3]
    assert_forfeit(record)
    assert elapsed < 3 * (MOVE_TIME + 0.5) + HANDSHAKE_TIME
    assert z.bot.starts == 1
    z.child_pid()
    close(z)
    assert_gone(z)


def test_answers_late_times_out_and_is_asked_again(closing: list[Zoo]) -> None:
    # Requests 1 and 3 are answered 0.1 s after their deadline, the others at once: two timeouts, no stall,
    # and the late answers (text "stale") are never taken for the answer to a later request.
    z = zoo("late.py")
    closing.append(z)
    record = play(z.bot)
    decisions = zoo_decisions(record)
    assert len(decisions) >= 4
    assert kinds(record) == ["timeout", "timeout"]
    assert [f.decision for f in record.faults] == [decisions[0], decisions[2]]
    assert "stale" not in record.actions
    assert_forfeit(record)
    assert z.bot.starts == 1 and z.bot.alive  # a timeout keeps the process
    close(z)
    assert_gone(z)


def test_ignores_stdin_times_out_then_stalls_never_hangs(closing: list[Zoo], pidfile: Path) -> None:
    z = zoo("no_read.py", child=pidfile)
    closing.append(z)
    start = time.monotonic()
    record = play(z.bot)
    assert time.monotonic() - start < 3 * (MOVE_TIME + 0.5) + HANDSHAKE_TIME
    decisions = zoo_decisions(record)
    assert kinds(record) == ["timeout", "timeout", "stall"]
    assert [f.decision for f in record.faults] == decisions[:3]
    assert_forfeit(record)
    assert "not listening" in record.stderr.get(ZOO_SEAT, "")
    close(z)
    assert_gone(z)


def test_writing_to_a_bot_that_never_reads_is_bounded(pidfile: Path) -> None:
    # The referee's writes are bounded too: once the pipe is full, a send stalls at its deadline.
    transport = ProcessTransport([sys.executable, str(ZOO / "no_read.py"), "--child", str(pidfile)])
    try:
        assert transport.receive(time.monotonic() + 5)["type"] == "hello"
        message = {"type": "game_over", "result": {"blob": b"\0" * (4 << 20)}}
        deadline = time.monotonic() + 0.3
        with pytest.raises(BotStalled):
            transport.send(message, deadline)
        # Bounded by the deadline, not by the bot: the send gave up while the bot still sleeps (60 s), and a
        # write that waited for the bot would end when it exits, as BotCrashed. Not before the deadline either.
        assert time.monotonic() >= deadline
        assert transport.alive
    finally:
        transport.close()
    with pytest.raises(ProcessLookupError):
        os.kill(transport.pid, 0)
    assert not group_members(transport.pid)
    deadline = time.monotonic() + 10  # SIGKILLed in close(): gone once the kernel has run its exit, even if late
    while _process_alive(int(pidfile.read_text())):
        assert time.monotonic() < deadline, "the grandchild survived close()"
        time.sleep(0.02)


# ------------------------------------------------------------------------------------------------ bad data


def test_garbage_bytes_are_malformed(closing: list[Zoo]) -> None:
    z = zoo("garbage.py")
    closing.append(z)
    record = play(z.bot)
    assert kinds(record) == ["malformed"]
    assert record.faults[0].decision == zoo_decisions(record)[0]
    assert_forfeit(record)
    assert not z.bot.alive  # the stream cannot be trusted: the process is gone
    close(z)
    assert_gone(z)


def test_text_on_stdout_is_malformed(closing: list[Zoo]) -> None:
    z = zoo("stdout_text.py")
    closing.append(z)
    record = play(z.bot)
    assert kinds(record) == ["malformed"]
    assert record.faults[0].decision == zoo_decisions(record)[0]
    assert_forfeit(record)
    close(z)
    assert_gone(z)


@pytest.mark.parametrize("args", [("name",), ("version",), ("games",), ("error",),
                                  ("bare", "1", "33"), ("bare", "1", "1000"), ("bare", "1", "5000")])
def test_deeply_nested_hello_or_error_is_malformed(closing: list[Zoo], args: tuple[str, ...]) -> None:
    """A hello or error nested too deep inside, or bare nested arrays instead of the hello (issue 33: 1,000 of them
    reached repr() and ended the referee with a RecursionError)."""
    z = zoo("deep_nesting.py", *args)
    closing.append(z)
    record = play(z.bot)
    assert kinds(record) == ["malformed"]
    assert record.faults[0].decision == 0 and "nested more than 32 deep" in record.faults[0].message
    assert_forfeit(record)
    assert not z.bot.alive
    close(z)
    assert_gone(z)


@pytest.mark.parametrize("mode", ["action", "bare-action"])
def test_deeply_nested_answer_mid_game_is_malformed_and_killed(closing: list[Zoo], mode: str) -> None:
    """A reply nested too deep (``action``), or bare nested arrays instead of a reply (``bare-action``; issue 33:
    recorded as crash, "maximum recursion depth exceeded", and the process was kept): malformed, killed, and the
    next game starts a fresh process."""
    z = zoo("deep_nesting.py", mode, "2")
    closing.append(z)
    record = play(z.bot)
    assert kinds(record) == ["malformed"]
    assert record.faults[0].decision == zoo_decisions(record)[1]
    assert "nested more than 32 deep" in record.faults[0].message
    assert_forfeit(record)
    assert not z.bot.alive  # killed, not kept
    assert_gone(z)
    play(z.bot, seed=SEED + 1)  # the next game starts a fresh process (which faults again at its 2nd request)
    assert z.bot.starts == 2
    close(z)
    assert_gone(z)


@pytest.mark.parametrize("at", ["hello", "2"])
def test_a_bot_that_closes_its_stdout_and_stays_is_a_crash_at_once(closing: list[Zoo], at: str) -> None:
    """Without the sandbox (tests/integration/test_hostile.py runs it with the sandbox too)."""
    z = zoo("close_stdout.py", at)
    closing.append(z)
    start = time.monotonic()
    record = play(z.bot)
    assert time.monotonic() - start < 2 * MOVE_TIME + 1.0  # no timeouts waited out
    assert kinds(record) == ["crash"] and "closed its stdout" in record.faults[0].message
    assert record.faults[0].decision == (0 if at == "hello" else zoo_decisions(record)[1])
    assert not z.bot.alive
    close(z)
    assert_gone(z)


@pytest.mark.parametrize("mode", ["true", "float"])
def test_an_id_of_true_or_1_0_answers_nothing(closing: list[Zoo], mode: str) -> None:
    z = zoo("odd_ids.py", mode)
    closing.append(z)
    record = play(z.bot)
    assert kinds(record) == ["timeout"]  # request 1 (id 1) went unanswered; the others were answered
    assert record.faults[0].decision == zoo_decisions(record)[0]
    close(z)
    assert_gone(z)


def test_answers_written_before_their_request_are_dropped(closing: list[Zoo]) -> None:
    z = zoo("odd_ids.py", "ahead")
    closing.append(z)
    record = play(z.bot)
    assert record.faults == () and "early" not in record.actions
    close(z)
    assert_gone(z)


@pytest.mark.parametrize("args", [("bin",), ("str",), ("bin", "header"), ("str", "header")])
def test_100_mib_frame_is_oversized_quickly(closing: list[Zoo], args: tuple[str, ...]) -> None:
    """A 100 MiB frame, or (issue 33) a 4 GiB header with nothing after it, which used to wait for the 4 GiB:
    timeout, timeout, stall."""
    z = zoo("huge_frame.py", *args)
    closing.append(z)
    start = time.monotonic()
    record = play(z.bot)
    elapsed = time.monotonic() - start
    assert kinds(record) == ["oversized"]
    assert record.faults[0].decision == zoo_decisions(record)[0]
    if "header" in args:
        assert "announces 4294967295 bytes" in record.faults[0].message
    assert_forfeit(record)
    assert not z.bot.alive
    # Noticed after a few hundred KiB: nowhere near reading (let alone buffering) 100 MiB.
    assert z.transports[0].bytes_in < 4 << 20
    assert elapsed < 3.0
    close(z)
    assert_gone(z)


def test_illegal_answers_are_illegal_faults(closing: list[Zoo], pidfile: Path) -> None:
    z = zoo("illegal.py", child=pidfile)
    closing.append(z)
    record = play(z.bot)
    decisions = zoo_decisions(record)
    assert set(kinds(record)) == {"illegal"}
    assert [f.decision for f in record.faults] == decisions  # asked again at every decision, all illegal
    assert_forfeit(record)
    assert z.bot.alive and z.bot.starts == 1
    grandchild = z.child_pid()
    assert _process_alive(grandchild)
    close(z)  # bye: the bot exits, its grandchild does not; the group kill takes it
    assert_gone(z)


# ------------------------------------------------------------------------------------------------ stderr


def test_stderr_is_capped_and_keeps_the_end(closing: list[Zoo]) -> None:
    z = zoo("stderr_spam.py")
    closing.append(z)
    record = play(z.bot)
    assert record.faults == ()
    n = len(zoo_decisions(record))
    assert n * 16 * 1024 > 2 * STDERR_CAP  # the bot wrote far more than is kept
    text = record.stderr[ZOO_SEAT]
    assert STDERR_CAP - 4096 <= len(text.encode()) <= STDERR_CAP + 200
    assert text.endswith(f"END {n}\n"), text[-200:]
    assert "earlier bytes dropped" in text.splitlines()[0]
    assert "request 1\n" not in text
    close(z)
    assert_gone(z)


# ------------------------------------------------------------------------------------------------ healthy


def test_a_healthy_bot_keeps_one_process_for_many_games(closing: list[Zoo]) -> None:
    z = Zoo([sys.executable, "-m", "bots.random"], name="random")
    closing.append(z)
    for game in range(3):
        record = play(z.bot, seed=SEED + game, zoo_seat=game % 2)
        assert record.faults == ()
        trace(record)
    assert z.bot.starts == 1 and len(z.transports) == 1
    assert z.bot.version == max(PROTOCOL_VERSIONS) and z.bot.bot_name == "random"
    close(z)
    assert_gone(z)


# ------------------------------------------------------------------------------------------------ the floor


def test_the_benchmarks_bare_bot_plays_whole_games_without_a_fault(closing: list[Zoo]) -> None:
    """tests/fixtures/bare_bot.py, benchmarks/protocol_overhead.py's in-game floor, is a bot that plays (C-7: no
    fault), reused from game to game; were it not, the floor would measure faults and restarts."""
    bare = Zoo([sys.executable, str(ZOO.parent / "bare_bot.py")], name="bare")
    closing.append(bare)
    records = [play_game(Durak(), [bare.bot, HeuristicBot()], seed=SEED + i) for i in range(3)]
    assert [r.faults for r in records] == [(), (), ()]
    assert all(r.decisions > 10 for r in records) and bare.bot.starts == 1
    close(bare)
    assert_gone(bare)
