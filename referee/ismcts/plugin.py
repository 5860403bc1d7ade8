"""``ismcts`` registered through the same hook as any plugin's bot (referee.plugins.DEFAULT_PLUGINS)."""

from protocol.hooks import hookimpl


@hookimpl
def register_bots(register):  # type: ignore[no-untyped-def]
    from .bot import IsmctsBot, builtin_games

    register("ismcts", IsmctsBot, description="Information Set MCTS over worlds sampled from its own view, "
             "playing heuristic's move unless paired playouts find a better one, 100 ms a move "
             "(ismcts:ms=50,iterations=500; docs/ISMCTS.md)", games=tuple(sorted(builtin_games())))
