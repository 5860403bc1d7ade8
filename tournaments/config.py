"""A tournament's configuration: everything that defines it, stored in its database and compared on resume."""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, get_args, get_origin, get_type_hints

from referee.errors import ConfigError

__all__ = ["TournamentConfig"]


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament; stored in its database and compared on resume."""

    game: str
    options: dict[str, Any]
    entrants: list[str]  # display names, unique
    specs: list[str]  # the SPEC of each entrant
    seats: int
    games: int
    duplicate: bool
    seed: int
    move_time_ms: int = 1000
    policy: str = "forfeit"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> TournamentConfig:
        """The configuration as stored; :class:`ConfigError` names the first missing, unknown or mistyped field
        (a damaged database says so instead of raising TypeError)."""
        if not isinstance(data, dict):
            raise ConfigError("the stored tournament configuration is damaged: it is not a JSON object")
        hints = get_type_hints(cls)
        for f in fields(cls):
            if f.name not in data:
                if f.default is MISSING and f.default_factory is MISSING:
                    raise ConfigError(f"the stored tournament configuration is damaged: no {f.name!r} field")
            elif not _fits(data[f.name], hints[f.name]):
                raise ConfigError(f"the stored tournament configuration is damaged: field {f.name!r} is "
                                  f"{data[f.name]!r:.60}")
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ConfigError(f"the stored tournament configuration has unknown fields: {', '.join(unknown)} "
                              "(damaged, or written by a newer referee)")
        if len(data["entrants"]) != len(data["specs"]):
            raise ConfigError("the stored tournament configuration is damaged: entrants and specs differ in number")
        return cls(**data)


def _fits(value: Any, hint: Any) -> bool:
    """Is ``value`` (decoded JSON) of type ``hint``: bool, int (not bool), str, dict, list[X], or anything else."""
    if hint is bool or hint is str:
        return isinstance(value, hint)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    origin = get_origin(hint)
    if origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, get_args(hint)[0]) for v in value)
    return True
