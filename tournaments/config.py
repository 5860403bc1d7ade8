"""A tournament's configuration: everything that defines it, stored in its database and compared on resume.

The stored form is :meth:`TournamentConfig.to_dict` as JSON, and ``run`` on an existing database compares it with
the stored one. So a field added later (listed in ``_OMITTED_AT_DEFAULT``) is left out of the dictionary while it
has its default: a tournament that does not use it stores, and compares, exactly what a referee from before the
field stored, and an old database reads back (``from_dict``) with the default.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from types import UnionType
from typing import Any, get_args, get_origin, get_type_hints

from referee.clock import TimeControl
from referee.dealkey import keyed_seed
from referee.errors import ConfigError
from referee.said import DEBUG_BUDGET

from .schedule import Pairing, Scheduled, Table, schedule, schedule_shape, schedule_size, tables_of

__all__ = ["DEAL_KEY", "DRAWN", "Extra", "TournamentConfig", "config_differences"]

#: ``extra.seed`` of a tournament whose seed was drawn in secret (no ``--seed``).
DRAWN = "drawn"
#: ``extra``'s name of the key of a tournament's deals (referee/dealkey.py), hex.
DEAL_KEY = "deal_key"


@dataclass(frozen=True)
class Extra:
    """The settings a tournament stores under ``extra``: each came after the first databases, and is stored only when
    set (None: not stored), so an old database reads and is written back as it was. What a setting holds is checked
    where it is used (a damaged one is a ConfigError there)."""

    #: how its program bots run (``referee.sandbox.Sandbox.settings``); None: stored before the sandbox existed
    sandbox: dict[str, Any] | None = None
    #: the tables it plays (``tournaments.schedule.tables_of``: a gauntlet, a ladder's joins); None: a round robin
    stages: list[list[Any]] | None = None
    #: an SPRT's settings (``tournaments.sprt_plan.SprtPlan.settings_dict``); None: not an SPRT
    sprt: dict[str, Any] | None = None
    #: ``"drawn"``: its seed was drawn in secret (no ``--seed``)
    seed: str | None = None
    #: the key of its deals, hex (referee/dealkey.py; a tournament of program bots); None: public deals
    deal_key: str | None = None
    #: a league's settings and roster (tournaments/league/roster.py); None: not a league
    league: dict[str, Any] | None = None

    @property
    def sandbox_mode(self) -> str:
        """How the program bots run: on, off, or unknown (stored before the sandbox existed)."""
        return str(self.sandbox.get("mode")) if isinstance(self.sandbox, dict) else "unknown"

    def to_dict(self) -> dict[str, Any]:
        """The stored form: the settings that are set."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, data: Any) -> Extra:
        """The settings as stored; ConfigError names an unknown or mistyped one."""
        if not isinstance(data, dict):
            raise ConfigError(f"the stored tournament configuration is damaged: field 'extra' is {data!r:.60}")
        hints = get_type_hints(cls)
        unknown = sorted(set(data) - set(hints))
        if unknown:
            raise ConfigError(f"the stored tournament configuration has unknown extra fields: {', '.join(unknown)} "
                              "(damaged, or written by a newer referee)")
        for name, value in data.items():
            if not _fits(value, hints[name]):
                raise ConfigError(f"the stored tournament configuration is damaged: extra field {name!r} is "
                                  f"{value!r:.60}")
        return cls(**data)


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
    #: the settings stored under ``extra``; given as a dict (its stored form), it is read as one
    extra: Extra = field(default_factory=Extra)
    time_bank_ms: int = 0  # added later: stored only when not 0
    #: characters of the bots' words kept per game (referee.said.said_within; None: all); stored when not default
    debug_budget: int | None = DEBUG_BUDGET

    def __post_init__(self) -> None:
        if not isinstance(self.extra, Extra):  # its stored form (a dict), or damaged
            object.__setattr__(self, "extra", Extra.from_dict(self.extra))

    def to_dict(self) -> dict[str, Any]:
        """The stored form; a field of ``_OMITTED_AT_DEFAULT`` at its default is left out (see the module)."""
        data = asdict(self)
        data["extra"] = self.extra.to_dict()
        for name, default in _OMITTED_AT_DEFAULT.items():
            if data[name] == default:
                del data[name]
        return data

    def tables(self) -> list[Table] | None:
        """The tables this tournament plays (None: the round robin of every entrant), from ``extra.stages``
        (:func:`tournaments.schedule.tables_of`: a gauntlet, a ladder's joins); ConfigError when damaged."""
        try:
            return tables_of(len(self.entrants), self.seats, self.extra.stages)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"the stored tournament configuration is damaged: its stages ({exc})") from exc

    def scheduled(self, teams: Pairing | None) -> int:
        """How many games the schedule holds."""
        return schedule_size(len(self.entrants), self.seats, self.games, teams, self.tables())

    def shape(self, teams: Pairing | None) -> tuple[int, int]:
        """(tables, seatings per table): the games of one round; the schedule holds ``games`` rounds."""
        return schedule_shape(len(self.entrants), self.seats, teams, self.tables())

    @property
    def deals_from(self) -> int:
        """The seed the deck seeds derive from (:func:`tournaments.schedule.deal_seed`): the tournament seed keyed
        with ``extra.deal_key`` (referee/dealkey.py: a tournament of program bots), or the seed itself (a
        tournament of in-process bots only, or stored before deals were keyed)."""
        key = self.extra.deal_key
        if key is None:
            return self.seed
        try:
            return keyed_seed(key, self.seed)
        except (TypeError, ValueError) as exc:
            raise ConfigError("the stored tournament configuration is damaged: its deal key") from exc

    def jobs(self, teams: Pairing | None) -> Iterator[Scheduled]:
        """The schedule, in the order of play."""
        return schedule(len(self.entrants), self.seats, self.games, seed=self.deals_from, duplicate=self.duplicate,
                        teams=teams, tables=self.tables())

    def time_control(self) -> TimeControl:
        """The time limits of every bot of this tournament."""
        return TimeControl.from_ms(self.move_time_ms, self.time_bank_ms)

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


#: Fields added after databases were stored, and the value that leaves them out of ``to_dict`` (their default): a
#: new field goes here, with a default, so that the databases of tournaments that do not use it stay as they were.
_OMITTED_AT_DEFAULT: dict[str, Any] = {"time_bank_ms": 0, "debug_budget": DEBUG_BUDGET}


def _fits(value: Any, hint: Any) -> bool:
    """Is ``value`` (decoded JSON) of type ``hint``: bool, int (not bool), str, dict, list[X], or anything else."""
    if hint is bool or hint is str:
        return isinstance(value, hint)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    origin = get_origin(hint)
    if origin is UnionType:
        return any(value is None if a is type(None) else _fits(value, a) for a in get_args(hint))
    if origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, get_args(hint)[0]) for v in value)
    return True


def config_differences(stored: Mapping[str, Any], given: Mapping[str, Any]) -> list[str]:
    """Where a stored configuration and a given one (their stored forms) differ, each as ``field: stored X, given
    Y``: a field within ``extra`` or ``options`` by its path (``extra.sprt.elo1``), an entry of two lists of one
    length by its index (``specs[2]``), long values cut short. The stored ``seed`` is not shown when it was drawn in
    secret, nor ever a deal key: either would tell the deals."""
    extra = stored.get("extra")
    return _differences(stored, given, isinstance(extra, dict) and extra.get("seed") == DRAWN, "")


def _differences(stored: Mapping[str, Any], given: Mapping[str, Any], secret_seed: bool, prefix: str) -> list[str]:
    def shown(value: Any) -> str:
        if value is _ABSENT:
            return "none"
        text = json.dumps(_without_keys(value), ensure_ascii=False, sort_keys=True)
        return text if len(text) <= 60 else text[:59] + "…"

    out = []
    for key in sorted(set(stored) | set(given), key=str):
        old, new = stored.get(key, _ABSENT), given.get(key, _ABSENT)
        if old == new:
            continue
        name = f"{prefix}{key}"
        if isinstance(old, Mapping) and isinstance(new, Mapping) or \
                name == "extra" and (isinstance(old, Mapping) or isinstance(new, Mapping)):  # one side may lack it
            out += _differences(old if isinstance(old, Mapping) else {}, new if isinstance(new, Mapping) else {},
                                secret_seed, f"{name}.")
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            out += [f"{name}[{i}]: stored {shown(a)}, given {shown(b)}"
                    for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        elif name == f"extra.{DEAL_KEY}":
            out.append(f"{name}: stored and given differ")
        elif name == "seed" and secret_seed:
            out.append(f"seed: stored in secret, given {shown(new)}")
        else:
            out.append(f"{name}: stored {shown(old)}, given {shown(new)}")
    return out


def _without_keys(value: Any) -> Any:
    """``value`` with any deal key in it hidden (a damaged or partial ``extra`` shown whole)."""
    if isinstance(value, Mapping):
        return {k: "…" if k == DEAL_KEY else _without_keys(v) for k, v in value.items()}
    return value


_ABSENT = object()  # a field one configuration has and the other has not
