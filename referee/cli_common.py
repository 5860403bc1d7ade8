"""What every command of the command line shares: errors as one line, the registry, JSON, KEY=VALUE options.

``referee/cli.py`` (games, bots, play, replay), ``tournament_cli.py`` and ``check_cli.py`` all use these, and
``cli.py`` mounts the other two; this module keeps them out of an import cycle.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from .errors import ConfigError, RefereeError
from .plugins import Registry, load_registry

__all__ = ["one_line_errors", "cli_registry", "print_json", "parse_options"]


@contextmanager
def one_line_errors() -> Iterator[None]:
    """One clear line and exit code 2 for every error the project raises on purpose; never a traceback."""
    try:
        yield
    except RefereeError as exc:
        typer.echo(f"referee: error: {exc}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        typer.echo("referee: interrupted", err=True)
        raise typer.Exit(130) from None


def cli_registry() -> Registry:
    """The plugin registry; plugins that failed to load are warnings on stderr."""
    loaded = load_registry()
    for error in loaded.errors:
        typer.echo(f"referee: warning: {error}", err=True)
    return loaded


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
