"""The executor seam: where a tournament's games run.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration (:mod:`tournaments.config`). A game is played by a
:class:`tournaments.worker.GameWorker` wherever the executor puts it; :mod:`tournaments.local` is the executor of
this machine, :mod:`tournaments.dask_executor` that of many (a Dask cluster). This module imports neither processes
nor pipes nor Dask: each executor is imported when it is chosen from :data:`EXECUTORS`, the table
``referee tournament run/resume/join/sprt --executor NAME`` chooses from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from referee.errors import ConfigError

from .config import TournamentConfig
from .schedule import Scheduled
from .storage import FinishedGame

if TYPE_CHECKING:
    from referee.sandbox import Sandbox
    from referee.wirelog import WireLog

__all__ = ["AFFINITIES", "DEFAULT_EXECUTOR", "EXECUTORS", "Executor", "ExecutorFactory", "Placement",
           "executor_factory"]


class Executor(Protocol):
    """Plays scheduled games and yields them as they finish, in any order: a FinishedGame carries its
    schedule key, so results do not depend on where a game ran."""

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]: ...

    def close(self) -> None:
        """Let the games in flight finish, then release the workers and their bots."""

    def terminate(self) -> None:
        """Stop now (^C, an error): the games in flight are lost."""


AFFINITIES = ("auto", "off")


@dataclass(frozen=True)
class Placement:
    """Where and how an executor runs a tournament's games. None of it is part of the tournament: a game's result
    does not depend on it, so a tournament may be resumed with another placement."""

    workers: int = 1
    #: how program bots are started (None: as they are)
    sandbox: Sandbox | None = None
    #: where their frames are logged (None: nowhere); a WireLog pickles as its path, for workers elsewhere
    wire_log: WireLog | None = None
    #: ``auto``: pin each worker and its bots to a core of its own where there are enough cores; ``off``: never
    affinity: str = "off"
    #: the dask executor's cluster: ``tcp://HOST:PORT`` or ``local:N`` (None: ``local:WORKERS``)
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.affinity not in AFFINITIES:
            raise ConfigError(f"unknown --affinity {self.affinity!r} (choose from {', '.join(AFFINITIES)})")


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
