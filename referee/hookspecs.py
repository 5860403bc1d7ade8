"""The plugin contract: every hook referee calls. Nothing else declares hooks.

A plugin is a module (or object) with functions marked ``@hookimpl`` (``from referee import hookimpl`` or
``from protocol.hooks import hookimpl``), found through the entry point group ``referee``. The built-in games
and bots are plugins too, registered through these very hooks. Each hook hands in a ``register`` callback,
so names are validated and de-duplicated in one place (``referee.plugins``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

from protocol.hooks import PROJECT

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def register_games(register: Callable[[Any], None]) -> None:
    """Register games: call ``register(game)`` once per game, with an instance of ``referee.engine.Game``.

    Every implementation is called; the return value is ignored. A game id already registered is an error
    reported with the plugin's name.
    """


@hookspec
def register_bots(register: Callable[..., None]) -> None:
    """Register in-process bots: call ``register(name, factory, *, description="", games=None)``.

    ``factory()`` returns a new bot (``protocol.bot.Bot``); ``games`` lists the game ids the bot supports
    (None: every game). Every implementation is called; the return value is ignored.
    """


@hookspec
def register_commands(register: Callable[..., None]) -> None:
    """Register commands of the ``referee`` command line: call ``register(command, name=NAME)`` with a
    ``typer.Typer`` (a group of commands) or a click command; ``referee NAME`` then runs it, with the errors of
    the project shown as one line (exit code 2) like every built-in command's. A name taken by a built-in command
    or by another plugin is an error reported with the plugin's name. Called only by the command line, so import
    the command's module inside the implementation: games and bots load without it.
    """
