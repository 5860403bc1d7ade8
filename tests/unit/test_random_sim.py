"""Random simulation of `kazaki` and `durak`, in the spirit of OpenSpiel's random_sim_test.

Thousands of seeded random games (a ``random.Random(seed)`` choosing among the legal actions), checking at
every step:

- card conservation: the places of ``card_places()`` are disjoint and together hold the whole deck;
- the seat to act has legal actions, without duplicates, while the game is not over (C-6);
- termination, and a well-formed result (C-10, KZ-21, KZ-24);
- replay: (seed, options, dealer, action texts) reproduce the result and the whole event log (C-5);
- the leak check (C-8): re-dealing the cards the seat to act cannot see leaves its observation unchanged;
- no observation ever shows a card of another seat's hand that was never shown in public (C-8, KZ-23).

The leak and visibility checks are the expensive ones; they run on the first games of each case only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.actions import Action
from referee.engine import Game, State, places_from_order
from referee.games.durak import Durak, Kazaki

VARIANTS: dict[str, tuple[Game, dict[str, bool | int]]] = {
    "kazaki": (Kazaki(), {}),
    "durak": (Durak(), {}),
    "durak-transfer": (Durak(), {"transfer": True}),
    "kazaki-transfer": (Kazaki(), {"transfer": True}),
    "durak-withdraw-redeal": (Durak(), {"withdraw": True, "redeal_five": True}),
    "kazaki-throw-after-take": (Kazaki(), {"throw_after_take": True}),
}
SEATS = range(2, 7)

GAMES_PER_CASE = 100  # conservation, legal actions, termination and replay: 6 × 5 × 100 = 3000 games
CHUNKS = 2  # split each case so that xdist can spread the work
LEAK_GAMES = 20  # leak check at every step, for the first games of each case (600 games) …
FULL_LEAK_GAMES = 4  # … comparing the whole history (since=0) for the first of them
VISIBILITY_GAMES = 4  # every seat's observation at every step, for the first games of each case
MAX_STEPS = 200_000  # far above any real game (C-11 stops the durak family after 1000 bouts)

CASES = [pytest.param(v, n, id=f"{v}-{n}p") for v in VARIANTS for n in SEATS]
CHUNKED_CASES = [pytest.param(v, n, c, id=f"{v}-{n}p-{c}") for v in VARIANTS for n in SEATS for c in range(CHUNKS)]


def _seed(variant: str, seats: int, k: int) -> int:
    """Distinct, spread-out seeds per case (the first few are small, for easy reproduction)."""
    return k if k < 10 else (k * 0x9E3779B97F4A7C15 + seats * 7919 + len(variant)) % 2**64


def _new(variant: str, seats: int, seed: int) -> State:
    game, options = VARIANTS[variant]
    return game.new_state(seats, seed, options, dealer=seed % seats)


def _steps(state: State, seed: int) -> Iterator[tuple[int, Action]]:
    """Play ``state`` to the end with random legal actions; yield (seat, action) before each is applied."""
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        if state.is_terminal:
            return
        seat = state.to_act
        assert seat is not None
        action = rng.choice(state.legal_actions())
        yield seat, action
        state.apply(action)
    pytest.fail(f"the game did not end within {MAX_STEPS} steps (seed {state.seed})")


# ----------------------------------------------------------------------------------------------- checks


def check_conservation(state: State) -> None:
    places = state.card_places()  # type: ignore[attr-defined]
    cards = [c for where in places.values() for c in where]
    size = len(state.game.deck)  # type: ignore[attr-defined]
    assert len(cards) == len(set(cards)), f"a card is in two places: {places}"
    assert sorted(cards) == list(range(size)), f"cards lost or invented: {places}"
    assert state.card_locations() == {k: len(v) for k, v in places.items()}


def check_legal(state: State) -> None:
    seat = state.to_act
    legal = state.legal_actions()
    if seat is None:
        assert state.is_terminal
        assert len(legal) == 0
        return
    assert 0 <= seat < state.seats
    assert legal, f"no legal action for seat {seat}"
    texts = [a.text for a in legal]
    assert len(set(texts)) == len(texts), f"duplicate legal actions: {texts}"


def check_result(state: State) -> dict[str, Any]:
    """Termination checks (C-10, KZ-21, KZ-24, C-11)."""
    assert state.is_terminal
    result = state.result()
    n = state.seats
    order = [list(g) for g in result.finishing_order]
    flat = [s for g in order for s in g]
    assert all(order), f"empty finishing group: {order}"
    assert sorted(flat) == list(range(n)), f"finishing_order does not partition the seats: {order}"
    places = result.places
    assert len(places) == n
    assert all(1 <= p <= n for p in places)
    assert places == places_from_order(order, n)
    assert min(places) == 1
    d = result.to_dict()
    assert d["places"] == list(places)
    # KZ-24: scores[p] is the number of players ranked strictly below p.
    assert d["scores"] == [sum(1 for q in places if q > p) for p in places]
    loser, draw, aborted = d["loser"], d["draw"], d["aborted"]
    if aborted:  # C-11, KZ-24: the active players share the last place, no loser
        assert loser is None and draw is False
    elif draw:  # KZ-21: nobody left
        assert loser is None
    else:  # KZ-21: the one player left is the loser and the last group
        assert loser is not None and order[-1] == [loser]
    return d


def _hidden_places(state: State, seat: int) -> dict[str, list[int]]:
    places = state.card_places()  # type: ignore[attr-defined]
    return {k: sorted(v) for k, v in places.items() if k != f"hand{seat}"}


def check_leak(state: State, rng: random.Random, since: int = 0) -> bool:
    """C-8 leak check for the seat to act; True if the resample actually moved some hidden card.

    ``since=0`` compares the whole history; a later ``since`` compares what the protocol sends (the
    public state, the hand and the events since the seat's previous request), which is much cheaper.
    """
    seat = state.to_act
    assert seat is not None
    before = state.observe(seat, since=since)
    places_before = state.card_places()  # type: ignore[attr-defined]
    other = state.resample_hidden(seat, rng)
    assert other.observe(seat, since=since) == before, "the observation depends on cards the seat cannot see"
    # The original is untouched, the copy is still a full deck with the same counts per place.
    assert state.card_places() == places_before  # type: ignore[attr-defined]
    assert state.observe(seat, since=since) == before
    check_conservation(other)
    assert other.card_locations() == state.card_locations()
    other_places = other.card_places()  # type: ignore[attr-defined]
    assert sorted(other_places[f"hand{seat}"]) == sorted(places_before[f"hand{seat}"])
    assert sorted(other_places["table"]) == sorted(places_before["table"])
    assert sorted(other_places["discard"]) == sorted(places_before["discard"])
    return _hidden_places(other, seat) != _hidden_places(state, seat)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


# ------------------------------------------------------------------------------------------------ tests


def replay_and_check(variant: str, seats: int, seed: int, record: list[tuple[int, str]],
                     result: dict[str, Any], original: State) -> None:
    """C-5: (seed, options, dealer, action texts) reproduce the game exactly."""
    state = _new(variant, seats, seed)
    for seat, text in record:
        assert state.to_act == seat
        state.apply(state.parse_action(text))
    assert state.is_terminal
    assert state.result().to_dict() == result
    assert state.events(0, None) == original.events(0, None)
    for s in range(seats):
        assert state.observe(s) == original.observe(s)


@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED_CASES)
def test_random_games(variant: str, seats: int, chunk: int) -> None:
    """Conservation and legal actions at every step, termination, result, replay."""
    for k in range(chunk, GAMES_PER_CASE, CHUNKS):
        seed = _seed(variant, seats, k)
        state = _new(variant, seats, seed)
        rng = random.Random(seed)
        record: list[tuple[int, str]] = []
        for _ in range(MAX_STEPS):
            check_conservation(state)
            check_legal(state)
            if state.is_terminal:
                break
            action = rng.choice(state.legal_actions())
            record.append((state.to_act, action.text))  # type: ignore[arg-type]
            state.apply(action)
        else:
            pytest.fail(f"{variant} {seats}p seed {seed}: no end within {MAX_STEPS} steps")
        result = check_result(state)
        replay_and_check(variant, seats, seed, record, result, state)


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check(variant: str, seats: int) -> None:
    """C-8: resampling what the seat to act cannot see never changes its observation.

    At every step of the first LEAK_GAMES games of each case. The first FULL_LEAK_GAMES compare the
    observation with the whole event log (since=0); the others compare what the protocol would send the
    seat, with the events since its previous decision.
    """
    for k in range(LEAK_GAMES):
        seed = _seed(variant, seats, k)
        state = _new(variant, seats, seed)
        rng = random.Random(seed ^ 0x5EED)
        last_seen = [0] * seats
        moved = 0
        steps = 0
        for seat, _ in _steps(state, seed):
            since = 0 if k < FULL_LEAK_GAMES else last_seen[seat]
            moved += check_leak(state, rng, since)
            last_seen[seat] = state.log_size
            steps += 1
        assert steps > 0
        # Not vacuous: at the start other hands and the stock are hidden, so cards must move.
        assert moved > 0, f"{variant} {seats}p seed {seed}: resample_hidden never moved a hidden card"


@pytest.mark.parametrize("variant", ["kazaki", "durak-withdraw-redeal"])
def test_leak_check_during_a_redeal_offer(variant: str) -> None:
    """KZ-6, C-8: the redeal offer is a decision point like any other; the leak check must hold there too."""
    for seed in range(1000):
        state = _new(variant, 4, seed)
        if state.legal_actions()[0].text == "demand_redeal":
            break
    else:
        pytest.fail("no redeal offer in 1000 seeds")
    assert check_leak(state, random.Random(seed))


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_observation_never_shows_hidden_cards(variant: str, seats: int) -> None:
    """C-8, KZ-23: every seat's observation shows its own hand, and only cards it may know.

    A seat may know: the cards it holds or held, the cards of every action (all actions are public), the
    trump card, and the lowest trump announced by the first attacker (KZ-7). A card of another seat's hand
    outside these must never appear anywhere in the observation (hand, table, trump, events).
    """
    game, _ = VARIANTS[variant]
    texts = game.deck.texts  # type: ignore[attr-defined]
    deck_texts = set(texts)
    for k in range(VISIBILITY_GAMES):
        seed = _seed(variant, seats, k)
        state = _new(variant, seats, seed)
        rng = random.Random(seed)
        public: set[str] = set()
        held: list[set[str]] = [set() for _ in range(seats)]
        since = [0] * seats
        public_since = 0
        for _ in range(MAX_STEPS):
            for event in state.events(public_since, None):
                if event["type"] in ("trump", "first_attacker") and event.get("card"):
                    public.add(event["card"])
            public_since = state.log_size
            places = state.card_places()  # type: ignore[attr-defined]
            for s in range(seats):
                hand = [texts[c] for c in sorted(places[f"hand{s}"])]
                held[s].update(hand)
                obs = state.observe(s, since=since[s])
                since[s] = state.log_size
                assert obs["hand"] == hand, f"seat {s}: observed hand differs from its hand"
                shown = {t for t in _strings(obs) if t in deck_texts}
                secret = shown - held[s] - public
                assert not secret, f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})"
                others = {texts[c] for o in range(seats) if o != s for c in places[f"hand{o}"]}
                assert not (shown & others) - public - held[s]
            if state.is_terminal:
                break
            action = rng.choice(state.legal_actions())
            public.update(str(c) for c in action.cards)
            state.apply(action)
        else:
            pytest.fail(f"no end within {MAX_STEPS} steps")


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_bout_limit_aborts(variant: str, seats: int) -> None:
    """C-11: with a tiny max_bouts the game is aborted after that many bouts, and the result says so."""
    game, options = VARIANTS[variant]
    for k in range(20):
        seed = _seed(variant, seats, k)
        limit = 1 + k % 3
        state = game.new_state(seats, seed, {**options, "max_bouts": limit}, dealer=seed % seats)
        for _ in _steps(state, seed):
            check_conservation(state)
        bouts = state.observe(0)["bouts"]
        assert bouts <= limit
        result = check_result(state)
        if result["aborted"]:
            assert bouts == limit
            # The seats still active share the last place.
            assert result["finishing_order"][-1] == [s for s in range(seats) if state.observe(0)["active"][s]]
