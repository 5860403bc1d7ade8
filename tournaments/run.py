"""Running a tournament: schedule → executor → storage, with live ratings and progress."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from referee.engine import Game

from .config import TournamentConfig
from .feed import Executor
from .played import PrefixTracker, claimed, table_count
from .ratings import LiveRatings
from .storage import FinishedGame, Store

__all__ = ["LIVE_FROM_STORED", "Progress", "ProgressSink", "run_tournament"]

#: How many stored games (the last, in schedule order) a resumed run's live ratings are rated from.
LIVE_FROM_STORED = 20_000


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    leader: str
    leader_score: float
    started: float
    done_at_start: int = 0  # games already stored when this run started (resume)

    @property
    def eta(self) -> float | None:
        played = self.done - self.done_at_start
        elapsed = time.monotonic() - self.started
        return None if not played else elapsed / played * (self.total - self.done)


class ProgressSink(Protocol):
    def __call__(self, progress: Progress, game: FinishedGame | None) -> None: ...


def run_tournament(store: Store, config: TournamentConfig, game: Game,
                   make_executor: Callable[[TournamentConfig], Executor],
                   progress: ProgressSink | None = None, warn: Callable[[str], None] | None = None) -> int:
    """Play every scheduled game not yet in ``store``; return how many were played now.

    The games are stored as they finish, committed a batch at a time (:class:`~tournaments.storage.Batch`), and
    whatever was received is committed however the run ends, so an interrupted run resumes where it stopped. Only
    one process at a time plays into a store (:meth:`Store.lock`); another gets a one-line StorageError. The live
    ratings (the progress line's leader) of a resumed run start from the last :data:`LIVE_FROM_STORED` stored
    games (all of them, usually): re-rating a million one update at a time would take minutes.

    Each commit also stores how far the order of play is stored (tournaments/played.py), which ``verify`` checks.
    A game stored once that is missing now (a row deleted) is played again like any other missing game, after
    ``warn`` names how many (and the first few).
    """
    store.lock()
    store.save_config(config.to_dict())
    teams = game.teams(config.seats)
    done = store.done_keys()
    total = config.scheduled(teams)
    jobs = [job for job in config.jobs(teams) if job.key not in done]
    holes = sorted({job.key for job in claimed(config, teams, store.played())} - done) if jobs else []
    if holes and warn:
        some = ", ".join(holes[:3]) + (", …" if len(holes) > 3 else "")
        warn(f"{len(holes)} game{'s' if len(holes) != 1 else ''} stored before {'are' if len(holes) != 1 else 'is'} "
             f"missing from {store.path} ({some}): playing {'them' if len(holes) != 1 else 'it'} again")
    tracker = PrefixTracker((job.key for job in config.jobs(teams)), done, table_count(config))
    recent: deque[tuple[tuple[str, ...], tuple[int, ...]]] = deque(maxlen=LIVE_FROM_STORED)
    for row in store.games():  # every stored row is read (and checked) before a game is played
        recent.append((row.seating, row.places))
    live = LiveRatings(config.entrants)
    for seating, places in recent:  # a resumed run's live ratings start from (the last of) what is stored
        live.update(seating, places, teams)
    started = time.monotonic()
    finished = len(done)
    if progress:
        progress(Progress(finished, total, *live.leader(), started, len(done)), None)
    if not jobs:
        return 0
    executor = make_executor(config)
    played = 0
    try:
        with store.batch(played=tracker.claim) as batch:  # commits what was received however the loop ends
            for finished_game in executor.run(jobs):
                tracker.add(finished_game.key)
                batch.add(finished_game)
                live.update(finished_game.seating, finished_game.places, teams)
                played += 1
                finished += 1
                if progress:
                    progress(Progress(finished, total, *live.leader(), started, len(done)), finished_game)
    except BaseException:
        executor.terminate()
        raise
    executor.close()
    return played
