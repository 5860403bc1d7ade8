"""The executor of many machines: :class:`DaskExecutor` plays a tournament's games on a Dask cluster
(``dask.distributed``, the optional extra ``pip install 'referee[dask]'``), an existing one (``--scheduler
tcp://HOST:PORT``) or one it starts on this machine and closes again (``--scheduler local:N``).

What travels where: the configuration (as its dict), the sandbox settings and the wire log's path go to every worker
once, in a worker plugin; jobs (:class:`Scheduled`) go out in batches, one Dask task each; FinishedGames come back.
The database stays in the main process, its single writer (:mod:`tournaments.run`). Each Dask worker holds one
:class:`GameWorker` in its plugin, so its bots, and the bot processes behind them, live across tasks until the
plugin is torn down (the run closes, or the worker does). Program bots are started on the workers by the same SPEC
as here: the same path must work on every machine, and every worker checks at start that it can start each one.

Dask runs a task in a thread of the worker (one with ``--nthreads 1``). Nothing on the bot path needs the main
thread: the transport waits on pipes with timeouts (no signals) and starts bots with ``start_new_session``; the
sandbox's ``preexec_fn`` only joins the bot's cgroups and sets resource limits (the cgroups' bots that answered are
kept per thread, referee/cgroups.py). Pinning is per thread on Linux (``sched_setaffinity(0)``), and the
bot processes a thread starts inherit its core, so the task thread pins itself.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from referee.botspec import check_supports
from referee.errors import ConfigError, ExecutorError
from referee.sandbox import Sandbox
from referee.wirelog import WireLog

from .config import TournamentConfig
from .feed import Feed, Finished, Placement
from .local import least_pinned
from .schedule import Scheduled
from .storage import FinishedGame
from .worker import GameWorker

__all__ = ["DaskExecutor", "INSTALL", "check_scheduler"]

INSTALL = "pip install 'referee[dask]'"
_ADDRESS = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})")
_LOCAL = re.compile(r"local:([0-9]+)")
_CONNECT_SECONDS = 10.0
#: Play per task, and the most games in one: longer than the local executor's batches, since a Dask task costs CPU
#: (the scheduler and the client in this process, some 7-10 ms of it a task, and the worker's event loop). At 100 ms a
#: task, with sizes from a moving average of each batch's rate (a first, slow game weighed as much as a full batch),
#: kazaki's 1.4 ms games ran 24 to a task and cost 0.35 ms more CPU per game than with the local executor; at 250 ms,
#: with every game weighed alike, about 90 a task (benchmarks/tournament.py part e). An SPRT's overshoot (at most two
#: tasks a worker taken ahead when it decides) stays under a second of play, and at most 2 × MAX_BATCH games a worker.
BATCH_SECONDS = 0.25
MAX_BATCH = 256
#: Dask settings of a local:N cluster, costs in proportion to time, not to work: no statistical profiler (it samples
#: each worker's task thread every 10 ms), no GIL monitor, no work stealing (tasks are queued on the scheduler until
#: a worker has room), and the event-loop tick, memory and system monitors at 1-2 s instead of 20-500 ms. An idle
#: local:2 cluster takes 1.6 % of a core so, 8.6 % with Dask's defaults (for a cluster by hand: docs/TOURNAMENTS.md).
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.system-monitor.gil.enabled": False,
         "distributed.scheduler.work-stealing": False, "distributed.admin.tick.interval": "1s",
         "distributed.worker.memory.monitor-interval": "1s", "distributed.admin.system-monitor.interval": "2s",
         "distributed.admin.system-monitor.disk": False}


def check_scheduler(scheduler: str | None) -> None:
    """Refuse, in one :class:`ConfigError` line, a ``--scheduler`` that is neither ``tcp://HOST:PORT`` nor
    ``local:N`` (N ≥ 1), and the dask executor where ``distributed`` is not installed."""
    if scheduler is not None:
        address, local = _ADDRESS.fullmatch(scheduler), _LOCAL.fullmatch(scheduler)
        if not (address and 0 < int(address.group(2)) < 65536) and not (local and int(local.group(1)) >= 1):
            raise ConfigError(f"--scheduler {scheduler!r} is not tcp://HOST:PORT (a Dask scheduler) or local:N "
                              "(a cluster of N worker processes on this machine)")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ConfigError(f"--executor dask needs dask.distributed, which is not installed: {INSTALL} "
                          "(or pip install '.[dask]' in a checkout)") from None


# ------------------------------------------------------------------------------------------- on each worker


def _plugin_class() -> type:
    from distributed import WorkerPlugin

    class _Games(WorkerPlugin):  # type: ignore[misc]
        """One tournament's GameWorker on one Dask worker, made in the task thread at the first task (pinned
        first, so its bot processes share the core), closed when the plugin is torn down."""

        def __init__(self, name: str, config: dict[str, Any], sandbox: Sandbox | None, wire_log: WireLog | None,
                     cores: dict[str, int]) -> None:
            self.name, self.config, self.sandbox, self.wire_log, self.cores = name, config, sandbox, wire_log, cores
            self.core: int | None = None
            self.games: GameWorker | None = None
            self.label = ""

        def setup(self, worker: Any) -> None:
            self.core = self.cores.get(str(worker.name))  # a worker restarted under its name keeps its core
            self.label = f"{worker.name} ({worker.address})"

        def teardown(self, worker: Any) -> None:
            if self.games is not None:
                self.games.close()
                self.games = None

        def worker(self) -> GameWorker:
            if self.core is not None:  # this thread, and the bots it starts from now on
                os.sched_setaffinity(0, {self.core})
            if self.games is None:
                self.games = GameWorker(TournamentConfig.from_dict(self.config), self.sandbox, self.wire_log)
            return self.games

    return _Games


def _mine(name: str) -> Any:
    from distributed import get_worker

    return get_worker().plugins[name]


def _where(dask_worker: Any) -> tuple[list[int], int]:
    """This worker's cores (as Linux lets it run), those its host's other processes are pinned to least first, and
    its threads (``client.run`` passes the worker)."""
    cores = least_pinned(sorted(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else []
    return cores, dask_worker.state.nthreads


def _check(name: str) -> str | None:
    """Start every program bot of the tournament once here (kept for the games) and read its hello: None, or the
    one line saying which bot this worker cannot start."""
    plugin = _mine(name)
    try:
        games = plugin.worker()
    except Exception as exc:  # noqa: BLE001 - a SPEC that does not resolve here, reported by the main process
        return f"Dask worker {plugin.label} cannot set up the tournament: {exc}"
    for entrant, spec in enumerate(games.specs):
        try:
            check_supports(games._bot(entrant), spec, games.config.game, games.config.seats,
                           games.game.configure(games.config.options))
        except Exception as exc:  # noqa: BLE001 - the bot is named; the run stops before a game
            return f"Dask worker {plugin.label} cannot start bot {games.config.entrants[entrant]!r}: {exc}"
    return None


def _play(name: str, jobs: list[Scheduled]) -> tuple[list[FinishedGame], float, str | None]:
    """Play a batch: its games, the seconds played, and what failed (a game that raised) if one did."""
    plugin = _mine(name)
    games = plugin.worker()
    started = time.perf_counter()
    done: list[FinishedGame] = []
    for job in jobs:
        try:
            done.append(games.play(job))
        except Exception as exc:  # noqa: BLE001 - reported by the main process, which stops the run
            return done, time.perf_counter() - started, (f"game {job.key} failed on Dask worker {plugin.label}: "
                                                         f"{type(exc).__name__}: {exc}")
    return done, time.perf_counter() - started, None


# ------------------------------------------------------------------------------------------- the main process


def _pinned(workers: dict[str, dict[str, Any]], where: dict[str, tuple[list[int], int]]) -> dict[str, int]:
    """The core of each worker (by name) that owns one: on each host, when every worker there has one thread, may run
    on the same cores and there are no more workers than those cores, one core each, in the order of their names,
    the cores the host's other processes are pinned to least first (:func:`_where`)."""
    hosts: dict[str, list[str]] = {}
    for address in workers:
        hosts.setdefault(address.rsplit(":", 1)[0], []).append(address)
    cores: dict[str, int] = {}
    for addresses in hosts.values():
        mine = [where[a] for a in addresses if a in where]
        if len(mine) != len(addresses) or any(threads != 1 for _, threads in mine):
            continue
        free = mine[0][0]  # in the order of the first worker asked (the host's least pinned cores first)
        if any(set(c) != set(free) for c, _ in mine) or len(addresses) > len(free):
            continue
        names = sorted((str(workers[a].get("name", a)) for a in addresses), key=lambda n: (len(n), n))
        cores.update(zip(names, free, strict=False))
    return cores


class DaskExecutor:
    """Games on a Dask cluster: batches of jobs as tasks, taken from the schedule only as workers need them."""

    def __init__(self, config: TournamentConfig, placement: Placement) -> None:
        check_scheduler(placement.scheduler)
        import dask
        from distributed import Client, LocalCluster

        self.scheduler = placement.scheduler or f"local:{placement.workers}"
        self.name = f"referee-{uuid.uuid4().hex[:12]}"
        self.cluster: Any = None
        self.client: Any = None
        self._pending: dict[Any, list[Scheduled]] = {}
        try:
            if (local := _LOCAL.fullmatch(self.scheduler)) is not None:
                wanted = int(local.group(1))
                with dask.config.set(QUIET):  # the workers take this configuration with them
                    self.cluster = LocalCluster(n_workers=wanted, threads_per_worker=1, processes=True,
                                                dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
            else:
                wanted = 1
                try:
                    self.client = Client(self.scheduler, timeout=_CONNECT_SECONDS)
                except (OSError, TimeoutError) as exc:
                    raise ConfigError(f"cannot reach the Dask scheduler at {self.scheduler}: {exc}") from None
            try:
                self.client.wait_for_workers(wanted, timeout=_CONNECT_SECONDS * 6)
            except TimeoutError:
                raise ConfigError(f"the Dask scheduler at {self.scheduler} has no workers") from None
            workers = self.client.scheduler_info(n_workers=-1)["workers"]
            where = self.client.run(_where) if placement.affinity == "auto" else {}
            self.cores = _pinned(workers, where)
            self.client.register_plugin(_plugin_class()(self.name, config.to_dict(), placement.sandbox,
                                                        placement.wire_log, self.cores), name=self.name)
            self.workers = len(workers)
            checks = [self.client.submit(_check, self.name, workers=[address], allow_other_workers=False, pure=False,
                                         key=f"{self.name}-check-{i}") for i, address in enumerate(workers)]
            for problem in self.client.gather(checks):
                if problem is not None:
                    raise ConfigError(problem)
        except BaseException:
            self._shut()
            raise

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        # The local executor's loop (tournaments/feed.py), with the cluster as its one lane: jobs are taken only as
        # workers need them (an SPRT's schedule stops when it is decided), two tasks per worker ahead, sized from
        # the seconds the workers report, every game weighing alike; smaller near the end.
        yield from Feed(jobs, self.workers, seconds=BATCH_SECONDS, most=MAX_BATCH).run(_Tasks(self), 1)

    def close(self) -> None:
        """Close every worker's bots and, for ``local:N``, the cluster."""
        self._shut()

    def terminate(self) -> None:
        """Cancel the batches in flight, then close."""
        if self.client is not None and self._pending:
            try:
                self.client.cancel(list(self._pending))
            except Exception:  # noqa: BLE001 - stopping must go on
                pass
        self._pending.clear()
        self._shut()

    def _shut(self) -> None:
        if self.client is not None:
            try:
                if self.cluster is None:  # a cluster of someone else's: its workers stay, our bots close
                    self.client.unregister_worker_plugin(self.name)
            except Exception:  # noqa: BLE001 - closing must reach the client and cluster
                pass
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


class _Tasks:
    """The cluster of a :class:`DaskExecutor` as the one lane of the feeding loop: a batch is a task, and tasks
    come back as they complete."""

    def __init__(self, executor: DaskExecutor) -> None:
        from distributed import as_completed

        self.executor = executor
        self.done = as_completed()
        self.count = 0

    def open(self) -> int:
        return 0

    def capacity(self, lane: int) -> int:
        return self.executor.workers

    def send(self, lane: int, batch: list[Scheduled]) -> bool:
        executor = self.executor
        future = executor.client.submit(_play, executor.name, batch, pure=False,
                                        key=f"{executor.name}-games-{self.count}")
        self.count += 1
        executor._pending[future] = batch
        self.done.add(future)
        return True

    def finished(self, lanes: list[int]) -> Iterator[Finished[int]]:
        from distributed.scheduler import KilledWorker

        for future in self.done:
            batch = self.executor._pending.pop(future, None)
            if batch is None:  # a batch is yielded once, however often Dask ran it: no key comes back twice
                continue
            try:
                games, seconds, failure = future.result()
            except KilledWorker:
                allowed = _allowed_failures()
                raise ExecutorError(f"the batch of game {batch[0].key} lost its Dask worker {allowed + 1} "
                                    f"time{'s' if allowed else ''} (distributed.scheduler.allowed-failures: "
                                    f"{allowed})") from None
            except Exception as exc:  # noqa: BLE001 - the cluster failed (a lost scheduler): one line
                raise ExecutorError(f"the Dask cluster failed playing game {batch[0].key}: "
                                    f"{type(exc).__name__}: {exc}") from None
            future.release()
            yield Finished(0, games, seconds, len(batch), True, failure)


def _allowed_failures() -> int:
    import dask

    return int(dask.config.get("distributed.scheduler.allowed-failures"))
