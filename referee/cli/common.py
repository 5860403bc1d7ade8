"""What every command of the command line shares: errors as one line, the registry, JSON, KEY=VALUE options,
groups whose commands are imported when used.

:class:`RefereeGroup` is the root of the command line: it holds the one :class:`CliContext` (the plugin registry,
loaded once, its warnings said once), mounts the commands plugins register (``referee tournament`` is one, from
``tournaments.plugin``), and maps every error of the project to one line and exit code 2, once for all commands.
The commands of ``referee/cli/`` and ``tournaments/cli/`` use these; the options they share are ``options.py``'s,
their tables ``tables.py``'s.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
import typer.main
from typer import _click as click  # typer (0.29 on) vendors click: its Context and Command types
from typer._click.core import ParameterSource
from typer._click.globals import get_current_context
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from ..errors import ConfigError, RefereeError
from ..terminal import printable

if TYPE_CHECKING:
    from ..plugins import Registry

__all__ = ["CliContext", "Command", "LazyGroup", "RefereeGroup", "check_writable", "cli_registry", "command_tree",
           "interrupt_said", "one_line_errors", "one_of", "option_given", "parse_options", "print_json",
           "say_interrupted", "warn"]


class _NamedArgument(TyperArgument):
    """An argument shown by its metavar alone: ``GAME`` in the usage line and the help, not ``{game}`` and
    ``GAME <str>`` (typer's rendering)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return (name if self.required else f"[{name}]") + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.metavar is not None else super().display_type_rich(ctx)


def _plain_help_option(option: TyperOption | None) -> TyperOption | None:
    """``--help`` not given reads False, not None: typer checks every value but a bool flag's with pydantic, which
    takes a tenth of a second to import, and a command whose options are flags then needs none of it."""
    if option is not None and option.default is None:
        option.default = False
    return option


_DIGITS = re.compile(r"[0-9]{1,19}")


class _PlainValues:
    """How typer checks a parameter's value, with the plain values taken as they are first: an int in its range
    (given as digits or as the default), a str, a Path, a list of str. typer checks every value with pydantic,
    whose import takes a tenth of a second; anything else, and every error, is still typer's own check, word for
    word."""

    def __init__(self, param: Any) -> None:
        self.param = param
        self.kind = param.type_descriptor.annotation
        info = param.type_descriptor.parameter_info
        self.low, self.high = info.min, info.max
        self.multiple = param.multiple or param.nargs == -1

    def coerce(self, value: Any, param: Any, ctx: click.Context) -> Any:
        if value is None:
            return () if self.multiple else None
        plain = self._plain(value)
        if plain is not None:
            return plain
        from typer._coercion import build_runtime_param

        return build_runtime_param(self.param.type_descriptor).coerce(value, param=param, ctx=ctx)

    def _plain(self, value: Any) -> Any:
        if self.kind is int:
            number = value if type(value) is int else int(value) if isinstance(value, str) and _DIGITS.fullmatch(
                value) else None
            if number is None or (self.low is not None and number < self.low) or (
                    self.high is not None and number > self.high):
                return None
            return number
        if self.kind is str:
            return value if type(value) is str else None
        if self.kind is Path:
            return value if isinstance(value, Path) else Path(value) if type(value) is str else None
        if self.kind == list[str] and isinstance(value, list | tuple) and all(type(v) is str for v in value):
            return list(value)
        return None

    @classmethod
    def fits(cls, param: Any) -> bool:
        descriptor = getattr(param, "type_descriptor", None)
        return (descriptor is not None and getattr(param, "_runtime_param", True) is None
                and descriptor.annotation in (int, str, Path, list[str]) and descriptor.parameter_info.parser is None
                and descriptor.file_annotation is None and not descriptor.is_choice)


class Command(TyperCommand):
    """The class of every ``referee`` command (``@app.command(cls=Command)``): arguments with a metavar are shown
    by it alone (options already are)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument and param.metavar is not None:
                param.__class__ = _NamedArgument
            if _PlainValues.fits(param):
                param._runtime_param = _PlainValues(param)  # type: ignore[attr-defined]

    def get_help_option(self, ctx: click.Context) -> TyperOption | None:
        return _plain_help_option(super().get_help_option(ctx))


def one_of(choices: Sequence[str]) -> Callable[[str], str]:
    """An option callback refusing a value not among ``choices``: a usage error, one line and exit code 2."""
    def check(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"choose from {', '.join(choices)}, got {value!r}")
        return value

    return check

@contextmanager
def one_line_errors() -> Iterator[None]:
    """One clear line and exit code 2 for every error the project raises on purpose; never a traceback."""
    try:
        yield
    except RefereeError as exc:
        typer.echo(f"referee: error: {printable(str(exc), one_line=True)}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        say_interrupted()
        raise typer.Exit(130) from None


_interrupt_said = False


def say_interrupted(line: str = "referee: interrupted") -> None:
    """The one line of a ^C (exit code 130). ``referee.main`` says ``referee: interrupted`` itself for a ^C that
    ends the program without this: one that typer took, while it read the command line, for exit code 130."""
    global _interrupt_said
    typer.echo(line, err=True)
    _interrupt_said = True


def interrupt_said() -> bool:
    return _interrupt_said


def check_writable(path: Path, what: str) -> None:
    """ConfigError, before any work, when ``what`` (a file the command will write, ``the record``) cannot be
    written to ``path``: a folder is there, or its folder does not exist or is not writable."""
    if path.is_dir():
        raise ConfigError(f"cannot write {what} to {path}: it is a folder (give a file name)")
    if not (path.parent.is_dir() and os.access(path.parent, os.W_OK)):
        raise ConfigError(f"cannot write {what} to {path}: its folder does not exist or is not writable")


def warn(line: str) -> None:
    """One warning line on stderr; the command goes on."""
    typer.echo(f"referee: warning: {line}", err=True)


class CliContext:
    """What one run of the command line shares (``ctx.obj`` of the root): the plugin registry, loaded when first
    asked for, with the plugins that failed to load said once, as warnings."""

    def __init__(self, builtin_commands: Sequence[str] = ()) -> None:
        self.builtin_commands = tuple(builtin_commands)
        self._registry: Registry | None = None

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            from ..plugins import load_registry  # the games, the bots and the plugins: when a command asks

            self._registry = load_registry(commands=True, reserved=self.builtin_commands)
            for error in self._registry.errors:
                warn(str(error))
        return self._registry


class LazyGroup(TyperGroup):
    """A group whose commands are imported when one is run or listed (``--help``), not when the group is built:
    ``lazy`` names each command's function as ``module:function``, in the order the help lists them. Every command is
    of the class :class:`Command`."""

    lazy: dict[str, str] = {}

    def get_help_option(self, ctx: click.Context) -> TyperOption | None:
        return _plain_help_option(super().get_help_option(ctx))

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.lazy, *(name for name in super().list_commands(ctx) if name not in self.lazy)]

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        """typer's, with the commands not imported yet among those a mistyped name is said to be close to."""
        suggest, self.suggest_commands = self.suggest_commands, False
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.UsageError as exc:
            names = list(dict.fromkeys([*self.lazy, *self.commands]))
            matches = get_close_matches(args[0], names) if suggest and args else []
            if matches:
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {', '.join(map(repr, matches))}?"
            raise
        finally:
            self.suggest_commands = suggest

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.commands[cmd_name] = lazy_command(cmd_name, self.lazy[cmd_name])
        return super().get_command(ctx, cmd_name)


def lazy_command(name: str, where: str) -> click.Command:
    """The command ``name`` made from the function ``where`` names (``module:function``), as typer makes it."""
    from typer.models import CommandInfo

    from ..engine import resolve

    callback = resolve(where)
    return typer.main.get_command_from_info(CommandInfo(name=name, cls=Command, callback=callback),
                                           pretty_exceptions_short=True, rich_markup_mode=None)


class RefereeGroup(LazyGroup):
    """The root command: its own commands (imported when used), then those plugins register; every error of the
    project raised by any of them is one line and exit code 2 (:func:`one_line_errors`), here and nowhere else."""

    lazy = {"games": "referee.cli.listing:games", "bots": "referee.cli.listing:bots",
            "play": "referee.cli.play:play", "replay": "referee.cli.play:replay_cmd",
            "check": "referee.cli.check:check"}

    def _context(self, ctx: click.Context) -> CliContext | None:
        """The run's CliContext, made on first use when the root context has none (a caller's own obj stays)."""
        root = ctx.find_root()
        if root.obj is None:
            root.obj = CliContext(list(dict.fromkeys([*self.lazy, *self.commands])))
        return root.obj if isinstance(root.obj, CliContext) else None

    def _plugin_command(self, ctx: click.Context, name: str) -> click.Command | None:
        obj = self._context(ctx)
        if obj is None:
            return None
        with one_line_errors():  # loading the registry says its warnings; it raises nothing of its own
            entry = obj.registry.commands.get(name)
        if entry is None:
            return None
        command = entry.command
        if isinstance(command, typer.Typer):
            command = typer.main.get_command(command)
        if not isinstance(command, click.Command):
            return None
        command.name = name
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        obj = self._context(ctx)
        plugins = sorted(obj.registry.commands) if obj is not None else []
        own = super().list_commands(ctx)
        return [*own, *(n for n in plugins if n not in own)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self._plugin_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        with one_line_errors():
            return super().invoke(ctx)


def command_tree(root: click.Command) -> dict[tuple[str, ...], click.Command]:
    """Every command under ``root`` by its path (``()`` is ``root``; plugins' commands included), for the help
    and documentation checks."""
    tree: dict[tuple[str, ...], click.Command] = {}

    def walk(command: click.Command, path: tuple[str, ...], parent: click.Context | None) -> None:
        tree[path] = command
        if isinstance(command, TyperGroup):
            ctx = click.Context(command, info_name=path[-1] if path else "referee", parent=parent)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, (*path, name), ctx)

    walk(root, (), None)
    return tree


def cli_registry() -> Registry:
    """The plugin registry of this run of the command line (loaded once; failed plugins are warnings on stderr);
    outside a command line, a fresh one."""
    ctx = get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    if isinstance(obj, CliContext):
        return obj.registry
    return CliContext().registry


def option_given(name: str) -> bool:
    """Was the option of the current command's parameter ``name`` on the command line (not left at its default)?
    False outside a command line."""
    ctx = get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` pairs from the command line (values are checked by the game)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ConfigError(f"--option takes KEY=VALUE (like transfer=true), got {pair!r}")
        options[key.strip()] = value.strip()
    return options
