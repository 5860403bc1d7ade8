"""The Kozel family, one game per module: ``kozel`` (:mod:`.kozel`), ``kozel-hvaleny`` (:mod:`.hvaleny`) and
``kozel-nn`` (:mod:`.nn`), on the Kozel base :mod:`.base` (the team games also on :mod:`.team`), itself on the
trick engine :mod:`referee.games.tricks`."""

from .hvaleny import KozelHvaleny
from .kozel import Kozel
from .nn import KozelNN

__all__ = ["Kozel", "KozelHvaleny", "KozelNN"]
