"""The Kozel family, one game per module: ``kozel`` (:mod:`.kozel`), ``kozel-hvaleny`` (:mod:`.hvaleny`) and
``kozel-nn`` (:mod:`.nn`), on the Kozel base :mod:`.base` (the team games also on :mod:`.team`), itself on the
trick engine :mod:`referee.games.tricks`. Their worlds are sampled by :mod:`.worlds` and :mod:`.team_worlds`, which
build on the engines, so they are wired to the games here rather than imported by them."""

from ...engine import LateSampler
from .hvaleny import KozelHvaleny
from .kozel import Kozel
from .nn import KozelNN
from .team import TeamGame

Kozel.sampler = LateSampler(f"{__name__}.worlds:kozel_worlds")
TeamGame.sampler = LateSampler(f"{__name__}.team_worlds:team_worlds")

__all__ = ["Kozel", "KozelHvaleny", "KozelNN"]
