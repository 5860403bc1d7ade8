"""The league's matchmaker: which game is played next, by rules short enough to write down (docs/LEAGUE.md,
"Matchmaking"); this module is those rules, and nothing here touches a process or a database.

A unit of work is handed out whole (its games queued, then taken one at a time as the executor needs work):

- a **pool round**: K active benchmarks at one table, one deal under every seating (duplicate). The table: the
  benchmark with the fewest games (a new one first), then the K−1 that met it least, then the fewest games;
- a **deal of an evaluation**: one deal of a candidate's SPRT (tournaments/schedule.py ``substitution``: the
  candidate in every seat against the field, then the baseline in the same seats), the candidate with the fewest
  games first; a first deal waits until every benchmark has WARM_UP games (when the pool can play). Its baseline
  (the one named at ``add``, the league's, or the best-rated active benchmark) and field (the other active
  benchmarks) are fixed, and stored, before its first deal.

While a candidate is open, the pool gets ``pool_share`` of the games handed out, the evaluations the rest; with
none open, the pool gets them all. An evaluation stops when its SPRT decides (tournaments/sprt_run.py's tally, over
the deals whose games are all stored) or its budget of deals is handed out. A bot that faults in
``suspend_after`` games in a row is suspended, with the last fault as the reason.

Keys: ``p{ROUND}.t{A}-{B}.r{R}`` (pool round ROUND, the table of entrants A, B, …, seating R) and
``e{C}.d{DEAL}.c{S}`` / ``.b{S}`` (candidate entrant C's evaluation). A game whose key is stored is never handed
out again; after a restart the missing games of the pool rounds begun, and of every deal of an evaluation up to
the last one begun, are handed out first.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as default
from itertools import combinations
from typing import Any

from protocol.faults import Fault
from referee.rng import derive_seed

from ..config import Extra, TournamentConfig
from ..schedule import Pairing, Scheduled, schedule
from ..sprt import SprtDecision
from ..sprt_plan import SprtPlan
from ..sprt_run import SprtState, SprtTally
from .roster import ACTIVE, BENCHMARK, CANDIDATE, SUSPENDED, LeagueBot, Roster, roster_of

__all__ = ["Evaluation", "Matchmaker", "Persist"]

_POOL_KEY = re.compile(r"p(\d+)\.t(\d+(?:-\d+)*)\.r(\d+)")
_EVAL_KEY = re.compile(r"e(\d+)\.(d(\d+)\.[cb]\d+)")
#: Games every benchmark has before a candidate's evaluation starts (when the pool can play), so that "the best-rated
#: benchmark" means something when its baseline is chosen.
WARM_UP = 20
#: Points of an evaluation's course (deals, LLR) kept; past it every other one is dropped.
COURSE_POINTS = 400

#: Stores a change of the roster before the matchmaker acts on it: (what, the change) → None.
Persist = Callable[[Callable[[Roster], None]], None]


@dataclass
class Evaluation:
    """A candidate's SPRT against its baseline, with its field, on substitution deals of its own seed."""

    candidate: str
    baseline: str
    field: list[str]
    plan: SprtPlan
    tally: SprtTally
    prefix: str
    seed: int
    entrants: list[int]  # the league's entrant index of the candidate, the baseline, then the field
    next_deal: int = 0
    course: list[tuple[int, float]] = default(default_factory=list)  # (deals scored, LLR) as it went
    stopped: str | None = None  # why it stopped before a verdict (its baseline or field left the pool)

    def add(self, local: str, places: Sequence[int]) -> None:
        before = len(self.tally.scored)
        self.tally.add(local, places)
        if len(self.tally.scored) != before:
            self.course.append((len(self.tally.scored), round(self.tally.test.llr, 4)))
            if len(self.course) > COURSE_POINTS:
                self.course = self.course[::2]

    def state(self) -> SprtState:
        return self.tally.state()

    @property
    def open(self) -> bool:
        """Are deals still to be handed out?"""
        return (self.stopped is None and self.tally.test.decision is SprtDecision.PENDING
                and self.next_deal < self.plan.max_deals)

    def verdict(self) -> str:
        decision = self.tally.test.decision
        if decision is SprtDecision.H1:
            return "accepted"
        if decision is SprtDecision.H0:
            return "rejected"
        if self.stopped is not None:
            return "stopped"
        return "open" if self.next_deal >= self.plan.max_deals else "evaluating"

    def jobs(self, deal: int, seq: int) -> list[Scheduled]:
        return [Scheduled(self.prefix + job.key, seq + i, job.seed, tuple(self.entrants[e] for e in job.seating))
                for i, job in enumerate(self.plan.deal(self.seed, deal))]


class Matchmaker:
    """The rules of docs/LEAGUE.md over the league's configuration and the games stored or handed out so far."""

    def __init__(self, config: TournamentConfig, teams: Pairing | None, persist: Persist,
                 best: Callable[[Sequence[str]], str]) -> None:
        self.teams = teams
        self.persist = persist  # stores a roster change (a suspension, an evaluation's baseline) before it counts
        self.best = best  # the best-rated of these benchmarks
        self.games: Counter[str] = Counter()  # games stored or handed out, per bot
        self.met: Counter[frozenset[str]] = Counter()  # games two bots shared, stored or handed out
        self.streak: Counter[str] = Counter()  # games in a row with a fault of the bot's own
        self.last_fault: dict[str, str] = {}
        self.stored: set[str] = set()
        self.queue: deque[Scheduled] = deque()
        self.in_flight: dict[str, Scheduled] = {}  # handed out, not stored yet
        self.next_seq = 0
        self.next_round = 0
        self.handed = Counter[str]()  # games handed out this run: pool, evaluation
        self.evaluations: dict[str, Evaluation] = {}
        self.started_deals: dict[str, set[int]] = {}
        self.started_rounds: dict[int, tuple[int, ...]] = {}
        self.update(config)

    @classmethod
    def reading(cls, config: TournamentConfig, teams: Pairing | None) -> Matchmaker:
        """A matchmaker to read the league with (``league show``, ``tournament verify``), not to hand out games: it
        stores no roster change, and its stand-in for the best-rated benchmark is never asked without next_job."""
        return cls(config, teams, lambda _: None, lambda names: names[0])

    # ------------------------------------------------------------------------------------ the league as stored

    def update(self, config: TournamentConfig) -> None:
        """The configuration as stored now (its roster may have changed; its entrants only grow)."""
        self.config = config
        self.roster = roster_of(config)
        self.index = {name: i for i, name in enumerate(config.entrants)}
        for bot in self.roster.bots.values():
            if bot.evaluation is not None and bot.name not in self.evaluations:
                self.evaluations[bot.name] = self._evaluation(bot)
        for ev in self.evaluations.values():
            lost = [n for n in (ev.baseline, *ev.field) if not self.roster.bot(n).active]
            if ev.stopped is None and lost and ev.tally.test.decision is SprtDecision.PENDING:
                ev.stopped = f"{', '.join(lost)} left the pool"
        self._drop_queued()

    def _evaluation(self, bot: LeagueBot) -> Evaluation:
        assert bot.evaluation is not None
        baseline, others = bot.evaluation["baseline"], list(bot.evaluation["field"])
        names = [bot.name, baseline, *others]
        c = self.config
        seed = derive_seed(c.deals_from, "league-evaluation", self.index[bot.name], sep="/")
        virtual = TournamentConfig(game=c.game, options=c.options, entrants=names,
                                   specs=[c.specs[self.index[n]] for n in names], seats=c.seats,
                                   games=self.roster.settings.max_deals, duplicate=True, seed=seed,
                                   extra=Extra(sprt=self.roster.settings.sprt))
        plan = SprtPlan.of(virtual)
        return Evaluation(bot.name, baseline, others, plan, SprtTally(plan), f"e{self.index[bot.name]}.", seed,
                          [self.index[n] for n in names])

    def _drop_queued(self) -> None:
        """Queued games of a bot that is not active any more are not handed out."""
        active = {self.index[b.name] for b in self.roster.bots.values() if b.active}
        self.queue = deque(j for j in self.queue if set(j.seating) <= active)

    # --------------------------------------------------------------------------------------------- games

    def stored_game(self, seq: int, key: str, seating: Sequence[str], places: Sequence[int],
                    faults: Iterable[Fault]) -> None:
        """A game stored before this run (in seq order): counted, and read into its evaluation."""
        self.stored.add(key)
        self.next_seq = max(self.next_seq, seq + 1)
        self._count(seating)
        self._result(key, seating, places, faults)
        pool = _POOL_KEY.fullmatch(key)
        if pool:
            n = int(pool.group(1))
            self.next_round = max(self.next_round, n + 1)
            self.started_rounds[n] = tuple(int(x) for x in pool.group(2).split("-"))
        ev_key = _EVAL_KEY.fullmatch(key)
        if ev_key:
            name = self.config.entrants[int(ev_key.group(1))]
            self.started_deals.setdefault(name, set()).add(int(ev_key.group(3)))

    def scheduled(self, key: str) -> Scheduled | None:
        """The game ``key`` names by these rules, its deck seed and seating (entrant indices), whenever it was handed
        out: what ``referee tournament verify`` holds a stored league game to. None for a key they never make: not
        of the key forms above, a table or an entrant the league does not have, a deal past an evaluation's budget,
        or an evaluation whose baseline and field were never stored."""
        entrants = len(self.config.entrants)
        pool = _POOL_KEY.fullmatch(key)
        if pool:
            table = tuple(int(x) for x in pool.group(2).split("-"))
            if len(table) != self.config.seats or table != tuple(sorted(set(table))) or max(table) >= entrants:
                return None  # a table is K different entrants, in order (_pool_table)
            return next((job for job in self._round(int(pool.group(1)), table) if job.key == key), None)
        ev_key = _EVAL_KEY.fullmatch(key)
        if ev_key is None or int(ev_key.group(1)) >= entrants:
            return None
        ev = self.evaluations.get(self.config.entrants[int(ev_key.group(1))])
        deal = int(ev_key.group(3))
        if ev is None or deal >= ev.plan.max_deals:
            return None
        return next((job for job in ev.jobs(deal, 0) if job.key == key), None)

    def named(self, keys: Iterable[str]) -> dict[str, Scheduled]:
        """Stored keys, each as the game :meth:`scheduled` says it names; left out: a key the rules never make, and
        every key of a pool round stored at more than one table (a round is played at one table)."""
        tables: dict[str, set[str]] = {}
        for key in keys:
            if pool := _POOL_KEY.fullmatch(key):
                tables.setdefault(pool.group(1), set()).add(pool.group(2))
        named = {}
        for key in keys:
            pool = _POOL_KEY.fullmatch(key)
            if (pool is None or len(tables[pool.group(1)]) == 1) and (job := self.scheduled(key)) is not None:
                named[key] = job
        return named

    def resume(self) -> None:
        """After the stored games: the missing games of the rounds and deals begun are queued first (a deal of an
        evaluation counts only whole), and each evaluation goes on after the last deal begun."""
        for n, table in sorted(self.started_rounds.items()):
            if all(self.roster.bot(self.config.entrants[e]).active for e in table):
                self.queue.extend(j for j in self._round(n, table) if j.key not in self.stored)
        for name, deals in self.started_deals.items():
            ev = self.evaluations.get(name)
            if ev is None:
                continue
            ev.next_deal = max(deals) + 1
            if ev.stopped is None and self.roster.bot(name).active:
                for deal in range(ev.next_deal):
                    self.queue.extend(j for j in ev.jobs(deal, 0) if j.key not in self.stored)
        self.queue = deque(Scheduled(j.key, self.next_seq + i, j.seed, j.seating) for i, j in enumerate(self.queue))
        self.next_seq += len(self.queue)
        self._drop_queued()

    def lost(self) -> None:
        """The games in flight were lost (the executor failed): they are handed out again first, under their keys,
        and no longer counted as played."""
        lost = list(self.in_flight.values())
        self.in_flight.clear()
        for job in lost:
            for name in {self.config.entrants[e] for e in job.seating}:
                self.games[name] -= 1
            self.handed["evaluation" if job.key.startswith("e") else "pool"] -= 1
        self.queue.extendleft(reversed(lost))
        self._drop_queued()

    def finished(self, key: str, seating: Sequence[str], places: Sequence[int], faults: Iterable[Fault]) -> None:
        """A game of this run is stored."""
        self.stored.add(key)
        self.in_flight.pop(key, None)
        self._result(key, seating, places, faults)
        self._suspend_faulty()

    def _count(self, seating: Sequence[str]) -> None:
        for name in seating:
            self.games[name] += 1
        for a, b in combinations(sorted(set(seating)), 2):
            self.met[frozenset((a, b))] += 1

    def _result(self, key: str, seating: Sequence[str], places: Sequence[int], faults: Iterable[Fault]) -> None:
        faulted: dict[str, Fault] = {}
        for f in faults:
            faulted.setdefault(seating[f.seat], f)
        for name in set(seating):
            if name in faulted:
                self.streak[name] += 1
                f = faulted[name]
                self.last_fault[name] = f"{f.kind} at decision {f.decision}" + (f": {f.message}" if f.message else "")
            else:
                self.streak[name] = 0
        match = _EVAL_KEY.fullmatch(key)
        if match:
            ev = self.evaluations.get(self.config.entrants[int(match.group(1))])
            if ev is not None:
                ev.add(match.group(2), places)

    def _suspend_faulty(self) -> None:
        limit = self.roster.settings.suspend_after
        faulty = [n for n, k in self.streak.items() if k >= limit and self.roster.bot(n).active]
        if not faulty:
            return

        def suspend(roster: Roster) -> None:
            for name in faulty:
                bot = roster.bot(name)
                if bot.active:
                    bot.state, bot.reason = SUSPENDED, (f"faulted in {self.streak[name]} games in a row; the last: "
                                                        f"{self.last_fault.get(name, '?')}")[:500]

        self.persist(suspend)

    # ----------------------------------------------------------------------------------------- handing out

    def next_job(self) -> Scheduled | None:
        """The next game to play, or None when there is nothing to play now (paused, or too few bots)."""
        if self.roster.settings.paused:
            return None
        while not self.queue:
            if not self._plan():
                return None
        job = self.queue.popleft()
        self.in_flight[job.key] = job
        self._count([self.config.entrants[e] for e in job.seating])
        self.handed["evaluation" if job.key.startswith("e") else "pool"] += 1
        return job

    def _plan(self) -> bool:
        """Queue the next unit of work (docs/LEAGUE.md); False when there is none."""
        pool = self._pool_table()
        evaluations = self._open_candidates()
        share = self.roster.settings.pool_share
        total = self.handed["pool"] + self.handed["evaluation"]
        if evaluations and (pool is None or self.handed["pool"] >= share * total):
            name = min(evaluations, key=lambda n: (self.games[n], self.index[n]))
            ev = self.evaluations.get(name) or self._start(name)
            if ev is not None:
                self._queue(ev.jobs(ev.next_deal, self.next_seq))
                ev.next_deal += 1
                return True
            return self._plan()  # it could not start (and is suspended now): plan again without it
        if pool is None:
            return False
        self._queue(self._round(self.next_round, pool))
        self.next_round += 1
        return True

    def _queue(self, jobs: list[Scheduled]) -> None:
        self.queue.extend(jobs)
        self.next_seq += len(jobs)

    def _round(self, n: int, table: tuple[int, ...]) -> list[Scheduled]:
        seed = derive_seed(self.config.deals_from, "league-pool", n, sep="/")
        label = "-".join(str(e) for e in table)
        jobs = schedule(len(self.config.entrants), self.config.seats, 1, seed=seed, duplicate=True, teams=self.teams,
                        tables=[table])
        return [Scheduled(f"p{n}.t{label}.{j.key.rsplit('.', 1)[1]}", self.next_seq + i, j.seed, j.seating)
                for i, j in enumerate(jobs)]

    def _pool_table(self) -> tuple[int, ...] | None:
        pool = self.roster.active(BENCHMARK)
        k = self.config.seats
        if len(pool) < k:
            return None
        first = min(pool, key=lambda n: (self.games[n], -self.index[n]))
        others = sorted((n for n in pool if n != first),
                        key=lambda n: (self.met[frozenset((first, n))], self.games[n], self.index[n]))[:k - 1]
        return tuple(sorted(self.index[n] for n in (first, *others)))

    def _open_candidates(self) -> list[str]:
        names = []
        for name in self.roster.active(CANDIDATE):
            ev = self.evaluations.get(name)
            if ev is None or ev.open:
                names.append(name)
        if not names:
            return []
        pool = self.roster.active(BENCHMARK)
        needed = 1 if self.config.seats == 2 else self.config.seats
        warm = len(pool) < self.config.seats or all(self.games[n] >= WARM_UP for n in pool)
        return names if len(pool) >= needed and warm else [n for n in names if n in self.evaluations]

    def _start(self, name: str) -> Evaluation | None:
        """Fix the candidate's baseline and field, stored before its first deal; None (and the candidate suspended,
        with the reason) when its named baseline is not an active benchmark."""
        bot = self.roster.bot(name)
        pool = self.roster.active(BENCHMARK)
        wanted = bot.baseline or self.roster.settings.baseline
        reason = None
        if wanted is not None and wanted not in pool:
            reason = f"its baseline {wanted} is not an active benchmark"
        baseline = wanted or self.best(pool)
        others = [n for n in pool if n != baseline]
        if reason is None and self.config.seats > 2 and len(others) < self.config.seats - 1:
            reason = f"{self.config.seats} seats need {self.config.seats - 1} benchmarks besides the baseline"

        def fix(roster: Roster) -> None:
            stored = roster.bot(name)
            if reason is not None:
                stored.state, stored.reason = SUSPENDED, reason
            elif stored.evaluation is None:
                stored.evaluation = {"baseline": baseline, "field": others}

        self.persist(fix)
        return self.evaluations.get(name) if self.roster.bot(name).state == ACTIVE else None

    # ------------------------------------------------------------------------------------------- reading

    def status(self, name: str) -> dict[str, Any]:
        """A candidate's evaluation for the page and ``show``."""
        ev = self.evaluations.get(name)
        bot = self.roster.bots.get(name)
        left = None if bot is None or bot.active else bot.state  # suspended or retired before a verdict
        if ev is None:
            return {"verdict": left or "waiting", "course": [], "reason": bot.reason if bot else None}
        state = ev.state()
        verdict = ev.verdict()
        if left is not None and verdict in ("evaluating", "stopped"):
            verdict = left
        return {"verdict": verdict, "baseline": ev.baseline, "field": ev.field, "stopped": ev.stopped,
                "reason": bot.reason if bot else None, **state.to_json(), "line": state.line(), "course": ev.course}
