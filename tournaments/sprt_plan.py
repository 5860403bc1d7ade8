"""What an SPRT stored in a tournament's configuration plays (:class:`SprtPlan`), and how its stored games are told
from a round robin's: the tournament's modules read these; tournaments/sprt_run.py plays and scores the test."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import ConfigError

from .config import TournamentConfig
from .schedule import Scheduled, substitution, substitution_size
from .sprt import Model, SprtSettings

__all__ = ["SprtPlan", "deal_of", "is_sprt"]


@dataclass(frozen=True)
class SprtPlan:
    """What an SPRT stored in a configuration plays: its settings, the field's size, the deals at most."""

    settings: SprtSettings
    field: int  # the number of field bots (entrants 2 …); 0: a two-seat game pair
    seats: int
    max_deals: int

    @classmethod
    def of(cls, config: TournamentConfig) -> SprtPlan:
        data = config.extra.sprt
        if not isinstance(data, dict):
            raise ConfigError("this tournament is not an SPRT (no 'sprt' settings in its configuration)")
        try:
            settings = SprtSettings(float(data["elo0"]), float(data["elo1"]), float(data["alpha"]),
                                    float(data["beta"]), Model(data.get("model", Model.LOGISTIC)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the stored SPRT settings are damaged ({type(exc).__name__}: {exc})") from exc
        settings.check()
        field, seats = len(config.entrants) - 2, config.seats
        if field < 0 or config.games < 1 or (field == 0 and seats != 2) or (field > 0 and field < seats - 1):
            raise ConfigError(f"the stored SPRT is damaged: {len(config.entrants)} entrants, {seats} seats and "
                              f"{config.games} deals do not make one")
        return cls(settings, field, seats, config.games)

    @staticmethod
    def settings_dict(settings: SprtSettings) -> dict[str, float | str]:
        return {"elo0": settings.elo0, "elo1": settings.elo1, "alpha": settings.alpha, "beta": settings.beta,
                "model": str(settings.model)}

    @property
    def per_deal(self) -> int:
        return substitution_size(self.seats, self.field)

    def deal(self, seed: int, deal: int) -> list[Scheduled]:
        return substitution(self.seats, self.field, seed=seed, deal=deal)


def is_sprt(stored: Mapping[str, Any]) -> bool:
    """Does this stored configuration (its JSON object) hold an SPRT rather than a round robin or a gauntlet?"""
    extra = stored.get("extra")
    return isinstance(extra, Mapping) and "sprt" in extra


def deal_of(key: str) -> int | None:
    """The deal of an SPRT game's key (``d{deal}.c{seat}``), or None for a key of another form."""
    head = key.split(".", 1)[0]
    return int(head[1:]) if head[:1] == "d" and head[1:].isdigit() else None
