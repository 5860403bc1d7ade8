"""Random simulation of `kozel`, `kozel-hvaleny` and `kozel-nn`, in the spirit of OpenSpiel's random_sim_test.

Seeded random games (a ``random.Random(seed)`` choosing among the legal actions) for every game, seat count and
option value, checking at every step:

- card conservation: the places of ``card_places()`` are disjoint and together hold every card of the game;
- the seat to act has legal actions, without duplicates, while the game is not over (C-6);
- termination, and a well-formed result (C-10, KO-14, KH-16, KN-17);
- replay: (seed, options, dealer, action texts) reproduce the result and the whole event log (C-5);
- the leak check (C-8): re-dealing the cards the seat to act cannot see leaves its observation unchanged, and the
  re-deal does move hidden cards;
- no observation ever shows a card of another seat's hand that was never shown in public (C-8, KO-15, KH-17,
  KN-18);
- the C-11 deal limit of the team games.

The leak and visibility checks are the expensive ones; they run on the first games of each case only. Every run
plays the first games of each sweep; the ``deep`` tests (``-m deep``) play the rest of the same seeds.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from referee import testing
from referee.engine import Game, State
from referee.games.kozel import Kozel, KozelHvaleny, KozelNN
from referee.games.kozel.hvaleny import HvalenyState
from referee.games.kozel.nn import NNState
from referee.games.kozel.team import TEAMS
from referee.testing import (
    check_places,
    check_random_game,
    check_resample,
    check_visibility,
    leak_walk,
    moved,
    steps,
    strings,
)

KO, KH, KN = Kozel(), KozelHvaleny(), KozelNN()

VARIANTS: dict[str, tuple[Game, dict[str, Any], tuple[int, ...]]] = {
    "kozel": (KO, {}, (2, 3, 4)),
    "kozel-target-1": (KO, {"target": 1}, (2, 3, 4)),
    "kozel-target-200": (KO, {"target": 200}, (3,)),
    "hvaleny-lose": (KH, {"lyusya": "lose"}, (4,)),
    "hvaleny-zero": (KH, {"lyusya": "zero"}, (4,)),
    "hvaleny-off": (KH, {"lyusya": "off", "target_eyes": 6}, (4,)),
    "nn": (KN, {"boasting": False}, (4,)),
    "nn-boasting": (KN, {"boasting": True}, (4,)),
    "nn-boasting-target-30": (KN, {"boasting": True, "target": 30}, (4,)),
}
CASES = [pytest.param(v, n, id=f"{v}-{n}p") for v, (_, _, seats) in VARIANTS.items() for n in seats]
CHUNKS = 2
CHUNKED = [pytest.param(v, n, c, id=f"{v}-{n}p-{c}") for v, (_, _, seats) in VARIANTS.items() for n in seats
           for c in range(CHUNKS)]

GAMES_PER_CASE = 60  # every run plays the first QUICK_GAMES of each case, the deep tests the rest
QUICK_GAMES = 20
LEAK_GAMES = 8  # leak check at every step for the first games of each case (every run the first QUICK_LEAK_GAMES) …
QUICK_LEAK_GAMES = 3
FULL_LEAK_GAMES = 1  # … comparing the whole history (since=0) for the first of them
VISIBILITY_GAMES = 2
MAX_STEPS = 100_000


def _seed(variant: str, seats: int, k: int) -> int:
    return k if k < 10 else (k * 0x9E3779B97F4A7C15 + seats * 7919 + len(variant)) % 2**64


def _new(variant: str, seats: int, seed: int) -> State:
    game, options, _ = VARIANTS[variant]
    return game.new_state(seats, seed, options, dealer=seed % seats)


# ----------------------------------------------------------------------------------------------- checks


def check_conservation(state: Any) -> None:
    """Every card of the game, which may be fewer than the deck (KO-1 with 3 players)."""
    testing.check_conservation(state, state.deck_cards)


def check_result(state: State) -> dict[str, Any]:
    order, d = check_places(state)
    deals = [e["deal"] for e in state.events() if e["type"] == "deal"]
    assert state.observe(0)["deal"] == deals[-1]  # the last deal played, not one past it
    if state.game.id == "kozel":  # KO-14: by points, descending, ties together
        scores = d["scores"]
        assert not d["aborted"] and max(scores) >= state.options["target"]
        assert [[scores[s] for s in g] for g in order] == [[scores[g[0]]] * len(g) for g in order]
        assert [scores[g[0]] for g in order] == sorted({*scores}, reverse=True)
        return d
    # KH-16, KN-17: teams of two, the winners 1 and the losers 3, or everybody 1 at the C-11 limit.
    counter = "eyes" if state.game.id == "kozel-hvaleny" else "game_points"
    assert d["teams"] == {"A": [0, 2], "B": [1, 3]}
    assert d["scores"] == [d[counter]["AB"[s & 1]] for s in range(4)]
    if d["winner_team"] is None:
        assert d["aborted"] and d["places"] == [1, 1, 1, 1] and d[counter]["A"] == d[counter]["B"]
        return d
    win = "AB".index(d["winner_team"])
    assert order == [list(TEAMS[win]), list(TEAMS[1 - win])] and d["places"] == [1 if s & 1 == win else 3
                                                                                 for s in range(4)]
    target = state.options["target_eyes" if counter == "eyes" else "target"]
    mine, theirs = d[counter][d["winner_team"]], d[counter]["AB"[1 - win]]
    if d["aborted"]:
        assert (mine > theirs) if counter == "eyes" else (mine < theirs)
    elif counter == "eyes":
        lyusya = [e for e in state.events() if e["type"] == "lyusya" and e["option"] == "lose"]
        assert mine >= target or lyusya
    else:
        assert theirs >= target > mine
    return d


def check_leak(state: Any, seat: int, rng: random.Random, since: int) -> bool:
    """C-8 for the seat to act (the discard pile stays, and its legal actions); True if the resample moved some
    hidden card. The stock is compared in its order: a re-deal may only reorder it."""
    assert seat == state.to_act
    other = check_resample(state, seat, rng, since, check_conservation, ("discard",))
    return moved(state, other, seat, ordered=("stock",))


def _public_cards(state: Any, event: dict[str, Any]) -> list[str]:
    """The cards an event (referee's view) shows to everybody; a draw of the face-up trump card too (KO-15)."""
    kind = event["type"]
    if kind in ("play", "trump"):
        return [event["card"]]
    if kind in ("trick", "reveal") or (kind == "lay" and event["face_up"]):
        return list(strings(event.get("cards", []))) + [c for s in event.get("stacks", []) for c in s["cards"]]
    if kind == "catch":
        return [event["card"], event["queen"]]
    if kind == "draw" and event["cards"] == [state.observe(0).get("trump_card")]:
        return list(event["cards"])
    return []


def _trump_card(obs: dict[str, Any]) -> list[str]:
    return [obs["trump_card"]] if "trump_card" in obs else []


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
        assert count > decisions // 2, f"{variant} seed {seed}: resample_hidden moved cards in {count}/{decisions} " \
                                       "steps"


@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED)
def test_random_games(variant: str, seats: int, chunk: int) -> None:
    """Conservation and legal actions at every step, termination, result, replay."""
    random_games(variant, seats, range(chunk, QUICK_GAMES, CHUNKS))


@pytest.mark.deep
@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED)
def test_random_games_deep(variant: str, seats: int, chunk: int) -> None:
    """test_random_games on the rest of the GAMES_PER_CASE seeds of each case."""
    random_games(variant, seats, range(QUICK_GAMES + chunk, GAMES_PER_CASE, CHUNKS))


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check(variant: str, seats: int) -> None:
    """C-8: resampling what the seat to act cannot see never changes its observation, and moves cards."""
    leak_games(variant, seats, range(QUICK_LEAK_GAMES))


@pytest.mark.deep
@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check_deep(variant: str, seats: int) -> None:
    """test_leak_check on the rest of the first LEAK_GAMES games of each case."""
    leak_games(variant, seats, range(QUICK_LEAK_GAMES, LEAK_GAMES))


@pytest.mark.parametrize("variant", ["hvaleny-lose", "nn", "nn-boasting"])
def test_leak_check_at_offers_lays_and_choices(variant: str) -> None:
    """C-8 at the decision points other than play: redeal offers, boasting lays, the reboast choice."""
    kinds: set[str] = set()
    for seed in range(400):
        state = _new(variant, 4, seed)
        rng = random.Random(seed)
        for _ in steps(state, seed, MAX_STEPS):
            kind = state.legal_actions()[0].kind
            if kind != "play" and kind not in kinds:
                kinds.add(kind)
                assert check_leak(state, state.to_act, rng, 0)
            if len(kinds) == {"hvaleny-lose": 1, "nn": 1, "nn-boasting": 3}[variant]:
                return
    pytest.fail(f"not every decision kind was reached: {sorted(kinds)}")


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_observation_never_shows_hidden_cards(variant: str, seats: int) -> None:
    """C-8: every seat's observation shows its own hand, and only cards it held or saw in public."""
    for k in range(VISIBILITY_GAMES):
        seed = _seed(variant, seats, k)
        check_visibility(_new(variant, seats, seed), seed, MAX_STEPS, _public_cards, seen=_trump_card)


@pytest.mark.parametrize(("state_class", "game", "options"), [
    (HvalenyState, KH, {}), (HvalenyState, KH, {"lyusya": "off"}), (NNState, KN, {"boasting": True})])
def test_deal_limit_aborts(state_class: type, game: Game, options: dict[str, Any]) -> None:
    """C-11: with a small deal limit the game stops after that many deals, marked aborted."""
    aborted = 0
    for seed in range(30):
        limit = 1 + seed % 3
        state = state_class(game, 4, seed, game.configure(options), seed % 4, max_deals=limit)
        for _ in steps(state, seed, MAX_STEPS):
            check_conservation(state)
        result = check_result(state)
        assert state.deal_no <= limit
        if result["aborted"]:
            aborted += 1
            assert state.deal_no == limit
    assert aborted > 0


@pytest.mark.parametrize(("variant", "seats"), [("kozel", 3), ("hvaleny-zero", 4), ("nn-boasting", 4)])
def test_narration_covers_every_event(variant: str, seats: int) -> None:
    """Game.narrate puts every event of the referee's view in plain words (no key=value fallback)."""
    game, _, _ = VARIANTS[variant]
    kinds = set()
    for k in range(30):
        state = _new(variant, seats, _seed(variant, seats, k))
        for _ in steps(state, k, MAX_STEPS):
            pass
        for event in state.events():
            text = game.narrate(event)
            assert text and "type=" not in text, f"no narration for {event}"
            kinds.add(event["type"])
    assert {"deal", "hand", "play", "trick", "deal_score", "end"} <= kinds
