"""The settings of ``ismcts`` (docs/ISMCTS.md, "Settings"): :data:`SETTINGS` names them, :class:`Settings` holds
them, checked, and resolves those whose default depends on the game. One value of it is all that the search
(:func:`.search.search`) is told besides the decision itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError

__all__ = ["BY_GAME", "GAME_DEFAULTS", "SETTINGS", "Settings"]

#: The settings of ``ismcts`` (``ismcts:ms=50,iterations=0`` in a SPEC, docs/CLI.md "A registered bot's settings";
#: ``--ms`` … for the program): key → what it means.
SETTINGS: dict[str, str] = {
    "ms": "time budget per move, ms (0: none; then iterations= must be set)",
    "iterations": "iterations (playouts) per move at most (0: no limit; then ms= must be set)",
    "c": "the UCB1 exploration constant",
    "epsilon": "playouts: the share of random actions; the others are MAST's best (1: random playouts)",
    "first": "playouts: the share of moves that take the first legal action in canonical order (C-7), the others "
             "random (default 0.9, in kozel-hvaleny and kozel-nn and koroli and koroli52 0)",
    "pool": "worlds drawn per move at most, the k-th at iteration k², the other iterations play on copies (0: a new "
            "world every iteration)",
    "guide": "heuristic's move is played unless the search's choice beats its mean reward by this many standard "
             "errors (0: the search alone; default 1, in durak and kazaki 0.5, in kozel-hvaleny 2)",
    "pair": "the share of the budget that decides between heuristic's move and the search's by paired playouts "
            "(0: by the search's own statistics)",
    "policy": "playouts: the share of moves that take the game's own playout action (in the trick games: the "
              "cheapest card that takes the trick for good, else a low one), the others as first= says (default 0, "
              "in koroli and koroli52 1)",
    "deal": "1: playouts end with the deal in play, the deal's places their reward; 0: with the game (default 0, "
            "in kozel-hvaleny and kozel-nn and koroli and koroli52 1)",
    "flat": "1: no tree: every legal action is played out on every world drawn, with the same random numbers, "
            "and the best mean reward is the move (heuristic's unless it beats it by guide= standard errors; c, "
            "pool, pair and epsilon unused); 0: the tree (default 0, in koroli and koroli52 1)",
}
#: The settings whose default depends on the game, and their default elsewhere.
GAME_DEFAULTS: dict[str, float] = {"first": 0.9, "guide": 1.0, "deal": 0, "policy": 0.0, "flat": 0}
#: Their default in a game where it is not :data:`GAME_DEFAULTS`': the values measured best for the game at 100 ms a
#: move (docs/ISMCTS.md, "Speed and strength"). ``guide``: in 3-seat durak and kazaki, 0.5 was ahead of 1 by about
#: 50 Elo; in 3-seat kozel and 4-seat koroli behind it by about 30; in kozel-hvaleny 2 was the best of 0.5, 1 and 2
#: (docs/ISMCTS.md). ``first`` and ``deal``: in the games of many deals, random playouts to the end of the deal
#: (docs/ISMCTS.md). ``policy``: in the Kings games, the trick games' playout action (docs/ISMCTS.md, "Playouts that
#: know the trick": ahead of random playouts in the three runs, by less than their intervals). ``flat``: in the Kings
#: games, every action on the same worlds (docs/ISMCTS.md, "The flat variant").
BY_GAME: dict[str, dict[str, float]] = {
    "durak": {"guide": 0.5},
    "kazaki": {"guide": 0.5},
    "kozel-hvaleny": {"first": 0, "deal": 1, "guide": 2},
    "kozel-nn": {"first": 0, "deal": 1},
    "koroli": {"first": 0, "deal": 1, "policy": 1, "flat": 1},
    "koroli52": {"first": 0, "deal": 1, "policy": 1, "flat": 1},
}
_MAX_MS = 600_000
_MAX_ITERATIONS = 10**8


@dataclass(frozen=True, slots=True)
class Settings:
    """The budget and the search's constants (docs/ISMCTS.md): the one value :func:`.search.search` is given. The
    game-dependent ones are None (the game's default) until :meth:`for_game` resolves them."""

    ms: int = 100
    iterations: int = 0
    c: float = 0.7
    epsilon: float = 1.0
    first: float | None = None  # None, here and in guide and deal: the game's default (BY_GAME, else GAME_DEFAULTS)
    pool: int = 64
    guide: float | None = None
    pair: float = 0.5
    deal: int | None = None
    policy: float | None = None
    flat: int | None = None

    def for_game(self, game: str) -> Settings:
        """These settings in ``game``: each game-dependent one as given, else the game's default (:data:`BY_GAME`,
        else :data:`GAME_DEFAULTS`)."""
        own = BY_GAME.get(game, {})
        resolved: dict[str, Any] = {key: type(value)(own.get(key, value)) for key, value in GAME_DEFAULTS.items()
                                    if getattr(self, key) is None}
        return replace(self, **resolved)

    @classmethod
    def parse(cls, given: Mapping[str, object]) -> Settings:
        """Settings from ``KEY=VALUE`` texts (or numbers); :class:`ConfigError` in one line for a bad key or value."""
        values: dict[str, Any] = {}
        for key, value in given.items():
            if key not in SETTINGS:
                raise ConfigError(f"ismcts has no setting {key!r} (its settings: {', '.join(SETTINGS)})")
            text = str(value).strip()
            if key in ("c", "epsilon", "first", "guide", "pair", "policy"):
                try:
                    number = float(text)
                except ValueError:
                    number = -1.0
                top = 100 if key in ("c", "guide") else 1
                if not 0 <= number <= top:
                    raise ConfigError(f"ismcts: {key}= takes a number from 0 to {top}, got {value!r}")
                values[key] = number
                continue
            top = {"ms": _MAX_MS, "iterations": _MAX_ITERATIONS, "pool": 10_000, "deal": 1, "flat": 1}[key]
            if not (text.isascii() and text.isdigit()) or int(text) > top:
                raise ConfigError(f"ismcts: {key}= takes a whole number from 0 to {top}, got {value!r}")
            values[key] = int(text)
        settings = replace(cls(), **values)
        if settings.ms == 0 and settings.iterations == 0:
            raise ConfigError("ismcts: ms=0 and iterations=0 leave the search without a budget: set one of them")
        return settings
