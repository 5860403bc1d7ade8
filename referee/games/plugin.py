"""The built-in games, registered through the same hook as any plugin's."""

from protocol.hooks import hookimpl

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
