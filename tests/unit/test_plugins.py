"""Plugins and the registry (referee/plugins.py, referee/hookspecs.py; STYLE.md points 1-4).

Every test builds its own registry with :func:`load_registry`: there is no module global to reset. Third-party
plugins are module objects passed with ``extra=``; entry points are faked by replacing ``_entry_points``.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import BotBase, Decision
from protocol.hooks import hookimpl
from referee import __version__
from referee.errors import ConfigError, PluginError
from referee.games.durak import Durak, Kazaki
from referee.hookspecs import LateGame
from referee.plugins import DEFAULT_PLUGINS, Registry, Source, load_registry

BUILTIN_GAMES = {"kazaki", "durak", "kozel", "kozel-hvaleny", "kozel-nn", "koroli", "koroli52"}
HEURISTIC_GAMES = ("durak", "kazaki", "koroli", "koroli52", "kozel", "kozel-hvaleny", "kozel-nn")
BUILTIN_BOTS = {"random", "first", "heuristic", "human", "ismcts"}


class LastBot(BotBase):
    name = "last"

    def act(self, decision: Decision) -> Action:
        return decision.legal[-1]


class Durak40(Kazaki):
    """A third-party game: kazaki under another id."""

    id = "durak40"
    title = "A test game"


def make_plugin(name: str, *, games: Callable[[Any], None] | None = None,
                bots: Callable[[Any], None] | None = None) -> types.ModuleType:
    """A plugin module named ``name`` implementing the given hooks (each receives ``register``)."""
    module = types.ModuleType(name)
    if games is not None:
        def register_games(register):  # type: ignore[no-untyped-def]
            games(register)

        module.register_games = hookimpl(register_games)  # type: ignore[attr-defined]
    if bots is not None:
        def register_bots(register):  # type: ignore[no-untyped-def]
            bots(register)

        module.register_bots = hookimpl(register_bots)  # type: ignore[attr-defined]
    return module


def good_plugin() -> types.ModuleType:
    return make_plugin(
        "good_plugin",
        games=lambda register: register(Durak40()),
        bots=lambda register: register("last", LastBot, description="the last legal action", games=["durak40"]),
    )


class FakeDist:
    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version


class FakeEntryPoint:
    def __init__(self, name: str, value: str, dist: FakeDist | None, load: Callable[[], Any]) -> None:
        self.name = name
        self.value = value
        self.dist = dist
        self._load = load

    def load(self) -> Any:
        return self._load()


def fail_import() -> Any:
    raise ImportError("No module named 'nonexistent_referee_plugin'")


def errors_mentioning(registry: Registry, text: str) -> list[str]:
    return [e for e in registry.errors if text in e]


# ------------------------------------------------------------------------------------------------ built-ins


def test_builtins_register_through_the_hooks_with_source_referee() -> None:
    registry = load_registry(entry_points=False)
    assert registry.errors == []
    assert set(registry.games) == BUILTIN_GAMES
    assert set(registry.bots) == BUILTIN_BOTS
    for entry in [*registry.games.values(), *registry.bots.values()]:
        assert entry.source == Source("referee", __version__)
    assert isinstance(registry.game("kazaki"), Kazaki)
    assert isinstance(registry.game("durak"), Durak)
    assert registry.bot("heuristic").games == HEURISTIC_GAMES
    assert registry.bot("random").games is None
    assert registry.bot("first").supports("anything")
    assert registry.bot("heuristic").supports("kozel")
    assert not registry.bot("heuristic").supports("chess")


def test_builtin_bot_factories_make_fresh_bots() -> None:
    registry = load_registry(entry_points=False)
    for name in ("random", "first"):
        factory = registry.bot(name).factory
        a, b = factory(), factory()
        assert a is not b
        assert a.name == name


def test_heuristic_bot_factory() -> None:
    registry = load_registry(entry_points=False)
    assert registry.bot("heuristic").factory().name == "heuristic"


def test_nothing_is_special_cased_without_the_builtin_plugins() -> None:
    registry = load_registry(builtins=(), entry_points=False)
    assert registry.games == {}
    assert registry.bots == {}
    assert registry.errors == []


def test_each_builtin_plugin_registers_its_own_part() -> None:
    assert DEFAULT_PLUGINS == ("referee.games.plugin", "bots.plugin", "referee.ismcts.plugin", "tournaments.plugin")
    games_only = load_registry(builtins=("referee.games.plugin",), entry_points=False, commands=True)
    assert set(games_only.games) == BUILTIN_GAMES and games_only.bots == {} and games_only.commands == {}
    bots_only = load_registry(builtins=("bots.plugin",), entry_points=False, commands=True)
    assert bots_only.games == {} and set(bots_only.bots) == BUILTIN_BOTS - {"ismcts"} and bots_only.commands == {}
    ismcts_only = load_registry(builtins=("referee.ismcts.plugin",), entry_points=False, commands=True)
    assert ismcts_only.games == {} and set(ismcts_only.bots) == {"ismcts"} and ismcts_only.commands == {}
    commands_only = load_registry(builtins=("tournaments.plugin",), entry_points=False, commands=True)
    assert (commands_only.games, commands_only.bots, set(commands_only.commands)) == ({}, {}, {"tournament", "league"})


def test_commands_are_collected_only_when_asked() -> None:
    """Workers load the registry for games and bots: the command line's modules are not imported for them."""
    assert load_registry(entry_points=False).commands == {}
    assert set(load_registry(entry_points=False, commands=True).commands) == {"tournament", "league"}


class _CommandPlugin:
    """A plugin that registers a command under each of the given names."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self.__name__ = f"commands-{'-'.join(names)}"

    @hookimpl
    def register_commands(self, register):  # type: ignore[no-untyped-def]
        import typer

        for name in self.names:
            sub = typer.Typer()
            sub.command()(lambda: None)
            register(sub, name=name)


@pytest.mark.parametrize(("names", "error"), [
    (("play",), "'play' is a built-in command of referee"),
    (("tournament",), "'tournament' is already registered by referee"),
    (("Bad Name",), "command name 'Bad Name' is not valid"),
])
def test_a_command_name_taken_or_bad_is_the_plugins_error(names: tuple[str, ...], error: str) -> None:
    registry = load_registry(entry_points=False, extra=[_CommandPlugin(*names)], commands=True,
                             reserved=("play",))
    assert len(registry.errors) == 1 and error in registry.errors[0], registry.errors
    assert registry.errors[0].startswith(f"plugin 'commands-{names[0]}'")
    assert set(registry.commands) == {"tournament", "league"}  # the built-in plugin's commands stay


def test_registries_are_independent() -> None:
    with_extra = load_registry(entry_points=False, extra=[good_plugin()])
    plain = load_registry(entry_points=False)
    assert "durak40" in with_extra.games
    assert "durak40" not in plain.games
    assert "last" not in plain.bots


# ------------------------------------------------------------------------------------------------ extra plugins


def test_an_extra_plugin_adds_a_game_and_a_bot() -> None:
    registry = load_registry(entry_points=False, extra=[good_plugin()])
    assert registry.errors == []
    assert set(registry.games) == BUILTIN_GAMES | {"durak40"}
    assert set(registry.bots) == BUILTIN_BOTS | {"last"}
    assert isinstance(registry.game("durak40"), Durak40)
    entry = registry.bot("last")
    assert entry.description == "the last legal action"
    assert entry.games == ("durak40",)
    assert entry.source == Source("(direct)", "-")
    assert registry.games["durak40"].source == Source("(direct)", "-")
    assert isinstance(entry.factory(), LastBot)


def test_a_duplicate_game_id_is_reported_and_the_rest_loads() -> None:
    dupe = make_plugin("dupe_games", games=lambda register: register(Durak()),
                       bots=lambda register: register("dupebot", LastBot))
    registry = load_registry(entry_points=False, extra=[dupe, good_plugin()])
    assert len(registry.errors) == 1, registry.errors
    error = registry.errors[0]
    assert "dupe_games" in error and "'durak'" in error and "already registered" in error
    assert registry.games["durak"].source.package == "referee"  # the first registration wins
    assert "dupebot" in registry.bots  # the same plugin's other hook still ran
    assert set(registry.games) == BUILTIN_GAMES | {"durak40"}  # the other plugins load
    assert set(registry.bots) == BUILTIN_BOTS | {"dupebot", "last"}


def test_a_duplicate_bot_name_is_reported_and_the_rest_loads() -> None:
    dupe = make_plugin("dupe_bots", games=lambda register: register(Durak40()),
                       bots=lambda register: register("random", LastBot))
    registry = load_registry(entry_points=False, extra=[dupe])
    assert len(registry.errors) == 1, registry.errors
    error = registry.errors[0]
    assert "dupe_bots" in error and "'random'" in error and "already registered" in error
    assert registry.bots["random"].source.package == "referee"
    assert "durak40" in registry.games
    assert set(registry.bots) == BUILTIN_BOTS


def test_a_hook_that_raises_is_reported_by_name_and_the_others_load() -> None:
    def explode(register: Any) -> None:
        raise RuntimeError("kaboom")

    broken = make_plugin("broken_plugin", games=explode, bots=explode)
    registry = load_registry(entry_points=False, extra=[broken, good_plugin()])
    errors = errors_mentioning(registry, "broken_plugin")
    assert len(errors) == 2, registry.errors
    assert any("register_games" in e and "RuntimeError: kaboom" in e for e in errors)
    assert any("register_bots" in e and "RuntimeError: kaboom" in e for e in errors)
    assert len(registry.errors) == 2
    assert set(registry.games) == BUILTIN_GAMES | {"durak40"}
    assert set(registry.bots) == BUILTIN_BOTS | {"last"}


@pytest.mark.parametrize(("bots", "message"), [
    (lambda register: register("bad:name", LastBot), "not valid"),
    (lambda register: register("", LastBot), "not valid"),
    (lambda register: register("nofactory", "not callable"), "not callable"),
])
def test_an_invalid_bot_registration_is_reported(bots: Callable[[Any], None], message: str) -> None:
    registry = load_registry(entry_points=False, extra=[make_plugin("sloppy", bots=bots)])
    assert len(registry.errors) == 1
    assert "sloppy" in registry.errors[0] and message in registry.errors[0]
    assert set(registry.bots) == BUILTIN_BOTS


def test_registering_something_that_is_not_a_game_is_reported() -> None:
    registry = load_registry(entry_points=False, extra=[make_plugin("notgame", games=lambda r: r("durak"))])
    assert len(registry.errors) == 1
    assert "notgame" in registry.errors[0] and "not a referee.engine.Game" in registry.errors[0]
    assert set(registry.games) == BUILTIN_GAMES


def test_a_builtin_module_that_fails_to_import_is_reported() -> None:
    registry = load_registry(builtins=("referee.games.plugin", "no_such_module_for_referee"), entry_points=False)
    errors = errors_mentioning(registry, "no_such_module_for_referee")
    assert len(errors) == 1 and "failed to load" in errors[0]
    assert set(registry.games) == BUILTIN_GAMES


# ------------------------------------------------------------------------------------------------ entry points


def test_an_entry_point_that_fails_to_import_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = good_plugin()
    eps = [
        FakeEntryPoint("badplugin", "nonexistent_referee_plugin:plugin", FakeDist("bad-dist", "1.0"), fail_import),
        FakeEntryPoint("goodplugin", "good_plugin", FakeDist("good-dist", "2.5"), lambda: plugin),
    ]
    monkeypatch.setattr("referee.plugins._entry_points", lambda: eps)
    registry = load_registry()
    assert len(registry.errors) == 1, registry.errors
    error = registry.errors[0]
    assert "'badplugin'" in error and "failed to load" in error and "ImportError" in error
    assert registry.games["durak40"].source == Source("good-dist", "2.5")
    assert registry.bots["last"].source == Source("good-dist", "2.5")
    assert set(registry.games) == BUILTIN_GAMES | {"durak40"}


def test_an_entry_point_without_a_distribution_uses_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = good_plugin()
    monkeypatch.setattr("referee.plugins._entry_points",
                        lambda: [FakeEntryPoint("loose", "loose_module", None, lambda: plugin)])
    registry = load_registry()
    assert registry.errors == []
    assert registry.games["durak40"].source.package == "loose_module"


def test_entry_points_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> Any:
        raise AssertionError("entry points must not be read")

    monkeypatch.setattr("referee.plugins._entry_points", boom)
    registry = load_registry(entry_points=False)
    assert set(registry.games) == BUILTIN_GAMES


# ------------------------------------------------------------------------------------------------ look-ups


def test_unknown_game_lists_the_known_ones() -> None:
    registry = load_registry(entry_points=False)
    with pytest.raises(ConfigError, match=r"unknown game 'chess' \(known games: durak, kazaki"):
        registry.game("chess")


def test_unknown_bot_lists_the_known_ones() -> None:
    registry = load_registry(entry_points=False)
    known = r"unknown bot 'deepblue' \(known bots: first, heuristic, human, ismcts, random"
    with pytest.raises(ConfigError, match=known):
        registry.bot("deepblue")


def test_lookups_in_an_empty_registry() -> None:
    registry = Registry()
    with pytest.raises(ConfigError, match="known games: none"):
        registry.game("durak")
    with pytest.raises(ConfigError, match="known bots: none"):
        registry.bot("random")


def test_a_late_game_loads_when_asked_and_a_broken_one_says_so_in_one_line() -> None:
    """A game registered by id and place (LateGame) is imported when first asked for; a place that does not hold
    the game it names fails then, as a PluginError naming the game and the plugin."""
    good = LateGame("durak", "referee.games.durak:Durak")
    wrong = LateGame("durak2", "referee.games.durak:Durak")  # the place holds a game of another id
    missing = LateGame("nothing", "no_such_module_here:Game")
    registry = load_registry(builtins=(), entry_points=False,
                             extra=[make_plugin("late-games", games=lambda register: [register(g) for g in
                                                                                      (good, wrong, missing)])])
    assert registry.errors == [] and sorted(registry.games) == ["durak", "durak2", "nothing"]
    assert registry.game("durak").id == "durak"
    with pytest.raises(PluginError, match=r"game 'durak2' \(\(direct\) -\) failed to load: TypeError: "):
        registry.game("durak2")
    with pytest.raises(PluginError, match="game 'nothing' .* ModuleNotFoundError"):
        registry.game("nothing")
