"""The built-in games, registered through the same hook as any plugin's: by id and place
(:class:`~referee.hookspecs.LateGame`), so a command imports only the games it plays."""

from __future__ import annotations

from functools import cache

from protocol.hooks import hookimpl

from ..engine import Game
from ..hookspecs import GameRegistrar, LateGame

#: The built-in games: their ids and where each is.
BUILTIN = (
    LateGame("kazaki", "referee.games.durak:Kazaki"),
    LateGame("durak", "referee.games.durak:Durak"),
    LateGame("koroli", "referee.games.koroli:Koroli"),
    LateGame("koroli52", "referee.games.koroli:Koroli52"),
    LateGame("kozel", "referee.games.kozel:Kozel"),
    LateGame("kozel-hvaleny", "referee.games.kozel:KozelHvaleny"),
    LateGame("kozel-nn", "referee.games.kozel:KozelNN"),
)


@hookimpl
def register_games(register: GameRegistrar) -> None:
    for game in BUILTIN:
        register(game)


@cache
def builtin_games() -> dict[str, Game]:
    """The built-in games by id, loaded."""
    return {late.id: late.load() for late in BUILTIN}
