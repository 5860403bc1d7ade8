"""The executor seam: where a tournament's games run.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration (:mod:`tournaments.config`). A game is played by a
:class:`tournaments.worker.GameWorker` wherever the executor puts it; :mod:`tournaments.local` is the executor of
this machine. This module imports neither processes nor pipes: a second executor starts from here, and joins
:data:`EXECUTORS`, the table ``referee tournament run/resume --executor NAME`` chooses from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Protocol

from referee.errors import ConfigError

from .config import TournamentConfig
from .schedule import Scheduled
from .storage import FinishedGame

if TYPE_CHECKING:
    from referee.sandbox import Sandbox
    from referee.wirelog import WireLog

__all__ = ["DEFAULT_EXECUTOR", "EXECUTORS", "Executor", "ExecutorFactory", "executor_factory"]


class Executor(Protocol):
    """Plays scheduled games and yields them as they finish, in any order: a FinishedGame carries its
    schedule key, so results do not depend on where a game ran."""

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]: ...

    def close(self) -> None:
        """Let the games in flight finish, then release the workers and their bots."""

    def terminate(self) -> None:
        """Stop now (^C, an error): the games in flight are lost."""


#: Makes an executor for a tournament: (configuration, worker count, sandbox of the program bots or None, the wire
#: log their frames go to or None; a WireLog pickles as its path, for an executor that sends it elsewhere).
ExecutorFactory = Callable[[TournamentConfig, int, "Sandbox | None", "WireLog | None"], Executor]


def _local(config: TournamentConfig, workers: int, sandbox: Sandbox | None,
           wire_log: WireLog | None = None) -> Executor:
    """This machine: inline for one worker, else worker processes (imported here: this module forks nothing)."""
    from .local import LocalExecutor

    return LocalExecutor(config, workers, sandbox, wire_log)


#: The executors by the name ``--executor`` gives.
EXECUTORS: dict[str, ExecutorFactory] = {"local": _local}
DEFAULT_EXECUTOR = "local"


def executor_factory(name: str) -> ExecutorFactory:
    """The executor called ``name``; :class:`ConfigError` listing the choices for a name that is not one."""
    factory = EXECUTORS.get(name)
    if factory is None:
        raise ConfigError(f"unknown executor {name!r} (choices: {', '.join(sorted(EXECUTORS))})")
    return factory
