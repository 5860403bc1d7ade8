"""The Durak family: ``kazaki`` (:mod:`.kazaki`) and ``durak`` (:mod:`.durak`), one game per module, on the one
engine of :mod:`.base`; their worlds are sampled by :mod:`.worlds`, which builds on the engine, so it is wired to the
games here (loaded when a seat first asks for worlds) rather than imported by them."""

from ...engine import LateSampler
from .base import DurakFamily, DurakState
from .durak import DURAK_DECK, Durak
from .kazaki import KAZAKI_DECK, Kazaki

DurakFamily.sampler = LateSampler(f"{__name__}.worlds:DurakWorlds")

__all__ = ["Kazaki", "Durak", "DurakState", "KAZAKI_DECK", "DURAK_DECK"]
