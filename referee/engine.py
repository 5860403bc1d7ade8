"""The engine API: Game, State, Option, Result (RULES.md C-1 … C-11).

A :class:`Game` holds the static facts (id, seat range, teams, options) and creates a :class:`State` from a
seed. A State is the mutable position: exactly one seat acts at a time (C-6), it lists the legal actions in
canonical order (C-7), applies one, and says what each seat may see (C-8). Chance is the SplitMix64 stream
of the seed (C-5), so a state is a pure function of (game, options, seed, dealer, actions): a record replays.

Games implement this API; the runner, the protocol, the bots, tournaments and the CLI only use it.
"""

from __future__ import annotations

import copy
import importlib
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

from protocol.actions import Action
from protocol.cards import Deck

from .errors import ConfigError, IllegalActionError

__all__ = ["CardPlaces", "Game", "LateSampler", "State", "Option", "Result", "Worlds", "places_by", "places_from_order",
           "resolve"]

#: What a seat has been shown: its observations in wire form (C-8), oldest first, as the referee sent them. The first
#: is from the start of the game (``since=0``) and each one's ``events`` continue the previous one's (each was taken
#: with ``since`` = the log size at the one before); the last is the position now.
View = Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Option:
    """One game option with its default (C-1): a ``bool``, an ``int`` in [min, max], or one word of
    ``choices`` (then the default is a word too)."""

    name: str
    default: bool | int | str
    help: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def validate(self, value: object) -> bool | int | str:
        """Check a value's type and range; raise :class:`ConfigError` with a fix on failure."""
        if self.choices:
            if isinstance(value, str) and value.strip().lower() in self.choices:
                return value.strip().lower()
            raise ConfigError(f"option {self.name!r} takes one of {', '.join(self.choices)}, got {value!r}")
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                return value.lower() in ("true", "1", "yes", "on")
            raise ConfigError(f"option {self.name!r} takes true or false, got {value!r}")
        if isinstance(value, str):
            try:
                value = int(value, 10)
            except ValueError:
                raise ConfigError(f"option {self.name!r} takes a whole number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"option {self.name!r} takes a whole number, got {value!r}")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise ConfigError(f"option {self.name!r} must be between {self.min} and {self.max}, got {value}")
        return value

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"name": self.name, "default": self.default,
                                     "type": type(self.default).__name__, "min": self.min, "max": self.max,
                                     "help": self.help}
        if self.choices:
            described["choices"] = list(self.choices)
        return described


def places_from_order(order: Sequence[Sequence[int]], seats: int) -> tuple[int, ...]:
    """C-10 competition ranking ("1224"): 1 plus the number of players in better groups."""
    places = [0] * seats
    better = 0
    for group in order:
        for seat in group:
            places[seat] = better + 1
        better += len(group)
    return tuple(places)


def places_by(keys: Sequence[Any]) -> tuple[int, ...]:
    """C-10 competition ranking ("1224") of the seats by one key each, the smallest best: 1 plus the number of
    seats whose key is smaller."""
    return tuple(1 + sum(other < key for other in keys) for key in keys)


@dataclass(frozen=True)
class Result:
    """What the rules say at the end of a game (C-10, before any fault policy).

    ``extra`` holds the game's own fields (``loser``, ``draw``, ``teams``, ``winner_team``, …).
    """

    finishing_order: tuple[tuple[int, ...], ...]
    scores: tuple[Any, ...]
    aborted: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def places(self) -> tuple[int, ...]:
        return places_from_order(self.finishing_order, len(self.scores))

    def to_dict(self) -> dict[str, Any]:
        return {
            "places": list(self.places),
            "finishing_order": [list(g) for g in self.finishing_order],
            "scores": list(self.scores),
            "aborted": self.aborted,
            **self.extra,
        }


class Game(ABC):
    """Static facts about a game and the factory of its states."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    #: The cards the game is played with, in canonical order (C-4); None for a game without a deck of cards.
    deck: ClassVar[Deck | None] = None
    #: What :meth:`worlds` builds, called ``sampler(game, seats, seat, view, options)``: a world sampler replays its
    #: game's engine, so the engine does not import it; the game's package sets it (a :class:`LateSampler`, or any
    #: callable object; a plain function would be bound as a method). None: the game samples no worlds.
    sampler: ClassVar[Callable[..., Worlds] | None] = None

    def teams(self, seats: int) -> tuple[tuple[int, ...], ...] | None:
        """The teams for ``seats`` players, or None when every player plays alone (C-2)."""
        return None

    def configure(self, options: Mapping[str, object] | None = None) -> dict[str, bool | int | str]:
        """Validate ``options`` and fill in the defaults (C-1); :class:`ConfigError` names a bad key."""
        known = {o.name: o for o in self.options}
        given = dict(options or {})
        for key in given:
            if key not in known:
                names = ", ".join(known) or "none"
                raise ConfigError(f"game {self.id!r} has no option {key!r} (its options: {names})")
        return {name: (o.validate(given[name]) if name in given else o.default) for name, o in known.items()}

    def check_seats(self, seats: int, given_by: str = "") -> None:
        """ConfigError when the game is not played by ``seats`` players; ``given_by`` says where that number came
        from (``" (--seats)"``)."""
        if not self.min_seats <= seats <= self.max_seats:
            allowed = f"{self.min_seats}" if self.min_seats == self.max_seats else f"{self.min_seats}-{self.max_seats}"
            raise ConfigError(f"game {self.id!r} is for {allowed} players, got {seats}{given_by}")

    def new_state(
        self, seats: int, seed: int, options: Mapping[str, object] | None = None, *, dealer: int = 0
    ) -> State:
        """A fresh game: validated configuration, then the deal from ``seed``."""
        self.check_seats(seats)
        if not 0 <= seed < 2**64:
            raise ConfigError(f"seed must be between 0 and 2^64-1, got {seed}")
        if not 0 <= dealer < seats:
            raise ConfigError(f"dealer must be a seat between 0 and {seats - 1}, got {dealer}")
        return self._new_state(seats, seed, self.configure(options), dealer)

    @abstractmethod
    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> State: ...

    def next_dealer(self, result: Result, dealer: int, seats: int) -> int:
        """The dealer of the next game of a match, after a game with ``result`` dealt by ``dealer``.

        By default the deal passes to the left neighbour (C-2)."""
        return (dealer + 1) % seats

    def seat_fields(self, result: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """Per-seat fields of a result record for summaries (``referee play --json`` seats): by default the
        seat's team, where the result names teams (C-10 ``teams``)."""
        for name, members in (result.get("teams") or {}).items():
            if seat in members:
                return {"team": name}
        return {}

    def score_text(self, score: Any) -> str:
        """A seat's score (C-10 ``scores``) for a result table: by default as it is, JSON when structured."""
        return json.dumps(score) if isinstance(score, dict | list) else str(score)

    def worlds(self, seats: int, seat: int, view: View, options: Mapping[str, object] | None = None) -> Worlds:
        """The full states consistent with everything ``seat`` has been shown (``view``), ready to be sampled.

        A world (:meth:`Worlds.sample`) gives ``seat`` exactly the observation it had: its own cards exact, every
        public card and action exact, and the cards it cannot see (the other hands, a stock, private gives and
        swaps between others) dealt at random among the deals that fit everything it saw and what the rules let it
        infer. It is built from the view alone (never from the real state, which it is not given), so a bot may
        search it: this is the model of the ``ismcts`` bot (docs/ENGINE.md, "Sampling worlds"). The view is read
        once here; :class:`~.errors.RecordError` if it does not fit the game (events that do not replay).

        The default asks :attr:`sampler`, with the seat count checked and the options configured as
        :meth:`new_state` has them; a game without one raises NotImplementedError (every built-in game has one)."""
        if self.sampler is None:
            raise NotImplementedError(f"game {self.id!r} cannot sample worlds from a seat's view")
        self.check_seats(seats)
        return self.sampler(self, seats, seat, view, self.configure(options))

    def sample_world(self, seats: int, seat: int, view: View, rng: random.Random,
                     options: Mapping[str, object] | None = None) -> State:
        """One world of :meth:`worlds`, drawn with ``rng``: the same ``rng`` state gives the same world."""
        return self.worlds(seats, seat, view, options).sample(rng)

    def narrate(self, event: Mapping[str, Any]) -> str:
        """One event (wire form) in plain words, for ``--verbose``."""
        return " ".join(f"{k}={v}" for k, v in event.items())

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "teams": self.teams(self.max_seats) is not None,
            "options": [o.describe() for o in self.options],
        }


class Worlds(ABC):
    """The worlds consistent with one seat's view (:meth:`Game.worlds`): the view read once, sampled many times."""

    @abstractmethod
    def sample(self, rng: random.Random) -> State:
        """A fresh full state consistent with the view, its hidden cards drawn with ``rng`` (reproducible: the same
        ``rng`` state gives the same world). Its chance stream is seeded from ``rng`` too, never the real seed."""


def resolve(where: str) -> Any:
    """What ``"package.module:attribute"`` names, imported now (a late sampler, game or command)."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


class LateSampler:
    """A game's world sampler named by where it is (``"package.module:attribute"``), imported when a seat first asks
    for worlds.

    A sampler replays its game's engine, so the engine cannot import it; the game's package wires the two
    (``Game.sampler = LateSampler(...)``) without loading the sampler, which most commands never use."""

    __slots__ = ("where", "_loaded")

    def __init__(self, where: str) -> None:
        self.where = where
        self._loaded: Callable[..., Worlds] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Worlds:
        if self._loaded is None:
            self._loaded = resolve(self.where)
        return self._loaded(*args, **kwargs)

    def __repr__(self) -> str:
        return f"LateSampler({self.where})"


class State(ABC):
    """A position of a game. Exactly one seat acts at each decision point (C-6).

    The event log: a game appends one entry to :attr:`log` per event, in whatever small form suits it (the
    built-in games use tuples ``(kind, seat, data)``), and turns an entry into its wire form only when a seat
    observes, in :meth:`_render`. :attr:`log_size` and :meth:`events` are built on these two.
    """

    game: Game
    seats: int
    options: Mapping[str, bool | int | str]
    seed: int
    dealer: int
    #: The event log, oldest entry first; entries are only ever appended (resampling may relabel a copy's).
    log: list[Any]

    @property
    @abstractmethod
    def to_act(self) -> int | None:
        """The seat to act, or None when the game is over."""

    @property
    def is_terminal(self) -> bool:
        return self.to_act is None

    @abstractmethod
    def legal_actions(self) -> Sequence[Action]:
        """The legal actions of the seat to act, in canonical order (C-7); empty when the game is over."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Apply an action already known to be legal: always the very object from :meth:`legal_actions`."""

    def apply(self, action: Action) -> None:
        """Apply one legal action; :class:`IllegalActionError` (state unchanged) for anything else."""
        legal = self.legal_actions()
        for candidate in legal:  # identity first: bots usually hand back one of the legal objects
            if candidate is action:
                break
        else:
            if action not in legal:
                seat = self.to_act
                if seat is None:
                    raise IllegalActionError(f"{action} played after the game ended")
                raise IllegalActionError(f"{action} is not legal for seat {seat} now (legal: {_brief(legal)})")
            action = legal[legal.index(action)]
        self._apply(action)

    def parse_action(self, text: str) -> Action:
        """The legal action whose text is ``text``; :class:`IllegalActionError` if there is none."""
        for action in self.legal_actions():
            if action.text == text:
                return action
        raise IllegalActionError(f"{text} is not legal for seat {self.to_act} now "
                                 f"(legal: {_brief(self.legal_actions())})")

    @abstractmethod
    def result(self) -> Result:
        """The rules' result; only when the game is over."""

    @property
    def deals_done(self) -> int:
        """How many deals of the game have finished (0 while the first is played). A game of several deals
        counts them, so that a search can stop a playout at the end of the deal in play (docs/ENGINE.md,
        "Deals"); a game of one deal keeps this default, 0."""
        return 0

    def deal_places(self) -> tuple[int, ...]:
        """Each seat's place in the deal that finished last, 1 best, ranked as :attr:`Result.places` ranks a game
        (C-10) by the game's own measure of a deal (docs/ENGINE.md, "Deals"). Asked only once
        :attr:`deals_done` > 0; the default, for a game of one deal, is the result's places."""
        return self.result().places

    def playout_action(self, actions: Sequence[Action], rand: Callable[[], float]) -> Action:
        """A cheap move among ``actions`` (this state's legal actions, never empty) for a search's playouts, drawn
        with ``rand`` (uniform in [0, 1)). It may use the whole state: playouts run on sampled worlds, never on the
        real game. The default is a uniformly random one; a game with a better rule of thumb that costs about as
        little may override it (the trick games: docs/ENGINE.md, "Playouts")."""
        return actions[int(rand() * len(actions))]

    def clone(self) -> Self:
        """An independent copy of this position, for a search to play on (docs/ENGINE.md, "State"): moves applied to
        the copy leave this state as it is, and the copy goes on with the same chance stream. The default is a deep
        copy that shares the :class:`Game`; a game whose states are copied often may override it with a cheaper one
        (the built-in games copy only what a move may change in place)."""
        return copy.deepcopy(self, {id(self.game): self.game})

    @property
    def log_size(self) -> int:
        """Number of entries in the event log; pass it as ``since`` to the next :meth:`observe`."""
        return len(self.log)

    def events(self, since: int = 0, seat: int | None = None) -> list[dict[str, Any]]:
        """The log entries from ``since`` in wire form, as ``seat`` may see them (None: everything)."""
        render = self._render
        return [event for entry in self.log[since:] if (event := render(entry, seat)) is not None]

    def _render(self, entry: Any, viewer: int | None) -> dict[str, Any] | None:
        """One entry of :attr:`log` in wire form as ``viewer`` (None: the referee) may see it; None if he may not
        (C-8). A game that keeps a log implements this; one that does not overrides :meth:`events` and
        :attr:`log_size` instead."""
        raise NotImplementedError(f"{type(self).__name__} keeps no event log: implement _render, "
                                  f"or override events and log_size")

    @abstractmethod
    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        """What ``seat`` may see now (C-8): the public state, its own hand, and the events from ``since``."""

    @abstractmethod
    def resample_hidden(self, seat: int, rng: random.Random) -> State:
        """A copy in which the cards ``seat`` cannot see are dealt anew among the places they may be.

        Hidden cards keep their holders' counts; history entries private to other seats are relabelled
        the same way. The observation of ``seat`` must not change: this is the leak check of the tests.
        """

    @abstractmethod
    def card_locations(self) -> dict[str, int]:
        """How many cards are in each place (hands, stock, table, discard…): for conservation checks."""


@runtime_checkable
class CardPlaces(Protocol):
    """The optional capability of a state whose cards can be followed one by one (every built-in game's): the random
    simulation checks of :mod:`referee.testing` conserve each card by it, where the game has a :attr:`Game.deck`
    (docs/ENGINE.md, "State"). Checked with ``isinstance(state, CardPlaces)``."""

    def card_places(self) -> dict[str, list[int]]:
        """The canonical indices of the cards in each place of :meth:`State.card_locations` (``stock`` from bottom to
        top, the others ascending)."""
        ...

    @property
    def deck_cards(self) -> Sequence[int]:
        """The canonical indices of the cards this game is played with: together the places hold them all."""
        ...


def _brief(actions: Iterable[Action], limit: int = 8) -> str:
    texts = [a.text for a in actions]
    more = f", … {len(texts) - limit} more" if len(texts) > limit else ""
    return ", ".join(texts[:limit]) + more
