"""The ``referee tournament`` commands, registered through the same hook as any plugin's commands: the core
package (``referee``) never imports ``tournaments``."""

from protocol.hooks import hookimpl
from referee.hookspecs import CommandRegistrar


@hookimpl
def register_commands(register: CommandRegistrar) -> None:
    from .cli import group, league_group  # light: each command's module is imported when the command runs

    register(group(), name="tournament")
    register(league_group(), name="league")
