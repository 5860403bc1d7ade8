"""The ``referee tournament`` commands, registered through the same hook as any plugin's commands: the core
package (``referee``) never imports ``tournaments``."""

from protocol.hooks import hookimpl


@hookimpl
def register_commands(register):  # type: ignore[no-untyped-def]
    from .cli import group  # light: each command's module is imported when the command runs

    register(group(), name="tournament")
