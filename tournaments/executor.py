"""The executor seam: where a tournament's games run.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration (:mod:`tournaments.config`). A game is played by a
:class:`tournaments.worker.GameWorker` wherever the executor puts it; :mod:`tournaments.local` is the executor of
this machine, :mod:`tournaments.dask_executor` that of many (a Dask cluster). This module imports neither processes
nor pipes nor Dask: each executor is imported when it is chosen from :data:`EXECUTORS`, the table
``referee tournament run/resume/join/sprt --executor NAME`` chooses from. What every executor shares (the
:class:`Executor` it is, the :class:`Placement` it is given, the one loop that feeds it batches) is
:mod:`tournaments.feed`, below them all.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.errors import ConfigError

from .config import TournamentConfig
from .feed import AFFINITIES, Executor, Placement

__all__ = ["AFFINITIES", "DEFAULT_EXECUTOR", "EXECUTORS", "Executor", "ExecutorFactory", "Placement",
           "executor_factory"]


#: Makes an executor for a tournament: (configuration, placement).
ExecutorFactory = Callable[[TournamentConfig, Placement], Executor]


def _local(config: TournamentConfig, placement: Placement) -> Executor:
    """This machine: inline for one worker, else worker processes (imported here: this module forks nothing)."""
    from .local import LocalExecutor

    return LocalExecutor(config, placement.workers, placement.sandbox, placement.wire_log, affinity=placement.affinity)


def _dask(config: TournamentConfig, placement: Placement) -> Executor:
    """A Dask cluster (the optional extra ``referee[dask]``), from ``placement.scheduler``."""
    from .dask_executor import DaskExecutor

    return DaskExecutor(config, placement)


#: The executors by the name ``--executor`` gives.
EXECUTORS: dict[str, ExecutorFactory] = {"local": _local, "dask": _dask}
DEFAULT_EXECUTOR = "local"


def executor_factory(name: str, scheduler: str | None = None) -> ExecutorFactory:
    """The executor called ``name``; :class:`ConfigError` listing the choices for a name that is not one, and for a
    ``--scheduler`` that is not for it, or malformed, or dask without ``distributed`` installed: all before a
    tournament starts."""
    factory = EXECUTORS.get(name)
    if factory is None:
        raise ConfigError(f"unknown executor {name!r} (choices: {', '.join(sorted(EXECUTORS))})")
    if name == "dask":
        from .dask_executor import check_scheduler

        check_scheduler(scheduler)
    elif scheduler is not None:
        raise ConfigError(f"--scheduler names a Dask cluster: it needs --executor dask (not {name})")
    return factory
