"""Random simulation of `koroli` (4 players) and `koroli52` (3 and 4 players), in the spirit of OpenSpiel's
random_sim_test.

Seeded random games (a ``random.Random(seed)`` choosing among the legal actions), checking at every step:

- card conservation: the places of ``card_places()`` are disjoint and together hold the whole deck;
- the seat to act has legal actions, without duplicates, while the game is not over (C-6);
- termination, and a well-formed result (C-10, KR-17, K52-17);
- replay: (seed, options, action texts) reproduce the result, the whole event log and every observation (C-5);
- the leak check (C-8): re-dealing the cards a seat cannot see leaves its observation unchanged; in `koroli` this is
  checked for every seat around the levy, where the levied and given cards (KR-12) and the Peasant's hand shown
  to the taker (KR-18) are private, and the tests make sure the resample really moves those cards;
- no observation ever shows a card the seat cannot know.

Every run plays the first games of each sweep; the ``deep`` tests (``-m deep``) play the rest of the same seeds.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from referee import testing
from referee.engine import Game, State
from referee.games.koroli import Koroli, Koroli52
from referee.testing import check_places, check_random_game, check_resample, leak_walk, moved, steps, strings

VARIANTS: dict[str, tuple[Game, int, dict[str, Any]]] = {
    "koroli": (Koroli(), 4, {"reign_deals": 6}),
    "koroli-short": (Koroli(), 4, {"reign_deals": 1}),
    "koroli52-3p": (Koroli52(), 3, {}),
    "koroli52-4p": (Koroli52(), 4, {}),
}
GAMES_PER_CASE = 60  # conservation, legal actions, termination, result and replay …
QUICK_GAMES = 20  # … every run plays the first 20 of each case, the deep tests (-m deep) the rest
CHUNKS = 2
LEAK_GAMES = 12  # leak check for the seat to act at every step (since = its previous request) …
QUICK_LEAK_GAMES = 4  # … every run the first 4, the deep tests the rest …
FULL_LEAK_GAMES = 1  # … comparing the whole history (since=0) for the first of them
VISIBILITY_GAMES = 4
MAX_STEPS = 20_000  # far above any real game (about 600 decisions)

CASES = [pytest.param(v, id=v) for v in VARIANTS]
CHUNKED = [pytest.param(v, c, id=f"{v}-{c}") for v in VARIANTS for c in range(CHUNKS)]


def _seed(variant: str, k: int) -> int:
    return k if k < 10 else (k * 0x9E3779B97F4A7C15 + len(variant)) % 2**64


def _new(variant: str, seed: int) -> State:
    game, seats, options = VARIANTS[variant]
    return game.new_state(seats, seed, options, dealer=seed % seats)


# ----------------------------------------------------------------------------------------------- checks


def check_conservation(state: State) -> None:
    """The whole deck (koroli52 keeps the 2C it leaves out with 3 players in ``removed``), and the hand sizes every
    seat observes."""
    places = testing.check_conservation(state)
    sizes = [len(places[f"hand{s}"]) for s in range(state.seats)]
    if not state.is_terminal:
        assert state.observe(0, since=state.log_size)["hand_sizes"] == sizes


def check_legal(state: State) -> None:
    texts = testing.check_legal(state)
    assert not (len(texts) == 1 and texts[0] == "pass"), "a lone pass is never offered in these games"


def check_result(state: State) -> dict[str, Any]:
    order, d = check_places(state)
    assert order == [[s] for g in order for s in g], "Kings games rank every seat alone"
    assert sorted(d["places"]) == list(range(1, state.seats + 1))
    assert d["aborted"] is False
    if state.game.id == "koroli":
        roles = d["roles"]
        assert [roles[g[0]] for g in order] == ["King", "Prince", "Soldier", "Peasant"]  # KR-17
        assert sorted(d["titles"]) == sorted(roles)
        assert [sc["role"] for sc in d["scores"]] == roles
        deals = len(d["scores"][0]["tricks"])
        for k in range(deals):
            counts = [sc["tricks"][k] for sc in d["scores"]]
            active = [c for c in counts if c is not None]
            assert sum(active) == 36 // len(active)
    else:
        totals = [sc["total"] for sc in d["scores"]]
        for sc in d["scores"]:  # K52-7
            assert len(sc["tricks"]) == 10 and sc["total"] == sum(sc["tricks"]) + sc["bargain_net"]
        assert sum(sc["bargain_net"] for sc in d["scores"]) == 0
        assert [totals[g[0]] for g in order] == sorted(totals, reverse=True)  # K52-17
        assert d["emperor"] == order[0][0]
    return d


def check_leak(state: State, seat: int, rng: random.Random, since: int = 0) -> State:
    """C-8: the resample of what ``seat`` (any seat) cannot see keeps its observation, the table and the tricks
    taken; returns the resampled copy."""
    return check_resample(state, seat, rng, since, check_conservation, ("table", "taken"))


def _leak_moved(state: State, seat: int, rng: random.Random, since: int) -> bool:
    return moved(state, check_leak(state, seat, rng, since), seat)


# ------------------------------------------------------------------------------------------------ tests


def random_games(variant: str, games: range) -> None:
    game = VARIANTS[variant][0]
    for k in games:
        seed = _seed(variant, k)
        state = check_random_game(partial(_new, variant, seed), seed, MAX_STEPS, check_conservation, check_result,
                                  check_legal)
        if k == games.start:
            for event in state.events(0, None):
                said = game.narrate(event)
                assert said and ": {" not in said, f"no narration for {event}"


def leak_games(variant: str, games: range) -> None:
    for k in games:
        seed = _seed(variant, k)
        state = _new(variant, seed)
        count, decisions = leak_walk(state, seed, random.Random(seed ^ 0x5EED), k < FULL_LEAK_GAMES, MAX_STEPS,
                                     _leak_moved)
        assert decisions > 0 and count > 0, f"{variant} seed {seed}: resample_hidden never moved a hidden card"


@pytest.mark.parametrize(("variant", "chunk"), CHUNKED)
def test_random_games(variant: str, chunk: int) -> None:
    """Conservation and legal actions at every step, termination, result, replay, narration."""
    random_games(variant, range(chunk, QUICK_GAMES, CHUNKS))


@pytest.mark.deep
@pytest.mark.parametrize(("variant", "chunk"), CHUNKED)
def test_random_games_deep(variant: str, chunk: int) -> None:
    """test_random_games on the rest of the GAMES_PER_CASE seeds of each case."""
    random_games(variant, range(QUICK_GAMES + chunk, GAMES_PER_CASE, CHUNKS))


@pytest.mark.parametrize("variant", CASES)
def test_leak_check(variant: str) -> None:
    """C-8 for the seat to act, at every step; the resample must move hidden cards in every game."""
    leak_games(variant, range(QUICK_LEAK_GAMES))


@pytest.mark.deep
@pytest.mark.parametrize("variant", CASES)
def test_leak_check_deep(variant: str) -> None:
    """test_leak_check on the rest of the first LEAK_GAMES games of each case."""
    leak_games(variant, range(QUICK_LEAK_GAMES, LEAK_GAMES))


@pytest.mark.parametrize("variant", ["koroli", "koroli-short"])
def test_leak_check_of_the_levy(variant: str) -> None:
    """KR-12, KR-18: around each levy every seat's observation survives the resample, and the resample does
    move the private cards: the levied and given cards (relabelled in the log for the seats outside the levy)
    and the Peasant's hand shown to the taker (re-dealt for every other seat)."""
    relabelled = shown_moved = levies = takes = 0
    for k in range(12):
        seed = _seed(variant, k)
        state = _new(variant, seed)
        rng = random.Random(seed ^ 0xBEEF)
        for _, _ in steps(state, seed, MAX_STEPS):
            o = state.observe(0, since=state.log_size)
            around = o["phase"] != "play" or (o["part"] == "reign" and o["trick_number"] == 1)
            if not around:
                continue
            levies += o["phase"] == "levy_give"
            roles = o["roles"]
            peasant = roles.index("Peasant")
            start = state.relabel_from  # type: ignore[attr-defined]
            for seat in range(4):
                other = check_leak(state, seat, rng, start)
                peasant_hand = state.card_places()[f"hand{peasant}"]  # type: ignore[attr-defined]
                if roles[seat] == "Soldier":  # outside both levies
                    relabelled += _levy_entries(other) != _levy_entries(state)
                if o["phase"] == "levy_take" and seat != state.to_act:
                    takes += 1
                    shown_moved += other.card_places()[f"hand{peasant}"] != peasant_hand  # type: ignore[attr-defined]
                if o["phase"] == "levy_take" and seat == state.to_act:  # he sees it: it stays
                    assert state.observe(seat, since=state.log_size)["peasant_hand"]
                    assert other.card_places()[f"hand{peasant}"] == peasant_hand  # type: ignore[attr-defined]
    assert levies > 0 and relabelled > 0, "the levy cards were never relabelled for an outsider"
    assert takes > 0 and shown_moved > 0, "the Peasant's shown hand was never re-dealt for an outsider"


def _levy_entries(state: State) -> list[tuple[Any, ...]]:
    return [e for e in state.log if e[0] in ("levy", "give")]  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant", ["koroli52-3p", "koroli52-4p"])
def test_leak_check_of_swaps(variant: str) -> None:
    """K52-11, K52-18: the players of a swap know the hands they gave away. For every seat, the resample keeps in
    place every card the seat has held in this tour, and still moves other cards."""
    kept = count = 0
    for k in range(6):
        seed = _seed(variant, k)
        state = _new(variant, seed)
        rng = random.Random(seed)
        held: list[set[int]] = [set() for _ in range(state.seats)]
        tour = 0
        for _, _ in steps(state, seed, MAX_STEPS):
            o = state.observe(0, since=state.log_size)
            if o["tour"] != tour:
                tour, held = o["tour"], [set() for _ in range(state.seats)]
            places = state.card_places()  # type: ignore[attr-defined]
            where = {c: p for p, cards in places.items() for c in cards}
            for s in range(state.seats):
                held[s].update(places[f"hand{s}"])
            if o["phase"] not in ("name_trump", "play") or o["trick_number"] != 1:
                continue
            for seat in range(state.seats):
                other = check_leak(state, seat, rng, state.relabel_from)  # type: ignore[attr-defined]
                after = {c: p for p, cards in other.card_places().items() for c in cards}  # type: ignore[attr-defined]
                assert all(after[c] == where[c] for c in held[seat])
                kept += len(held[seat]) > len(places[f"hand{seat}"])
                count += moved(state, other, seat)
    assert kept > 0 and count > 0


@pytest.mark.parametrize("variant", CASES)
def test_observation_never_shows_hidden_cards(variant: str) -> None:
    """C-8, KR-18, K52-18: every seat's observation shows its own hand, and only cards it may know in the current
    deal: the cards it holds or held, every card played, the shown trump card, the cards of a levy it takes part
    in, and the Peasant's hand while it is shown to this seat (the taker). Each seat's events are followed in
    order, so a card is checked against what the seat knew when the event happened."""
    game = VARIANTS[variant][0]
    texts = game.deck.texts  # type: ignore[attr-defined]
    deck_texts = set(texts)
    for k in range(VISIBILITY_GAMES):
        seed = _seed(variant, k)
        state = _new(variant, seed)
        rng = random.Random(seed)
        n = state.seats
        may_know: list[set[str]] = [set() for _ in range(n)]
        since = [0] * n
        trump_card: str | None = None
        for _ in range(MAX_STEPS):
            places = state.card_places()  # type: ignore[attr-defined]
            for s in range(n):
                obs = state.observe(s, since=since[s])
                since[s] = state.log_size
                for event in obs["events"]:
                    kind = event["type"]
                    if kind in ("deal", "tour"):
                        may_know[s] = set()
                    elif kind in ("hand", "received"):
                        assert event["seat"] == s, f"seat {s} sees another seat's {kind}"
                        may_know[s].update(event["cards"])
                    elif kind in ("play", "trump") and "card" in event:
                        may_know[s].add(event["card"])
                        if kind == "trump":
                            trump_card = event["card"]
                    elif kind in ("levy", "give") and "card" in event:
                        party = (event["seat"], event.get("from", event.get("to")))
                        assert s in party or event["card"] == trump_card, f"seat {s} sees {event}"
                        may_know[s].add(event["card"])
                    secret = {t for t in strings(event) if t in deck_texts} - may_know[s]
                    assert not secret, f"seat {s} sees {sorted(secret)} in {event} (seed {seed})"
                hand = [texts[c] for c in sorted(places[f"hand{s}"])]
                assert obs["hand"] == hand
                may_know[s].update(hand)
                if obs.get("peasant_hand"):
                    assert obs["phase"] == "levy_take" and state.to_act == s
                    may_know[s].update(obs["peasant_hand"])
                shown = {t for t in strings({**obs, "events": []}) if t in deck_texts}
                secret = shown - may_know[s]
                assert not secret, f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})"
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))


def test_the_peasants_hand_is_never_shown_to_another_seat() -> None:
    """KR-18: outside the taker's choice, no observation carries the Peasant's hand."""
    found = 0
    for seed in range(40):
        state = _new("koroli-short", seed)
        for seat, _ in steps(state, seed, MAX_STEPS):
            for s in range(4):
                o = state.observe(s, since=state.log_size)
                if o["peasant_hand"] is not None:
                    assert o["phase"] == "levy_take" and s == seat
                    found += 1
        if found:
            break
    assert found, "no free levy in 40 games"
