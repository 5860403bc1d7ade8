"""Random simulation of `kazaki` and `durak`, in the spirit of OpenSpiel's random_sim_test.

Thousands of seeded random games (a ``random.Random(seed)`` choosing among the legal actions), checking at
every step:

- card conservation: the places of ``card_places()`` are disjoint and together hold the whole deck;
- the seat to act has legal actions, without duplicates, while the game is not over (C-6);
- termination, and a well-formed result (C-10, KZ-21, KZ-24);
- replay: (seed, options, dealer, action texts) reproduce the result and the whole event log (C-5);
- the leak check (C-8): re-dealing the cards the seat to act cannot see leaves its observation unchanged;
- no observation ever shows a card of another seat's hand that was never shown in public (C-8, KZ-23).

The leak and visibility checks are the expensive ones; they run on the first games of each case only. Every run
plays the first games of each sweep; the ``deep`` tests (``-m deep``) play the rest of the same seeds.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from referee.engine import Game, State
from referee.games.durak import Durak, Kazaki
from referee.testing import (
    check_conservation,
    check_places,
    check_random_game,
    check_resample,
    check_visibility,
    leak_walk,
    moved,
    steps,
)

VARIANTS: dict[str, tuple[Game, dict[str, bool | int]]] = {
    "kazaki": (Kazaki(), {}),
    "durak": (Durak(), {}),
    "durak-transfer": (Durak(), {"transfer": True}),
    "kazaki-transfer": (Kazaki(), {"transfer": True}),
    "durak-withdraw-redeal": (Durak(), {"withdraw": True, "redeal_five": True}),
    "kazaki-throw-after-take": (Kazaki(), {"throw_after_take": True}),
}
SEATS = range(2, 7)

GAMES_PER_CASE = 100  # conservation, legal actions, termination and replay: 6 × 5 × 100 = 3000 games …
QUICK_GAMES = 30  # … every run plays the first 30 of each case (900 games), the deep tests the rest
CHUNKS = 2  # split each case so that xdist can spread the work
LEAK_GAMES = 20  # leak check at every step, for the first games of each case (600 games) …
QUICK_LEAK_GAMES = 6  # … every run the first 6 (180 games), the deep tests the rest …
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


# ----------------------------------------------------------------------------------------------- checks


def check_result(state: State) -> dict[str, Any]:
    """Termination checks (C-10, KZ-21, KZ-24, C-11)."""
    order, d = check_places(state)
    places = d["places"]
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


def check_leak(state: State, seat: int, rng: random.Random, since: int = 0) -> bool:
    """C-8 leak check for the seat to act (the table and the discard pile stay); True if the resample actually
    moved some hidden card. The copy keeps the seat to act and its legal actions, withdrawals (KZ-17) included."""
    assert seat == state.to_act
    other = check_resample(state, seat, rng, since, check_conservation, ("table", "discard"))
    return moved(state, other, seat)


# ------------------------------------------------------------------------------------------------ tests


def random_games(variant: str, seats: int, games: range) -> None:
    for k in games:
        seed = _seed(variant, seats, k)
        check_random_game(partial(_new, variant, seats, seed), seed, MAX_STEPS, check_conservation, check_result)


def leak_games(variant: str, seats: int, games: range) -> None:
    for k in games:
        seed = _seed(variant, seats, k)
        state = _new(variant, seats, seed)
        count, decisions = leak_walk(state, seed, random.Random(seed ^ 0x5EED), k < FULL_LEAK_GAMES, MAX_STEPS,
                                     check_leak)
        assert decisions > 0
        # Not vacuous: at the start other hands and the stock are hidden, so cards must move.
        assert count > 0, f"{variant} {seats}p seed {seed}: resample_hidden never moved a hidden card"


@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED_CASES)
def test_random_games(variant: str, seats: int, chunk: int) -> None:
    """Conservation and legal actions at every step, termination, result, replay."""
    random_games(variant, seats, range(chunk, QUICK_GAMES, CHUNKS))


@pytest.mark.deep
@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED_CASES)
def test_random_games_deep(variant: str, seats: int, chunk: int) -> None:
    """test_random_games on the rest of the GAMES_PER_CASE seeds of each case."""
    random_games(variant, seats, range(QUICK_GAMES + chunk, GAMES_PER_CASE, CHUNKS))


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check(variant: str, seats: int) -> None:
    """C-8: resampling what the seat to act cannot see never changes its observation.

    At every step of the first QUICK_LEAK_GAMES games of each case (test_leak_check_deep: the rest of the first
    LEAK_GAMES). The first FULL_LEAK_GAMES compare the observation with the whole event log (since=0); the others
    compare what the protocol would send the seat, with the events since its previous decision.
    """
    leak_games(variant, seats, range(QUICK_LEAK_GAMES))


@pytest.mark.deep
@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check_deep(variant: str, seats: int) -> None:
    """test_leak_check on the rest of the first LEAK_GAMES games of each case."""
    leak_games(variant, seats, range(QUICK_LEAK_GAMES, LEAK_GAMES))


@pytest.mark.parametrize("variant", ["kazaki", "durak-withdraw-redeal"])
def test_leak_check_during_a_redeal_offer(variant: str) -> None:
    """KZ-6, C-8: the redeal offer is a decision point like any other; the leak check must hold there too."""
    for seed in range(1000):
        state = _new(variant, 4, seed)
        if state.legal_actions()[0].text == "demand_redeal":
            break
    else:
        pytest.fail("no redeal offer in 1000 seeds")
    seat = state.to_act
    assert seat is not None
    assert check_leak(state, seat, random.Random(seed))


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_observation_never_shows_hidden_cards(variant: str, seats: int) -> None:
    """C-8, KZ-23: every seat's observation shows its own hand, and only cards it may know.

    A seat may know: the cards it holds or held, the cards of every action (all actions are public), the
    trump card, and the lowest trump announced by the first attacker (KZ-7). A card of another seat's hand
    outside these must never appear anywhere in the observation (hand, table, trump, events).
    """
    for k in range(VISIBILITY_GAMES):
        seed = _seed(variant, seats, k)
        check_visibility(_new(variant, seats, seed), seed, MAX_STEPS, _public_cards, public_actions=True)


def _public_cards(state: State, event: dict[str, Any]) -> list[str]:
    """The trump card, and the lowest trump the first attacker shows (KZ-5, KZ-7)."""
    return [event["card"]] if event["type"] in ("trump", "first_attacker") and event.get("card") else []


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_bout_limit_aborts(variant: str, seats: int) -> None:
    """C-11: with a tiny max_bouts the game is aborted after that many bouts, and the result says so."""
    game, options = VARIANTS[variant]
    for k in range(20):
        seed = _seed(variant, seats, k)
        limit = 1 + k % 3
        state = game.new_state(seats, seed, {**options, "max_bouts": limit}, dealer=seed % seats)
        for _ in steps(state, seed, MAX_STEPS):
            check_conservation(state)
        bouts = state.observe(0)["bouts"]
        assert bouts <= limit
        result = check_result(state)
        if result["aborted"]:
            assert bouts == limit
            # The seats still active share the last place.
            assert result["finishing_order"][-1] == [s for s in range(seats) if state.observe(0)["active"][s]]
