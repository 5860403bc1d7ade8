"""Running an SPRT: deal after deal of the substitution schedule until the test decides (tournaments/sprt.py).

An SPRT is stored like any tournament (the configuration, one row per game, committed a batch at a time), with
its settings in the configuration's ``extra.sprt``; the entrants are the candidate, the baseline, then the
field. The test is a function of the stored games: the paired scores of the deals whose games are all stored. So
a resumed SPRT goes on from where it stopped and a finished one is decided again from its rows alone.

The deals are handed to the executor lazily, one as a worker needs work; once the test has decided no new deal
starts, and the deals in flight finish and are stored (as fishtest does, they count in the stored result);
should they take the LLR back between the bounds, the test goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.terminal import counted

from .config import TournamentConfig
from .feed import Executor
from .played import PrefixTracker, order
from .schedule import Scheduled
from .sprt import Sprt, SprtDecision, substitution_score
from .sprt_plan import SprtPlan, deal_of
from .storage import Store

__all__ = ["SprtState", "SprtTally", "run_sprt", "sprt_state"]


@dataclass(frozen=True)
class SprtState:
    """The test after the stored games: deals scored, games stored, the LLR and its bounds, the Elo estimate."""

    deals: int
    games: int
    llr: float
    lower: float
    upper: float
    elo: float
    elo_low: float
    elo_high: float
    decision: SprtDecision
    max_deals: int

    @property
    def finished(self) -> bool:
        return self.decision is not SprtDecision.PENDING or self.deals >= self.max_deals

    def figures(self) -> str:
        """Deals, games, the LLR in its bounds and the Elo estimate with its 95 % interval (from the deals)."""
        return (f"{counted(self.deals, 'deal')}, {counted(self.games, 'game')}: LLR {self.llr:.2f} "
                f"({self.lower:.2f}, {self.upper:.2f}); "
                f"Elo {self.elo:+.1f}, 95 % [{self.elo_low:+.1f}, {self.elo_high:+.1f}]")

    def verdict(self) -> str:
        return {SprtDecision.H1: "H1 accepted: the candidate is better",
                SprtDecision.H0: "H0 accepted: the candidate is not better",
                SprtDecision.PENDING: "no decision yet" if self.deals < self.max_deals else
                "no decision: the deal limit is reached"}[self.decision]

    def line(self) -> str:
        """One line for the live display."""
        return f"{self.figures()}; {self.verdict()}"

    def to_json(self) -> dict[str, Any]:
        return {"deals": self.deals, "games": self.games, "llr": self.llr, "bounds": [self.lower, self.upper],
                "elo": self.elo, "elo_interval": [self.elo_low, self.elo_high], "decision": str(self.decision),
                "max_deals": self.max_deals}


class SprtTally:
    """The stored places by key, and the test over the deals that are complete (fed game by game: a league's
    candidate evaluation keeps one too, tournaments/league/)."""

    def __init__(self, plan: SprtPlan) -> None:
        self.plan = plan
        self.places: dict[str, Sequence[int]] = {}
        self.scored: set[int] = set()
        self.test = Sprt(plan.settings, resolution=2 * plan.seats)

    def add(self, key: str, places: Sequence[int]) -> None:
        self.places[key] = places
        deal = deal_of(key)
        if deal is None or deal in self.scored:
            return
        y = substitution_score(self.places, deal, self.plan.seats, self.plan.field)
        if y is not None:
            self.scored.add(deal)
            self.test.add(y)

    def state(self) -> SprtState:
        elo, low, high = (v + 0.0 for v in self.test.scores.elo())  # + 0.0: no "-0.0" shown
        lower, upper = self.test.bounds
        return SprtState(len(self.scored), len(self.places), self.test.llr, lower, upper, elo, low, high,
                         self.test.decision, self.plan.max_deals)


def sprt_state(config: TournamentConfig, places: Mapping[str, Sequence[int]]) -> SprtState:
    """The test after these stored games (by key)."""
    tally = SprtTally(SprtPlan.of(config))
    for key, p in places.items():
        tally.add(key, p)
    return tally.state()


def run_sprt(store: Store, config: TournamentConfig, make_executor: Callable[[TournamentConfig], Executor],
             progress: Callable[[SprtState], None] | None = None) -> SprtState:
    """Play deals until the test decides or the deal limit is reached; every game is stored as it finishes."""
    plan = SprtPlan.of(config)
    store.lock()
    store.save_config(config.to_dict())
    tally = SprtTally(plan)
    for row in store.games():
        tally.add(row.key, row.places)
    if progress:
        progress(tally.state())
    if tally.state().finished:
        return tally.state()

    started = 0

    def jobs() -> Iterator[Scheduled]:
        nonlocal started
        for deal in range(plan.max_deals):
            if tally.test.decision is not SprtDecision.PENDING:
                return
            for job in plan.deal(config.deals_from, deal):
                if job.key not in tally.places:
                    started += 1
                    yield job

    tracker = PrefixTracker((job.key for job in order(config, None, None)),
                            set(tally.places), None)
    last = 0.0
    while True:
        # The deals in flight at the decision count, and may take the LLR back between the bounds: then the test
        # goes on (as a resume would), so that a run never ends undecided before its deal limit.
        executor = make_executor(config)
        started = 0
        try:
            with store.batch(played=tracker.claim) as batch:  # commits what was received however the loop ends
                for game in executor.run(jobs()):
                    tracker.add(game.key)
                    batch.add(game)
                    tally.add(game.key, game.places)
                    now = time.monotonic()
                    if progress and now - last >= 0.2:
                        progress(tally.state())
                        last = now
        except BaseException:
            executor.terminate()
            raise
        executor.close()
        if tally.state().finished or not started:
            break
    state = tally.state()
    if progress:
        progress(state)
    return state
