"""The Kings family: ``koroli`` (36 cards, 4 players) and ``koroli52`` (52 cards, 3-4 players), one game per
module, on the Kings trick play of :mod:`.base` (itself on the trick engine :mod:`referee.games.tricks`). Their worlds
are sampled by :mod:`.worlds` and :mod:`.worlds52`, which build on the engines, so they are wired to the games here
rather than imported by them."""

from ...engine import LateSampler
from .koroli import DECK36, Koroli, KoroliState
from .koroli52 import DECK52, Koroli52, Koroli52State

Koroli.sampler = LateSampler(f"{__name__}.worlds:KoroliWorlds")
Koroli52.sampler = LateSampler(f"{__name__}.worlds52:Koroli52Worlds")

__all__ = ["Koroli", "KoroliState", "Koroli52", "Koroli52State", "DECK36", "DECK52"]
