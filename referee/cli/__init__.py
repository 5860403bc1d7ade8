"""The command line: ``referee games``, ``bots``, ``play``, ``replay`` and ``check``, a module each in this folder,
imported only when its command runs (``common.RefereeGroup.lazy``); plugins add theirs (``referee tournament``:
``tournaments/cli/``) through the ``register_commands`` hook.

The root group (``common.RefereeGroup``) maps the project's errors to one line on stderr and exit code 2;
``--json`` outputs are public contracts (docs/CLI.md).
"""

from __future__ import annotations

import sys

import typer

from .common import RefereeGroup

__all__ = ["app", "main"]

app = typer.Typer(
    name="referee",
    cls=RefereeGroup,
    help="Referee and tournament runner for bots that play Russian card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"referee {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", is_eager=True, expose_value=False, callback=_version,
                                 help="Print the version and exit."),
) -> None:
    """Referee and tournament runner for bots that play Russian card games."""


def main() -> None:
    """The console script: usage errors, like every other error, are one line and exit code 2."""
    from typer.exceptions import TyperException

    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        typer.echo("referee: interrupted", err=True)
        code = 130
    except TyperException as exc:  # typer's (vendored click's) usage and parameter errors
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            typer.echo(ctx.get_help())  # a bare 'referee' or 'referee tournament' shows the help
            code = 0
        else:
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            typer.echo(f"referee: error: {exc.format_message()}{where}", err=True)
            code = getattr(exc, "exit_code", 2)
    sys.exit(code if isinstance(code, int) else 0)
