"""``ismcts`` registered through the same hook as any plugin's bot (referee.plugins.DEFAULT_PLUGINS)."""

from __future__ import annotations

from protocol.bot import Bot
from protocol.hooks import BotRegistrar, hookimpl

from .settings import SETTINGS


class IsmctsFactory:
    """Makes ``ismcts`` bots; the search is imported with the first one, so registering the bot (every command
    does) costs no more than its settings."""

    settings = SETTINGS  # what ``ismcts:KEY=VALUE,…`` may set (referee.botspec.TakesSettings)
    #: not seated by a tournament run that names no entrant (referee.botspec.default_field): it spends its budget
    default_field = False

    def __call__(self, **settings: object) -> Bot:
        from .bot import IsmctsBot

        return IsmctsBot(None, **settings)


@hookimpl
def register_bots(register: BotRegistrar) -> None:
    from ..games.plugin import BUILTIN

    register("ismcts", IsmctsFactory(), description="Information Set MCTS over worlds sampled from its own view, "
             "playing heuristic's move unless paired playouts find a better one, 100 ms a move "
             "(ismcts:ms=50,iterations=500; docs/ISMCTS.md)", games=tuple(sorted(game.id for game in BUILTIN)))
