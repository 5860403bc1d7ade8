"""The marker plugins use to implement referee's hooks (the hooks themselves: ``referee.hookspecs``).

It lives in the lowest layer so that bot packages can implement hooks without importing the referee core::

    from protocol.hooks import BotRegistrar, hookimpl

    @hookimpl
    def register_bots(register: BotRegistrar) -> None:
        register("mybot", MyBot, description="plays the lowest card")

:class:`BotRegistrar` is the type of the ``register`` callback that hook hands in (the other hooks' are in
``referee.hookspecs``); annotating it is optional.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

import pluggy

from .bot import Bot

PROJECT = "referee"
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["PROJECT", "BotRegistrar", "hookimpl"]


class BotRegistrar(Protocol):
    """The ``register`` of ``register_bots``: one call per bot. ``factory()`` makes a new bot (the bot class itself
    will do); ``games`` lists the ids of the games it plays (None: every game)."""

    def __call__(self, name: str, factory: Callable[[], Bot], *, description: str = "",
                 games: Iterable[str] | None = None) -> None: ...
