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

The leak and visibility checks are the expensive ones; they run on the first games of each case only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.actions import Action
from referee.engine import Game, State, places_from_order
from referee.games.kozel import Kozel
from referee.games.kozel_team import TEAMS, HvalenyState, KozelHvaleny, KozelNN, NNState

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

GAMES_PER_CASE = 60
LEAK_GAMES = 8  # leak check at every step for the first games of each case …
FULL_LEAK_GAMES = 1  # … comparing the whole history (since=0) for the first of them
VISIBILITY_GAMES = 2
MAX_STEPS = 100_000


def _seed(variant: str, seats: int, k: int) -> int:
    return k if k < 10 else (k * 0x9E3779B97F4A7C15 + seats * 7919 + len(variant)) % 2**64


def _new(variant: str, seats: int, seed: int) -> State:
    game, options, _ = VARIANTS[variant]
    return game.new_state(seats, seed, options, dealer=seed % seats)


def _steps(state: State, seed: int) -> Iterator[tuple[int, Action]]:
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


def check_conservation(state: Any) -> None:
    places = state.card_places()
    cards = [c for where in places.values() for c in where]
    assert len(cards) == len(set(cards)), f"a card is in two places: {places}"
    assert sorted(cards) == sorted(state.deck_cards), f"cards lost or invented: {places}"
    assert state.card_locations() == {k: len(v) for k, v in places.items()}


def check_legal(state: State) -> None:
    legal = state.legal_actions()
    if state.to_act is None:
        assert len(legal) == 0
        return
    assert legal, f"no legal action for seat {state.to_act}"
    texts = [a.text for a in legal]
    assert len(set(texts)) == len(texts), f"duplicate legal actions: {texts}"


def check_result(state: State) -> dict[str, Any]:
    assert state.is_terminal
    result = state.result()
    n = state.seats
    order = [list(g) for g in result.finishing_order]
    assert sorted(s for g in order for s in g) == list(range(n)) and all(order)
    assert result.places == places_from_order(order, n) and min(result.places) == 1
    d = result.to_dict()
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


def _hidden(state: Any, seat: int) -> dict[str, list[int]]:
    """Where the cards are, but the seat's own hand; the stock in its order (a re-deal may only reorder it)."""
    return {k: v if k == "stock" else sorted(v) for k, v in state.card_places().items() if k != f"hand{seat}"}


def check_leak(state: Any, rng: random.Random, since: int) -> bool:
    """C-8 for the seat to act; True if the resample moved some hidden card."""
    seat = state.to_act
    before = state.observe(seat, since=since)
    places_before = state.card_places()
    other = state.resample_hidden(seat, rng)
    assert other.observe(seat, since=since) == before, "the observation depends on cards the seat cannot see"
    assert state.card_places() == places_before and state.observe(seat, since=since) == before
    check_conservation(other)
    assert other.card_locations() == state.card_locations()
    assert sorted(other.card_places()[f"hand{seat}"]) == sorted(places_before[f"hand{seat}"])
    assert other.card_places()["discard"] == places_before["discard"]
    assert [a.text for a in other.legal_actions()] == [a.text for a in state.legal_actions()]
    return _hidden(other, seat) != _hidden(state, seat)


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


def _public_cards(event: dict[str, Any]) -> list[str]:
    """The cards an event (referee's view) shows to everybody."""
    kind = event["type"]
    if kind in ("play", "trump"):
        return [event["card"]]
    if kind in ("trick", "reveal") or (kind == "lay" and event["face_up"]):
        return list(_strings(event.get("cards", []))) + [c for s in event.get("stacks", []) for c in s["cards"]]
    if kind == "catch":
        return [event["card"], event["queen"]]
    return []


# ------------------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize(("variant", "seats", "chunk"), CHUNKED)
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
        again = _new(variant, seats, seed)  # C-5: replay
        for seat, text in record:
            assert again.to_act == seat
            again.apply(again.parse_action(text))
        assert again.is_terminal and again.result().to_dict() == result
        assert again.events() == state.events()
        for s in range(seats):
            assert again.observe(s) == state.observe(s)


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_leak_check(variant: str, seats: int) -> None:
    """C-8: resampling what the seat to act cannot see never changes its observation, and moves cards."""
    for k in range(LEAK_GAMES):
        seed = _seed(variant, seats, k)
        state = _new(variant, seats, seed)
        rng = random.Random(seed ^ 0x5EED)
        last_seen = [0] * seats
        moved = steps = 0
        for seat, _ in _steps(state, seed):
            moved += check_leak(state, rng, 0 if k < FULL_LEAK_GAMES else last_seen[seat])
            last_seen[seat] = state.log_size
            steps += 1
        assert steps > 0
        assert moved > steps // 2, f"{variant} seed {seed}: resample_hidden moved cards in {moved}/{steps} steps"


@pytest.mark.parametrize("variant", ["hvaleny-lose", "nn", "nn-boasting"])
def test_leak_check_at_offers_lays_and_choices(variant: str) -> None:
    """C-8 at the decision points other than play: redeal offers, boasting lays, the reboast choice."""
    kinds: set[str] = set()
    for seed in range(400):
        state = _new(variant, 4, seed)
        rng = random.Random(seed)
        for _ in _steps(state, seed):
            kind = state.legal_actions()[0].kind
            if kind != "play" and kind not in kinds:
                kinds.add(kind)
                assert check_leak(state, rng, 0)
            if len(kinds) == {"hvaleny-lose": 1, "nn": 1, "nn-boasting": 3}[variant]:
                return
    pytest.fail(f"not every decision kind was reached: {sorted(kinds)}")


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_observation_never_shows_hidden_cards(variant: str, seats: int) -> None:
    """C-8: every seat's observation shows its own hand, and only cards it held or saw in public."""
    game, _, _ = VARIANTS[variant]
    texts = game.deck.texts  # type: ignore[attr-defined]
    deck_texts = set(texts)
    for k in range(VISIBILITY_GAMES):
        seed = _seed(variant, seats, k)
        state: Any = _new(variant, seats, seed)
        rng = random.Random(seed)
        public: set[str] = set()
        held: list[set[str]] = [set() for _ in range(seats)]
        since = [0] * seats
        public_since = 0
        for _ in range(MAX_STEPS):
            for event in state.events(public_since, None):
                public.update(_public_cards(event))
                if event["type"] == "draw" and event["cards"] == [state.observe(0).get("trump_card")]:
                    public.update(event["cards"])
            public_since = state.log_size
            places = state.card_places()
            for s in range(seats):
                hand = [texts[c] for c in sorted(places[f"hand{s}"])]
                held[s].update(hand)
                obs = state.observe(s, since=since[s])
                since[s] = state.log_size
                assert obs["hand"] == hand
                shown = {t for t in _strings(obs) if t in deck_texts}
                trump = {obs["trump_card"]} if "trump_card" in obs else set()
                secret = shown - held[s] - public - trump
                assert not secret, f"seat {s} sees cards it cannot know: {sorted(secret)} (seed {seed})"
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        else:
            pytest.fail(f"no end within {MAX_STEPS} steps")


@pytest.mark.parametrize(("state_class", "game", "options"), [
    (HvalenyState, KH, {}), (HvalenyState, KH, {"lyusya": "off"}), (NNState, KN, {"boasting": True})])
def test_deal_limit_aborts(state_class: type, game: Game, options: dict[str, Any]) -> None:
    """C-11: with a small deal limit the game stops after that many deals, marked aborted."""
    aborted = 0
    for seed in range(30):
        limit = 1 + seed % 3
        state = state_class(game, 4, seed, game.configure(options), seed % 4, max_deals=limit)
        for _ in _steps(state, seed):
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
        for _ in _steps(state, k):
            pass
        for event in state.events():
            text = game.narrate(event)
            assert text and "type=" not in text, f"no narration for {event}"
            kinds.add(event["type"])
    assert {"deal", "hand", "play", "trick", "deal_score", "end"} <= kinds
