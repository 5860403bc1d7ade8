"""Playing a league: the loop that hands the matchmaker's games to an executor and stores them as they finish, in a
thread of ``referee league serve``, and :class:`LeagueView`, what it tells the web page.

Crash safety is the tournament's (tournaments/storage.py): games are committed a batch at a time, in WAL mode, and a
game whose key is stored is never handed out again (tournaments/league/matchmaker.py), so a ``kill -9`` loses the
games in flight and the batch not yet committed, and a restart plays those again, under the same keys. One process
at a time plays a league (:meth:`Store.lock`).

The roster is read again from the database every half second: ``add``, ``retire``, ``promote``, ``stop`` and
``start`` from another process (or the JSON API) take effect then. A new entrant needs a new executor (its workers
know the entrants they were started with): the games in flight finish, then the executor is started again.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from referee.errors import ExecutorError, RefereeError
from referee.plugins import Registry

from ..config import TournamentConfig
from ..feed import Executor
from ..report import report_of
from ..schedule import Scheduled
from ..storage import FinishedGame, Store, body_faults
from ..tally import tally
from .matchmaker import Matchmaker
from .roster import CANDIDATE, Roster, change, with_roster

__all__ = ["LeagueView", "Player"]

#: Seconds between two reads of the stored roster while games are played.
RELOAD = 0.5
#: Seconds between two updates of the evaluations the page shows.
PUBLISH = 0.25
#: The most recent games the view keeps.
RECENT = 30


class LeagueView:
    """What the play loop tells the page, under a lock: a version that grows with every change, the games per
    bot and their faults, the evaluations, the roster, the loop's state and its last errors."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.version = 0
        self.games = 0
        self.played_now = 0  # games stored by this run
        self.started = time.monotonic()
        self.state = "starting"
        self.errors: deque[str] = deque(maxlen=10)
        self.bots: dict[str, dict[str, Any]] = {}
        self.evaluations: dict[str, dict[str, Any]] = {}
        self.roster: dict[str, Any] = {}
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        #: the stored games by (seating, places), what the leaderboard is fitted from; complete once ``loaded``
        self.tally: Counter[tuple[tuple[str, ...], tuple[int, ...]]] = Counter()
        self.loaded = False

    def _bot(self, name: str) -> dict[str, Any]:
        return self.bots.setdefault(name, {"games": 0, "faulted": 0, "kinds": Counter()})

    def game(self, key: str, seating: Sequence[str], places: Sequence[int], kinds: Sequence[tuple[int, str]],
             now: bool) -> None:
        with self.lock:
            self.games += 1
            self.played_now += now
            self.tally[tuple(seating), tuple(places)] += 1
            faulted = {seat for seat, _ in kinds}
            for seat, name in enumerate(seating):
                bot = self._bot(name)
                bot["games"] += 1
                bot["faulted"] += seat in faulted
            for seat, kind in kinds:
                self._bot(seating[seat])["kinds"][kind] += 1
            if now:
                self.recent.appendleft({"key": key, "bots": list(seating), "places": list(places),
                                        "faults": [[s, k] for s, k in kinds]})
            self.version += 1

    def publish(self, mm: Matchmaker, state: str | None = None) -> None:
        evaluations = {name: mm.status(name) for name, bot in mm.roster.bots.items() if bot.role == CANDIDATE
                       or name in mm.evaluations}
        with self.lock:
            self.evaluations = evaluations
            self.roster = mm.roster.to_dict()
            if state is not None:
                self.state = state
            self.version += 1

    def counted(self) -> tuple[dict[tuple[tuple[str, ...], tuple[int, ...]], int], dict[str, int]] | None:
        """The stored games by (seating, places) and the faults per bot, once the stored games are read (None
        before)."""
        with self.lock:
            if not self.loaded:
                return None
            return dict(self.tally), {n: sum(b["kinds"].values()) for n, b in self.bots.items()}

    def problem(self, text: str) -> None:
        with self.lock:
            self.errors.appendleft(f"{time.strftime('%H:%M:%S')} {text}")
            self.version += 1

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            elapsed = time.monotonic() - self.started
            return {"version": self.version, "state": self.state, "games": self.games,
                    "played_now": self.played_now, "games_per_second": round(self.played_now / max(elapsed, 1e-9), 2),
                    "errors": list(self.errors), "evaluations": self.evaluations, "roster": self.roster,
                    "bots": {n: {"games": b["games"], "faulted": b["faulted"], "kinds": dict(b["kinds"])}
                             for n, b in self.bots.items()},
                    "recent": list(self.recent)}


class Player:
    """The play loop of one league database (:meth:`run`, in a thread); :meth:`stop` ends it after the games in
    flight."""

    def __init__(self, path: Path, registry: Registry, make_executor: Callable[[TournamentConfig], Executor],
                 view: LeagueView) -> None:
        self.path = path
        self.registry = registry
        self.make_executor = make_executor
        self.view = view
        self.stopping = threading.Event()
        self.known: dict[str, Any] | None = None
        self.failures = 0
        self.published = 0.0  # when the view last got the evaluations

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        try:
            with Store(self.path, create=False) as store:
                store.lock()
                self._play(store)
        except RefereeError as exc:
            self.view.problem(str(exc))
            with self.view.lock:
                self.view.state = f"stopped: {exc}"
        finally:
            with self.view.lock:
                if not self.view.state.startswith("stopped"):
                    self.view.state = "stopped"
                self.view.version += 1

    def _play(self, store: Store) -> None:
        stored = store.config()
        config = TournamentConfig.from_dict(stored)
        self.known = stored
        teams = self.registry.game(config.game).teams(config.seats)

        def persist(mutate: Callable[[Roster], None]) -> None:
            def apply(cfg: TournamentConfig, roster: Roster) -> TournamentConfig:
                mutate(roster)
                return with_roster(cfg, roster)

            new = change(store, apply)
            self.known = new.to_dict()
            mm.update(new)

        def best(names: Sequence[str]) -> str:
            rows = report_of(mm.config.entrants, tally(mm.config.entrants, store), teams=teams).rows
            rated = [r["bot"] for r in rows if r["bot"] in names and r["rating"] is not None]
            return rated[0] if rated else names[0]

        mm = Matchmaker(config, teams, persist, best)
        for row in store.games():
            mm.stored_game(row.seq, row.key, row.seating, row.places, row.faults)
            self.view.game(row.key, row.seating, row.places, [(f.seat, str(f.kind)) for f in row.faults], False)
        mm.resume()
        with self.view.lock:
            self.view.loaded = True
        while not self.stopping.is_set():
            self._reload(store, mm)
            first = mm.next_job()
            if first is None:
                self.view.publish(mm, "paused" if mm.roster.settings.paused else "idle: too few active bots")
                self.stopping.wait(RELOAD)
                continue
            self.view.publish(mm, "playing")
            running = mm.config
            executor = self.make_executor(running)
            try:
                with store.batch() as batch:
                    for game in executor.run(self._jobs(first, store, mm, running)):
                        batch.add(game)
                        self._finished(game, mm)
            except ExecutorError as exc:
                executor.terminate()
                mm.lost()  # handed out again, under the same keys
                self.failures += 1
                self.view.problem(f"the executor failed: {exc}")
                if self.failures >= 3:
                    raise ExecutorError(f"the executor failed 3 times in a row; the last: {exc}") from exc
                self.stopping.wait(1.0)
                continue
            except BaseException:
                executor.terminate()
                raise
            executor.close()
            self.view.publish(mm)

    def _jobs(self, first: Scheduled, store: Store, mm: Matchmaker, running: TournamentConfig) -> Iterator[Scheduled]:
        """The games for one executor: until the league stops, pauses, has nothing to play, or has a new entrant
        (which the executor's workers do not know)."""
        yield first
        last = time.monotonic()
        while not self.stopping.is_set():
            now = time.monotonic()
            if now - last >= RELOAD:
                self._reload(store, mm)
                last = now
            if len(mm.config.entrants) != len(running.entrants):
                return
            job = mm.next_job()
            if job is None:
                return
            yield job

    def _finished(self, game: FinishedGame, mm: Matchmaker) -> None:
        faults = body_faults(game.body, len(game.seating)) or () if game.faults else ()
        mm.finished(game.key, game.seating, game.places, faults)
        self.failures = 0
        self.view.game(game.key, game.seating, game.places, [(f.seat, str(f.kind)) for f in faults], True)
        now = time.monotonic()
        if now - self.published >= PUBLISH:  # the evaluations and the roster, a few times a second
            self.published = now
            self.view.publish(mm)

    def _reload(self, store: Store, mm: Matchmaker) -> None:
        stored = store.config()
        if stored != self.known and stored is not None:
            self.known = stored
            mm.update(TournamentConfig.from_dict(stored))
            self.view.publish(mm)
