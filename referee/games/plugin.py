"""The built-in games, registered through the same hook as any plugin's."""

from functools import cache

from protocol.hooks import hookimpl

from ..engine import Game
from .durak import Durak, Kazaki
from .koroli import Koroli, Koroli52
from .kozel import Kozel, KozelHvaleny, KozelNN


@hookimpl
def register_games(register):  # type: ignore[no-untyped-def]
    register(Kazaki())
    register(Durak())
    register(Koroli())
    register(Koroli52())
    register(Kozel())
    register(KozelHvaleny())
    register(KozelNN())


@cache
def builtin_games() -> dict[str, Game]:
    """The built-in games by id, from the one list of them: this hook."""
    found: list[Game] = []
    register_games(found.append)
    return {g.id: g for g in found}
