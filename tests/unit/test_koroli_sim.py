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
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.actions import Action
from referee.engine import Game, State, places_from_order
from referee.games.koroli import Koroli
from referee.games.koroli52 import Koroli52

VARIANTS: dict[str, tuple[Game, int, dict[str, Any]]] = {
    "koroli": (Koroli(), 4, {"reign_deals": 6}),
    "koroli-short": (Koroli(), 4, {"reign_deals": 1}),
    "koroli52-3p": (Koroli52(), 3, {}),
    "koroli52-4p": (Koroli52(), 4, {}),
}
GAMES_PER_CASE = 60  # conservation, legal actions, termination, result and replay
CHUNKS = 2
LEAK_GAMES = 12  # leak check for the seat to act at every step (since = its previous request) …
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
    assert len(cards) == len(set(cards)), f"a card is in two places: {places}"
    assert sorted(cards) == list(range(len(state.game.deck))), f"cards lost or invented: {places}"  # type: ignore[attr-defined]
    assert state.card_locations() == {k: len(v) for k, v in places.items()}
    sizes = [len(places[f"hand{s}"]) for s in range(state.seats)]
    if not state.is_terminal:
        assert state.observe(0, since=state.log_size)["hand_sizes"] == sizes


def check_legal(state: State) -> None:
    seat = state.to_act
    legal = state.legal_actions()
    if seat is None:
        assert state.is_terminal and len(legal) == 0
        return
    assert 0 <= seat < state.seats
    assert legal, f"no legal action for seat {seat}"
    texts = [a.text for a in legal]
    assert len(set(texts)) == len(texts), f"duplicate legal actions: {texts}"
    assert not (len(legal) == 1 and texts[0] == "pass"), "a lone pass is never offered in these games"


def check_result(state: State) -> dict[str, Any]:
    assert state.is_terminal
    result = state.result()
    n = state.seats
    order = [list(g) for g in result.finishing_order]
    assert order == [[s] for g in order for s in g], "Kings games rank every seat alone"
    assert sorted(s for g in order for s in g) == list(range(n))
    assert result.places == places_from_order(order, n) and sorted(result.places) == list(range(1, n + 1))
    d = result.to_dict()
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


def _hidden(state: State, seat: int) -> dict[str, list[int]]:
    places = state.card_places()  # type: ignore[attr-defined]
    return {k: sorted(v) for k, v in places.items() if k != f"hand{seat}"}


def check_leak(state: State, seat: int, rng: random.Random, since: int = 0) -> State:
    """C-8: the resample of what ``seat`` cannot see keeps its observation; returns the resampled copy."""
    before = state.observe(seat, since=since)
    places_before = state.card_places()  # type: ignore[attr-defined]
    other = state.resample_hidden(seat, rng)
    assert other.observe(seat, since=since) == before, "the observation depends on cards the seat cannot see"
    assert state.card_places() == places_before  # type: ignore[attr-defined]
    assert state.observe(seat, since=since) == before
    check_conservation(other)
    assert other.card_locations() == state.card_locations()
    after = other.card_places()  # type: ignore[attr-defined]
    for place in (f"hand{seat}", "table", "taken"):
        assert sorted(after[place]) == sorted(places_before[place])
    assert other.to_act == state.to_act
    return other


def _moved(state: State, other: State, seat: int) -> bool:
    return _hidden(other, seat) != _hidden(state, seat)


# ------------------------------------------------------------------------------------------------ tests


def replay_and_check(variant: str, seed: int, record: list[tuple[int, str]], result: dict[str, Any],
                     original: State) -> None:
    """C-5: (seed, options, dealer, action texts) reproduce the game exactly."""
    state = _new(variant, seed)
    for seat, text in record:
        assert state.to_act == seat
        state.apply(state.parse_action(text))
    assert state.is_terminal
    assert state.result().to_dict() == result
    assert state.events(0, None) == original.events(0, None)
    for s in range(state.seats):
        assert state.observe(s) == original.observe(s)


@pytest.mark.parametrize(("variant", "chunk"), CHUNKED)
def test_random_games(variant: str, chunk: int) -> None:
    """Conservation and legal actions at every step, termination, result, replay, narration."""
    game = VARIANTS[variant][0]
    for k in range(chunk, GAMES_PER_CASE, CHUNKS):
        seed = _seed(variant, k)
        state = _new(variant, seed)
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
            pytest.fail(f"{variant} seed {seed}: no end within {MAX_STEPS} steps")
        result = check_result(state)
        replay_and_check(variant, seed, record, result, state)
        if k == chunk:
            for event in state.events(0, None):
                said = game.narrate(event)
                assert said and ": {" not in said, f"no narration for {event}"


@pytest.mark.parametrize("variant", CASES)
def test_leak_check(variant: str) -> None:
    """C-8 for the seat to act, at every step; the resample must move hidden cards in every game."""
    for k in range(LEAK_GAMES):
        seed = _seed(variant, k)
        state = _new(variant, seed)
        rng = random.Random(seed ^ 0x5EED)
        last_seen = [0] * state.seats
        moved = steps = 0
        for seat, _ in _steps(state, seed):
            since = 0 if k < FULL_LEAK_GAMES else last_seen[seat]
            moved += _moved(state, check_leak(state, seat, rng, since), seat)
            last_seen[seat] = state.log_size
            steps += 1
        assert steps > 0 and moved > 0, f"{variant} seed {seed}: resample_hidden never moved a hidden card"


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
        for _, _ in _steps(state, seed):
            o = state.observe(0, since=state.log_size)
            around = o["phase"] != "play" or (o["part"] == "reign" and o["trick_number"] == 1)
            if not around:
                continue
            levies += o["phase"] == "levy_give"
            roles = o["roles"]
            peasant = roles.index("Peasant")
            start = state.deal_start  # type: ignore[attr-defined]
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
    kept = moved = 0
    for k in range(6):
        seed = _seed(variant, k)
        state = _new(variant, seed)
        rng = random.Random(seed)
        held: list[set[int]] = [set() for _ in range(state.seats)]
        tour = 0
        for _, _ in _steps(state, seed):
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
                other = check_leak(state, seat, rng, state.deal_start)  # type: ignore[attr-defined]
                after = {c: p for p, cards in other.card_places().items() for c in cards}  # type: ignore[attr-defined]
                assert all(after[c] == where[c] for c in held[seat])
                kept += len(held[seat]) > len(places[f"hand{seat}"])
                moved += _moved(state, other, seat)
    assert kept > 0 and moved > 0


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
                    secret = {t for t in _strings(event) if t in deck_texts} - may_know[s]
                    assert not secret, f"seat {s} sees {sorted(secret)} in {event} (seed {seed})"
                hand = [texts[c] for c in sorted(places[f"hand{s}"])]
                assert obs["hand"] == hand
                may_know[s].update(hand)
                if obs.get("peasant_hand"):
                    assert obs["phase"] == "levy_take" and state.to_act == s
                    may_know[s].update(obs["peasant_hand"])
                shown = {t for t in _strings({**obs, "events": []}) if t in deck_texts}
                secret = shown - may_know[s]
                assert not secret, f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})"
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))


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


def test_the_peasants_hand_is_never_shown_to_another_seat() -> None:
    """KR-18: outside the taker's choice, no observation carries the Peasant's hand."""
    found = 0
    for seed in range(40):
        state = _new("koroli-short", seed)
        for seat, _ in _steps(state, seed):
            for s in range(4):
                o = state.observe(s, since=state.log_size)
                if o["peasant_hand"] is not None:
                    assert o["phase"] == "levy_take" and s == seat
                    found += 1
        if found:
            break
    assert found, "no free levy in 40 games"
