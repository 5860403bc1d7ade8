"""Random-simulation checks for any game of the engine API, in the spirit of OpenSpiel's ``random_sim_test``.

A plugin author runs them on a game in one line, from a test or a shell::

    from referee.testing import check_game
    check_game(MyGame())                       # every seat count, 20 random games each
    check_game(MyGame(), seats=4, games=200, seed=7, options={"target": 30})

:func:`check_game` plays seeded random games (a ``random.Random`` choosing among the legal actions) and checks at
every step: card conservation (by ``card_places()`` when the state has it, a :class:`~referee.engine.CardPlaces`:
disjoint places that hold every card of the game; else by ``card_locations()``: the count of cards never changes);
that the seat to act has legal actions, without duplicates, and none once the game is over (C-6); termination
within ``max_steps``; a well-formed result (C-10: the finishing order partitions the seats, the places follow from
it); the deals (``deals_done`` grows by
one at most per action, and ``deal_places()`` is then a ranking); replay (C-5: the same seed, options,
dealer and action texts give the same result, event log and observations); and, in the first ``leak_games``
games, the leak check (C-8): re-dealing what the seat to act cannot see (``resample_hidden``) leaves its
observation unchanged, leaves the original alone, keeps every count per place, the seat's own hand, the seat to act
and its legal actions. A failed check raises :class:`CheckFailed` (an ``AssertionError``, so pytest reports it as a
failed test) naming the game, the seats and the seed.

The building blocks (:func:`check_random_game`, :func:`check_resample`, :func:`leak_walk`,
:func:`check_visibility`, …) take the game's own checks where a general one cannot know the rules (which places are
public, which cards an event shows); the tests of the built-in games use them with their own result checks.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from protocol.actions import Action

from .engine import CardPlaces, Game, State, places_by, places_from_order
from .errors import IllegalActionError
from .match import is_forced

__all__ = ["CheckFailed", "SimReport", "check_game", "steps", "check_conservation", "check_counts", "check_legal",
           "check_places", "check_deals", "check_playout", "check_random_game", "check_replay", "check_resample",
           "hidden_places", "moved", "leak_walk", "check_visibility", "strings", "SamplingReport", "views",
           "scripted_view", "check_world", "check_sampling"]

Record = list[tuple[int, str]]  # (seat, action text) per decision
Wire = dict[str, Any]  # an event or an observation


class CheckFailed(AssertionError):
    """A simulation check failed; the message says which, and on which game, seats and seed."""


@dataclass(frozen=True)
class SimReport:
    """What :func:`check_game` played: games and decisions, and the leak checks it ran (``resamples``) and how many
    of them moved a hidden card (``moved``; None when the states have no ``card_places()`` to tell)."""

    game: str
    games: int
    decisions: int
    resamples: int
    moved: int | None


def steps(state: State, seed: int, max_steps: int) -> Iterator[tuple[int, Action]]:
    """Play ``state`` to the end, ``random.Random(seed)`` choosing among the legal actions; yield (seat, action)
    before each is applied. :class:`CheckFailed` if the game does not end within ``max_steps`` decisions."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state.is_terminal:
            return
        seat = state.to_act
        if seat is None:  # pragma: no cover - is_terminal says so first
            raise CheckFailed("to_act is None but the state is not terminal")
        legal = state.legal_actions()
        if not legal:
            raise CheckFailed(f"no legal action for seat {seat}")
        action = rng.choice(legal)
        yield seat, action
        state.apply(action)
    raise CheckFailed(f"the game did not end within {max_steps} steps (seed {state.seed})")


# ----------------------------------------------------------------------------------------------- checks


def check_conservation(state: Any, deck_cards: Iterable[int] | None = None) -> dict[str, list[int]]:
    """The places of ``card_places()`` are disjoint and together hold ``deck_cards`` (default: the whole deck of
    ``state.game.deck``), and ``card_locations()`` counts them. Returns the places."""
    places = state.card_places()
    cards = [c for where in places.values() for c in where]
    expected = list(range(len(state.game.deck))) if deck_cards is None else sorted(deck_cards)
    if len(cards) != len(set(cards)):
        raise CheckFailed(f"a card is in two places: {places}")
    if sorted(cards) != expected:
        raise CheckFailed(f"cards lost or invented: {places}")
    if state.card_locations() != {k: len(v) for k, v in places.items()}:
        raise CheckFailed(f"card_locations() {state.card_locations()} does not count card_places() {places}")
    return places


def check_counts(state: State, total: int) -> None:
    """Conservation for a state with ``card_locations()`` only: no place holds a negative count, and the cards in
    all places add up to ``total``."""
    counts = state.card_locations()
    if any(n < 0 for n in counts.values()) or sum(counts.values()) != total:
        raise CheckFailed(f"cards lost or invented: card_locations() is {counts}, {total} cards at the start")


def check_legal(state: State) -> list[str]:
    """C-6: the seat to act has legal actions, without duplicates; none once the game is over. Returns their
    texts."""
    seat = state.to_act
    legal = state.legal_actions()
    if seat is None:
        if not state.is_terminal or len(legal):
            raise CheckFailed(f"nobody is to act, yet the game is not over or has legal actions: {legal}")
        return []
    if not 0 <= seat < state.seats:
        raise CheckFailed(f"to_act {seat} is not a seat of {state.seats}")
    if not legal:
        raise CheckFailed(f"no legal action for seat {seat}")
    texts = [a.text for a in legal]
    if len(set(texts)) != len(texts):
        raise CheckFailed(f"duplicate legal actions: {texts}")
    return texts


def check_places(state: State) -> tuple[list[list[int]], dict[str, Any]]:
    """Termination and the C-10 ranking every game shares: the finishing order partitions the seats into non-empty
    groups, and the places follow from it ("1224"). Returns the order and the result record."""
    if not state.is_terminal:
        raise CheckFailed("the game is not over")
    result = state.result()
    n = state.seats
    order = [list(g) for g in result.finishing_order]
    if not all(order):
        raise CheckFailed(f"empty finishing group: {order}")
    if sorted(s for g in order for s in g) != list(range(n)):
        raise CheckFailed(f"finishing_order does not partition the seats: {order}")
    places = result.places
    if len(places) != n or places != places_from_order(order, n) or min(places) != 1:
        raise CheckFailed(f"places {places} do not follow from the finishing order {order}")
    d = result.to_dict()
    if d["places"] != list(places):
        raise CheckFailed(f"the result record's places {d['places']} are not {list(places)}")
    return order, d


def check_deals(state: State, before: int) -> int:
    """The deal count (:attr:`State.deals_done`) after one more action, ``before`` being the count before it: it
    never falls and grows by one at most; when it has grown and the game goes on, :meth:`State.deal_places` is a
    C-10 ranking of the seats. Returns the count."""
    done = state.deals_done
    if not before <= done <= before + 1:
        raise CheckFailed(f"deals_done went from {before} to {done} in one action")
    if done > before and not state.is_terminal:
        places = tuple(state.deal_places())
        if len(places) != state.seats or places != places_by(places):
            raise CheckFailed(f"deal_places() {places} after deal {done} is not a ranking of {state.seats} seats")
    return done


def check_playout(state: State, rand: Callable[[], float]) -> None:
    """:meth:`State.playout_action` at a decision: one of the legal actions, and asking for it changes nothing
    (the same seat to act, legal actions and log)."""
    actions = state.legal_actions()
    if not actions:
        return
    texts, seat, size = [a.text for a in actions], state.to_act, state.log_size
    chosen = state.playout_action(actions, rand)
    if not isinstance(chosen, Action) or chosen.text not in texts:
        raise CheckFailed(f"playout_action gave {chosen!r}, not one of the {len(texts)} legal actions")
    if state.to_act != seat or state.log_size != size or [a.text for a in state.legal_actions()] != texts:
        raise CheckFailed("playout_action changed the state")


def check_random_game(new: Callable[[], State], seed: int, max_steps: int, conservation: Callable[[Any], object],
                      result: Callable[[Any], dict[str, Any]], legal: Callable[[State], object] = check_legal) -> Any:
    """One random game of a fresh state ``new()``, played as :func:`steps` does: ``conservation`` and ``legal`` at
    every step, the last one included; ``result`` (the game's checks of the end, returning the result record); then
    the replay of a second ``new()`` (:func:`check_replay`). Returns the finished state."""
    state = new()
    record: Record = []
    for seat, action in steps(state, seed, max_steps):
        conservation(state)
        legal(state)
        record.append((seat, action.text))
    conservation(state)
    legal(state)
    check_replay(new(), record, result(state), state)
    return state


def check_replay(again: State, record: Record, result: dict[str, Any], original: State) -> None:
    """C-5: ``again``, a fresh state of the same game, seats, seed, options and dealer, replays ``record`` to the
    same result, the same event log and the same observation for every seat."""
    for k, (seat, text) in enumerate(record):
        if again.to_act != seat:
            raise CheckFailed(f"replay: at decision {k} seat {again.to_act} acts, not {seat}")
        try:
            again.apply(again.parse_action(text))
        except IllegalActionError as exc:
            raise CheckFailed(f"replay: at decision {k}: {exc}") from exc
    if not again.is_terminal:
        raise CheckFailed("replay: the same actions do not end the game")
    if again.result().to_dict() != result:
        raise CheckFailed(f"replay: result {again.result().to_dict()} differs from {result}")
    if again.events(0, None) != original.events(0, None):
        raise CheckFailed("replay: the event log differs")
    for s in range(again.seats):
        if again.observe(s) != original.observe(s):
            raise CheckFailed(f"replay: the observation of seat {s} differs")


def check_resample(state: Any, seat: int, rng: random.Random, since: int, conservation: Callable[[Any], object],
                   same: Collection[str]) -> Any:
    """C-8, the leak check: re-dealing what ``seat`` cannot see leaves its observation (the public state, its hand
    and the events from ``since``) unchanged. ``since=0`` compares the whole history; a later ``since`` what the
    protocol sends, which is much cheaper. The original is untouched; the copy passes ``conservation``, has the same
    count per place, and the places ``same`` and the seat's hand as they were; it has the same seat to act, and the
    seat to act its legal actions. Returns the copy."""
    before = state.observe(seat, since=since)
    places_before = state.card_places()
    other = state.resample_hidden(seat, rng)
    if other.observe(seat, since=since) != before:
        raise CheckFailed(f"seat {seat}: the observation depends on cards the seat cannot see")
    if state.card_places() != places_before or state.observe(seat, since=since) != before:
        raise CheckFailed("resample_hidden changed the original state")
    conservation(other)
    if other.card_locations() != state.card_locations():
        raise CheckFailed(f"the resample changed the counts: {other.card_locations()} != {state.card_locations()}")
    after = other.card_places()
    for place in (f"hand{seat}", *same):
        if after.get(place) != places_before.get(place):
            raise CheckFailed(f"the resample moved the cards of {place}")
    _check_same_decision(state, other, seat)
    return other


def _check_same_decision(state: State, other: State, seat: int) -> None:
    if other.to_act != state.to_act:
        raise CheckFailed(f"the resample changed the seat to act: {other.to_act} != {state.to_act}")
    if seat == state.to_act and [a.text for a in other.legal_actions()] != [a.text for a in state.legal_actions()]:
        raise CheckFailed(f"seat {seat}: the resample changed its legal actions")


def hidden_places(state: Any, seat: int, ordered: Collection[str] = ()) -> dict[str, list[int]]:
    """Where the cards are, but ``seat``'s own hand: sorted per place, except the places ``ordered`` (a stock, which
    a re-deal may only reorder) as they are."""
    return {k: v if k in ordered else sorted(v) for k, v in state.card_places().items() if k != f"hand{seat}"}


def moved(state: State, other: State, seat: int, ordered: Collection[str] = ()) -> bool:
    """Whether the resample ``other`` of ``state`` moved some card hidden from ``seat``."""
    return hidden_places(other, seat, ordered) != hidden_places(state, seat, ordered)


def leak_walk(state: State, seed: int, rng: random.Random, full: bool, max_steps: int,
              check: Callable[[Any, int, random.Random, int], bool]) -> tuple[int, int]:
    """Play ``state`` as :func:`steps` does and run ``check(state, seat, rng, since)`` (True: the resample moved a
    hidden card) for the seat to act before every decision: with ``since=0`` when ``full``, else with the log size
    at the seat's previous decision. Returns (decisions whose resample moved a card, decisions)."""
    last_seen = [0] * state.seats
    count = decisions = 0
    for seat, _ in steps(state, seed, max_steps):
        count += check(state, seat, rng, 0 if full else last_seen[seat])
        last_seen[seat] = state.log_size
        decisions += 1
    return count, decisions


def check_visibility(state: Any, seed: int, max_steps: int, public_cards: Callable[[Any, Wire], Iterable[str]], *,
                     public_actions: bool = False, seen: Callable[[Wire], Iterable[str]] = lambda obs: ()) -> None:
    """C-8 over one random game, played as :func:`steps` does: at every step, the observation of every seat (with
    the events since its previous one) shows its own hand, and no card it cannot know. A seat may know the cards it
    holds or held, the cards ``public_cards(state, event)`` finds in the events of the referee's view, the cards of
    every action when ``public_actions``, and the cards ``seen(observation)``."""
    texts = state.game.deck.texts
    deck_texts = set(texts)
    n = state.seats
    public: set[str] = set()
    held: list[set[str]] = [set() for _ in range(n)]
    since = [0] * n
    public_since = 0

    def look() -> None:
        nonlocal public_since
        for event in state.events(public_since, None):
            public.update(public_cards(state, event))
        public_since = state.log_size
        places = state.card_places()
        for s in range(n):
            hand = [texts[c] for c in sorted(places[f"hand{s}"])]
            held[s].update(hand)
            obs = state.observe(s, since=since[s])
            since[s] = state.log_size
            if obs["hand"] != hand:
                raise CheckFailed(f"seat {s}: observed hand {obs['hand']} differs from its hand {hand}")
            shown = {t for t in strings(obs) if t in deck_texts}
            known = held[s] | public | set(seen(obs))
            secret = shown - known
            if secret:
                raise CheckFailed(f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})")

    for _, action in steps(state, seed, max_steps):
        look()
        if public_actions:
            public.update(str(c) for c in action.cards)
    look()


def strings(value: Any) -> Iterator[str]:
    """Every string in a wire-form value (keys included): what a card search of an observation looks at."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


# ------------------------------------------------------------------------------------------- check_game


# ------------------------------------------------------------------------------------------- sampling worlds


@dataclass
class SamplingReport:
    """What :func:`check_sampling` checked: the (decision point, seat) pairs sampled, the worlds drawn, the pairs at
    which the worlds differed in some hidden card, and how often a card's real place was among the places its
    samples put it (``truth_seen`` of ``truth_checked``: the real world must be one of the worlds that fit)."""

    game: str
    seats: int
    points: int = 0
    worlds: int = 0
    differing: int = 0
    truth_checked: int = 0
    truth_seen: int = 0

    @property
    def truth_rate(self) -> float:
        return self.truth_seen / self.truth_checked if self.truth_checked else 1.0


def views(state: State, seed: int, max_steps: int, every: int = 1) -> Iterator[tuple[int, list[list[Wire]]]]:
    """Play ``state`` as :func:`steps` does and keep each seat's view as the runner builds it (RULES.md C-8;
    :data:`referee.engine.View`): the observation at each of its decisions, with the events since its previous one (a
    lone ``pass`` is applied without asking, C-6, so it shows nothing). Before every ``every``-th decision, and at the
    end, yield (decision number, one view per seat, each ending with what the seat would be shown now)."""
    n = state.seats
    shown: list[list[Wire]] = [[] for _ in range(n)]
    cursors = [0] * n

    def now() -> list[list[Wire]]:
        return [shown[s] + [state.observe(s, cursors[s])] for s in range(n)]

    decision = 0
    for seat, _ in steps(state, seed, max_steps):
        if decision % every == 0:
            yield decision, now()
        if not is_forced(state.legal_actions()):
            shown[seat].append(state.observe(seat, cursors[seat]))
            cursors[seat] = state.log_size
        decision += 1
    yield decision, now()


def scripted_view(state: State, seat: int, script: Iterable[str]) -> list[Wire]:
    """Play ``script`` (action texts, each parsed as a legal action) on ``state`` and return ``seat``'s view as the
    runner builds it (:func:`views`): its observation at each of its decisions, then the position now. For tests of
    a sampler on hand-made positions."""
    shown: list[Wire] = []
    cursor = 0
    for text in script:
        if state.to_act == seat and not is_forced(state.legal_actions()):
            shown.append(state.observe(seat, cursor))
            cursor = state.log_size
        state.apply(state.parse_action(text))
    return [*shown, state.observe(seat, cursor)]


def check_world(state: Any, world: Any, seat: int, conservation: Callable[[Any], object] | None) -> None:
    """One sampled ``world`` of ``seat``'s view of ``state``: it shows ``seat`` exactly its observation of the whole
    game; at the seat's own decision it is the seat's decision there too, with the same legal actions, and at the
    end it is over; its cards are conserved, ``seat``'s hand and every place's count as in ``state``.

    While another seat is to act, the world may ask someone else: a view need not say who is asked (in durak's
    throw-in walk a player with nothing to throw is skipped without an event, KZ-16), so a world where another
    player holds the cards to be asked fits it too."""
    if world is state:
        raise CheckFailed("the sampled world is the real state itself")
    if world.observe(seat, 0) != state.observe(seat, 0):
        raise CheckFailed(f"seat {seat}: a sampled world shows it another observation than it had")
    if state.to_act == seat or state.is_terminal:
        _check_same_decision(state, world, seat)
    if conservation is not None:
        conservation(world)
        if world.card_locations() != state.card_locations():
            raise CheckFailed(f"a sampled world has other counts: {world.card_locations()} != "
                              f"{state.card_locations()}")
        if sorted(world.card_places()[f"hand{seat}"]) != sorted(state.card_places()[f"hand{seat}"]):
            raise CheckFailed(f"a sampled world changed the hand of seat {seat}")


def _placed(state: Any) -> dict[int, str]:
    return {c: where for where, cards in state.card_places().items() for c in cards}


def check_sampling(game: Game, seats: int, *, games: int = 2, seed: int = 0,
                   options: Mapping[str, object] | None = None, samples: int = 12, every: int = 5,
                   max_steps: int = 100_000) -> SamplingReport:
    """The contract of :meth:`Game.worlds` (docs/ENGINE.md, "Sampling worlds") over ``games`` random games: before
    every ``every``-th decision and at the end, for every seat, ``samples`` worlds are drawn from the seat's view
    (:func:`views`) and each passes :func:`check_world`; one of them is played on to its end by random legal
    actions (a world is a real position: conservation and legal actions at every step); the same ``rng`` state
    gives the same world; at the first decision, the worlds of every seat differ (nothing but its own hand and the
    public cards is known yet). Game k has seed ``seed + k`` and dealer ``(seed + k) % seats``.

    Where the state has ``card_places()``, the report also counts how the worlds spread the hidden cards: the
    (point, seat) pairs where they differ, and, for every card some world puts elsewhere than it really is, whether
    some world puts it where it really is (the real world fits the view, so a sampler that never produces it, or
    excludes a place the seat cannot exclude, shows as a low :attr:`SamplingReport.truth_rate`). The caller asserts
    on the report. :class:`CheckFailed` names the game, seats, seed and decision of a failed check."""
    report = SamplingReport(game.id, seats)
    for k in range(games):
        s = seed + k
        state = game.new_state(seats, s, options, dealer=s % seats)
        has_places = _has_places(state)
        conservation = _conservation(state) if has_places else None
        rng = random.Random(s ^ 0x5A3D)
        at = 0
        try:
            for point, seen in views(state, s, max_steps, every):
                at = point
                for seat in range(seats):
                    _check_seat_worlds(game, state, seat, seen[seat], options, samples, rng, conservation, report,
                                       start=point == 0)
        except CheckFailed as exc:
            raise CheckFailed(f"{game.id}, {seats} seats, seed {s}, dealer {s % seats}, decision {at}: {exc}") \
                from exc
    return report


def _check_seat_worlds(game: Game, state: Any, seat: int, view: list[Wire], options: Mapping[str, object] | None,
                       samples: int, rng: random.Random, conservation: Callable[[Any], object] | None,
                       report: SamplingReport, *, start: bool) -> None:
    worlds = game.worlds(state.seats, seat, view, options)
    drawn = []
    for _ in range(samples):
        world = worlds.sample(rng)
        check_world(state, world, seat, conservation)
        drawn.append(world)
    report.points += 1
    report.worlds += samples
    again = random.Random(7)
    first: Any = worlds.sample(again)
    second: Any = worlds.sample(random.Random(7))
    if conservation is not None and (first.card_places() != second.card_places()
                                     or first.observe(seat, 0) != second.observe(seat, 0)):
        raise CheckFailed(f"seat {seat}: the same rng state gave two different worlds")
    if conservation is not None:
        real = _placed(state)
        placements = [_placed(w) for w in drawn]
        if any(p != placements[0] for p in placements):
            report.differing += 1
        elif start:
            raise CheckFailed(f"seat {seat}: at the start, {samples} worlds deal the hidden cards all alike")
        for card, where in real.items():
            places = {p[card] for p in placements}
            if places != {where}:
                report.truth_checked += 1
                report.truth_seen += where in places
    if not state.is_terminal:
        play_on = drawn[0]
        for _ in steps(play_on, rng.randrange(2**32), 100_000):
            if conservation is not None:
                conservation(play_on)
            check_legal(play_on)
        check_places(play_on)


def check_game(game: Game, *, seats: int | Iterable[int] | None = None, games: int = 20, seed: int = 0,
               options: Mapping[str, object] | None = None, leak_games: int = 2,
               max_steps: int = 100_000) -> list[SimReport]:
    """Run the random-simulation checks (module docstring) on ``games`` random games of ``game`` for each seat count
    of ``seats`` (default: every count the game allows), with ``options`` (default: the game's defaults). Game k of
    a seat count has seed ``seed + k`` and the dealer ``(seed + k) % seats``; the first ``leak_games`` of them run
    the leak check at every decision (the first comparing the whole history, the others what the protocol sends).
    Returns a :class:`SimReport` per seat count; raises :class:`CheckFailed` at the first failed check."""
    counts = range(game.min_seats, game.max_seats + 1) if seats is None else [seats] if isinstance(seats, int) \
        else list(seats)
    reports = []
    for n in counts:
        decisions = resamples = moves = 0
        has_places = True
        for k in range(games):
            s = seed + k
            new = partial(game.new_state, n, s, options, dealer=s % n)
            try:
                has_places, steps_taken = _one_game(new, s, max_steps)
                decisions += steps_taken
                if k < leak_games:
                    r, m = _leak_game(new(), s, max_steps, full=k == 0)
                    resamples += r
                    moves += m
            except CheckFailed as exc:
                raise CheckFailed(f"{game.id}, {n} seats, seed {s}, dealer {s % n}: {exc}") from exc
        reports.append(SimReport(game.id, games, decisions, resamples, moves if has_places else None))
    return reports


def _has_places(state: State) -> bool:
    """Whether the cards of ``state`` can be followed one by one: it is a :class:`CardPlaces` and its game has a
    deck."""
    return isinstance(state, CardPlaces) and state.game.deck is not None


def _conservation(state: State) -> Callable[[Any], object]:
    """The conservation check of ``state``'s game: by ``card_places()`` (every card of ``state.deck_cards``) when
    the state is a :class:`CardPlaces` and the game has a deck, else by the counts of ``card_locations()``."""
    if isinstance(state, CardPlaces) and state.game.deck is not None:
        return partial(check_conservation, deck_cards=state.deck_cards)
    total = sum(state.card_locations().values())
    return lambda s: check_counts(s, total)


def _one_game(new: Callable[[], State], seed: int, max_steps: int) -> tuple[bool, int]:
    """Conservation and legal actions at every step, termination, places, a result record in wire form, replay.
    Returns (whether the states have ``card_places()``, the decisions played)."""
    def result(state: State) -> dict[str, Any]:
        _, record = check_places(state)
        try:
            json.dumps(record)
        except (TypeError, ValueError) as exc:
            raise CheckFailed(f"the result record is not JSON: {exc}") from exc
        return record

    checked = deals = 0
    rand = random.Random(seed).random

    def legal(state: State) -> None:  # once before each decision and once at the end
        nonlocal checked, deals
        checked += 1
        check_legal(state)
        deals = check_deals(state, deals)
        check_playout(state, rand)

    state = check_random_game(new, seed, max_steps, _conservation(new()), result, legal)
    return _has_places(state), checked - 1


def _leak_game(state: State, seed: int, max_steps: int, *, full: bool) -> tuple[int, int]:
    """The leak check for the seat to act at every decision of one random game. Returns (resamples, resamples
    that moved a hidden card)."""
    conservation = _conservation(state)
    has_places = _has_places(state)
    rng = random.Random(seed ^ 0x5EED)

    def check(st: Any, seat: int, r: random.Random, since: int) -> bool:
        json.dumps(st.observe(seat, since=since))  # the observation is wire form
        if has_places:
            other = check_resample(st, seat, r, since, conservation, ())
            return moved(st, other, seat)
        before = st.observe(seat, since=since)
        counts = st.card_locations()
        other = st.resample_hidden(seat, r)
        if other.observe(seat, since=since) != before:
            raise CheckFailed(f"seat {seat}: the observation depends on what the seat cannot see")
        if st.observe(seat, since=since) != before or st.card_locations() != counts:
            raise CheckFailed("resample_hidden changed the original state")
        if other.card_locations() != counts:
            raise CheckFailed(f"the resample changed the counts: {other.card_locations()} != {counts}")
        _check_same_decision(st, other, seat)
        return False

    moves, resamples = leak_walk(state, seed, rng, full, max_steps, check)
    return resamples, moves
