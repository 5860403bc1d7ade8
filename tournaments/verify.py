"""``referee tournament verify``: does every stored game follow from its record?

A row of the database holds the game's record (the deal, every action, every fault: in schema 2 compactly, the actions
as indices into their legal lists) and, in its own columns, what the table is computed from: the seating, the places and
(schema 2) the number of faults; its result (with the scores) and its faults are the stored ones (schema 1: columns of
their own). Verifying a row re-plays its record (rebuilt from the row, schema 2) through the engine (the fault policy
applied to the recorded faults, as when it was played) and compares: the schedule's deck seed and seating for the row's
key, the record's game, seats, options and policy against the tournament's configuration, the replayed result against
the record's own and against the row's columns. A league has no schedule fixed in advance: its rows are held to the game
their key names by the league's rules (tournaments/league/matchmaker.py). Any difference, or a record that does not
replay, names the row. It finds rows changed after they were written (a bot that reached the database, a damaged file);
it cannot tell a record forged together with its row from a real one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.engine import Game
from referee.errors import RefereeError
from referee.match import game_result
from referee.record import record_from_dict, replay

from .config import TournamentConfig
from .league.roster import is_league
from .played import claimed
from .schedule import Scheduled
from .sprt_plan import SprtPlan, deal_of, is_sprt
from .storage import StorageError, Store, StoredGame

__all__ = ["Mismatch", "Ticker", "Verification", "verify"]

@dataclass(frozen=True)
class Mismatch:
    """A stored row that does not follow from its record: its key and what differs (one line each)."""

    key: str
    problems: list[str]

    def line(self) -> str:
        return f"{self.key}: {'; '.join(self.problems)}"


@dataclass
class Verification:
    checked: int = 0  # rows looked at
    scheduled: int = 0  # games in the schedule
    mismatches: list[Mismatch] = field(default_factory=list)  # the missing games among them, in schedule order
    recorded: int | None = None  # games the runs say they stored (tournaments/played.py); None: not recorded
    missing: list[str] = field(default_factory=list)  # the keys of those that are not stored

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {"games": self.checked, "scheduled": self.scheduled, "ok": self.ok,
                "mismatches": [{"key": m.key, "problems": m.problems} for m in self.mismatches],
                "recorded": self.recorded, "missing": self.missing}


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + " …"


def _scheduled(store: Store, config: Mapping[str, Any], game: Game) -> dict[str, Scheduled]:
    """The scheduled games by key: a round robin's whole schedule; an SPRT's deals that have a stored game (its
    schedule has no end of its own: it stops when the test decides); a league's stored games, each as the league's
    rules make the game its key names (a league has no schedule fixed in advance: it plays while it is served)."""
    if is_league(config):
        from .league.matchmaker import Matchmaker  # only a league's verify needs its rules

        league = TournamentConfig.from_dict(dict(config))
        rules = Matchmaker.reading(league, game.teams(league.seats))
        return rules.named(list(store.done_keys()))
    if is_sprt(config):
        sprt = TournamentConfig.from_dict(dict(config))
        plan = SprtPlan.of(sprt)
        deals = sorted({deal for key in store.done_keys() if (deal := deal_of(key)) is not None
                        and deal < plan.max_deals})
        return {job.key: job for deal in deals for job in plan.deal(sprt.deals_from, deal)}
    tournament = TournamentConfig.from_dict(dict(config))
    return {job.key: job for job in tournament.jobs(game.teams(tournament.seats))}


def verify(store: Store, find_game: Callable[[str], Game],
           progress: Callable[[int, int], None] | None = None) -> Verification:
    """Check every stored row of ``store``; ``progress(done, stored)`` is called after each row."""
    config = store.config()
    if not isinstance(config, Mapping):
        raise StorageError(f"{store.path} holds no tournament")
    try:
        game = find_game(config["game"])
        entrants = list(config["entrants"])
        jobs = _scheduled(store, config, game)
        tournament = TournamentConfig.from_dict(dict(config))
        claims = [] if is_league(config) else store.played()  # a league records no runs' claims
        promised = {job.key: job for job in claimed(tournament, game.teams(tournament.seats), claims)}
    except (KeyError, TypeError, ValueError) as exc:
        raise StorageError(f"{store.path} holds a damaged tournament configuration ({type(exc).__name__}: "
                           f"{exc})") from exc
    jobs = {**promised, **jobs}  # an SPRT's deals claimed played count as scheduled, stored or not
    out = Verification(scheduled=len(jobs), recorded=len(promised) if claims else None)
    stored = store.count()
    seen: set[str] = set()
    for row in store.stored(game):
        problems = _check_row(row, config, entrants, jobs, find_game)
        out.checked += 1
        seen.add(str(row.key))
        if problems:
            out.mismatches.append(Mismatch(str(row.key), problems))
        if progress:
            progress(out.checked, stored)
    out.missing = [key for key in promised if key not in seen]  # in the order of play
    if out.missing:
        why = "missing: the run recorded it as stored (resume plays it again)"
        out.mismatches += [Mismatch(key, [why]) for key in out.missing]
        last = len(jobs)
        out.mismatches.sort(key=lambda m: jobs[m.key].seq if m.key in jobs else last)
    return out


def _check_row(row: StoredGame, config: Mapping[str, Any], entrants: list[str], jobs: Mapping[str, Scheduled],
               find_game: Callable[[str], Game]) -> list[str]:
    job = jobs.get(row.key)
    if job is None:
        return ["not a key of this tournament's schedule"]
    problems = []
    if str(row.seed) != str(job.seed):
        problems.append(f"seed: stored {row.seed}, the schedule says {job.seed}")
    if isinstance(row.columns, str):
        return [*problems, row.columns]
    columns, decisions = row.columns, row.decisions
    seating = [entrants[e] for e in job.seating]
    if columns["seating"] != seating:
        problems.append(f"seating: stored {_short(columns['seating'])}, the schedule says {_short(seating)}")
    if isinstance(row.record, str):
        return [*problems, f"record: {row.record}"]
    try:
        record = record_from_dict(row.record)
    except RefereeError as exc:  # RecordError: a damaged record
        return [*problems, f"record: {exc}"]
    expected = {"game": config.get("game"), "seats": config.get("seats"), "seed": job.seed,
                "options": config.get("options"), "policy": config.get("policy"), "bots": seating}
    actual = {"game": record.game, "seats": record.seats, "seed": record.seed, "options": record.options,
              "policy": record.policy, "bots": record.bots}
    problems += [f"record {k}: {_short(actual[k])}, the tournament says {_short(v)}"
                 for k, v in expected.items() if actual[k] != v]
    if any(not 0 <= f.seat < record.seats for f in record.faults):
        return [*problems, "record: a fault names a seat the game does not have"]
    try:
        if row.state is None:
            replayed = replay(record, find_game).result.to_dict()  # compared with the columns' JSON
        elif row.state.to_act is not None:
            return [*problems, f"the record does not replay: the record stops after {len(record.actions)} actions; "
                    f"seat {row.state.to_act} is to act"]
        else:  # schema 2: the actions are the row's choices, replayed already; the result follows from them
            replayed = game_result(find_game(record.game), row.state, record.faults, record.policy).to_dict()
    except RefereeError as exc:
        return [*problems, f"the record does not replay: {exc}"]
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - a damaged record, whatever it breaks
        return [*problems, f"the record does not replay: {type(exc).__name__}: {exc}"]
    if columns["places"] != replayed["places"]:
        problems.append(f"places: stored {_short(columns['places'])}, the replay gives {_short(replayed['places'])}")
    result = columns["result"] if isinstance(columns["result"], dict) else {}
    for name in sorted(set(result) if row.state is not None else set(replayed) | set(result)):
        if result.get(name) != replayed.get(name):
            problems.append(f"result {name}: stored {_short(result.get(name))}, the replay gives "
                            f"{_short(replayed.get(name))}")
    if row.state is not None:  # schema 2: the faults are the record's own; the column counts them
        if columns["faults"] != len(replayed["faults"]):
            problems.append(f"faults: stored {_short(columns['faults'])}, the record has {len(replayed['faults'])}")
    elif columns["faults"] != replayed["faults"]:
        problems.append(f"faults: stored {_short(columns['faults'])}, the record has {_short(replayed['faults'])}")
    if decisions != len(record.actions):
        problems.append(f"decisions: stored {decisions}, the record has {len(record.actions)}")
    return problems


class Ticker:
    """Progress on stderr for long runs: a line at most every ``every`` seconds, from ``after`` seconds on."""

    def __init__(self, write: Callable[[str], None], every: float = 10.0, after: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.write = write
        self.every = every
        self.clock = clock
        self.start = clock()
        self.next = self.start + after

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if now >= self.next and done < total:
            self.write(f"verified {done}/{total} games ({100 * done // max(total, 1)}%)")
            self.next = now + self.every
