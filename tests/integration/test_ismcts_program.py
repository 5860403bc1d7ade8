"""``python -m referee.ismcts``: the ``ismcts`` bot as a program, through the referee command line, in the sandbox
where bwrap works (it imports the engine: referee/sandbox.py shows the ``referee`` package to Python bots), on a
short game of every game id with the clock on; and its bad flags are one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_process import ROOT, run_referee

from referee.games.plugin import builtin_games
from referee.sandbox import probe


@pytest.mark.parametrize("game_id", sorted(builtin_games()))
def test_the_program_plays_every_game_within_its_budget(game_id: str) -> None:
    game = builtin_games()[game_id]
    state = game.new_state(game.min_seats, 1)
    try:
        game.worlds(game.min_seats, state.to_act or 0, [state.observe(state.to_act or 0)])
    except NotImplementedError:
        pytest.skip(f"{game_id} cannot sample worlds yet (its family's sampler has not landed)")
    sandbox = "on" if probe() is None else "off"
    bots = ["cmd:python -m referee.ismcts --ms 5"] + ["heuristic"] * (game.min_seats - 1)
    done = run_referee("play", game_id, *[f"--bot={b}" for b in bots], "--seed", "3", "--json",
                       "--move-time", "1000", "--sandbox", sandbox, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [seat["faults"] for seat in result["seats"]] == [[]] * game.min_seats
    assert result["seats"][0]["bot"] == "referee.ismcts"


@pytest.mark.parametrize(("flags", "message"), [
    (["--ms", "fast"], "ms= takes a whole number from 0 to 600000, got 'fast'"),
    (["--ms", "0", "--iterations", "0"], "without a budget"),
    (["--c", "-1"], "c= takes a number from 0 to 100"),
])
def test_a_bad_flag_is_one_line_and_exit_2(flags: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "referee.ismcts", *flags], capture_output=True, text=True,
                          cwd=ROOT, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr
