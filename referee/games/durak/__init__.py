"""The Durak family: ``kazaki`` (:mod:`.kazaki`) and ``durak`` (:mod:`.durak`), one game per module, on the one
engine of :mod:`.base`."""

from .base import DurakState
from .durak import DURAK_DECK, Durak
from .kazaki import KAZAKI_DECK, Kazaki

__all__ = ["Kazaki", "Durak", "DurakState", "KAZAKI_DECK", "DURAK_DECK"]
