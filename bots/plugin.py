"""The built-in bots, registered through the same hook as any plugin's."""

from protocol.hooks import BotRegistrar, hookimpl


@hookimpl
def register_bots(register: BotRegistrar) -> None:
    from .first import FirstBot
    from .heuristic import PLAYS, HeuristicBot
    from .human import HumanBot
    from .random import RandomBot

    register("random", RandomBot, description="a uniformly random legal action, reproducible per game")
    register("first", FirstBot, description="always the first legal action in canonical order")
    register("heuristic", HeuristicBot, description="rules of thumb for every built-in game: cheap winners, "
             "keeps trumps, counts cards", games=tuple(sorted(PLAYS)))
    register("human", HumanBot, description="you, at the terminal: referee play only (docs/HUMAN.md)")
