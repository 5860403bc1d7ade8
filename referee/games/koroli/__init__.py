"""The Kings family: ``koroli`` (36 cards, 4 players) and ``koroli52`` (52 cards, 3-4 players), one game per
module, on the Kings trick play of :mod:`.base` (itself on the trick engine :mod:`referee.games.tricks`). Their worlds
are sampled by :mod:`.worlds` and :mod:`.worlds52`, which build on the engines, so they are wired to the games here
rather than imported by them."""

from .koroli import DECK36, Koroli, KoroliState
from .koroli52 import DECK52, Koroli52, Koroli52State
from .worlds import KoroliWorlds
from .worlds52 import Koroli52Worlds

Koroli.sampler = KoroliWorlds
Koroli52.sampler = Koroli52Worlds

__all__ = ["Koroli", "KoroliState", "Koroli52", "Koroli52State", "DECK36", "DECK52"]
