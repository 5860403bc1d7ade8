"""Loading plugins and the registry of games and bots they register.

:func:`load_registry` builds a fresh plugin manager (never a module global), registers the built-in plugins
(``DEFAULT_PLUGINS``, the same way as any other) and then the entry points of the group ``referee``. A
plugin that fails to import or to register is reported by name in ``Registry.errors``; the rest still load.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from typing import Any

import pluggy

from protocol.bot import Bot
from protocol.hooks import PROJECT

from . import __version__, hookspecs
from .engine import Game
from .errors import ConfigError, PluginError
from .hookspecs import BotRegistrar, CommandRegistrar, GameRegistrar, LateGame

__all__ = ["DEFAULT_PLUGINS", "BotEntry", "CommandEntry", "GameEntry", "Registry", "load_registry",
           "make_plugin_manager"]

#: The built-in plugins, registered through the same hooks as third-party ones.
DEFAULT_PLUGINS = ("referee.games.plugin", "bots.plugin", "referee.ismcts.plugin", "tournaments.plugin")


@dataclass(frozen=True)
class Source:
    """Where a game or bot comes from: the distribution and its version."""

    package: str
    version: str

    def __str__(self) -> str:
        return f"{self.package} {self.version}"


class GameEntry:
    """A registered game: loaded when first asked for (:class:`~referee.hookspecs.LateGame`) or given loaded."""

    __slots__ = ("id", "source", "_late", "_game")

    def __init__(self, game: Game | LateGame, source: Source) -> None:
        self.id, self.source = game.id, source
        self._late: LateGame | None = game if isinstance(game, LateGame) else None
        self._game: Game | None = None if isinstance(game, LateGame) else game

    @property
    def game(self) -> Game:
        if self._game is None:
            assert self._late is not None
            try:
                self._game = self._late.load()
            except Exception as exc:  # a plugin's module is its code: one line, not a traceback
                raise PluginError(f"game {self.id!r} ({self.source}) failed to load: {_first_line(exc)}") from exc
        return self._game


@dataclass(frozen=True)
class BotEntry:
    name: str
    factory: Callable[[], Bot]
    description: str
    games: tuple[str, ...] | None
    source: Source

    def supports(self, game_id: str) -> bool:
        return self.games is None or game_id in self.games


@dataclass(frozen=True)
class CommandEntry:
    """A command of the command line a plugin registered: a ``typer.Typer`` or a click command."""

    name: str
    command: Any
    source: Source


@dataclass
class Registry:
    games: dict[str, GameEntry] = field(default_factory=dict)
    bots: dict[str, BotEntry] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: commands registered by plugins (only when loaded with ``commands=True``, as the command line does)
    commands: dict[str, CommandEntry] = field(default_factory=dict)

    def game(self, game_id: str) -> Game:
        """The game with this id; :class:`ConfigError` listing the known ones otherwise."""
        try:
            return self.games[game_id].game
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise ConfigError(f"unknown game {game_id!r} (known games: {known}; see 'referee games')") from None

    def bot(self, name: str) -> BotEntry:
        try:
            return self.bots[name]
        except KeyError:
            known = ", ".join(sorted(self.bots)) or "none"
            raise ConfigError(f"unknown bot {name!r} (known bots: {known}; see 'referee bots')") from None


def make_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def _entry_points() -> Iterable[metadata.EntryPoint]:
    return metadata.entry_points(group=PROJECT)


def load_registry(*, builtins: Iterable[str] = DEFAULT_PLUGINS, entry_points: bool = True,
                  extra: Iterable[Any] = (), commands: bool = False, reserved: Iterable[str] = ()) -> Registry:
    """Load every plugin and collect what it registers.

    ``extra`` are plugin objects registered directly (tests use this instead of installing packages).
    ``commands``: also collect the command-line commands (``register_commands``), whose names may not be
    one of ``reserved`` (the built-in commands).
    """
    registry = Registry()
    pm = make_plugin_manager()
    sources: dict[str, Source] = {}
    builtin_source = Source("referee", __version__)

    def add(name: str, loader: Callable[[], Any], source: Source) -> None:
        try:
            plugin = loader()
            pm.register(plugin, name=name)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the others
            registry.errors.append(f"plugin {name!r} failed to load: {_first_line(exc)}")
            return
        sources[name] = source

    for module in builtins:
        add(module, partial(importlib.import_module, module), builtin_source)
    if entry_points:
        for ep in _entry_points():
            dist = ep.dist
            source = Source(dist.name if dist else ep.value, dist.version if dist else "?")
            add(ep.name, ep.load, source)
    for i, plugin in enumerate(extra):
        add(getattr(plugin, "__name__", f"extra-{i}"), partial(_identity, plugin), Source("(direct)", "-"))

    while True:  # a hook implementation with a name referee does not know (a typo) is reported, not ignored
        try:
            pm.check_pending()
            break
        except pluggy.PluginValidationError as exc:
            name = pm.get_name(exc.plugin) or repr(exc.plugin)
            registry.errors.append(f"plugin {name!r}: {_first_line(exc)}")
            pm.unregister(exc.plugin)
    for name, plugin in pm.list_name_plugin():
        source = sources.get(name, builtin_source)
        _call(registry, pm.hook.register_games, plugin, name, _game_registrar(registry, source))
        _call(registry, pm.hook.register_bots, plugin, name, _bot_registrar(registry, source))
        if commands:
            _call(registry, pm.hook.register_commands, plugin, name,
                  _command_registrar(registry, source, frozenset(reserved)))
    return registry


def _call(registry: Registry, hook: pluggy.HookCaller, plugin: object, name: str,
          register: GameRegistrar | BotRegistrar | CommandRegistrar) -> None:
    """Call one plugin's implementation of one hook, so that a failing plugin is reported by name."""
    for impl in hook.get_hookimpls():
        if impl.plugin is not plugin:
            continue
        try:
            impl.function(register=register)
        except PluginError as exc:
            registry.errors.append(f"plugin {name!r}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the others
            registry.errors.append(f"plugin {name!r} failed in {hook.name}: {_first_line(exc)}")


def _identity(value: Any) -> Any:
    return value


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def _game_registrar(registry: Registry, source: Source) -> GameRegistrar:
    def register(game: Game | LateGame) -> None:
        if not isinstance(game, (Game, LateGame)):
            raise PluginError(f"register_games got {game!r}, which is not a referee.engine.Game")
        if game.id in registry.games:
            raise PluginError(f"game {game.id!r} is already registered by {registry.games[game.id].source}")
        registry.games[game.id] = GameEntry(game, source)

    return register


def _bot_registrar(registry: Registry, source: Source) -> BotRegistrar:
    def register(name: str, factory: Callable[[], Bot], *, description: str = "",
                 games: Iterable[str] | None = None) -> None:
        if not isinstance(name, str) or not name or ":" in name or "/" in name:
            raise PluginError(f"bot name {name!r} is not valid (a plain word without ':' or '/')")
        if not callable(factory):
            raise PluginError(f"bot {name!r}: the factory is not callable")
        if name in registry.bots:
            raise PluginError(f"bot {name!r} is already registered by {registry.bots[name].source}")
        registry.bots[name] = BotEntry(name, factory, description, tuple(games) if games is not None else None,
                                       source)

    return register


def _command_registrar(registry: Registry, source: Source, reserved: frozenset[str]) -> CommandRegistrar:
    def register(command: Any, *, name: str) -> None:
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            raise PluginError(f"command name {name!r} is not valid (lower-case letters, digits, '-' and '_')")
        if name in reserved:
            raise PluginError(f"command {name!r} is a built-in command of referee")
        if name in registry.commands:
            raise PluginError(f"command {name!r} is already registered by {registry.commands[name].source}")
        registry.commands[name] = CommandEntry(name, command, source)

    return register
