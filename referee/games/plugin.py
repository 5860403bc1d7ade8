"""The built-in games, registered through the same hook as any plugin's."""

from protocol.hooks import hookimpl

from .durak import Durak, Kazaki


@hookimpl
def register_games(register):  # type: ignore[no-untyped-def]
    register(Kazaki())
    register(Durak())
