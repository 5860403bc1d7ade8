"""The rules of ``kozel-nn`` without boasting (RULES.md section 5: KN-1 … KN-17) and its example scenarios, on
hand-made deals (kozel_rules_helpers.py says how they are written). The boasting rules (KN-18 … KN-24) are in
test_kozel_rules_kn_boasting.py.
"""

from __future__ import annotations

import pytest
from kozel_rules_helpers import (
    BOAST_EXAMPLE,
    KN,
    KN_31_89,
    KN_59_61,
    KN_60_60,
    KN_75_45_D1,
    KN_90_30,
    KN_120_0,
    KN_BASE,
    KN_CATCH,
    KN_ELIGIBLE,
    KN_PARTNERS,
    KN_TRUMP_LEAD,
    act,
    canon,
    events,
    finish_deal,
    hand,
    idx,
    kn,
    kn_boasting,
    legal,
    order36,
    pass_offers,
    phase,
    rotate,
    texts,
)

from referee.errors import ConfigError
from referee.games.cards import bits
from referee.games.kozel.nn import KN_RULES, NNState
from referee.rng import SplitMix64

# ------------------------------------------------------------------------------------------ kozel-nn (KN)

def test_kn_1_two_teams_and_game_points_are_penalties() -> None:
    assert KN.teams(4) == ((0, 2), (1, 3))
    with pytest.raises(ConfigError):
        KN.new_state(3, 1)
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}  # the team that was caught is penalised


def test_kn_2_the_deck_has_36_cards() -> None:
    state = KN.new_state(4, 2)
    assert sorted(c for cards in state.card_places().values() for c in cards) == list(range(36))


def test_kn_3_trumps_and_effective_suits() -> None:
    order = "7C 8C 9C KC 10C AC JD JH JS JC QD QH QS QC 6C".split()
    trumps = [idx(KN, t) for t in order]
    for weak, strong in zip(trumps, trumps[1:], strict=False):
        assert KN_RULES.winner([weak, strong]) == 1 and KN_RULES.winner([strong, weak]) == 0
    assert KN_RULES.trumps == sum(1 << c for c in trumps) and KN_RULES.eff_mask[0] == 0  # clubs are all trumps
    for suit in "DHS":
        plain = [idx(KN, r + suit) for r in "6 7 8 9 K 10 A".split()]
        assert bits(KN_RULES.eff_mask["CDHS".index(suit)]) == sorted(plain)
        for weak, strong in zip(plain, plain[1:], strict=False):
            assert KN_RULES.winner([weak, strong]) == 1


def test_kn_4_card_points() -> None:
    points = {t: KN_RULES.points[idx(KN, t)] for t in "6H 7H 8H 9H JH QH KH 10H AH".split()}
    assert points == {"6H": 0, "7H": 0, "8H": 0, "9H": 0, "JH": 2, "QH": 3, "KH": 4, "10H": 10, "AH": 11}
    assert sum(KN_RULES.points) == 120


def test_kn_5_options_and_the_multiplier() -> None:
    assert KN.configure() == {"boasting": False, "target": 12}
    assert KN.configure({"boasting": "true"})["boasting"] is True
    with pytest.raises(ConfigError):
        KN.configure({"boast": True})
    obs = kn(KN_BASE).observe(0)
    assert obs["mult"] == 1 and obs["game_points"] == {"A": 0, "B": 0} and obs["redeals"] == 0


def test_kn_6_deals_are_dealt_in_turn_clockwise() -> None:
    state = kn(KN_BASE, dealer=2)
    finish_deal(state)
    finish_deal(state)
    assert [e["dealer"] for e in events(state, "deal")][:3] == [2, 3, 0]


def test_kn_7_nine_cards_each_one_at_a_time_from_the_dealers_left() -> None:
    seed, dealer = 12, 1
    state = KN.new_state(4, seed, dealer=dealer)
    order = list(range(36))
    SplitMix64(seed).shuffle(order)
    for seat in range(4):
        assert hand(state, seat) == texts(KN, sorted(order[(seat - dealer - 1) % 4::4]))


def test_kn_8_the_holder_of_ad_leads_deal_1_even_after_a_redeal() -> None:
    state = kn(KN_BASE)
    assert state.to_act == 0 and legal(state) == ["play(AD)"]
    state = kn(KN_ELIGIBLE, then=[order36(KN, KN_BASE)])
    act(state, "2:demand_redeal")
    assert state.to_act == 0 and legal(state) == ["play(AD)"]


def test_kn_8_later_deals_are_led_by_the_dealers_left() -> None:
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible, order36(KN, KN_BASE, dealer=1)])
    for _ in range(3):
        act(state, "2:demand_redeal")  # KN-16 ends deal 1
    assert state.deal_no == 1 and events(state, "deal")[-1]["dealer"] == 1
    assert state.to_act == 2  # seat 0 holds AD, but it is not deal 1
    assert legal(state) == [f"play({c})" for c in canon(KN, KN_BASE[2])]


def test_kn_9_a_leader_holding_a_non_trump_may_not_lead_a_trump() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD", "1:6D", "2:8D", "3:10D")
    assert state.to_act == 0 and legal(state) == ["play(7H)"]
    act(state, "0:7H", "1:6H", "2:9H", "3:AH")
    assert state.to_act == 3 and hand(state, 3) == canon(KN, "6C QH QD JC JS JH JD")
    assert legal(state) == [f"play({c})" for c in canon(KN, "6C QH QD JC JS JH JD")]


def test_kn_10_following_the_effective_suit() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD")
    assert legal(state) == ["play(6D)", "play(7D)"]
    act(state, "1:6D")
    assert legal(state) == ["play(8D)", "play(9D)", "play(KD)"]
    act(state, "2:8D")
    assert legal(state) == ["play(10D)"]  # QD and JD are trumps, not diamonds
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C")
    assert legal(state) == ["play(JD)"]
    act(state, "1:JD")
    assert legal(state) == [f"play({c})" for c in canon(KN, KN_TRUMP_LEAD[2]) if c != "7D"]  # void: any card


def test_kn_11_the_highest_trump_wins_and_the_winner_leads() -> None:
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D")
    assert events(state, "trick")[-1] == {"type": "trick", "leader": 0, "cards": ["AD", "6D", "7D", "9D"],
                                          "winner": 0, "team": "A", "points": 11}
    act(state, "0:10C", "1:JD", "2:AH", "3:QD")
    trick = events(state, "trick")[-1]
    assert trick["winner"] == 3 and trick["team"] == "B" and trick["points"] == 10 + 2 + 11 + 3
    assert state.to_act == 3 and state.observe(0)["points"] == {"A": 11, "B": 26}


def test_kn_12_shamok_catches_shamka() -> None:
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert events(state, "catch")[0] == {"type": "catch", "seat": 2, "card": "6C", "queen_seat": 1,
                                         "queen": "QC", "team": "A"}
    assert events(state, "penalty") == [{"type": "penalty", "team": "B", "game_points": 4, "reason": "catch",
                                         "mult": 1, "totals": {"A": 0, "B": 4}}]
    assert events(state, "trick") == [] and state.observe(0)["deal"] == 2


def test_kn_12_the_catch_is_multiplied_by_eggs() -> None:
    state = kn(KN_60_60.hands, then=[order36(KN, rotate(KN_CATCH, 2), dealer=1)])
    KN_60_60.run(state)
    assert state.observe(0)["mult"] == 2
    pass_offers(state)
    act(state, "2:AD", "3:QC", "0:6C")
    assert events(state, "penalty")[-1]["game_points"] == 8 and state.observe(0)["mult"] == 1


@pytest.mark.parametrize(("deal", "team", "points", "reason"), [
    ("KN_120_0", "B", 6, "no_points"), ("KN_90_30", "B", 4, "chiper"),
    ("KN_31_89", "A", 2, "pair"), ("KN_59_61", "A", 2, "pair")])
def test_kn_13_deal_scoring(deal: str, team: str, points: int, reason: str) -> None:
    scripted = globals()[deal]
    state = kn(scripted.hands)
    scripted.run(state)
    other = "AB".replace(team, "")
    assert events(state, "penalty") == [{"type": "penalty", "team": team, "game_points": points,
                                         "reason": reason, "mult": 1, "totals": {team: points, other: 0}}]


def test_kn_13_eggs_double_the_multiplier() -> None:
    state = kn(KN_60_60.hands, then=[order36(KN, KN_75_45_D1.hands, dealer=1)])
    KN_60_60.run(state)
    assert events(state, "eggs") == [{"type": "eggs", "mult": 2}] and events(state, "penalty") == []
    KN_75_45_D1.run(state)
    assert events(state, "penalty")[-1]["game_points"] == 4 and events(state, "penalty")[-1]["mult"] == 2
    assert state.observe(0)["mult"] == 1


def three_redeal_orders(deals: int) -> list[list[int]]:
    """Orders in which QC, QS and QH go to the dealer's left neighbour, whoever deals: the dealer's team is
    eligible. Three orders a deal (the deal and two redeals; the third demand deals nothing)."""
    first = [idx(KN, t) for t in ("QC", "7C", "QS", "8C", "QH")]
    order = first + [c for c in range(36) if c not in first]
    return [order] * (3 * deals)


def test_kn_14_the_first_team_to_reach_the_target_loses() -> None:
    orders = three_redeal_orders(11)
    state = NNState(KN, 4, 0, KN.configure(), 0, deck_orders=orders)
    for deal in range(11):
        dealer = deal % 4
        for _ in range(3):
            assert events(state, "redeal_eligible")[-1]["teams"] == ["AB"[dealer & 1]]
            act(state, f"{(dealer + 2) % 4}:demand_redeal")  # the first offer goes to the dealer's partner
        if deal == 9:
            assert state.observe(0)["game_points"] == {"A": 10, "B": 10}
    assert state.is_terminal
    result = state.result().to_dict()
    assert result["game_points"] == {"A": 12, "B": 10} and result["winner_team"] == "B"
    assert result["places"] == [3, 1, 3, 1]


def test_kn_14_the_deal_limit_aborts_and_ranks_by_fewer_points() -> None:
    state = kn(KN_CATCH, max_deals=1)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]
    state = kn(KN_60_60.hands, max_deals=1)
    KN_60_60.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] is None and result["places"] == [1, 1, 1, 1]


def test_kn_15_eligible_teams_are_announced_and_their_members_offered() -> None:
    state = kn(KN_ELIGIBLE, then=[order36(KN, KN_BASE)])
    for seat in range(4):
        assert events(state, "redeal_eligible", seat=seat) == [{"type": "redeal_eligible", "teams": ["A"]}]
    assert state.observe(2)["eligible"] == ["A"]
    assert state.to_act == 2 and legal(state) == ["demand_redeal", "pass"]  # clockwise from the dealer's left
    act(state, "2:pass")
    assert state.to_act == 0 and legal(state) == ["demand_redeal", "pass"]
    assert events(state, "pass", seat=0) == [] and events(state, "pass", seat=2)[0]["offer"] == "redeal"
    act(state, "0:demand_redeal")
    assert [(e["dealer"], e["redeal"]) for e in events(state, "deal")] == [(0, 0), (0, 1)]
    assert hand(state, 0) == canon(KN, KN_BASE[0]) and state.observe(0)["redeals"] == 1


def test_kn_15_qd_alone_is_eligible_and_qh_is_not() -> None:
    state = kn(KN_ELIGIBLE)
    assert events(state, "redeal_eligible")[0]["teams"] == ["A"]  # A holds only QD, B holds QH


def test_kn_16_the_third_demand_gives_the_dealers_team_a_pair() -> None:
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible])
    act(state, "2:demand_redeal", "2:demand_redeal", "2:pass", "0:demand_redeal")
    assert events(state, "penalty") == [{"type": "penalty", "team": "A", "game_points": 2, "mult": 1,
                                         "reason": "three_redeals", "totals": {"A": 2, "B": 0}}]
    assert state.deal_no == 1 and events(state, "deal")[-1]["dealer"] == 1
    assert state.observe(0)["redeals"] == 0


def test_kn_17_result() -> None:
    state = kn(KN_CATCH, target=4)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.result().to_dict() == {
        "places": [1, 3, 1, 3], "finishing_order": [[0, 2], [1, 3]], "scores": [0, 4, 0, 4], "aborted": False,
        "teams": {"A": [0, 2], "B": [1, 3]}, "winner_team": "A", "game_points": {"A": 0, "B": 4}}


def test_kn_example_1_deal_1_lead() -> None:
    state = kn(KN_BASE)
    assert legal(state) == ["play(AD)"]


def test_kn_example_2_trump_order() -> None:
    assert KN_RULES.winner([idx(KN, "AH"), idx(KN, "7C")]) == 1
    assert KN_RULES.winner([idx(KN, "JC"), idx(KN, "QD")]) == 1
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C", "1:JD", "2:AH", "3:QD")
    assert events(state, "trick")[-1]["winner"] == 3


def test_kn_example_3_lead_restriction() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD", "1:6D", "2:8D", "3:10D")
    assert "QS" in hand(state, 0) and legal(state) == ["play(7H)"]
    act(state, "0:7H", "1:6H", "2:9H", "3:AH")
    assert len(legal(state)) == 7


def test_kn_example_4_following_a_trump_lead() -> None:
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C")
    assert {"JD", "AS"} <= set(hand(state, 1)) and legal(state) == ["play(JD)"]


def test_kn_example_5_scoring() -> None:
    for deal, penalty in ((KN_120_0, 6), (KN_90_30, 4), (KN_31_89, 2), (KN_59_61, 2)):
        state = kn(deal.hands)
        deal.run(state)
        assert events(state, "penalty")[0]["game_points"] == penalty
    state = kn(KN_60_60.hands, then=[order36(KN, KN_75_45_D1.hands, dealer=1)])
    KN_60_60.run(state)
    assert state.observe(0)["mult"] == 2
    KN_75_45_D1.run(state)
    assert events(state, "deal_score")[-1]["points"] == {"A": 75, "B": 45}
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}


def test_kn_example_6_shamka_caught() -> None:
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}


def test_kn_example_7_partners() -> None:
    state = kn(KN_PARTNERS)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6D", "3:6C")
    assert events(state, "catch") == [] and events(state, "trick")[-1]["winner"] == 3


def test_kn_example_8_end_of_game() -> None:
    state = NNState(KN, 4, 0, KN.configure(), 0, deck_orders=three_redeal_orders(11))
    while state.deal_no < 10:  # every deal ends with three demands: the dealer's team gets a pair
        act(state, "demand_redeal")
    assert state.observe(0)["game_points"] == {"A": 10, "B": 10} and state.deal_dealer == 2
    for _ in range(3):
        act(state, "demand_redeal")
    assert events(state, "penalty")[-1]["team"] == "A" and state.is_terminal
    assert state.result().to_dict()["winner_team"] == "B"


def test_kn_example_9_redeal() -> None:
    assert events(kn(KN_ELIGIBLE), "redeal_eligible")[0]["teams"] == ["A"]  # QD only; team B holds QH
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible])
    act(state, "2:demand_redeal", "2:demand_redeal", "2:demand_redeal")
    assert events(state, "penalty")[-1]["team"] == "A" and events(state, "penalty")[-1]["game_points"] == 2
    assert events(state, "deal")[-1]["dealer"] == 1 and state.deal_no == 1


def test_kn_example_10_boasting() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    assert events(state, "deal")[-1] == {"type": "deal", "dealer": 1, "deal": 2, "redeal": 0, "boaster": 2}
    act(state, "2:lay(KH)")
    assert hand(state, 3) == ["9D", "AS"]
    act(state, "3:lay(9D)")
    assert hand(state, 3) == ["AS"]
    act(state, "0:lay(AH)", "1:lay(10H)")
    stack = events(state, "reveal")[0]["stacks"][0]
    assert stack["winner"] == 0 and stack["team"] == "A" and stack["points"] == 25
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    pass_offers(state)
    assert state.to_act == 0 and phase(state) == "play"
