"""Every numbered rule of `koroli52` (RULES.md section 7, K52-1 … K52-19) and the example scenarios of that
section, on planned deals (koroli_rules_helpers.py says how they are built).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from koroli_rules_helpers import (
    K52,
    SUITS,
    Plan,
    auto,
    drive,
    events,
    idx,
    legal,
    obs,
    plan,
    play,
)

from referee.errors import ConfigError
from referee.games.koroli.koroli52 import DECK52, Koroli52State
from referee.rng import SplitMix64

# ---------------------------------------------------------------------------------------------- koroli52


def seed_for_trump(suit: str) -> int:
    """A seed whose first draw, with the tour-1 shuffle replaced by a hand-made order, names ``suit``."""
    return next(s for s in range(100) if SplitMix64(s).randbelow(4) == SUITS.index(suit))


def k52_order(p: Plan, n: int) -> list[int]:
    per = len(p.hands[0])
    return [p.hands[k % n][k // n] for k in range(per * n)]


def k52_plan(n: int, winners: Sequence[int], trump: str | None) -> Plan:
    return plan(DECK52, list(range(n)), winners, None if trump is None else SUITS.index(trump),
                removed=(0,) if n == 3 else ())


def k52_state(n: int, plans: Sequence[Plan], trump1: str = "S") -> Koroli52State:
    return Koroli52State(K52, n, seed_for_trump(trump1), K52.configure(), 0,
                         deck_orders=[k52_order(p, n) for p in plans])


def spread(counts: dict[int, int]) -> list[int]:
    """Winners giving each seat its count, round-robin so that every seat's first trick comes early, in seat
    order of the dict."""
    left = dict(counts)
    out: list[int] = []
    while any(left.values()):
        for s in counts:
            if left[s]:
                out.append(s)
                left[s] -= 1
    return out


# Tours 1-3 for four players (trump S in tour 1, named S after): tour 1 seat 0 7, seat 1 5, seat 2 1, seat 3 0;
# tours 2-3 the King (seat 0) takes all 13. Titles: tour 2 K0 P1 S2 J3, tour 3 K0 P3 S2 J1, tour 4 K0 P1 S2 J3.
# Totals before tour 4: 33, 5, 1, 0.
TOUR1 = [0, 1, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]
FIRST3 = [k52_plan(4, TOUR1, "S"), k52_plan(4, [0] * 13, "S"), k52_plan(4, [0] * 13, "S")]


def to_tour(state: Koroli52State, tour: int, plans: Sequence[Plan]) -> None:
    for p in plans[:tour - 1]:
        drive(state, p)
    assert state.tour == tour


def test_k52_1_three_or_four_players_and_their_titles() -> None:
    assert (K52.min_seats, K52.max_seats) == (3, 4)
    for seats in (2, 5):
        with pytest.raises(ConfigError):
            K52.new_state(seats, 1)
    for n, names in ((4, ["King", "Prince", "Soldier", "Jester"]), (3, ["King", "Prince", "Jester"])):
        p = k52_plan(n, [0] * (52 // n), "S")
        state = k52_state(n, [p])
        assert obs(state, 0)["titles"] is None  # no titles in tour 1
        drive(state, p)
        assert obs(state, 0)["titles"] == names  # 0 ties: by seat


def test_k52_2_the_deck_and_the_hands() -> None:
    assert len(DECK52) == 52 and DECK52.texts[0] == "2C" and DECK52.texts[-1] == "AS"
    state = K52.new_state(4, 3)
    assert obs(state, 0)["hand_sizes"] == [13] * 4
    state = K52.new_state(3, 3)
    assert obs(state, 0)["hand_sizes"] == [17] * 3
    assert all("2C" not in obs(state, s)["hand"] for s in range(3))
    assert state.card_places()["removed"] == [0]


def test_k52_3_ten_tours_and_no_dealer() -> None:
    a, b = K52.new_state(4, 11, dealer=0), K52.new_state(4, 11, dealer=2)
    auto(a, lambda s: False)
    auto(b, lambda s: False)
    assert a.events(0, None) == b.events(0, None)  # the dealer is ignored (C-1)
    assert [e["tour"] for e in events(a, "tour")] == list(range(1, 11))
    assert all(len(t) == 10 for t in (sc["tricks"] for sc in a.result().scores))


def test_k52_4_dealt_one_at_a_time_from_seat_0() -> None:
    p = k52_plan(4, TOUR1, "S")
    state = k52_state(4, [p])
    order = k52_order(p, 4)
    for k, card in enumerate(order):
        assert DECK52.texts[card] in obs(state, k % 4)["hand"]


def test_k52_5_follow_else_trump_else_anything() -> None:
    # Tour 1, trump S. Seat 0 leads 2H; a void player holding a spade must play a spade (any spade).
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S 3S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:2H")
    assert legal(state) == [f"play({c})" for c in hands[1].split()]  # no heart, no spade: anything
    play(state, "1:2D")
    assert legal(state) == ["play(2S)", "play(3S)"]  # must trump, not necessarily high
    play(state, "2:2S")
    assert legal(state) == [f"play({c})" for c in ["4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
                                                   "AS"]]


def test_k52_6_highest_trump_else_highest_of_the_led_suit() -> None:
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S 3S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:AH 1:AD 2:2S 3:4S")
    assert events(state, "trick")[-1]["winner"] == 3
    play(state, "3:KC 0:2H 1:2D 2:QC")
    assert events(state, "trick")[-1]["winner"] == 3  # KC beats QC; 2H, 2D are off-suit


def test_k52_7_totals_are_tricks_plus_bargains() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    assert obs(state, 2)["totals"] == [33, 5, 1, 0]
    play(state, "0:exchange(1)", "1:bargain(3)", "0:accept")
    assert obs(state, 2)["totals"] == [36, 2, 1, 0] and obs(state, 2)["bargain_net"] == [3, -3, 0, 0]


def test_k52_8_the_tour_1_trump_is_drawn_at_random_after_the_shuffle() -> None:
    for seed in range(8):
        rng = SplitMix64(seed)
        rng.shuffle(list(range(52)))
        suit = SUITS[rng.randbelow(4)]
        state = K52.new_state(4, seed)
        assert events(state, "trump") == [{"type": "trump", "suit": suit, "seat": None}]
        assert obs(state, 1)["trump"] == suit


def test_k52_9_tour_1_seat_0_leads_and_the_winner_leads_clockwise() -> None:
    p = k52_plan(4, [2, 3, 1] + [0] * 10, "S")
    state = k52_state(4, [p])
    assert state.to_act == 0 and {a.kind for a in state.legal_actions()} == {"play"}
    drive(state, p, stop=lambda s: len(s.wins) == 1)
    assert state.to_act == 2 and obs(state, 0)["play_order"] == [2, 3, 0, 1]
    drive(state, p, stop=lambda s: len(s.wins) == 2)
    assert state.to_act == 3 and obs(state, 0)["play_order"] == [3, 0, 1, 2]


def test_k52_10_tour_1_ranking() -> None:
    # Ties at c >= 1 by the earlier first trick: seats 1 and 3 take 6 each, seat 3 first.
    p = k52_plan(4, [3, 1] + [3] * 5 + [1] * 5 + [2], "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert state.history == [(0, 6, 1, 6)]
    assert obs(state, 0)["titles"] == ["Jester", "Prince", "Soldier", "King"]
    # Ties at 0 tricks by the lower seat.
    p = k52_plan(4, [2] * 13, "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert obs(state, 0)["titles"] == ["Prince", "Soldier", "King", "Jester"]


def test_k52_11_exchange_phase_order_and_targets() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    assert obs(state, 0)["titles"] == ["King", "Prince", "Soldier", "Jester"]
    assert state.to_act == 0 and legal(state) == ["exchange(1)", "exchange(2)", "exchange(3)", "pass"]
    play(state, "0:pass")
    assert state.to_act == 1 and legal(state) == ["exchange(2)", "exchange(3)", "pass"]
    play(state, "1:pass")
    assert state.to_act == 2 and legal(state) == ["exchange(3)", "pass"]
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "2:exchange(3)")  # a whole-hand swap, at once in tour 2
    assert [obs(state, s)["hand"] for s in (2, 3)] == [before[3], before[2]]
    assert state.to_act == 0 and legal(state)[0] == "name_trump(C)"


def test_k52_12_the_king_names_a_trump_or_no_trump() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    play(state, "0:pass", "1:pass", "2:pass")
    assert legal(state) == ["name_trump(C)", "name_trump(D)", "name_trump(H)", "name_trump(S)", "name_trump(none)"]
    assert obs(state, 1)["trump"] is None
    play(state, "0:name_trump(none)")
    assert obs(state, 1)["trump"] == "none"
    assert events(state, "trump")[-1] == {"type": "trump", "suit": "none", "seat": 0}


def test_k52_13_bargaining_from_tour_4() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)")
    assert state.to_act == 1 and legal(state) == ["bargain(1)", "bargain(2)", "bargain(3)", "pass"]
    play(state, "1:bargain(1)")
    assert state.to_act == 0 and legal(state) == ["accept", "refuse"]
    play(state, "0:refuse")  # the swap happens
    assert [obs(state, s)["hand"] for s in (0, 1)] == [before[1], before[0]]
    assert obs(state, 0)["totals"] == [33, 5, 1, 0]
    play(state, "1:exchange(2)")
    assert legal(state) == ["bargain(1)", "pass"]  # a total of 1
    play(state, "2:pass")  # pass accepts the swap
    assert obs(state, 2)["hand"] == before[0]
    play(state, "2:exchange(3)")  # a total of 0: swapped at once
    assert obs(state, 3)["hand"] == before[0] and state.to_act == 0 and legal(state)[-1] == "name_trump(none)"


def test_k52_14_the_king_leads_every_trick_in_title_order() -> None:
    plans = FIRST3[:2] + [k52_plan(4, [1] + [0] * 12, "S")]
    state = k52_state(4, plans)
    to_tour(state, 3, plans)
    assert obs(state, 0)["titles"] == ["King", "Jester", "Soldier", "Prince"]
    play(state, "0:pass", "3:pass", "2:pass", "0:name_trump(S)")
    # Seat 1 (the Jester, not next to the King) plays last and wins trick 1; the King still leads trick 2.
    p = plans[2]
    assert obs(state, 0)["play_order"] == [0, 3, 2, 1] and state.to_act == 0
    drive(state, p, stop=lambda s: len(s.wins) == 1)
    assert events(state, "trick")[-1]["winner"] == 1
    assert state.to_act == 0 and obs(state, 1)["play_order"] == [0, 3, 2, 1]


def test_k52_15_tour_ranking_ties() -> None:
    """K52-15, and example test scenario 4 (two-way tie) of RULES.md (K52)."""
    # Tour 2 (titles K1 P0 S2 J3 from the tour-1 plan of scenario 3): counts 4 each for the Prince (0) and the
    # Soldier (2), the Prince first; the Soldier ranks higher (two-way tie). Then the King 3 and the Jester 2.
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    tour2 = [0, 2, 1, 3, 0, 2, 1, 3, 0, 2, 1, 0, 2]
    state = k52_state(4, [k52_plan(4, tour1, "S"), k52_plan(4, tour2, "S")])
    drive(state, k52_plan(4, tour1, "S"))
    assert obs(state, 0)["titles"] == ["Prince", "King", "Soldier", "Jester"]
    drive(state, k52_plan(4, tour2, "S"))
    assert state.history[-1] == (4, 3, 4, 2)
    assert obs(state, 0)["titles"] == ["Prince", "Soldier", "King", "Jester"]


def test_k52_15_zero_trick_ties_lower_title_first() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 3, FIRST3)  # tour 2: the King took all; Prince 1, Soldier 2, Jester 3 had 0
    assert obs(state, 0)["titles"] == ["King", "Jester", "Soldier", "Prince"]


def test_k52_16_state_table() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    seen = []
    for step in ("0:exchange(1)", "1:bargain(2)", "0:refuse", "1:pass", "2:pass", "0:name_trump(H)"):
        seen.append((obs(state, 0)["phase"], [a.kind for a in state.legal_actions()]))
        play(state, step)
    assert seen == [
        ("exchange", ["exchange", "exchange", "exchange", "pass"]),
        ("bargain", ["bargain", "bargain", "bargain", "pass"]),
        ("bargain_reply", ["accept", "refuse"]),
        ("exchange", ["exchange", "exchange", "pass"]),
        ("exchange", ["exchange", "pass"]),
        ("name_trump", ["name_trump"] * 5),
    ]
    assert obs(state, 0)["phase"] == "play"


def final_plans() -> list[Plan]:
    """Ten tours: seat 0 4 tricks a tour, seat 2 2, seats 1 and 3 sharing 7 (tour 10: 2 and 5)."""
    plans = []
    for tour in range(10):
        one = 4 if tour < 6 else 3
        counts = {0: 4, 1: one, 2: 2, 3: 7 - one}
        if tour == 9:
            counts = {0: 4, 1: 2, 2: 2, 3: 5}
        plans.append(k52_plan(4, spread(counts), "S"))
    return plans


def test_k52_17_final_ranking_by_total_ties_by_the_tour_10_titles() -> None:
    """K52-17, and example test scenario 9 (final ranking) of RULES.md (K52)."""
    plans = final_plans()
    state = k52_state(4, plans)
    for p in plans:
        drive(state, p)
    assert state.is_terminal
    result = state.result()
    assert [sc["total"] for sc in result.scores] == [40, 35, 20, 35]
    assert result.finishing_order == ((0,), (3,), (1,), (2,))
    assert result.places == (1, 3, 4, 2)
    assert result.extra["emperor"] == 0
    assert result.extra["titles"][3] == "King"
    assert result.scores[1] == {"total": 35, "tricks": [4] * 6 + [3] * 3 + [2], "bargain_net": 0}
    assert events(state, "end") == [{"type": "end", "emperor": 0, "order": [0, 3, 1, 2]}]


def test_k52_18_only_the_hands_are_private() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    play(state, "0:exchange(2)")
    public = [e for e in state.events(0, None) if e["type"] not in ("hand", "received")]
    for seat in range(4):
        mine = state.events(0, seat)
        assert [e for e in mine if e["type"] not in ("hand", "received")] == public
        assert {e["seat"] for e in mine if e["type"] in ("hand", "received")} == {seat}
    assert events(state, "swap", 1)[-1] == {"type": "swap", "seats": [0, 2]}
    # The two players of the swap know both hands: each receives the other's.
    got = events(state, "received", 0)[-1]
    assert got["from"] == 2 and got["cards"] == events(state, "hand", 2)[-1]["cards"]
    assert events(state, "received", 1) == []


def test_k52_19_one_shuffle_per_tour_and_one_draw_for_the_tour_1_trump() -> None:
    state = K52.new_state(3, 5)
    rng = SplitMix64(5)
    first = list(range(1, 52))
    rng.shuffle(first)
    trump = SUITS[rng.randbelow(4)]
    second = list(range(1, 52))
    rng.shuffle(second)
    assert obs(state, 0)["trump"] == trump
    for k, card in enumerate(first):
        assert DECK52.texts[card] in obs(state, k % 3)["hand"]
    auto(state, lambda s: s.tour == 2)
    for k, card in enumerate(second):
        assert DECK52.texts[card] in events(state, "hand", k % 3)[-1]["cards"]


def test_k52_example_1_must_trump() -> None:
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "3S AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KD 2S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:2H")
    assert legal(state) == ["play(3S)"]


# Tour 2 after FIRST3's tour 1 (titles K0 P1 S2 J3): the King holds the hearts; the Prince, void in hearts,
# holds diamonds and spades.
TOUR2_VOID = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S 8S",
              2: "8D 9D 10D JD QD KD AD 2C 3C 4C 5C 6C 7C", 3: "8C 9C 10C JC QC KC AC 9S 10S JS QS KS AS"}


@pytest.mark.parametrize(("named", "count"), [("none", 13), ("S", 7)])
def test_k52_example_2_no_trump_void_plays_anything(named: str, count: int) -> None:
    order = [idx(TOUR2_VOID[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0,
                          deck_orders=[k52_order(FIRST3[0], 4), order])
    drive(state, FIRST3[0])
    play(state, "0:pass", "1:pass", "2:pass", f"0:name_trump({named})", "0:2H")
    assert len(legal(state)) == count  # no trump: any of 13; spades trump: one of the 7 spades


def test_k52_example_3_tour_1_ranking() -> None:
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    p = k52_plan(4, tour1, "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert state.history == [(4, 4, 3, 2)]
    assert obs(state, 0)["titles"] == ["Prince", "King", "Soldier", "Jester"]


def test_k52_example_5_three_way_tie() -> None:
    # Tour 2 (titles K1 P0 S2 J3): the Jester takes 4; the others 3 each with first tricks Soldier, King, Prince.
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    tour2 = [2, 1, 0, 3, 3, 3, 3, 2, 1, 0, 2, 1, 0]
    state = k52_state(4, [k52_plan(4, tour1, "S"), k52_plan(4, tour2, "S")])
    drive(state, k52_plan(4, tour1, "S"))
    drive(state, k52_plan(4, tour2, "S"))
    assert state.history[-1] == (3, 3, 3, 4)
    assert obs(state, 0)["titles"] == ["Jester", "Soldier", "Prince", "King"]


def test_k52_example_6_exchange_chain() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(3)")
    assert legal(state) == ["exchange(2)", "exchange(3)", "pass"]
    play(state, "1:exchange(3)")  # the Jester now holds the King's old hand
    assert obs(state, 1)["hand"] == before[0]
    assert obs(state, 3)["hand"] == before[1] and obs(state, 0)["hand"] == before[3]


def test_k52_example_7_buy_off_accepted() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)", "1:bargain(2)", "0:accept")
    assert obs(state, 3)["totals"] == [35, 3, 1, 0]
    assert [obs(state, s)["hand"] for s in range(4)] == before
    assert state.to_act == 1  # the King's right is used up: the Prince declares next
    assert events(state, "accept", 3)[-1] == {"type": "accept", "seat": 0, "from": 1, "tricks": 2}


def test_k52_example_8_when_bargaining_is_possible() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 3, FIRST3)  # tour 3, titles K0 P3 S2 J1
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)")  # seat 1's total is 5, but tour 3 has no bargaining
    assert obs(state, 0)["hand"] == before[1] and obs(state, 0)["phase"] == "exchange"
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    play(state, "0:exchange(2)")
    assert legal(state) == ["bargain(1)", "pass"]
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    play(state, "0:exchange(3)")
    assert state.to_act == 1 and obs(state, 1)["phase"] == "exchange"


def test_k52_example_10_three_players() -> None:
    winners = [0] * 9 + [1] * 6 + [2] * 2
    p = k52_plan(3, winners, "S")
    state = k52_state(3, [p, k52_plan(3, [0] * 17, "S")])
    assert obs(state, 0)["hand_sizes"] == [17, 17, 17]
    drive(state, p)
    assert obs(state, 0)["titles"] == ["King", "Prince", "Jester"]
    assert legal(state) == ["exchange(1)", "exchange(2)", "pass"]
    play(state, "0:pass")
    assert legal(state) == ["exchange(2)", "pass"]
