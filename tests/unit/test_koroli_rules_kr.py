"""Every numbered rule of `koroli` (RULES.md section 6, KR-1 … KR-19) and the example scenarios of that section,
on written-out and planned deals (koroli_rules_helpers.py says how they are built).
"""

from __future__ import annotations

import pytest
from koroli_rules_helpers import (
    D1,
    D1_PLAY,
    D1_PLAY_2,
    KR,
    REIGN7,
    REIGN9,
    REIGN9_PLAY,
    REIGN10,
    REIGN_KING,
    STAGE1,
    auto,
    drive,
    events,
    intro_orders,
    kr_order,
    kr_plan_order,
    kr_state,
    legal,
    obs,
    plan,
    play,
    reign,
)

from referee.errors import ConfigError, RulesError
from referee.games.koroli.koroli import DECK36
from referee.rng import SplitMix64

# ------------------------------------------------------------------------------------------------- koroli


def test_kr_1_exactly_four_players() -> None:
    assert (KR.min_seats, KR.max_seats) == (4, 4)
    for seats in (3, 5):
        with pytest.raises(ConfigError):
            KR.new_state(seats, 1)


def test_kr_2_thirty_six_cards_six_to_ace() -> None:
    assert len(DECK36) == 36 and DECK36.texts[:9] == ("6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC")
    state = kr_state(kr_order(D1, [1, 2, 3, 0]))
    assert sum(obs(state, s)["hand_sizes"][s] for s in range(4)) == 36
    # Rank order inside a suit: trick 7 of D1 has 10D, 10H and 8S under QS; trick 1 AC over 9C and 6C.
    play(state, D1_PLAY[0])
    assert events(state, "trick")[-1] == {"type": "trick", "winner": 1, "number": 1, "cards": ["AC", "6H", "9C", "6C"]}


def test_kr_3_the_introduction_then_reign_deals_option() -> None:
    assert KR.configure() == {"reign_deals": 6}
    assert KR.configure({"reign_deals": 0}) == {"reign_deals": 0}
    with pytest.raises(ConfigError):
        KR.configure({"reign_deals": -1})
    with pytest.raises(ConfigError):
        KR.configure({"deals": 2})
    for deals in (0, 1, 3):
        state = kr_state(*intro_orders(), reign_deals=deals)
        auto(state, lambda s: False)
        parts = [e["part"] for e in events(state, "deal")]
        assert parts == ["introduction"] * 4 + ["reign"] * deals
    assert state.result().extra["titles"] == ["King", "Soldier", "Prince", "Peasant"]  # high to low: KR-3


def test_kr_4_ties_go_to_who_reached_the_count_first() -> None:
    # Stage 2 from the dealer 1 (receivers 2, 3, 1), hearts trump: seats 1 and 2 both take 5 tricks. Seat 2
    # reached 5 first, so seat 2 deals next.
    winners = [1, 2, 2, 1, 2, 1, 2, 1, 2, 3, 3, 1]
    p = plan(DECK36, [2, 3, 1], winners, 2)
    state = kr_state(kr_order(STAGE1, [1, 2, 3, 0]), kr_order(STAGE1, [1, 2, 3, 0]), kr_plan_order(p, [2, 3, 1], 2))
    auto(state, lambda s: s.stage == 2)
    drive(state, p)
    # Five each: seat 2's 5th at trick 9 (tricks 2 3 5 7 9), seat 1's 5th at trick 12 (1 4 6 8 12).
    assert state.history[-1] == (None, 5, 5, 2)
    assert obs(state, 0)["dealer"] == 2
    assert events(state, "deal")[-1]["dealer"] == 2


def test_kr_5_three_stages_with_their_sizes_and_targets() -> None:
    state = kr_state(*intro_orders(), reign_deals=0)
    seen = []
    while not state.is_terminal:
        o = obs(state, 3)
        key = (o["stage"], o["target"], tuple(o["hand_sizes"]), tuple(o["active"]))
        if not seen or seen[-1] != key and o["trick_number"] == 1 and o["trick"] == []:
            seen.append(key)
        state.apply(state.legal_actions()[-1])
    assert seen == [
        (1, 10, (9, 9, 9, 9), (True, True, True, True)),
        (2, 9, (0, 12, 12, 12), (False, True, True, True)),
        (3, 8, (0, 18, 0, 18), (False, True, False, True)),
    ]


def test_kr_5_counts_accumulate_over_the_deals_of_a_stage() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]), kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY)
    play(state, *D1_PLAY_2[:3])
    assert obs(state, 2)["stage_counts"] == [7, 4, 1, 0]
    assert obs(state, 2)["tricks"] == [1, 2, 0, 0]


def test_kr_6_the_first_dealer_is_the_configured_one() -> None:
    state = KR.new_state(4, 1, dealer=2)
    deal = events(state, "deal")[0]
    assert deal["dealer"] == 2 and deal["players"] == [3, 0, 1, 2]
    assert state.to_act == 3


def test_kr_6_later_dealers_most_tricks_or_else_the_previous_dealer() -> None:
    state = kr_state(*intro_orders(), reign_deals=0)
    auto(state, lambda s: False)
    dealers = [e["dealer"] for e in events(state, "deal")]
    # Deal 2: seat 0 took all 9 tricks. Deal 3: the new King took every trick and the previous dealer (0) has
    # left, so the next active player clockwise from him (1). Deal 4: the new Prince took every trick and the
    # previous dealer (1) is still active, so he deals again.
    assert dealers == [0, 0, 1, 1]


def test_kr_7_one_card_at_a_time_and_the_last_card_is_the_dealers_shown_trump() -> None:
    state = KR.new_state(4, 1)  # C-5 test vector: 9H 10D AS 9D JH 10C KD 10S ... JC
    hands = [set(obs(state, s)["hand"]) for s in range(4)]
    for k, card in enumerate(["9H", "10D", "AS", "9D", "JH", "10C", "KD", "10S"]):
        assert card in hands[(1 + k) % 4]
    assert "JC" in hands[0]
    assert events(state, "trump", 2) == [{"type": "trump", "card": "JC", "suit": "C", "holder": 0}]
    o = obs(state, 2)
    assert (o["trump"], o["trump_card"], o["trump_card_holder"]) == ("C", "JC", 0)


def test_kr_8_the_dealers_left_leads_trump_at_tricks_1_and_2_then_anything() -> None:
    # Planned deal, spades trump, dealer 0: seat 1 leads trick 1, seat 2 (its winner) trick 2, seat 3 trick 3.
    # Seat 3 keeps AS for the last trick, so he still holds a trump when he leads trick 3.
    p = plan(DECK36, [1, 2, 3, 0], [2, 3, 1, 1, 1, 1, 1, 1, 3], 3)
    state = kr_state(kr_plan_order(p, [1, 2, 3, 0], 3))
    for leader in (1, 2):
        assert state.to_act == leader and obs(state, 0)["trick_number"] == leader
        hand = obs(state, leader)["hand"]
        assert legal(state) == [f"play({c})" for c in hand if c.endswith("S")] != []
        assert len(hand) > len(legal(state))
        drive(state, p, stop=lambda s, k=leader: len(s.wins) == k)
    assert state.to_act == 3 and "AS" in obs(state, 3)["hand"]
    assert legal(state) == [f"play({c})" for c in obs(state, 3)["hand"]]
    # Following (D1): seat 2 has no club and may play anything; seat 3 must follow clubs.
    state = kr_state(kr_order(D1, [1, 2, 3, 0]))
    play(state, "1:AC")
    assert len(legal(state)) == 9
    play(state, "2:6H")
    assert legal(state) == ["play(9C)", "play(10C)", "play(JC)", "play(QC)"]


def test_kr_9_highest_trump_else_highest_of_the_led_suit() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY[:4])
    tricks = events(state, "trick")
    assert [t["winner"] for t in tricks] == [1, 1, 2, 0]
    assert tricks[2]["cards"] == ["6D", "AD", "KH", "8C"]  # AD: KH and 8C are off-suit
    assert tricks[3]["cards"] == ["KD", "AH", "9S", "7D"]  # the trump 9S beats the led KD


def test_kr_10_the_first_to_reach_the_target_takes_the_title_and_leaves_after_the_deal() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]), kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY)
    assert events(state, "title") == []  # no title in deal 1: another deal of stage 1
    assert obs(state, 0)["stage"] == 1 and obs(state, 0)["deal"] == 2
    play(state, *D1_PLAY_2[:6])
    assert events(state, "title") == [{"type": "title", "seat": 0, "title": "King"}]
    assert obs(state, 1)["titles"] == ["King", None, None, None]
    assert obs(state, 1)["active"] == [True] * 4  # the deal is played to its end
    play(state, *D1_PLAY_2[6:])
    o = obs(state, 1)
    assert o["active"] == [False, True, True, True] and o["stage"] == 2 and o["stage_counts"] == [0, 0, 0, 0]


def test_kr_10_at_most_one_title_a_deal() -> None:
    # Stage 2: in the first deal seats 2 and 1 take 6 each (seat 2 first, so he deals next); in the second seat 2
    # reaches 9 at trick 3, seat 1 at trick 6. Only seat 2 becomes Prince; seat 1 starts stage 3 at 0.
    first = plan(DECK36, [2, 3, 1], [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1], 2)
    second = plan(DECK36, [3, 1, 2], [2, 2, 2, 1, 1, 1, 3, 3, 3, 3, 3, 3], 1)
    state = kr_state(kr_order(STAGE1, [1, 2, 3, 0]), kr_order(STAGE1, [1, 2, 3, 0]),
                     kr_plan_order(first, [2, 3, 1], 2), kr_plan_order(second, [3, 1, 2], 1))
    auto(state, lambda s: s.stage == 2)
    drive(state, first)
    assert obs(state, 0)["stage_counts"] == [0, 6, 6, 0] and obs(state, 0)["dealer"] == 2  # KR-4: seat 2 first
    drive(state, second)
    assert [e["title"] for e in events(state, "title")] == ["King", "Prince"]
    assert events(state, "title")[-1]["seat"] == 2
    o = obs(state, 0)
    assert o["stage"] == 3 and o["stage_counts"] == [0, 0, 0, 0] and o["active"] == [False, True, False, True]


def test_kr_11_the_peasant_deals_in_role_order() -> None:
    # After scenario 9's deal the roles are King 1, Prince 2, Soldier 0, Peasant 3: not clockwise.
    second = {1: "AS KS QS JS 10S 9S 8S 7S 6S", 2: "6C 7C 8C 9C 10C JC QC KC AC",
              0: "6D 7D 8D 9D 10D JD QD KD AD", 3: "6H 7H 8H 9H 10H JH QH KH AH"}
    state = kr_state(*intro_orders(), kr_order(REIGN9, [0, 2, 1, 3]), kr_order(second, [1, 2, 0, 3]))
    auto(state, lambda s: s.reign_no > 0)
    deal = events(state, "deal")[-1]
    assert deal["dealer"] == 3 and deal["players"] == [0, 2, 1, 3] and deal["part"] == "reign"
    play(state, *REIGN9_PLAY)
    deal = events(state, "deal")[-1]
    assert deal == {"type": "deal", "deal": 6, "dealer": 3, "part": "reign", "stage": None, "reign_deal": 2,
                    "players": [1, 2, 0, 3]}
    assert events(state, "trump")[-1] == {"type": "trump", "card": "AH", "suit": "H", "holder": 3}
    assert events(state, "hand", 1)[-1]["cards"] == second[1].split()[::-1]


def test_kr_12_the_kings_levy_takes_the_peasants_highest_trump() -> None:
    state = reign(REIGN9)
    levy = events(state, "levy")
    assert levy == [{"type": "levy", "seat": 0, "from": 3, "trump": True, "card": "AS"}]
    assert state.to_act == 0 and obs(state, 0)["phase"] == "levy_give"
    # Any card of his hand except the one he has just taken.
    assert legal(state) == [f"give({c})" for c in ["6C", "8C", "9C", "QC", "6D", "9D", "6H", "9H", "KS"]]
    play(state, "0:give(8C)")
    assert "8C" in obs(state, 3)["hand"] and "AS" in obs(state, 0)["hand"]
    assert obs(state, 3)["hand_sizes"] == [9, 9, 10, 8]  # and the Prince's levy has followed at once


def test_kr_12_the_king_never_chooses_freely_because_the_shown_trump_is_the_peasants() -> None:
    # KR-11: the shown card is the Peasant's 9th and a trump, so the King's levy is always automatic.
    for seed in range(40):
        state = KR.new_state(4, seed, {"reign_deals": 1})
        auto(state, lambda s: s.reign_no > 0)
        assert events(state, "levy")[0]["trump"] is True and obs(state, 0)["phase"] == "levy_give"


def test_kr_13_the_princes_levy_takes_the_highest_remaining_trump() -> None:
    state = reign(REIGN9)
    play(state, "0:give(8C)")
    assert events(state, "levy", 2)[-1] == {"type": "levy", "seat": 2, "from": 3, "trump": True, "card": "QS"}
    assert state.to_act == 2
    assert "give(QS)" not in legal(state) and len(legal(state)) == 9
    play(state, "2:give(8D)")
    assert obs(state, 0)["phase"] == "play" and state.to_act == 0


def test_kr_13_without_trumps_the_prince_chooses_any_card_of_the_peasant() -> None:
    state = reign(REIGN10)
    play(state, "0:give(6S)")
    assert state.to_act == 2 and obs(state, 2)["phase"] == "levy_take"
    assert legal(state) == [f"take_card({c})" for c in ["6C", "7C", "8C", "9C", "6H", "7H", "8H", "9H", "6S"]]
    play(state, "2:take_card(9H)")
    assert events(state, "levy", 2)[-1] == {"type": "levy", "seat": 2, "from": 3, "trump": False, "card": "9H"}
    assert "give(9H)" not in legal(state)
    play(state, "2:give(QC)")
    assert "QC" in obs(state, 3)["hand"] and "9H" in obs(state, 2)["hand"]


def test_kr_14_the_king_leads_every_trick_in_role_order_and_trumps_first() -> None:
    state = reign(REIGN9)
    play(state, "0:give(8C)", "2:give(8D)")
    assert legal(state) == ["play(KS)", "play(AS)"]  # trick 1: a trump
    play(state, "0:AS 2:QS 1:8S 3:6S")
    assert legal(state) == ["play(KS)"]  # trick 2: a trump again
    play(state, "0:KS 2:JS 1:9S 3:7S")
    assert len(legal(state)) == 7  # trick 3: anything
    play(state, "0:6C 2:AC 1:7C 3:8C")
    assert state.to_act == 0 and obs(state, 1)["play_order"] == [0, 2, 1, 3]


def test_kr_15_new_roles_by_the_deals_tricks() -> None:
    state = reign(REIGN9)
    play(state, *REIGN9_PLAY)
    assert state.history[-1] == (2, 3, 3, 1)
    assert events(state, "roles")[-1]["roles"] == ["Soldier", "King", "Prince", "Peasant"]


def test_kr_15_zero_trick_ties_keep_the_previous_role_order() -> None:
    state = reign(REIGN_KING, reign_deals=1)
    play(state, "0:give(6C)", "2:take_card(AD)", "2:give(6D)")
    auto(state, lambda s: False)
    assert state.history[-1] == (9, 0, 0, 0)
    # Seats 1, 2 and 3 took nothing: the old Prince (2) stays above the old Soldier (1) and Peasant (3).
    assert state.result().extra["roles"] == ["King", "Soldier", "Prince", "Peasant"]


def test_kr_16_state_table() -> None:
    state = reign(REIGN10)
    phases = []
    while not state.is_terminal and obs(state, 0)["phase"] != "play":
        o = obs(state, state.to_act)
        phases.append((o["phase"], state.to_act, {a.kind for a in state.legal_actions()}))
        state.apply(state.legal_actions()[0])
    assert phases == [("levy_give", 0, {"give"}), ("levy_take", 2, {"take_card"}), ("levy_give", 2, {"give"})]
    assert {a.kind for a in state.legal_actions()} == {"play"}


def test_kr_17_the_result_after_the_introduction_only() -> None:
    state = kr_state(*intro_orders(), reign_deals=0)
    auto(state, lambda s: False)
    result = state.result()
    assert result.places == (1, 3, 2, 4)
    assert result.finishing_order == ((0,), (2,), (1,), (3,))
    d = result.to_dict()
    assert d["scores"] == [
        {"role": "King", "tricks": [9, 9, None, None]},
        {"role": "Soldier", "tricks": [0, 0, 0, 18]},
        {"role": "Prince", "tricks": [0, 0, 12, None]},
        {"role": "Peasant", "tricks": [0, 0, 0, 0]},
    ]
    assert d["roles"] == d["titles"] == ["King", "Soldier", "Prince", "Peasant"]
    assert events(state, "end") == [{"type": "end", "roles": ["King", "Soldier", "Prince", "Peasant"]}]


def test_kr_17_the_result_after_the_reign() -> None:
    state = reign(REIGN9, reign_deals=1)
    with pytest.raises(RulesError):
        state.result()
    play(state, *REIGN9_PLAY)
    result = state.result()
    assert state.is_terminal and legal(state) == []
    assert result.places == (3, 1, 2, 4)
    assert result.scores[1] == {"role": "King", "tricks": [0, 0, 0, 18, 3]}
    assert result.extra == {"roles": ["Soldier", "King", "Prince", "Peasant"],
                            "titles": ["King", "Soldier", "Prince", "Peasant"]}


def test_kr_18_levy_cards_are_private_to_the_two_players() -> None:
    state = reign(REIGN9)
    play(state, "0:give(8C)", "2:give(8D)")
    # The King's levy took the Peasant's highest trump AS, not the shown 6S: its card is private.
    for seat, seen in ((0, True), (3, True), (1, False), (2, False)):
        levy = events(state, "levy", seat)[0]
        give = events(state, "give", seat)[0]
        assert ("card" in levy, "card" in give) == (seen, seen), seat
    for seat, seen in ((2, True), (3, True), (0, False), (1, False)):
        assert ("card" in events(state, "levy", seat)[1]) == seen
        assert ("card" in events(state, "give", seat)[1]) == seen
    # What everyone sees: a trump levy and a give, the sizes, the shown trump card still with the Peasant.
    assert events(state, "levy", 1)[0] == {"type": "levy", "seat": 0, "from": 3, "trump": True}
    assert obs(state, 1)["trump_card_holder"] == 3


def test_kr_18_the_shown_trump_cards_holder_is_public() -> None:
    state = reign(REIGN_KING)
    assert events(state, "levy", 1)[0]["card"] == "AS"  # the shown card moved: public (KR-18)
    assert obs(state, 1)["trump_card_holder"] == 0
    play(state, "0:give(6C)")
    assert "card" not in events(state, "give", 1)[0]
    play(state, "2:take_card(AD)", "2:give(6D)")
    play(state, "0:AS")
    assert obs(state, 1)["trump_card_holder"] is None  # played


def test_kr_18_the_peasants_hand_is_shown_only_to_the_taker_while_he_chooses() -> None:
    state = reign(REIGN10)
    play(state, "0:give(6S)")
    peasant = ["6C", "7C", "8C", "9C", "6H", "7H", "8H", "9H", "6S"]
    assert obs(state, 2)["peasant_hand"] == peasant
    for seat in (0, 1, 3):
        assert obs(state, seat)["peasant_hand"] is None
    play(state, "2:take_card(9H)")
    assert obs(state, 2)["peasant_hand"] is None


def test_kr_19_one_shuffle_per_deal() -> None:
    state = KR.new_state(4, 7, {"reign_deals": 1})
    rng = SplitMix64(7)
    expected = []
    for _ in range(3):
        deck = list(range(36))
        rng.shuffle(deck)
        expected.append(deck)
    for deal in range(3):
        hands = [events(state, "hand", s)[-1]["cards"] for s in range(4)]
        players = events(state, "deal")[-1]["players"]
        for k, card in enumerate(expected[deal]):
            assert DECK36.texts[card] in hands[players[k % len(players)]]
        start = len(state.history)
        auto(state, lambda s, start=start: len(s.history) > start)


def test_kr_example_1_first_lead() -> None:
    # Trump S; seat 1 leads trick 1 holding 7S and AH: only 7S.
    hands = {1: "7S AH 6C 7C 8C 9C 10C JC QC", 2: "6D 7D 8D 9D 10D JD QD KD AD",
             3: "6H 7H 8H 9H 10H JH QH KH KC", 0: "AC 6S 8S 9S 10S JS QS KS AS"}
    state = kr_state(kr_order(hands, [1, 2, 3, 0]))
    assert state.to_act == 1 and legal(state) == ["play(7S)"]
    # With no spade any card is legal (D1: seat 1 holds no spade).
    assert len(legal(kr_state(kr_order(D1, [1, 2, 3, 0])))) == 9


def test_kr_example_2_trick_2_trump_lead_then_free() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]), reign_deals=0)
    play(state, *D1_PLAY[:3])
    # Trick 4 is led by seat 2 (no trump requirement after trick 2).
    assert len(legal(state)) == 6
    # Deal 2 of the D1 cards, where seat 0 wins trick 3: trick 4 free although he holds spades.
    state = kr_state(kr_order(D1, [1, 2, 3, 0]), kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY, *D1_PLAY_2[:3])
    assert legal(state) == ["play(8C)", "play(10S)", "play(JS)", "play(QS)", "play(KS)", "play(AS)"]
    # The winner of trick 1 who holds a trump must lead it at trick 2.
    winners = [2, 3, 1, 1, 1, 1, 1, 1, 1]
    p = plan(DECK36, [1, 2, 3, 0], winners, 3)
    state = kr_state(kr_plan_order(p, [1, 2, 3, 0], 3))
    drive(state, p, stop=lambda s: len(s.wins) == 1)
    assert state.to_act == 2 and all(a.text[-2] == "S" for a in state.legal_actions())


def test_kr_example_3_a_void_player_may_trump_or_discard() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY[:3], "2:KD 3:AH")
    assert legal(state) == ["play(9S)", "play(10S)", "play(JS)", "play(QS)", "play(KS)", "play(AS)"]
    play(state, "0:9S 1:7D")
    assert events(state, "trick")[-1]["winner"] == 0
    state = kr_state(kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY[:2], "1:6D 2:AD")
    assert "play(KH)" in legal(state) and "play(6S)" in legal(state)  # seat 3: discard or trump


def test_kr_example_4_titles() -> None:
    state = kr_state(kr_order(D1, [1, 2, 3, 0]), kr_order(D1, [1, 2, 3, 0]))
    play(state, *D1_PLAY)
    assert state.history == [(6, 2, 1, 0)]
    play(state, *D1_PLAY_2[:6])
    assert events(state, "title")[0] == {"type": "title", "seat": 0, "title": "King"}
    assert obs(state, 0)["stage_counts"] == [10, 4, 1, 0]
    play(state, *D1_PLAY_2[6:])
    o = obs(state, 2)
    assert (o["stage"], o["deal"], o["hand_sizes"], o["stage_counts"]) == (2, 3, [0, 12, 12, 12], [0, 0, 0, 0])


def test_kr_example_5_dealer_tie() -> None:
    # Stage 1: seats 1 and 2 take 3 each; seat 2's 3rd trick comes at trick 5, seat 1's at trick 7: seat 2 deals.
    winners = [1, 2, 2, 1, 2, 0, 1, 0, 3]
    p = plan(DECK36, [1, 2, 3, 0], winners, 3)
    state = kr_state(kr_plan_order(p, [1, 2, 3, 0], 3))
    drive(state, p)
    assert state.history == [(2, 3, 3, 1)]
    assert events(state, "deal")[-1]["dealer"] == 2


def test_kr_example_6_stage_3_has_18_tricks_and_the_first_to_8_is_soldier() -> None:
    state = kr_state(*intro_orders(), reign_deals=0)
    auto(state, lambda s: s.stage == 3)
    assert obs(state, 1)["hand_sizes"] == [0, 18, 0, 18]
    auto(state, lambda s: False)
    assert len(events(state, "trick")) - 9 - 9 - 12 == 18
    assert [(e["seat"], e["title"]) for e in events(state, "title")][-2:] == [(1, "Soldier"), (3, "Peasant")]


def test_kr_example_7_levy_with_trump_diamonds() -> None:
    state = reign(REIGN7)
    assert events(state, "levy", 0)[0]["card"] == "KD"
    play(state, "0:give(9C)")
    assert events(state, "levy", 2)[-1]["card"] == "7D"  # the shown card: public as well
    assert events(state, "levy", 1)[-1]["card"] == "7D"
    # Had the King given back a higher diamond, the Prince would receive it.
    state = reign(REIGN7)
    play(state, "0:give(AD)")
    assert events(state, "levy", 2)[-1]["card"] == "AD"
    assert "card" not in events(state, "levy", 1)[-1]
    assert obs(state, 1)["trump_card_holder"] == 3


def test_kr_example_8_a_peasant_without_trumps_shows_his_hand_to_the_taker() -> None:
    # The King's levy always finds the shown trump (see KR-12); the Prince's levy here finds no trump.
    state = reign(REIGN10)
    play(state, "0:give(6S)")
    assert obs(state, 2)["peasant_hand"] == ["6C", "7C", "8C", "9C", "6H", "7H", "8H", "9H", "6S"]
    assert [a.kind for a in state.legal_actions()] == ["take_card"] * 9
    play(state, "2:take_card(6S)")
    assert "6S" in obs(state, 2)["hand"]


def test_kr_example_9_new_roles() -> None:
    state = reign(REIGN9)
    play(state, *REIGN9_PLAY[:2])
    for trick in REIGN9_PLAY[2:9]:
        play(state, trick)
    assert [t["winner"] for t in events(state, "trick")[-7:]] == [0, 0, 2, 1, 2, 1, 1]
    play(state, *REIGN9_PLAY[9:])
    old = ["King", "Soldier", "Prince", "Peasant"]
    assert obs(state, 0)["roles"] != old
    assert events(state, "roles")[-1]["roles"] == ["Soldier", "King", "Prince", "Peasant"]


def test_kr_example_10_the_king_leads_after_the_prince_wins() -> None:
    state = reign(REIGN10)
    play(state, "0:give(6S)", "2:take_card(9H)", "2:give(QC)")
    assert legal(state) == ["play(7D)"]  # his only trump
    play(state, "0:7D 2:AD")
    play(state, f"1:{obs(state, 1)['hand'][0]}", f"3:{obs(state, 3)['hand'][0]}")
    assert events(state, "trick")[-1]["winner"] == 2
    assert state.to_act == 0 and obs(state, 3)["leader"] == 0
