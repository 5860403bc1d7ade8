"""Bot SPECs: how a bot is named wherever one is asked for (``--bot``).

- a registered name: ``random``, ``heuristic``, a plugin's bot (in-process);
- ``cmd:COMMAND ARGS``: a program, split like a shell would (``shlex``) and run without a shell;
- a path to an executable file: ``./mybot``, ``bots/examples/js/bot.js`` (if executable).

A registered bot that takes settings of its own (its factory lists them in a ``settings`` mapping, key → meaning) is
given them after a colon, as comma-separated ``KEY=VALUE`` words: ``ismcts:ms=50,iterations=400``; the factory is
called with them as keyword texts and refuses a bad value with a :class:`~referee.errors.ConfigError`.

Any of them may carry settings of its own in a bracketed prefix of ``KEY=VALUE`` words (values with spaces quoted as
a shell would): ``[name=v7 move-time=500 time-bank=2000 cwd=bots/v7] cmd:python3 bot.py`` (docs/CLI.md, "Bot
SPECs"). The SPEC string, prefix included, is what a tournament stores, so its settings come back on resume.

Programs speak the protocol of docs/PROTOCOL.md; a process is started once and reused across games.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from protocol.bot import Bot
from protocol.errors import BotError, BotTimeout

from . import __version__
from .clock import MAX_MS, Clocked, TimeControl
from .errors import ConfigError
from .plugins import Registry
from .terminal import printable

if TYPE_CHECKING:  # a program bot's modules are imported when one is made: in-process bots need none of them
    from .sandbox import Sandbox
    from .wirelog import WireLog

__all__ = ["BotSpec", "KEYS", "cannot_play", "check_supports", "declared_excludes", "default_field", "entrant_names",
           "option_text", "parse_spec", "refuse_interactive", "spec_settings", "same_value", "stored_ms", "useful_line"]

@runtime_checkable
class TakesSettings(Protocol):
    """A registered bot's factory that takes settings of its own (docs/PLUGINS.md): ``NAME:KEY=VALUE,…`` calls it
    with them as keyword texts; ``settings`` maps each key to what it means."""

    settings: Mapping[str, str]


@runtime_checkable
class Interactive(Protocol):
    """A registered bot's factory that says whether its bot is a person at the terminal (``interactive = True``)."""

    interactive: bool


@runtime_checkable
class InDefaultField(Protocol):
    """A registered bot's factory that says whether an unnamed field seats it (``default_field = False``: not)."""

    default_field: bool


#: The keys of a SPEC's settings prefix (docs/CLI.md, "Bot SPECs").
KEYS = ("name", "move-time", "time-bank", "cwd")
_NAME_MAX = 64


@dataclass(frozen=True)
class BotSpec:
    """A resolved SPEC: the bot's own name (registered, or made from the command), how to make the bot, and the
    entrant's own settings from its prefix (``given_name``, ``move_time_ms``, ``time_bank_ms``, ``cwd``: None where
    the prefix does not set them)."""

    spec: str
    name: str
    argv: tuple[str, ...] | None  # None: an in-process registered bot
    registered_games: tuple[str, ...] | None = None
    given_name: str | None = None  # name=: the display name, as given
    move_time_ms: int | None = None  # move-time=: overrides the command's --move-time for this bot
    time_bank_ms: int | None = None  # time-bank=: overrides the command's --time-bank for this bot
    cwd: str | None = None  # cwd=: the program's working folder (absolute)
    #: a person at the terminal (a registered bot whose class says ``interactive = True``, like ``human``,
    #: docs/HUMAN.md): not under the clock, and refused where nobody sits at the terminal (:func:`refuse_interactive`)
    interactive: bool = False
    #: a registered bot's own settings (``ismcts:ms=50`` → (("ms", "50"),)), given to its factory as keywords
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def display_name(self) -> str:
        """The name the bot plays under: ``name=`` if given, else its own."""
        return self.given_name if self.given_name is not None else self.name

    def time_control(self, time: TimeControl) -> TimeControl:
        """The limits this bot plays under: ``time`` (the command's) with the prefix's own settings."""
        return time.override(move_time_ms=self.move_time_ms, time_bank_ms=self.time_bank_ms)

    def make(self, registry: Registry, *, time: TimeControl, sandbox: Sandbox | None = None,
             wire_log: WireLog | None = None) -> Bot:
        """The bot under ``time`` (with the SPEC's own move-time and time-bank where it gives them); a program runs
        in ``sandbox`` (None: as it is), in its ``cwd``, its frames go to ``wire_log``. In-process bots are never
        sandboxed and have no wire."""
        time = self.time_control(time)
        if self.argv is None:  # in-process: the same clock as a program bot (docs/PROTOCOL.md section 8)
            made = registry.bot(self.name).factory(**dict(self.settings))
            bot = made if self.interactive else Clocked(made, time=time)  # a person is not timed
            if self.given_name is not None:
                bot.name = self.given_name
            return bot
        from .remote import RemoteBot
        from .transport import ProcessTransport

        name = self.display_name
        argv = list(self.argv)
        popen = sandbox.popen if sandbox is not None else None
        return RemoteBot(lambda: ProcessTransport(argv, cwd=self.cwd, popen=popen, wire_log=wire_log,
                                                  wire_name=name),
                         name=name, time=time,
                         referee=f"referee/{__version__}")

    @property
    def identity(self) -> tuple[object, ...]:
        """What makes two SPECs the same entrant (self-play): the same bot, started the same way, under the same
        settings, whatever the spelling (``./bot`` and ``bot``)."""
        return (self.argv if self.argv is not None else self.name, self.settings, self.cwd, self.move_time_ms,
                self.time_bank_ms)


def parse_spec(spec: str, registry: Registry) -> BotSpec:
    """Resolve a SPEC (its settings prefix included); :class:`ConfigError` in one line, with a hint, when it names
    nothing or its prefix is wrong."""
    settings, rest = _split_prefix(spec)
    cwd = settings.get("cwd")
    where = Path(cwd) if cwd is not None else Path()
    if rest.startswith("cmd:"):
        try:
            argv = shlex.split(rest[4:])
        except ValueError as exc:
            raise ConfigError(f"bot {spec!r}: cannot split the command ({exc})") from exc
        if not argv:
            raise ConfigError(f"bot {spec!r}: 'cmd:' needs a command, like 'cmd:python3 mybot.py'")
        return _with_settings(BotSpec(spec, _display_name(argv), tuple(argv)), settings, spec)
    name, colon, own = rest.partition(":")
    if name in registry.bots:
        if cwd is not None:
            raise ConfigError(f"bot {spec!r}: cwd= is for programs, and {name!r} runs inside the referee")
        entry = registry.bots[name]
        interactive = _interactive(entry.factory)
        bot_settings = _bot_settings(entry.factory, name, own, spec) if colon else ()
        return _with_settings(BotSpec(spec, name, None, entry.games, interactive=interactive,
                                      settings=bot_settings), settings, spec)
    path = where / rest
    if os.sep in rest or path.exists():
        if path.is_dir():
            raise ConfigError(f"bot {spec!r} is a folder, not a program (give the program's file, or 'cmd:COMMAND')")
        if not path.is_file():
            raise ConfigError(f"bot {spec!r}: no such file" + (f" in {cwd}" if cwd is not None else ""))
        if not os.access(path, os.X_OK):
            raise ConfigError(f"bot {spec!r} is not executable (chmod +x it, or use 'cmd:INTERPRETER {rest}')")
        return _with_settings(BotSpec(spec, path.stem, (str(path.resolve()),)), settings, spec)
    known = ", ".join(sorted(registry.bots)) or "none"
    raise ConfigError(f"unknown bot {spec!r}: not a registered bot ({known}), not 'cmd:COMMAND', "
                      f"and no such file")


def _bot_settings(factory: object, name: str, text: str, spec: str) -> tuple[tuple[str, str], ...]:
    """A registered bot's own settings after the colon of ``NAME:KEY=VALUE,…``, checked against the keys its factory
    lists (``factory.settings``) and by making the bot once with them (its factory's :class:`ConfigError`)."""
    keys = factory.settings if isinstance(factory, TakesSettings) else None
    if not isinstance(keys, dict) or not keys:
        raise ConfigError(f"bot {spec!r}: {name!r} takes no settings (a registered bot is named without ':')")
    pairs: list[tuple[str, str]] = []
    for word in text.split(","):
        key, eq, value = word.strip().partition("=")
        if not eq or not key:
            raise ConfigError(f"bot {spec!r}: the setting {word.strip()!r} is not KEY=VALUE "
                              f"(like '{name}:{next(iter(keys))}=VALUE'; keys: {', '.join(keys)})")
        if key not in keys:
            raise ConfigError(f"bot {spec!r}: {name!r} has no setting {key!r} (its settings: {', '.join(keys)})")
        if any(key == k for k, _ in pairs):
            raise ConfigError(f"bot {spec!r}: {key}= is given twice")
        pairs.append((key, value.strip()))
    try:
        assert callable(factory)
        factory(**dict(pairs))
    except ConfigError as exc:
        raise ConfigError(f"bot {spec!r}: {exc}") from None
    return tuple(pairs)


def spec_settings(spec: str) -> dict[str, str]:
    """The ``[KEY=VALUE …]`` settings of a SPEC as written, unchecked ({} where there are none or they cannot be
    read): for what a stored SPEC said, which :func:`parse_spec` checked when it was stored."""
    end = _closing_bracket(spec) if spec.startswith("[") else None
    try:
        words = shlex.split(spec[1:end]) if end is not None else []
    except ValueError:
        return {}
    return {key: value for key, eq, value in (word.partition("=") for word in words) if eq}


def _split_prefix(spec: str) -> tuple[dict[str, str], str]:
    """The settings of a SPEC's ``[KEY=VALUE …]`` prefix (checked, not yet converted) and the SPEC after it."""
    if not spec.startswith("["):
        return {}, spec
    end = _closing_bracket(spec)
    if end is None:
        raise ConfigError(f"bot {spec!r}: the settings prefix has no closing ']' (like '[move-time=500] random')")
    try:
        words = shlex.split(spec[1:end])
    except ValueError as exc:
        raise ConfigError(f"bot {spec!r}: cannot split the settings ({exc})") from exc
    settings: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq:
            raise ConfigError(f"bot {spec!r}: the setting {word!r} is not KEY=VALUE (keys: {', '.join(KEYS)})")
        if key not in KEYS:
            raise ConfigError(f"bot {spec!r}: unknown setting {key!r} (keys: {', '.join(KEYS)})")
        if key in settings:
            raise ConfigError(f"bot {spec!r}: {key}= is given twice")
        settings[key] = value
    rest = spec[end + 1:].lstrip()
    if not rest:
        raise ConfigError(f"bot {spec!r}: the settings are not followed by a bot (like '[move-time=500] random')")
    if "cwd" in settings:
        cwd = settings["cwd"]
        if not cwd or not Path(cwd).is_dir():
            raise ConfigError(f"bot {spec!r}: cwd={cwd!r} is not a folder")
    return settings, rest


def _closing_bracket(spec: str) -> int | None:
    """The index of the ``]`` that ends the prefix: the first outside quotes (quoted as shlex reads them)."""
    quote = ""
    i = 1
    while i < len(spec):
        char = spec[i]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\" and (not quote or spec[i + 1:i + 2] in ('"', "\\", "$", "`")):
            i += 1  # an escaped character
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "]":
            return i
        i += 1
    return None


def _with_settings(parsed: BotSpec, settings: dict[str, str], spec: str) -> BotSpec:
    """``parsed`` with the prefix's settings, converted and checked (ranges as the command-line options')."""
    if not settings:
        return parsed
    name = settings.get("name")
    if name is not None and (not name.strip() or name != name.strip() or len(name) > _NAME_MAX
                             or not name.isprintable()):
        raise ConfigError(f"bot {spec!r}: name={name!r} must be 1-{_NAME_MAX} printable characters, without "
                          f"spaces at either end")
    cwd = settings.get("cwd")
    return BotSpec(spec, parsed.name, parsed.argv, parsed.registered_games, interactive=parsed.interactive,
                   settings=parsed.settings, given_name=name, move_time_ms=_ms(settings, "move-time", 1, spec),
                   time_bank_ms=_ms(settings, "time-bank", 0, spec),
                   cwd=os.path.abspath(cwd) if cwd is not None else None)


def stored_ms(spec: str, key: str, least: int) -> int | None:
    """A stored SPEC's own ``move-time=`` or ``time-bank=`` (``key``) in ms, as :func:`parse_spec` reads it (at least
    ``least``); None where the SPEC does not give it, or gives what parse_spec refuses (a SPEC stored by another
    referee)."""
    try:
        return _ms(spec_settings(spec), key, least, spec)
    except ConfigError:
        return None


def _ms(settings: dict[str, str], key: str, least: int, spec: str) -> int | None:
    if key not in settings:
        return None
    value = settings[key]
    if not (value.isascii() and value.isdigit()) or not least <= int(value) <= MAX_MS:
        raise ConfigError(f"bot {spec!r}: {key}= takes whole milliseconds from {least} to {MAX_MS}, got {value!r}")
    return int(value)


def default_field(registry: Registry, game: str, leave_out: Sequence[str] = ()) -> list[str]:
    """The registered bots a command seats when no entrant is named (``referee tournament run`` without ``--bot``),
    sorted: those that play ``game``, but a person (``interactive = True``, docs/HUMAN.md) and a bot whose class
    says ``default_field = False`` (``ismcts``: a full search budget on every move would make the default run
    slow; name it with ``--bot`` to seat it)."""
    return sorted(name for name, entry in registry.bots.items()
                  if entry.supports(game) and name not in leave_out
                  and _in_default_field(entry.factory) and not _interactive(entry.factory))


def _interactive(factory: object) -> bool:
    """Whether a bot's factory says its bot is a person (:class:`Interactive`): only ``interactive = True`` does."""
    return isinstance(factory, Interactive) and factory.interactive is True


def _in_default_field(factory: object) -> bool:
    """Whether an unnamed field seats a bot (:class:`InDefaultField`): unless its factory says
    ``default_field = False``."""
    return not (isinstance(factory, InDefaultField) and factory.default_field is False)


def refuse_interactive(parsed: BotSpec, command: str) -> None:
    """:class:`ConfigError` in one line for a person's seat (:attr:`BotSpec.interactive`) where ``command`` (like
    ``referee tournament``) runs without anyone at the terminal."""
    if parsed.interactive:
        raise ConfigError(f"bot {parsed.spec!r} is a person at the terminal: '{command}' plays bots only "
                          f"(play against bots with 'referee play GAME --bot {parsed.name} --bot heuristic')")


def entrant_names(parsed: Sequence[BotSpec]) -> list[str]:
    """The entrants' display names, unique, and never alike for two different bots (docs/CLI.md, "Bot SPECs"):

    - ``name=`` as given (it must differ from every other entrant's name);
    - the same bot listed again (the same :attr:`BotSpec.identity`: self-play) as ``name#2``, ``name#3`` …;
    - different bots of the same name are told apart by the shortest end of their path that differs (``v6/bot``
      and ``v7/bot``), else by their SPEC (``bot (cmd:python3 bot.py --depth 3)``; a registered bot's
      plain name stays as it is: ``random`` beside ``random ([move-time=200] random)``)."""
    given = [p.given_name for p in parsed if p.given_name is not None]
    for name in given:
        if given.count(name) > 1:
            raise ConfigError(f"two entrants are given name={name!r}: each needs a name of its own")
    labels: dict[tuple[object, ...], str] = {}
    groups: dict[str, list[BotSpec]] = {}
    for p in parsed:
        if p.given_name is None and p.identity not in labels:
            labels[p.identity] = p.name
            groups.setdefault(p.name, []).append(p)
    for base, group in groups.items():
        if len(group) > 1:
            labels.update(_told_apart(base, group))
    names: list[str] = []
    for p in parsed:
        if p.given_name is not None:
            names.append(p.given_name)
            continue
        label = name = labels[p.identity]
        if label in given:
            raise ConfigError(f"name={label!r} is also the name of the entrant {p.spec!r}: give another name")
        k = 1
        while name in names or name in given:
            k += 1
            name = f"{label}#{k}"
        names.append(name)
    return names


def _told_apart(base: str, group: list[BotSpec]) -> dict[tuple[object, ...], str]:
    """Labels for different bots that share the display name ``base``."""
    wheres = [_where(p) for p in group]
    if None not in wheres and len(set(wheres)) == len(wheres):
        parts = [w.parts for w in wheres if w is not None]
        for k in range(2, max(len(p) for p in parts) + 1):
            ends = ["/".join(p[-k:]) for p in parts]
            if len(set(ends)) == len(ends):
                return {g.identity: end for g, end in zip(group, ends, strict=True)}
    return {p.identity: base if p.spec == base else f"{base} ({p.spec})" for p in group}


def _where(parsed: BotSpec) -> Path | None:
    """Where a program is, for telling it apart: its script (or ``-m`` module) or program, without the suffix."""
    if parsed.argv is None:
        return None
    argv = parsed.argv
    folder = Path(parsed.cwd or os.getcwd())
    if "-m" in argv[:-1]:
        found = folder / argv[argv.index("-m") + 1].replace(".", "/")
    else:
        script = next((a for a in argv[1:] if not a.startswith("-") and ("/" in a or Path(a).suffix)), argv[0])
        found = folder / script
    found = Path(os.path.abspath(found))
    return found.with_suffix("") if found.suffix else found


def _display_name(argv: list[str]) -> str:
    """A short name for a command: the module of ``-m MODULE``, else the first script-like argument's stem,
    else the program's name (``python3 -m bots.random`` → ``bots.random``, ``node bot.js`` → ``bot``)."""
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1]
    for arg in argv[1:]:
        if not arg.startswith("-") and ("/" in arg or Path(arg).suffix):
            return Path(arg).stem
    return Path(argv[0]).name


#: stderr lines that say nothing about why a program failed: stack frames, braces, carets, version banners
_NOISE = re.compile(r"^\s*(at\s|File\s\"|\^+$|[{}()\[\]]+,?$|code:|Node\.js v|Traceback|\.\.\.)")
_ERRORISH = re.compile(r"(error|exception|cannot|can't|not found|no such|denied|failed|missing|unable|invalid)",
                       re.IGNORECASE)


def useful_line(stderr: str, limit: int = 200) -> str:
    """The line of a program's stderr that best says why it failed: the last one that reads like an error (``Error:
    Cannot find package …``, ``ModuleNotFoundError: …``), else the last one that is not a stack frame; control
    characters escaped as everywhere bot text is shown (:func:`referee.terminal.printable`). Empty when stderr holds
    nothing."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not _NOISE.match(line)] or lines
    pick = next((line for line in reversed(lines) if _ERRORISH.search(line)), lines[-1] if lines else "")
    text = printable(pick, one_line=True)
    return text if len(text) <= limit else text[:limit] + " …"


def cannot_play(spec: str, exc: BaseException | str, code: int | None, stderr: str) -> str:
    """One line for a program that did not start or did not say hello: what failed, its exit status and the last
    useful line of its stderr."""
    status = ("still running" if code is None else f"exit status {code}" if code >= 0
              else f"killed by signal {-code}" + (" (by the referee)" if isinstance(exc, BotTimeout) else ""))
    line = useful_line(stderr)
    if code is not None and f"exit code {code}" in str(exc):
        status = "it exited before its hello"
    return (f"bot {spec!r} cannot play: {exc}; {status}; "
            + (f"stderr: {line}" if line else "nothing on stderr"))


def option_text(value: object) -> str:
    """An option's value as ``-o`` takes it: ``true``, ``12``, ``lose``."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def same_value(a: object, b: object) -> bool:
    """Are two option values the same? True is not 1: a bool option is not matched by an int."""
    return type(a) is type(b) and a == b


def declared_excludes(seats_declared: Sequence[int] | None, options_declared: Mapping[str, Any] | None, game: str,
                      seats: int | None = None, options: Mapping[str, Any] | None = None) -> str | None:
    """Why a bot whose hello declares ``seats_declared`` and ``options_declared`` (docs/PROTOCOL.md 5.2; None: any)
    does not play ``game`` at ``seats`` with ``options`` (every option of the game, defaults filled in), as words
    like ``at 3 seats (it plays 2 seats only)``; None when it plays it. Declared options of another game, or that
    the game does not have, exclude nothing."""
    if seats is not None and seats_declared is not None and seats not in seats_declared:
        counts = ", ".join(str(n) for n in sorted(set(seats_declared)))
        return f"at {seats} seats (it plays {counts} seats only)"
    allowed = (options_declared or {}).get(game) or {}
    for name, value in (options or {}).items():
        values = allowed.get(name)
        if values is not None and not any(same_value(value, v) for v in values):
            plays = "/".join(printable(option_text(v), one_line=True) for v in values[:12])
            return f"with {name}={option_text(value)} (it plays {name}={plays} only)"
    return None


def check_supports(bot: Bot, spec: BotSpec, game: str, seats: int | None = None,
                   options: Mapping[str, Any] | None = None) -> None:
    """Refuse a bot that says it does not play ``game`` (remote bots say so in their hello), or not at ``seats``
    or with ``options`` (every option of the game, defaults filled in; a hello may declare both)."""
    if spec.argv is None:
        if spec.registered_games is not None and game not in spec.registered_games:
            raise ConfigError(f"bot {spec.name!r} does not play {game} (it plays: "
                              f"{', '.join(spec.registered_games)})")
        return
    from .remote import RemoteBot

    assert isinstance(bot, RemoteBot)
    if not bot.alive:  # a program that cannot start or shake hands is refused before the first game
        try:
            bot.start()
        except BotError as exc:
            raise ConfigError(cannot_play(spec.spec, exc, bot.last_exit, bot.take_stderr())) from exc
    if bot.games is not None and game not in bot.games:
        raise ConfigError(f"bot {spec.spec!r} does not play {game} (it plays: {', '.join(bot.games) or 'nothing'})")
    why = declared_excludes(bot.seats, bot.options, game, seats, options)
    if why is not None:
        raise ConfigError(f"bot {spec.spec!r} does not play {game} {why}")

