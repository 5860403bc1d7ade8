"""A league's roster and settings, and the operator's token (docs/LEAGUE.md).

A league is a tournament database (tournaments/storage.py) whose configuration grows: every bot ever added is an
entrant (names and SPECs are never removed, so every stored game's seating stays readable), and ``extra.league``
holds the settings and, per bot, its role (benchmark or candidate), its state (active, retired, suspended, with a
reason) and, once its evaluation started, the baseline and field it is measured with. Every change is one
compare-and-swap of the stored configuration (:meth:`Store.replace_config`), so the server and a command in
another terminal may change it at the same time: the loser reads it again and retries.

The token lives beside the database in ``token``, mode 0600, made at ``init``: whoever can read it may change the
league; the web page and ``show`` need none.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.errors import AccessError, ConfigError, ConflictError, StorageError, StoreChanged

from ..config import TournamentConfig
from ..storage import Store

__all__ = ["BENCHMARK", "CANDIDATE", "DB_NAME", "LeagueBot", "LeagueSettings", "Roster", "ROLES", "TOKEN_NAME",
           "add_bot", "change", "check_token", "is_league", "make_token", "promote_bot", "read_token", "retire_bot",
           "roster_of", "set_paused", "with_roster"]

DB_NAME = "league.db"
TOKEN_NAME = "token"
BENCHMARK, CANDIDATE = "benchmark", "candidate"
ROLES = (BENCHMARK, CANDIDATE)
ACTIVE, RETIRED, SUSPENDED = "active", "retired", "suspended"


@dataclass
class LeagueBot:
    """One bot of the league; ``evaluation``: the baseline and field a candidate is measured with, fixed when its
    first deal is handed out (None before)."""

    name: str
    role: str
    state: str = ACTIVE
    reason: str | None = None
    baseline: str | None = None  # the baseline asked for at ``add`` (None: the pool's best when it starts)
    evaluation: dict[str, Any] | None = None  # {"baseline": NAME, "field": [NAME, ...]}
    added: float = field(default_factory=time.time)

    @property
    def active(self) -> bool:
        return self.state == ACTIVE


@dataclass
class LeagueSettings:
    """What the matchmaker follows (docs/LEAGUE.md, "Matchmaking")."""

    sprt: dict[str, Any]  # tournaments.sprt_plan.SprtPlan.settings_dict
    max_deals: int = 200  # a candidate's budget: deals of its evaluation at most
    pool_share: float = 0.25  # while candidates are evaluated, this share of the games goes to the pool
    suspend_after: int = 5  # a bot that faults in this many games in a row is suspended
    baseline: str | None = None  # every candidate's baseline (None: the pool's best)
    paused: bool = False


@dataclass
class Roster:
    settings: LeagueSettings
    bots: dict[str, LeagueBot]

    def to_dict(self) -> dict[str, Any]:
        return {"settings": asdict(self.settings), "bots": [asdict(b) for b in self.bots.values()]}

    @classmethod
    def from_dict(cls, data: Any) -> Roster:
        try:
            settings = LeagueSettings(**data["settings"])
            bots = [LeagueBot(**b) for b in data["bots"]]
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"the stored league is damaged ({type(exc).__name__}: {exc})") from exc
        return cls(settings, {b.name: b for b in bots})

    def active(self, role: str) -> list[str]:
        return [b.name for b in self.bots.values() if b.role == role and b.active]

    def bot(self, name: str) -> LeagueBot:
        found = self.bots.get(name)
        if found is None:
            raise ConfigError(f"no bot {name!r} in this league (bots: {', '.join(self.bots) or 'none'})")
        return found


def is_league(stored: Any) -> bool:
    """Does this stored configuration (its JSON object) hold a league?"""
    extra = stored.get("extra") if isinstance(stored, dict) else None
    return isinstance(extra, dict) and "league" in extra


def roster_of(config: TournamentConfig) -> Roster:
    if config.extra.league is None:
        raise ConfigError("this database holds a tournament, not a league (referee league init makes one)")
    return Roster.from_dict(config.extra.league)


def with_roster(config: TournamentConfig, roster: Roster) -> TournamentConfig:
    return replace(config, extra=replace(config.extra, league=roster.to_dict()))


def change(store: Store, mutate: Callable[[TournamentConfig, Roster], TournamentConfig | None],
           tries: int = 20) -> TournamentConfig:
    """Apply ``mutate`` (the configuration and its roster → the new configuration, None: no change) as one
    compare-and-swap; retried when another process changed the league meanwhile. The result (new or as it was)."""
    for _ in range(tries):
        stored = store.config()
        if stored is None:
            raise StorageError(f"{store.path} holds no league")
        config = TournamentConfig.from_dict(stored)
        new = mutate(config, roster_of(config))
        if new is None:
            return config
        try:
            store.replace_config(stored, new.to_dict())
        except StoreChanged:
            time.sleep(0.01)
            continue
        return new
    raise StorageError(f"{store.path}: the league changed too often meanwhile; try again")


# ------------------------------------------------------------------------------------------------- changes
#: A bot's name: what a page, a key and a terminal show without quoting.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+#-]{0,39}")


def add_bot(name: str, spec: str, role: str, baseline: str | None = None) -> Callable[
        [TournamentConfig, Roster], TournamentConfig]:
    """The change that adds a bot (for :func:`change`): a new entrant, active, with its role."""
    if not NAME.fullmatch(name):
        raise ConfigError(f"bad bot name {name!r:.60}: 1 to 40 letters, digits and . _ + # -, a letter or digit "
                          "first")
    if role not in ROLES:
        raise ConfigError(f"unknown role {role!r:.40} (choose from {', '.join(ROLES)})")
    if not spec.strip():
        raise ConfigError("an empty SPEC: name a registered bot, cmd:COMMAND or a path")
    if baseline is not None and role != CANDIDATE:
        raise ConfigError("only a candidate has a baseline")

    def apply(config: TournamentConfig, roster: Roster) -> TournamentConfig:
        if name in config.entrants:
            raise ConflictError(f"the league has a bot {name!r} already (names are never reused: pick another)")
        if baseline is not None:
            wanted = roster.bot(baseline)
            if wanted.role != BENCHMARK:
                raise ConfigError(f"the baseline {baseline} is not a benchmark")
        roster.bots[name] = LeagueBot(name, role, baseline=baseline)
        return replace(with_roster(config, roster), entrants=[*config.entrants, name], specs=[*config.specs, spec])

    return apply


def retire_bot(name: str) -> Callable[[TournamentConfig, Roster], TournamentConfig | None]:
    """The change that retires a bot: it plays no more; its games stay and count."""
    def apply(config: TournamentConfig, roster: Roster) -> TournamentConfig | None:
        bot = roster.bot(name)
        if bot.state == RETIRED:
            return None
        bot.state, bot.reason = RETIRED, None
        return with_roster(config, roster)

    return apply


def promote_bot(name: str) -> Callable[[TournamentConfig, Roster], TournamentConfig | None]:
    """The change that makes a candidate a benchmark: it joins the pool (an evaluation still open stops)."""
    def apply(config: TournamentConfig, roster: Roster) -> TournamentConfig | None:
        bot = roster.bot(name)
        if bot.role == BENCHMARK:
            raise ConflictError(f"{name} is a benchmark already")
        if not bot.active:
            raise ConfigError(f"{name} is {bot.state}: only an active candidate is promoted")
        bot.role = BENCHMARK
        return with_roster(config, roster)

    return apply


def set_paused(paused: bool) -> Callable[[TournamentConfig, Roster], TournamentConfig | None]:
    """The change that stops (``paused``) or starts the league's play: the games in flight finish."""
    def apply(config: TournamentConfig, roster: Roster) -> TournamentConfig | None:
        if roster.settings.paused == paused:
            return None
        roster.settings.paused = paused
        return with_roster(config, roster)

    return apply


# ------------------------------------------------------------------------------------------------- the token

def make_token(folder: Path) -> str:
    """A new token, written to ``FOLDER/token`` with mode 0600 (refused when one is there)."""
    token = secrets.token_urlsafe(24)
    path = folder / TOKEN_NAME
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ConfigError(f"cannot write the token {path}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def read_token(folder: Path) -> str | None:
    """The stored token; None when the file is missing or cannot be read (then no change is allowed)."""
    try:
        return (folder / TOKEN_NAME).read_text().strip() or None
    except OSError:
        return None


def check_token(given: str | None, expected: str | None) -> None:
    """AccessError unless ``given`` is the league's token (compared in constant time)."""
    if not given:
        raise AccessError("this changes the league: give its token (--token, REFEREE_LEAGUE_TOKEN, or the "
                          "Authorization: Bearer header), printed at init and kept in DIR/token")
    if expected is None or not hmac.compare_digest(given.encode(), expected.encode()):
        raise AccessError("the league token is wrong (it is in DIR/token, readable by the operator only)")
