"""The plugin contract: every hook referee calls. Nothing else declares hooks.

A plugin is a module (or object) with functions marked ``@hookimpl`` (``from referee import hookimpl`` or
``from protocol.hooks import hookimpl``), found through the entry point group ``referee``. The built-in games
and bots are plugins too, registered through these very hooks. Each hook hands in a ``register`` callback,
so names are validated and de-duplicated in one place (``referee.plugins``). The callbacks' types are
:class:`GameRegistrar`, :class:`~protocol.hooks.BotRegistrar` (in ``protocol``, for bot packages that import
nothing else) and :class:`CommandRegistrar`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import pluggy

from protocol.hooks import PROJECT, BotRegistrar

from .engine import Game, resolve

__all__ = ["BotRegistrar", "CommandRegistrar", "GameRegistrar", "LateGame", "hookspec", "register_bots",
           "register_commands", "register_games"]

hookspec = pluggy.HookspecMarker(PROJECT)


@dataclass(frozen=True)
class LateGame:
    """A game registered by its id and where it is (``"package.module:Attribute"``, a :class:`Game` subclass made
    with no arguments, or an instance), imported when a command first asks for it: a plugin of many games, or of
    heavy ones, then costs the commands that do not play them nothing."""

    id: str
    where: str

    def load(self) -> Game:
        found = resolve(self.where)
        game = found() if isinstance(found, type) else found
        if not isinstance(game, Game) or game.id != self.id:
            raise TypeError(f"{self.where} is not a referee.engine.Game of id {self.id!r}")
        return game


class GameRegistrar(Protocol):
    """The ``register`` of ``register_games``: one call per game, an instance of :class:`referee.engine.Game` or a
    :class:`LateGame` naming one."""

    def __call__(self, game: Game | LateGame) -> None: ...


class CommandRegistrar(Protocol):
    """The ``register`` of ``register_commands``: a ``typer.Typer`` (a group of commands) or a click command, run
    as ``referee NAME``."""

    def __call__(self, command: Any, *, name: str) -> None: ...


@hookspec
def register_games(register: GameRegistrar) -> None:
    """Register games: call ``register(game)`` once per game, with an instance of ``referee.engine.Game``, or a
    :class:`LateGame` (its id and where it is) to have it imported when first used.

    Every implementation is called; the return value is ignored. A game id already registered is an error
    reported with the plugin's name.
    """


@hookspec
def register_bots(register: BotRegistrar) -> None:
    """Register in-process bots: call ``register(name, factory, *, description="", games=None)``.

    ``factory()`` returns a new bot (``protocol.bot.Bot``); ``games`` lists the game ids the bot supports
    (None: every game). Every implementation is called; the return value is ignored.
    """


@hookspec
def register_commands(register: CommandRegistrar) -> None:
    """Register commands of the ``referee`` command line: call ``register(command, name=NAME)`` with a
    ``typer.Typer`` (a group of commands) or a click command; ``referee NAME`` then runs it, with the errors of
    the project shown as one line (exit code 2) like every built-in command's. A name taken by a built-in command
    or by another plugin is an error reported with the plugin's name. Called only by the command line, so import
    the command's module inside the implementation: games and bots load without it.
    """
