"""What a seat may infer in the Kozel games, and what it may not, in the worlds sampled from its view
(``Game.worlds``, referee/games/kozel/worlds.py; docs/ENGINE.md "Sampling worlds"). The general contract (exact
observation, same decision, conservation, …) is tests/unit/test_sampling.py's; here, the rules' inferences, each by
its rule id (docs/RULES.md), on hand-made positions and on random games whose views are built as the runner builds
them (``referee.testing.views``), the expected inferences computed from the events here, independently.

Run as a script, it prints the cost of ``worlds()`` and of one ``sample()`` at a mid-game decision of every game and
seat count (figures, not a timed test).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import pytest

from protocol.cards import Card
from referee.engine import Game
from referee.errors import RecordError
from referee.games.cards import bits
from referee.games.kozel.base import BOAST_LAY, FOLLOW_LAY, REDEAL
from referee.games.kozel.hvaleny import KH_RULES, HvalenyState, KozelHvaleny
from referee.games.kozel.kozel import Kozel
from referee.games.kozel.nn import KN_QUEENS, KN_RULES, KozelNN
from referee.testing import check_conservation, check_legal, check_world, scripted_view, steps, views

KO, KH, KN = Kozel(), KozelHvaleny(), KozelNN()
TRUMP = 4  # the effective suit of trumps (referee.games.tricks.TRUMP)


def idx(game: Game, text: str) -> int:
    return game.deck.index(Card.parse(text))  # type: ignore[attr-defined]


def order36(game: Game, hands: Sequence[str], dealer: int) -> list[int]:
    """KH-7, KN-7: nine cards each, one at a time from the dealer's left."""
    split = [[idx(game, c) for c in h.split()] for h in hands]
    assert sorted(c for h in split for c in h) == list(range(36))
    return [split[(dealer + 1 + k) % 4][k // 4] for k in range(36)]


def hand_of(world: Any, seat: int) -> set[int]:
    return set(world.card_places()[f"hand{seat}"])


def points_of(game: Game, n: int, seeds: Sequence[int], every: int = 3) -> Iterator[tuple[Any, int, list]]:
    """(real state, seat, the seat's view) at every ``every``-th decision of random games."""
    for seed in seeds:
        state = game.new_state(n, seed, dealer=seed % n)
        for _, seen in views(state, seed, 100_000, every):
            if state.is_terminal:
                continue
            for seat in range(n):
                yield state, seat, seen[seat]


def current_deal(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the last shuffle (from its last ``deal`` event)."""
    start = max(i for i, e in enumerate(events) if e["type"] == "deal")
    return events[start:]


def all_events(view: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for obs in view for e in obs["events"]]


# ------------------------------------------------------------------------------------------- kozel (KO)


def test_ko_the_seat_s_cards_and_the_face_up_trump_are_where_it_knows_they_are() -> None:
    """KO-6, KO-15: its own hand (its draws included) exact; the trump card at the bottom of the stock until drawn,
    then with the seat that drew it (public), unless played; a card played is on the table or in the discard."""
    checked = drawn = 0
    for state, seat, view in points_of(KO, 3, range(4)):
        worlds = KO.worlds(3, seat, view)
        trump = idx(KO, view[-1]["trump_card"])
        by = view[-1]["trump_card_drawn_by"]
        for k in range(4):
            world = worlds.sample(random.Random(k))
            check_world(state, world, seat, None)
            places = world.card_places()
            assert places[f"hand{seat}"] == state.card_places()[f"hand{seat}"]
            if by is None:
                assert places["stock"][0] == trump
            elif trump not in places["table"] + places["discard"]:
                drawn += 1
                assert trump in places[f"hand{by}"]
            checked += 1
    assert checked > 100 and drawn > 0


def test_ko_nobody_must_follow_suit_so_an_off_suit_card_shows_no_void() -> None:
    """KO-8: any card may be played; a player who did not follow the led suit may still hold it, and the worlds
    give him cards of that suit (a sampler that inferred a void would never do so)."""
    found = 0
    for state, seat, view in points_of(KO, 2, range(6), every=2):
        other = 1 - seat
        deal = current_deal(all_events(view))
        trick: list[tuple[int, str]] = []
        suits = set()
        for e in deal:
            if e["type"] == "play":
                if trick and e["seat"] == other and e["card"][-1] != trick[0][1][-1]:
                    suits.add(trick[0][1][-1])
                trick.append((e["seat"], e["card"]))
            elif e["type"] == "trick":
                trick = []
        real = [KO.deck.texts[c] for c in state.card_places()[f"hand{other}"]]  # type: ignore[attr-defined]
        shown = {s for s in suits if any(t[-1] == s for t in real)}
        if not shown:
            continue
        worlds = KO.worlds(2, seat, view)
        texts = KO.deck.texts  # type: ignore[attr-defined]
        held = {texts[c][-1] for k in range(60) for c in hand_of(worlds.sample(random.Random(k)), other)}
        assert shown <= held
        found += 1
    assert found >= 3


def test_ko_the_unseen_cards_are_dealt_uniformly_over_the_other_hands_and_the_stock() -> None:
    """KO-15: at the start a seat knows its four cards and the trump card; every other card is in another hand
    with probability 4/27 each (2 seats: 27 unseen cards, 4 in the other hand, 23 in the stock)."""
    state = KO.new_state(2, 3, dealer=1)
    view = [state.observe(0, 0)]
    worlds = KO.worlds(2, 0, view)
    rng = random.Random(5)
    counts: Counter[int] = Counter()
    samples = 3000
    for _ in range(samples):
        counts.update(hand_of(worlds.sample(rng), 1))
    unseen = [c for c in range(32) if c not in hand_of(state, 0) and c != state.trump_card]
    assert set(counts) == set(unseen)
    expected = samples * 4 / 27
    assert all(abs(counts[c] - expected) < 5 * expected ** 0.5 for c in unseen), counts


def test_ko_another_seat_s_draws_are_spread_not_copied_from_the_truth() -> None:
    """KO-15: the cards another player draws are private; the worlds deal them anew (the real hand is one of many)."""
    state = KO.new_state(3, 8, dealer=0)
    rng = random.Random(1)
    while state.deal_no == 0 and len(state.stock) > 9:
        state.apply(rng.choice(state.legal_actions()))
    view: list[dict[str, Any]] = []
    state2 = KO.new_state(3, 8, dealer=0)
    for _, seen in views(state2, 8, 100_000):
        if state2.log_size >= state.log_size:
            view = seen[0]
            break
    worlds = KO.worlds(3, 0, view)
    real = hand_of(state2, 1)
    hands = [frozenset(hand_of(worlds.sample(random.Random(k)), 1)) for k in range(100)]
    assert sum(h == real for h in hands) < 10
    for c in real:
        assert any(c not in h for h in hands)


# ------------------------------------------------------------------------------------ the team games


KH_HANDS = ["9H AS 10S KS 9S 8S 7S 6S AC",  # seat 0 leads 9H (dealer 3, KH-9)
            "6C QC QS QD JC JS JD AD 10D",  # seat 1: no heart (QH is a trump, KH-3)
            "AH 10H KH QH JH KD 9D 8D 7D",
            "8H 7H 6H 10C KC 9C 8C 7C 6D"]


def test_kh_a_player_who_does_not_follow_holds_none_of_the_led_suit() -> None:
    """KH-10: seat 1 does not follow the 9H led: in every world of seat 0 and of seat 2 he holds no heart, the
    hearts nobody has seen are spread over the two other seats, and his own cards are spread too."""
    hearts = KH_RULES.eff_mask[2]
    for seat in (0, 2):
        again = HvalenyState(KH, 4, 0, KH.configure(), 3, deck_orders=[order36(KH, KH_HANDS, 3)])
        view = scripted_view(again, seat, ["play(9H)", "play(10D)"])
        worlds = KH.worlds(4, seat, view)
        rng = random.Random(seat)
        holders: Counter[int] = Counter()
        seat1: set[int] = set()
        for _ in range(300):
            world = worlds.sample(rng)
            check_world(again, world, seat, None)
            assert not world.hands[1] & hearts
            seat1 |= hand_of(world, 1)
            for s in range(4):
                if s != seat:
                    holders[s] += bool(world.hands[s] & hearts)
        others = {1, 3} if seat == 0 else {0, 3}  # the seats that may hold the unseen hearts
        others.discard(1)
        assert holders[1] == 0 and all(holders[s] > 0 for s in others)
        assert len(seat1) > 8 + 4  # his eight cards are not copied: many more cards come and go


def _inferred(game: Game, seat: int, view: list[dict[str, Any]]) -> tuple[dict[int, int], dict[int, bool]]:
    """From the events of the current deal, computed here: the suits each other seat showed void in (KH-10,
    KN-10), and (KN-9) the seats that led a trump."""
    rules = KN_RULES if game is KN else KH_RULES
    texts = DECK_TEXTS
    voids: dict[int, int] = {}
    trump_lead: dict[int, bool] = {}
    trick: list[int] = []
    for e in current_deal(all_events(view)):
        if e["type"] == "play":
            c = texts.index(e["card"])
            if trick and rules.eff[c] != rules.eff[trick[0]]:
                voids[e["seat"]] = voids.get(e["seat"], 0) | rules.eff_mask[rules.eff[trick[0]]]
            if not trick and rules.eff[c] == TRUMP:
                trump_lead[e["seat"]] = True
            trick.append(c)
        elif e["type"] in ("trick", "catch"):
            trick = []
    voids.pop(seat, None)
    trump_lead.pop(seat, None)
    return voids, trump_lead


DECK_TEXTS = list(KH.deck.texts)  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", [KH, KN], ids=["kozel-hvaleny", "kozel-nn"])
def test_voids_and_trump_leads_hold_in_every_world_of_random_games(game: Game) -> None:
    """KH-10, KN-10: a void shown by not following holds in every world; KN-9: a leader who led a trump holds only
    trumps (in kozel-hvaleny any card may be led, KH-9, so a trump lead shows nothing)."""
    voids_seen = leads_seen = 0
    trumps = (KN_RULES if game is KN else KH_RULES).trumps
    for _state, seat, view in points_of(game, 4, range(3)):
        voids, trump_lead = _inferred(game, seat, view)
        if not voids and not trump_lead:
            continue
        worlds = game.worlds(4, seat, view)
        for k in range(6):
            world = worlds.sample(random.Random(k))
            for p, mask in voids.items():
                assert not world.hands[p] & mask, (p, bits(world.hands[p] & mask))
                voids_seen += 1
            if game is KN:
                for p in trump_lead:
                    assert not world.hands[p] & ~trumps
                    leads_seen += 1
    assert voids_seen > 50
    assert game is KH or leads_seen > 10


def test_kn_the_first_leader_of_deal_1_holds_ad_and_eligibility_is_respected() -> None:
    """KN-8: deal 1's first leader holds AD until he leads it; KN-15: a team announced eligible holds none of QC
    QS QH, a team not announced holds at least one (in every world, at the start of each deal)."""
    ad = idx(KN, "AD")
    checked_ad = checked_teams = 0
    for seed in range(40):
        state = KN.new_state(4, seed, dealer=seed % 4)
        for seat in range(4):
            if state.to_act == seat:
                continue
            view = [state.observe(seat, 0)]
            events = view[0]["events"]
            worlds = KN.worlds(4, seat, view)
            eligible = next((e["teams"] for e in events if e["type"] == "redeal_eligible"), [])
            for k in range(5):
                world = worlds.sample(random.Random(k))
                if state.phase != REDEAL:  # an open offer: who is asked is hidden (see the next test)
                    check_world(state, world, seat, None)
                lead = next((e["seat"] for e in events if e["type"] == "first_lead"), None)
                if lead is not None:
                    assert world.hands[lead] >> ad & 1
                    checked_ad += 1
                for team, name in enumerate("AB"):
                    held = (world.hands[team] | world.hands[team + 2]) & KN_QUEENS
                    assert (not held) == (name in eligible)
                    checked_teams += 1
    assert checked_ad > 50 and checked_teams > 100


def test_an_open_redeal_offer_is_put_back_with_a_seat_that_may_be_asked() -> None:
    """KH-8 and KH decision 9: while another seat is offered a redeal, a seat sees "play" and no offer; its
    worlds are at an offer to some other seat with at most 13 points (the view cannot tell which: the contract's
    "same seat to act" is checked here only when the seat is the one asked). KN-15: the queue is public there."""
    found = 0
    for game in (KH, KN):
        for seed in range(60):
            state = game.new_state(4, seed, dealer=seed % 4)
            if state.phase != REDEAL:
                continue
            asked = state.to_act
            for seat in range(4):
                view = [state.observe(seat, 0)]
                worlds = game.worlds(4, seat, view)
                for k in range(5):
                    world = worlds.sample(random.Random(k))
                    assert world.observe(seat, 0) == state.observe(seat, 0)
                    assert world.phase == REDEAL
                    if seat == asked:
                        assert world.to_act == seat
                    else:
                        assert world.to_act != seat or game is KN
                    if game is KH:
                        assert KH_RULES.hand_points(world.hands[world.to_act]) <= 13
                found += 1
    assert found > 50


# ----------------------------------------------------------------------------------------------- errors


def _real_view(game: Game, n: int = 4, steps: int = 12) -> list[dict[str, Any]]:
    state = game.new_state(n, 2, dealer=0)
    for point, seen in views(state, 2, 100_000):
        if point == steps:
            return seen[0]
    raise AssertionError("the game is shorter than expected")


@pytest.mark.parametrize("game", [KO, KH, KN], ids=["kozel", "kozel-hvaleny", "kozel-nn"])
def test_a_view_that_does_not_fit_is_one_record_error_line(game: Game) -> None:
    """A view of another game or seat, an empty one, or one whose events do not replay (a card the seat holds
    played by another seat) is refused with one RecordError line."""
    n = 4
    view = _real_view(game, n)
    bad_views: list[Any] = [[], [dict(view[0], game="durak")], view[:-1] + [dict(view[-1], seat=1)]]
    mine = view[-1]["hand"][0]
    tampered = [dict(obs, events=[dict(e, card=mine) if e["type"] == "play" and e["seat"] != 0 else e
                                  for e in obs["events"]]) for obs in view]
    bad_views.append(tampered)
    for bad in bad_views:
        with pytest.raises(RecordError) as caught:
            game.worlds(n, 0, bad)
        assert "\n" not in str(caught.value)


def test_kn_boasting_worlds_fit_the_view_and_keep_the_pairs_rule() -> None:
    """KN-20, KN-24 (option ``boasting``): every world (away from an open offer, whose asked seat the view cannot
    tell) gives the seat exactly its observation, conserves the cards and plays on legally. During the boasting the
    boaster's face-down cards are non-trumps (step 4), and differ from the real ones in some worlds; a hand that
    laid after m pairs kept at least 2m - 2 trumps (2m - 3 with two stacks): every pair but the last two was two
    trumps (steps 3, 5)."""
    opts = {"boasting": True}
    trumps = KN_RULES.trumps
    conservation = partial(check_conservation, deck_cards=range(36))
    during = other_face_down = 0
    for seed in range(3):
        state = KN.new_state(4, seed, opts, dealer=seed % 4)
        for _, seen in views(state, seed, 100_000, 2):
            if state.deal_no > 3:
                break  # deals 2 to 4: boasted
            if state.deal_no == 0 or state.phase == REDEAL:
                continue
            for seat in range(4):
                worlds = KN.worlds(4, seat, seen[seat], opts)
                for k in range(3):
                    world = worlds.sample(random.Random(k))
                    check_world(state, world, seat, conservation)
                    if state.phase not in (BOAST_LAY, FOLLOW_LAY):
                        continue
                    during += 1
                    laid = {s for stack in state.stacks for s, _ in stack}
                    for p in laid - {seat}:
                        m = state.received[p] // 2
                        least = 2 * m - 2 - (p != state.boaster and state.k == 2)
                        assert (world.hands[p] & trumps).bit_count() >= least
                    if state.boaster != seat and state.stacks:
                        face_down = [stack[0][1] for stack in world.stacks]
                        assert not any(trumps >> c & 1 for c in face_down)
                        other_face_down += face_down != [stack[0][1] for stack in state.stacks]
                play_on = worlds.sample(random.Random(seed))
                for _ in steps(play_on, seed, 100_000):  # to the end of the next deal
                    if play_on.deal_no > state.deal_no + 1:
                        break
                    conservation(play_on)
                    check_legal(play_on)
    assert during > 50 and other_face_down > 5, (during, other_face_down)


# ------------------------------------------------------------------------------------------ the figures


def _figures() -> None:  # pragma: no cover - run by hand: python tests/unit/test_worlds_kozel.py
    """The mean cost of ``worlds()`` (20 calls, after one) and of ``sample()`` (500 draws) for the seat to act at a
    card play some decisions into a deal: the first, or a later one (then only the last deal is replayed per
    sample)."""
    boasting = {"boasting": True}
    cases: list[tuple[Game, int, dict[str, Any] | None, int, int]] = [
        (KO, 2, None, 0, 12), (KO, 3, None, 0, 12), (KO, 4, None, 0, 12), (KO, 4, None, 1, 12),
        (KH, 4, None, 0, 18), (KH, 4, None, 3, 18), (KN, 4, None, 0, 18), (KN, 4, boasting, 1, 18),
        (KN, 4, boasting, 3, 18)]
    for game, n, options, deal, into in cases:
        seed = 5
        while True:  # the first seed whose game has that many deals
            state = game.new_state(n, seed, options, dealer=0)
            view: list[dict[str, Any]] = []
            since = None
            for point, seen in views(state, seed, 100_000):
                if state.deal_no >= deal and since is None:
                    since = point
                if since is not None and point - since >= into and state.phase == 0:  # a card play
                    view = seen[state.to_act]
                    break
            if view:
                break
            seed += 1
        seat = state.to_act
        game.worlds(n, seat, view, options)
        start = time.perf_counter()
        for _ in range(20):
            worlds = game.worlds(n, seat, view, options)
        parsed = (time.perf_counter() - start) / 20
        rng = random.Random(1)
        k = 500
        start = time.perf_counter()
        for _ in range(k):
            worlds.sample(rng)
        each = (time.perf_counter() - start) / k
        name = game.id + (" boasting" if options else "")
        print(f"{name:23} {n} seats, deal {state.deal_no + 1}, {len(state.log):3} log entries: "
              f"worlds() {parsed * 1e6:6.0f} µs, sample() {each * 1e6:5.0f} µs")


if __name__ == "__main__":  # pragma: no cover
    _figures()
