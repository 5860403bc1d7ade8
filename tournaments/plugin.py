"""The ``referee tournament`` commands, registered through the same hook as any plugin's commands: the core
package (``referee``) never imports ``tournaments``."""

from protocol.hooks import hookimpl
from referee.hookspecs import CommandRegistrar


@hookimpl
def register_commands(register: CommandRegistrar) -> None:
    from .cli import app
    from .ladder_cli import join  # noqa: F401 - adds 'referee tournament join' to the group
    from .report_cli import report  # noqa: F401 - adds 'referee tournament report' to the group
    from .sprt_cli import sprt  # noqa: F401 - adds 'referee tournament sprt' to the group

    register(app, name="tournament")
