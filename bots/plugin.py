"""The built-in bots, registered through the same hook as any plugin's."""

from protocol.bot import Bot
from protocol.hooks import BotRegistrar, hookimpl


class HumanFactory:
    """Makes the ``human`` seat; its terminal code is imported with the first one (most commands never seat one)."""

    interactive = True  # a person: not under the clock, refused where nobody is at the terminal

    def __call__(self) -> Bot:
        from .human import HumanBot

        return HumanBot()


@hookimpl
def register_bots(register: BotRegistrar) -> None:
    from .first import FirstBot
    from .heuristic import PLAYS, HeuristicBot
    from .random import RandomBot

    register("random", RandomBot, description="a uniformly random legal action, reproducible per game")
    register("first", FirstBot, description="always the first legal action in canonical order")
    register("heuristic", HeuristicBot, description="rules of thumb for every built-in game: cheap winners, "
             "keeps trumps, counts cards", games=tuple(sorted(PLAYS)))
    register("human", HumanFactory(), description="you, at the terminal: referee play only (docs/HUMAN.md)")
