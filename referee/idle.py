"""The program bots of this thread that have answered and run on: frozen before an in-process bot is asked, or
once another bot has been waited for a while (:class:`referee.cgroups.BotGroup`). Apart from the cgroups module so
that the game loop asks cheaply, and a game of in-process bots loads nothing of the sandbox."""

from __future__ import annotations

import threading
from typing import Protocol

__all__ = ["Freezable", "IDLE", "freeze_idle", "idle_pending"]


class Freezable(Protocol):
    def freeze(self) -> None: ...


class _Idle(threading.local):
    """The groups of this thread's bots (a game is played in one thread) that have answered and are not frozen yet,
    by ``id``: a Dask worker thread's ``freeze_idle`` never freezes a bot another thread is asking."""

    def __init__(self) -> None:
        self.groups: dict[int, Freezable] = {}


IDLE = _Idle()


def idle_pending() -> bool:
    """Has a bot of this thread answered and not been frozen yet?"""
    return bool(IDLE.groups)


def freeze_idle() -> None:
    """Freeze every bot of this thread that has answered and runs on (:meth:`BotGroup.idle`)."""
    for group in list(IDLE.groups.values()):
        group.freeze()
