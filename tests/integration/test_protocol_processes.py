"""PROTOCOL.md section 10, "Which process plays what", checked with a bot program that logs what it is sent.

- ``referee play``: each program ``--bot`` is a process of its own, playing one seat, ``game_no`` 1, then ``bye``.
- ``referee tournament run``: each program entrant is started once to read its hello and sent ``bye`` without a
  game; then each worker starts its own process for the entrant, which plays the seats the schedule gives it in
  turn, with ``game_no`` and request ids counting up over its games, and gets ``bye`` at the end.
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

LOGGING_BOT = r'''
import os, sys
from protocol.wire import FrameDecoder, pack

log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

def note(*words):
    os.write(log, (" ".join(str(w) for w in (os.getpid(), *words)) + "\n").encode())

decoder = FrameDecoder(1 << 24)
while True:
    data = os.read(0, 1 << 16)
    if not data:
        break
    for m in decoder.feed(data):
        kind = m.get("type")
        if kind == "hello":
            note("hello")
            os.write(1, pack({"type": "hello", "version": 1, "name": "logger", "games": None}))
        elif kind == "new_game":
            note("new_game", m["seat"], m["game_no"])
        elif kind == "request":
            note("request", m["id"])
            os.write(1, pack({"type": "action", "id": m["id"], "action": m["legal"][0]}))
        elif kind == "bye":
            note("bye")
            sys.exit(0)
'''


def _run(tmp_path: Path, *args: str) -> dict[int, list[list[str]]]:
    bot, log = tmp_path / "logger.py", tmp_path / "log.txt"
    bot.write_text(LOGGING_BOT)
    spec = f"cmd:{sys.executable} {bot} {log}"
    argv = [a.replace("BOT", spec) for a in args]
    proc = subprocess.run([sys.executable, "-m", "referee", *argv, "--sandbox", "off"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_pid: dict[int, list[list[str]]] = defaultdict(list)
    for line in log.read_text().splitlines():
        pid, *words = line.split()
        by_pid[int(pid)].append(words)
    return by_pid


def _games(lines: list[list[str]]) -> list[tuple[int, int]]:
    return [(int(w[1]), int(w[2])) for w in lines if w[0] == "new_game"]


def test_play_gives_each_program_bot_its_own_process_and_seat(tmp_path: Path):
    by_pid = _run(tmp_path, "play", "durak", "-b", "BOT", "-b", "BOT", "--seed", "1")
    assert len(by_pid) == 2
    seats = []
    for lines in by_pid.values():
        assert lines[0] == ["hello"] and lines[-1] == ["bye"]
        (game,) = _games(lines)
        seats.append(game[0])
        assert game[1] == 1  # game_no
    assert sorted(seats) == [0, 1]


def test_a_tournament_process_plays_every_seat_in_turn(tmp_path: Path):
    by_pid = _run(tmp_path, "tournament", "run", "durak", "-b", "BOT", "-b", "random", "-b", "first", "--seats", "2",
                  "--games", "3", "--workers", "2", "--seed", "1", "--db", str(tmp_path / "t.db"))
    probes = [pid for pid, lines in by_pid.items() if not _games(lines)]
    assert len(probes) == 1 and by_pid[probes[0]] == [["hello"], ["bye"]]  # started once to read the hello
    players = [lines for pid, lines in by_pid.items() if pid not in probes]
    assert 1 <= len(players) <= 2  # at most one process per worker
    assert sum(len(_games(lines)) for lines in players) == 2 * 2 * 3  # 2 tables with it, 2 rotations, 3 deals
    for lines in players:
        assert lines[0] == ["hello"] and lines[-1] == ["bye"]
        games = _games(lines)
        assert [no for _, no in games] == list(range(1, len(games) + 1))  # game_no counts this process's games
        ids = [int(w[1]) for w in lines if w[0] == "request"]
        assert ids == sorted(set(ids)) and ids[0] == 1  # strictly increasing across its games
    assert any(len({seat for seat, _ in _games(lines)}) == 2 for lines in players)  # seat 0 in one game, 1 in another
