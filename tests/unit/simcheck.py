"""The checks the random-simulation tests share (test_random_sim.py, test_kozel_sim.py, test_koroli_sim.py).

Each of those files keeps its cases, its seeds and its game-specific checks, and passes them in where a shared
check needs them (the conservation check of the game, the places a resample must leave alone). Every built-in game
provides ``card_places()`` (not declared on the abstract ``State``), hence the ``Any`` of the states here.

This is a plain module beside the tests, not a test file: pytest's default ("prepend") import mode puts this folder
on ``sys.path`` (``tests`` and ``tests/unit`` have no ``__init__.py``), so the tests import it as ``simcheck``,
under ``python -m pytest`` and a bare ``pytest`` (tox) alike. ``conftest.py`` beside it has pytest rewrite its
asserts, so a failing check shows the values it compared.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

import pytest

from protocol.actions import Action
from referee.engine import State, places_from_order

Record = list[tuple[int, str]]  # (seat, action text) per decision
Wire = dict[str, Any]  # an event or an observation


def steps(state: State, seed: int, max_steps: int) -> Iterator[tuple[int, Action]]:
    """Play ``state`` to the end, ``random.Random(seed)`` choosing among the legal actions; yield (seat, action)
    before each is applied."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state.is_terminal:
            return
        seat = state.to_act
        assert seat is not None
        action = rng.choice(state.legal_actions())
        yield seat, action
        state.apply(action)
    pytest.fail(f"the game did not end within {max_steps} steps (seed {state.seed})")


# ----------------------------------------------------------------------------------------------- checks


def check_conservation(state: Any, deck_cards: Iterable[int] | None = None) -> dict[str, list[int]]:
    """The places of ``card_places()`` are disjoint and together hold ``deck_cards`` (default: the whole deck), and
    ``card_locations()`` counts them. Returns the places."""
    places = state.card_places()
    cards = [c for where in places.values() for c in where]
    expected = list(range(len(state.game.deck))) if deck_cards is None else sorted(deck_cards)
    assert len(cards) == len(set(cards)), f"a card is in two places: {places}"
    assert sorted(cards) == expected, f"cards lost or invented: {places}"
    assert state.card_locations() == {k: len(v) for k, v in places.items()}
    return places


def check_legal(state: State) -> list[str]:
    """C-6: the seat to act has legal actions, without duplicates; none once the game is over. Returns their
    texts."""
    seat = state.to_act
    legal = state.legal_actions()
    if seat is None:
        assert state.is_terminal
        assert len(legal) == 0
        return []
    assert 0 <= seat < state.seats
    assert legal, f"no legal action for seat {seat}"
    texts = [a.text for a in legal]
    assert len(set(texts)) == len(texts), f"duplicate legal actions: {texts}"
    return texts


def check_places(state: State) -> tuple[list[list[int]], dict[str, Any]]:
    """Termination and the C-10 ranking every game shares: the finishing order partitions the seats into non-empty
    groups, and the places follow from it ("1224"). Returns the order and the result record."""
    assert state.is_terminal
    result = state.result()
    n = state.seats
    order = [list(g) for g in result.finishing_order]
    assert all(order), f"empty finishing group: {order}"
    flat = sorted(s for g in order for s in g)
    assert flat == list(range(n)), f"finishing_order does not partition the seats: {order}"
    places = result.places
    assert len(places) == n
    assert all(1 <= p <= n for p in places)
    assert places == places_from_order(order, n)
    assert min(places) == 1
    d = result.to_dict()
    assert d["places"] == list(places)
    return order, d


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
    for seat, text in record:
        assert again.to_act == seat
        again.apply(again.parse_action(text))
    assert again.is_terminal
    assert again.result().to_dict() == result
    assert again.events(0, None) == original.events(0, None)
    for s in range(again.seats):
        assert again.observe(s) == original.observe(s)


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
    assert other.observe(seat, since=since) == before, "the observation depends on cards the seat cannot see"
    assert state.card_places() == places_before
    assert state.observe(seat, since=since) == before
    conservation(other)
    assert other.card_locations() == state.card_locations()
    after = other.card_places()
    for place in (f"hand{seat}", *same):
        assert after[place] == places_before[place], f"the resample moved the cards of {place}"
    assert other.to_act == state.to_act
    if seat == state.to_act:
        assert [a.text for a in other.legal_actions()] == [a.text for a in state.legal_actions()]
    return other


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
            assert obs["hand"] == hand, f"seat {s}: observed hand differs from its hand"
            shown = {t for t in strings(obs) if t in deck_texts}
            known = held[s] | public | set(seen(obs))
            secret = shown - known
            assert not secret, f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})"
            others = {texts[c] for o in range(n) if o != s for c in places[f"hand{o}"]}
            assert not (shown & others) - known

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
