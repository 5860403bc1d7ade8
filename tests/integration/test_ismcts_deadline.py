"""A searching bot stays inside the referee's clock when its core is shared (issue 39, item 5): ``ismcts`` counts its
budget in wall time, which passes while a starved worker waits for the core, so it stops on the deadline the request
announced (:func:`referee.ismcts.bot.search_seconds`), with a margin, whatever its own ``ms``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bots.heuristic import HeuristicBot
from protocol.bot import Deadline
from referee.clock import Clocked, TimeControl
from referee.games.plugin import builtin_games
from referee.ismcts.bot import DEADLINE_RESERVE, DEADLINE_SHARE, IsmctsBot, search_seconds
from referee.match import play_game


def test_the_search_takes_its_own_budget_or_its_share_of_the_deadline_whichever_is_less() -> None:
    late = Deadline(deadline_ms=400, received=10.0)
    assert search_seconds(100, 0.01, None) == pytest.approx(0.09)  # its own ms, less what it spent before searching
    assert search_seconds(100, 0.01, late, now=10.0) == pytest.approx(0.09)  # the deadline is far
    assert search_seconds(5000, 0.0, late, now=10.0) == pytest.approx(0.4 * DEADLINE_SHARE - DEADLINE_RESERVE)
    assert search_seconds(5000, 0.0, late, now=10.2) == pytest.approx(0.2 * DEADLINE_SHARE - DEADLINE_RESERVE)
    assert search_seconds(0, 0.0, None) == 0.0  # no time limit: the iterations alone
    assert search_seconds(0, 0.0, late, now=10.0) == pytest.approx(0.4 * DEADLINE_SHARE - DEADLINE_RESERVE)
    assert search_seconds(5000, 0.0, late, now=11.0) == 1e-6  # already late: one iteration, at once


@pytest.fixture
def busy_core() -> Iterator[None]:
    """This process and a busy loop on one core: the search gets about half of it."""
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this system")
    before = os.sched_getaffinity(0)
    core = min(before)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(hog.pid, {core})
        os.sched_setaffinity(0, {core})
        yield
    finally:
        os.sched_setaffinity(0, before)
        hog.kill()
        hog.wait()


def test_a_search_with_a_long_budget_answers_in_time_on_a_busy_core(busy_core: None) -> None:
    limit = TimeControl.from_ms(300)
    searcher = IsmctsBot(ms=5000, guide=0)  # its own budget is far past the referee's limit
    bots = [Clocked(searcher, time=limit), Clocked(HeuristicBot(), time=limit)]
    record = play_game(builtin_games()["durak"], bots, seed=3, options={"max_bouts": 4})
    assert record.result.faults == (), record.result.faults  # no timeout: every answer inside 300 ms
    assert searcher.searched >= 3
    per_move = searcher.seconds / searcher.searched
    assert 0.1 < per_move <= 0.3 * DEADLINE_SHARE  # the deadline's share, not its own 5 s
