"""The executor seam: where a tournament's games run.

An executor takes scheduled games and yields their outcomes, in any order. The schedule and the results do
not depend on where a game runs: an outcome carries its schedule key, and everything a game needs (game,
options, entrants, seed) travels with the configuration (:mod:`tournaments.config`). A game is played by a
:class:`tournaments.worker.GameWorker` wherever the executor puts it; :mod:`tournaments.local` is the executor of
this machine. This module imports neither processes nor pipes: a second executor starts from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from .schedule import Scheduled
from .storage import FinishedGame

__all__ = ["Executor"]


class Executor(Protocol):
    """Plays scheduled games and yields them as they finish, in any order: a FinishedGame carries its
    schedule key, so results do not depend on where a game ran."""

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]: ...

    def close(self) -> None:
        """Let the games in flight finish, then release the workers and their bots."""

    def terminate(self) -> None:
        """Stop now (^C, an error): the games in flight are lost."""
