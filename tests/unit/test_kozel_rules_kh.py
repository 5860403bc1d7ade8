"""Every numbered rule of ``kozel-hvaleny`` (RULES.md section 4: KH-1 … KH-18) and its example scenarios, on
hand-made deals (kozel_rules_helpers.py says how they are written).
"""

from __future__ import annotations

import pytest
from kozel_rules_helpers import (
    KH,
    KH_45_75,
    KH_60_60,
    KH_61_59,
    KH_75_45_D1,
    KH_90_30,
    KH_91_29,
    KH_ACE_AS_7D,
    KH_ACE_AS_AC,
    KH_ACE_ONLY_AS,
    KH_ALL_A,
    KH_ALL_A_D1,
    KH_BASE,
    KH_CATCH,
    KH_PARTNERS,
    KH_REVERSE,
    KH_VOID,
    KH_WEAK,
    act,
    canon,
    events,
    hand,
    idx,
    kh,
    legal,
    order36,
    rotate,
    texts,
)

from protocol.actions import Action
from referee.errors import ConfigError
from referee.games.cards import bits
from referee.games.kozel.hvaleny import KH_RULES
from referee.rng import SplitMix64


# Dealer 0, seat 1 leads. Seat 1 holds every queen and jack and 6C (no catch possible), seat 2's only trump is
def test_kh_1_four_players_in_two_teams() -> None:
    assert KH.teams(4) == ((0, 2), (1, 3))
    for seats in (2, 3, 5):
        with pytest.raises(ConfigError):
            KH.new_state(seats, 1)
    obs = kh(KH_BASE).observe(1)
    assert obs["teams"] == {"A": [0, 2], "B": [1, 3]} and obs["team"] == "B"


def test_kh_2_the_deck_has_36_cards() -> None:
    state = KH.new_state(4, 1)
    places = state.card_places()
    assert sorted(c for cards in places.values() for c in cards) == list(range(36))
    assert [h.bit_count() for h in state.hands] == [9, 9, 9, 9]
    assert texts(KH, range(36))[:9] == ["6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]


def test_kh_3_trumps_and_effective_suits() -> None:
    order = "6C QC QS QH QD JC JS JH JD AD 10D KD 9D 8D 7D 6D".split()
    trumps = [idx(KH, t) for t in order]
    assert all(KH_RULES.eff[c] == 4 for c in trumps)
    for strong, weak in zip(trumps, trumps[1:], strict=False):
        assert KH_RULES.winner([weak, strong]) == 1 and KH_RULES.winner([strong, weak]) == 0
    assert bits(KH_RULES.eff_mask[0]) == sorted(idx(KH, t) for t in "AC 10C KC 9C 8C 7C".split())
    assert KH_RULES.eff_mask[1] == 0  # diamonds are all trumps
    for suit in "SH":
        plain = [idx(KH, r + suit) for r in "A 10 K 9 8 7 6".split()]
        assert bits(KH_RULES.eff_mask["CDHS".index(suit)]) == sorted(plain)
        for strong, weak in zip(plain, plain[1:], strict=False):
            assert KH_RULES.winner([weak, strong]) == 1


def test_kh_4_card_points() -> None:
    points = {t: KH_RULES.points[idx(KH, t)] for t in "AS 10S KS QS JS 9S 8S 7S 6S 6C".split()}
    assert points == {"AS": 11, "10S": 10, "KS": 4, "QS": 3, "JS": 2, "9S": 0, "8S": 0, "7S": 0, "6S": 0, "6C": 0}
    assert sum(KH_RULES.points) == 120
    state = kh(KH_61_59.hands)
    KH_61_59.run(state)
    score = events(state, "deal_score")[0]["points"]
    assert score["A"] + score["B"] == 120


def test_kh_5_options_and_the_bonus_counter() -> None:
    assert KH.configure() == {"lyusya": "lose", "target_eyes": 12}
    for value in ("lose", "zero", "off", "ZERO"):
        assert KH.configure({"lyusya": value})["lyusya"] == value.lower()
    for bad in ({"lyusya": "maybe"}, {"lyusya": True}, {"target_eyes": 0}, {"target": 12}):
        with pytest.raises(ConfigError):
            KH.configure(bad)
    assert kh(KH_BASE).observe(0)["bonus"] == 0
    assert {o["name"]: o.get("choices") for o in KH.describe()["options"]} == {
        "lyusya": ["lose", "zero", "off"], "target_eyes": None}


def test_kh_6_the_dealer_moves_to_the_left() -> None:
    state = kh(KH_CATCH, dealer=0)
    act(state, "1:QC", "2:6C")  # the catch ends deal 1
    assert [e["dealer"] for e in events(state, "deal")] == [0, 1]
    state = KH.new_state(4, 3, dealer=3)
    assert events(state, "deal")[0]["dealer"] == 3


def test_kh_7_nine_cards_each_one_at_a_time_from_the_dealers_left() -> None:
    for seed, dealer in ((5, 0), (6, 2)):
        state = KH.new_state(4, seed, dealer=dealer)
        order = list(range(36))
        SplitMix64(seed).shuffle(order)
        for seat in range(4):
            assert hand(state, seat) == texts(KH, sorted(order[(seat - dealer - 1) % 4::4]))


def test_kh_8_weak_hands_are_offered_a_redeal_privately() -> None:
    state = kh(KH_WEAK)
    assert state.to_act == 1 and legal(state) == ["demand_redeal", "pass"]
    assert state.observe(1)["phase"] == "redeal_offer"
    assert state.observe(3)["phase"] == "play"  # C-8: the others do not learn of the offer
    act(state, "1:pass")
    assert state.to_act == 1 and legal(state) == [f"play({c})" for c in canon(KH, KH_WEAK[1])]  # play starts
    assert events(state, "pass", seat=1) == [{"type": "pass", "seat": 1, "offer": "redeal"}]
    for seat in (0, 2, 3):
        assert events(state, "pass", seat=seat) == []


def test_kh_8_a_demand_is_public_and_the_same_dealer_redeals() -> None:
    state = kh(KH_WEAK, then=[order36(KH, KH_BASE)])
    act(state, "1:demand_redeal")
    for seat in range(4):
        assert events(state, "demand_redeal", seat=seat) == [{"type": "demand_redeal", "seat": 1, "redeals": 1}]
    assert [(e["dealer"], e["redeal"]) for e in events(state, "deal")] == [(0, 0), (0, 1)]
    assert hand(state, 1) == canon(KH, KH_BASE[1]) and state.to_act == 1
    assert state.observe(0)["redeals"] == 1


def test_kh_8_at_most_three_redeals() -> None:
    weak = order36(KH, KH_WEAK)
    state = kh(KH_WEAK, then=[weak, weak, weak])
    for _ in range(3):
        act(state, "1:demand_redeal")
    assert state.observe(1)["redeals"] == 3
    assert hand(state, 1) == canon(KH, KH_WEAK[1])  # still a 12-point hand, but no more offers
    assert legal(state)[0].startswith("play(")


def test_kh_9_the_dealers_left_leads_trumps_may_be_led_and_the_winner_leads_next() -> None:
    state = kh(KH_BASE)
    assert state.to_act == 1
    assert legal(state) == [f"play({c})" for c in canon(KH, KH_BASE[1])]  # all trumps, all legal
    act(state, "1:JD", "2:7D", "3:AD", "0:6S")
    assert events(state, "trick")[-1]["winner"] == 1 and state.to_act == 1


def test_kh_10_a_player_must_follow_the_effective_suit() -> None:
    state = kh(KH_BASE)
    act(state, "1:JH")  # a trump lead: hearts do not follow, trumps do
    assert legal(state) == ["play(7D)"]
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS", "3:6D")
    assert legal(state) == ["play(6H)", "play(7H)", "play(8H)"]


def test_kh_11_a_void_player_may_not_discard_an_ace_of_a_suit_not_led() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS")
    assert "play(AC)" not in legal(state)  # seat 3 is void in hearts, clubs not led
    assert legal(state) == [f"play({c})" for c in canon(KH, "KC 9C 6D 9D 10D KD AD JH")]
    state = kh(KH_BASE)
    act(state, "1:JD", "2:7D", "3:AD")
    assert "play(AS)" not in legal(state)  # seat 0 is void in trumps, spades not led
    assert len(legal(state)) == 8


def test_kh_11_the_leader_is_never_restricted() -> None:
    state = kh(KH_BASE, dealer=3)  # seat 0 leads, with AS, before any spade lead
    assert state.to_act == 0 and "play(AS)" in legal(state)


def test_kh_11_a_led_suit_lifts_the_restriction() -> None:
    state = kh(KH_ACE_AS_AC.hands)
    KH_ACE_AS_AC.run(state)  # clubs were led in trick 1; hearts are led now and seat 1 is void
    assert state.to_act == 1 and hand(state, 1) == ["AC", "AS"]
    assert legal(state) == ["play(AC)"]
    assert state.observe(1)["suits_led"] == ["C", "H", "trump"]


def test_kh_12_the_highest_trump_wins_else_the_highest_of_the_led_suit() -> None:
    state = kh(KH_VOID)
    act(state, "1:AH", "2:KS", "3:6D", "0:6H")
    assert events(state, "trick")[-1]["winner"] == 3  # the lowest trump beats AH
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS", "3:KC", "0:8H")  # no trump: the highest heart; KS and KC cannot win
    assert events(state, "trick")[-1]["winner"] == 1


def test_kh_13_six_of_clubs_catches_the_queen_and_the_deal_ends() -> None:
    state = kh(KH_CATCH)
    act(state, "1:QC")
    assert legal(state) == ["play(6C)"]
    act(state, "2:6C")
    assert events(state, "catch") == [{"type": "catch", "seat": 2, "card": "6C", "queen_seat": 1,
                                       "queen": "QC", "team": "A"}]
    assert events(state, "eyes") == [{"type": "eyes", "team": "A", "eyes": 4, "reason": "catch", "bonus": 0,
                                      "totals": {"A": 4, "B": 0}}]
    assert events(state, "trick") == [] and events(state, "deal_score") == []  # no card points counted
    assert [e["seat"] for e in events(state, "play")] == [1, 2]  # seat 3 never plays
    assert state.observe(0)["deal"] == 2 and state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_13_the_catch_takes_the_pending_bonus() -> None:
    state = kh(KH_60_60.hands, then=[order36(KH, rotate(KH_CATCH, 1), dealer=1)])
    KH_60_60.run(state)
    assert state.observe(0)["bonus"] == 2
    act(state, "2:QC", "3:6C")  # team A leads QC, team B catches it
    assert events(state, "eyes")[-1] == {"type": "eyes", "team": "B", "eyes": 6, "reason": "catch", "bonus": 2,
                                         "totals": {"A": 0, "B": 6}}
    assert state.observe(0)["bonus"] == 0


def test_kh_14_eyes_for_more_than_60_and_more_than_90() -> None:
    for deal, team, eyes in ((KH_91_29, "A", 4), (KH_90_30, "A", 2), (KH_61_59, "A", 2), (KH_45_75, "B", 2)):
        state = kh(deal.hands)
        deal.run(state)
        assert events(state, "eyes") == [{"type": "eyes", "team": team, "eyes": eyes, "bonus": 0,
                                          "reason": "no_save" if eyes == 4 else "over_60",
                                          "totals": {team: eyes, "AB".replace(team, ""): 0}}]


def test_kh_14_eggs_give_the_next_eyes_a_bonus() -> None:
    state = kh(KH_60_60.hands, then=[order36(KH, KH_75_45_D1.hands, dealer=1)])
    KH_60_60.run(state)
    assert events(state, "deal_score")[0]["points"] == {"A": 60, "B": 60}
    assert events(state, "eggs") == [{"type": "eggs", "bonus": 2}] and events(state, "eyes") == []
    KH_75_45_D1.run(state)
    assert events(state, "eyes")[-1]["eyes"] == 4 and state.observe(0)["bonus"] == 0


def test_kh_14_lyusya_lose_ends_the_game() -> None:
    state = kh(KH_ALL_A.hands, lyusya="lose")
    KH_ALL_A.run(state)
    assert events(state, "deal_score")[0]["tricks"] == {"A": 9, "B": 0}
    assert events(state, "lyusya") == [{"type": "lyusya", "team": "A", "option": "lose"}]
    assert state.is_terminal and events(state, "eyes") == []
    result = state.result().to_dict()
    assert result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]


def test_kh_14_lyusya_zero_zeroes_the_other_teams_eyes_then_scores() -> None:
    state = kh(KH_45_75.hands, then=[order36(KH, KH_ALL_A_D1.hands, dealer=1)], lyusya="zero")
    KH_45_75.run(state)
    assert state.observe(0)["eyes"] == {"A": 0, "B": 2}
    KH_ALL_A_D1.run(state)
    assert events(state, "lyusya")[0]["option"] == "zero"
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0} and not state.is_terminal


def test_kh_14_lyusya_off_only_scores() -> None:
    state = kh(KH_45_75.hands, then=[order36(KH, KH_ALL_A_D1.hands, dealer=1)], lyusya="off")
    KH_45_75.run(state)
    KH_ALL_A_D1.run(state)
    assert state.observe(0)["eyes"] == {"A": 4, "B": 2}


def test_kh_15_the_first_team_to_reach_the_target_wins() -> None:
    state = kh(KH_61_59.hands, target_eyes=2)
    KH_61_59.run(state)
    assert state.is_terminal and not state.result().aborted
    assert state.result().to_dict()["winner_team"] == "A"
    state = kh(KH_61_59.hands, target_eyes=3)
    KH_61_59.run(state)
    assert not state.is_terminal


def test_kh_15_the_deal_limit_aborts_and_ranks_by_eyes() -> None:
    state = kh(KH_61_59.hands, max_deals=1)
    KH_61_59.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]
    state = kh(KH_60_60.hands, max_deals=1)
    KH_60_60.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] is None and result["places"] == [1, 1, 1, 1]
    assert result["finishing_order"] == [[0, 1, 2, 3]]


def test_kh_16_result() -> None:
    state = kh(KH_91_29.hands, target_eyes=4)
    KH_91_29.run(state)
    result = state.result().to_dict()
    assert result == {"places": [1, 3, 1, 3], "finishing_order": [[0, 2], [1, 3]], "scores": [4, 0, 4, 0],
                      "aborted": False, "teams": {"A": [0, 2], "B": [1, 3]}, "winner_team": "A",
                      "eyes": {"A": 4, "B": 0}}
    assert events(state, "end") == [{"type": "end", "winner_team": "A", "eyes": {"A": 4, "B": 0},
                                     "aborted": False}]


def test_kh_17_visibility() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS")
    obs = state.observe(3)
    assert obs["hand"] == canon(KH, KH_VOID[3])
    assert obs["hand_sizes"] == [9, 8, 8, 9] and obs["dealer"] == 0
    assert obs["trick"] == [{"seat": 1, "card": "9H"}, {"seat": 2, "card": "KS"}]
    assert obs["suits_led"] == ["H"] and obs["points"] == {"A": 0, "B": 0}
    assert obs["eyes"] == {"A": 0, "B": 0} and obs["bonus"] == 0
    assert [e["seat"] for e in obs["events"] if e["type"] == "hand"] == [3]
    shown = {c for e in obs["events"] for c in e.get("cards", [])} | {e.get("card") for e in obs["events"]}
    assert not shown & set(KH_VOID[0].split() + KH_VOID[1].split() + KH_VOID[2].split()) - {"9H", "KS"}
    act(state, "3:6D", "0:6H")
    assert state.observe(2)["tricks"] == [{"leader": 1, "cards": ["9H", "KS", "6D", "6H"], "winner": 3,
                                           "points": 4}]


def test_kh_18_one_shuffle_per_deal_or_redeal() -> None:
    seed = next(s for s in range(100) if legal(KH.new_state(4, s))[0] == "demand_redeal")
    state = KH.new_state(4, seed)
    rng = SplitMix64(seed)
    first = list(range(36))
    rng.shuffle(first)
    second = list(range(36))
    rng.shuffle(second)
    assert hand(state, 1) == texts(KH, sorted(first[0::4]))
    state.apply(Action("demand_redeal"))
    assert hand(state, 1) == texts(KH, sorted(second[0::4]))


def test_kh_example_1_trump_order() -> None:
    def beats(a: str, b: str) -> bool:
        return KH_RULES.winner([idx(KH, b), idx(KH, a)]) == 1

    assert beats("6C", "QC") and beats("QD", "JC") and beats("JD", "AD")
    state = kh(KH_BASE)
    act(state, "1:JD", "2:7D", "3:AD", "0:6S")
    assert events(state, "trick")[-1]["winner"] == 1  # JD > AD
    state = kh(KH_VOID)
    act(state, "1:AH", "2:KS", "3:6D", "0:6H")
    assert events(state, "trick")[-1]["winner"] == 3  # 6D > AH


def test_kh_example_2_following_a_trump_lead() -> None:
    state = kh(KH_BASE)
    act(state, "1:JH")
    assert hand(state, 2) == canon(KH, KH_BASE[2]) and legal(state) == ["play(7D)"]


def test_kh_example_3_queens_are_not_hearts() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H")
    assert {"play(QH)", "play(KS)", "play(7D)"} <= set(legal(state))
    assert legal(state) == [f"play({c})" for c in canon(KH, KH_VOID[2])]


def test_kh_example_4_ace_rule() -> None:
    state = kh(KH_ACE_AS_7D.hands)
    KH_ACE_AS_7D.run(state)
    assert hand(state, 1) == ["7D", "AS"] and "S" not in state.observe(1)["suits_led"]
    assert legal(state) == ["play(7D)"]
    state = kh(KH_ACE_AS_AC.hands)
    KH_ACE_AS_AC.run(state)
    assert hand(state, 1) == ["AC", "AS"] and legal(state) == ["play(AC)"]
    state = kh(KH_ACE_ONLY_AS.hands)
    KH_ACE_ONLY_AS.run(state)
    assert hand(state, 2) == ["AS"] and "S" not in state.observe(2)["suits_led"]
    assert legal(state) == ["play(AS)"]


def test_kh_example_5_six_of_clubs_catches_the_queen() -> None:
    state = kh(KH_CATCH)
    act(state, "1:QC", "2:6C")
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}
    assert state.observe(0)["deal"] == 2 and not any(e["seat"] == 3 for e in events(state, "play"))


def test_kh_example_6_reverse_order() -> None:
    state = kh(KH_REVERSE, dealer=3)
    act(state, "0:6C")
    assert legal(state) == ["play(QC)"]
    act(state, "1:QC")
    assert events(state, "catch")[0]["team"] == "A"
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_example_7_partners() -> None:
    state = kh(KH_PARTNERS, dealer=3)
    act(state, "0:QC", "1:7C", "2:6C", "3:6D")
    assert events(state, "catch") == []
    assert events(state, "trick")[-1]["winner"] == 2 and state.observe(0)["deal"] == 1


def test_kh_example_8_eyes() -> None:
    for deal, eyes in ((KH_91_29, 4), (KH_90_30, 2), (KH_61_59, 2)):
        state = kh(deal.hands)
        deal.run(state)
        assert events(state, "deal_score")[0]["points"]["A"] in (91, 90, 61)
        assert state.observe(0)["eyes"] == {"A": eyes, "B": 0}
    state = kh(KH_60_60.hands, then=[order36(KH, KH_75_45_D1.hands, dealer=1)])
    KH_60_60.run(state)
    assert state.observe(0)["bonus"] == 2 and state.observe(0)["eyes"] == {"A": 0, "B": 0}
    KH_75_45_D1.run(state)
    assert events(state, "deal_score")[1]["points"] == {"A": 75, "B": 45}
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_example_9_lyusya() -> None:
    state = kh(KH_ALL_A.hands)
    KH_ALL_A.run(state)
    assert state.is_terminal and state.result().to_dict()["winner_team"] == "A"


def test_kh_example_10_redeal_threshold() -> None:
    assert KH_RULES.hand_points(sum(1 << idx(KH, c) for c in KH_WEAK[1].split())) == 12
    assert KH_RULES.hand_points(sum(1 << idx(KH, c) for c in KH_WEAK[2].split())) == 15
    state = kh(KH_WEAK)
    assert state.to_act == 1 and legal(state) == ["demand_redeal", "pass"]
    act(state, "1:pass")  # seat 2 (an ace and a king) is not asked
    assert legal(state)[0].startswith("play(") and state.to_act == 1
