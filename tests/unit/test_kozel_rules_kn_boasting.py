"""The boasting rules of ``kozel-nn`` (RULES.md section 5: KN-18 … KN-24), on hand-made boasting decks
(kozel_rules_helpers.py says how they are written).
"""

from __future__ import annotations

from kozel_rules_helpers import (
    BOAST_EXAMPLE,
    BOAST_KEEP,
    BOAST_MISDEAL,
    BOAST_TIE,
    BOAST_TWO,
    KN,
    act,
    canon,
    events,
    finish_deal,
    hand,
    kn_boasting,
    legal,
    pass_offers,
    phase,
    texts,
)

from referee.games.cards import bits
from referee.rng import SplitMix64


def test_kn_18_visibility_during_boasting() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    act(state, "2:lay(KH)")
    obs = state.observe(3)
    assert obs["phase"] == "follow_lay" and obs["hand"] == ["9D", "AS"]
    assert obs["boasting"] == {"boaster": 2, "stacks": 1, "received": [0, 0, 4, 2],
                               "laid": [[{"seat": 2, "card": None}]], "winners": None}
    mine = state.observe(2)["boasting"]["laid"]
    assert mine == [[{"seat": 2, "card": "KH"}]]
    seen = state.events(0, 3)
    pairs = [e for e in seen if e["type"] == "pair"]
    assert [(e["seat"], e.get("cards")) for e in pairs][-3:] == [(2, None), (2, None), (3, ["AS", "9D"])]
    assert [e for e in seen if e["type"] == "lay"] == [{"type": "lay", "seat": 2, "count": 1, "face_up": False}]
    act(state, "3:lay(9D)", "0:lay(AH)", "1:lay(10H)")
    reveal = events(state, "reveal", seat=3)[0]
    assert reveal["cards"] == ["KH"] and reveal["stacks"][0]["cards"] == ["KH", "9D", "AH", "10H"]
    assert state.observe(3)["boasting"]["laid"][0][0] == {"seat": 2, "card": "KH"}
    fills = events(state, "fill", seat=3)
    assert all(("cards" in e) == (e["seat"] == 3) for e in fills)


def test_kn_19_one_shuffle_per_deal_and_per_keep() -> None:
    state = kn_boasting(BOAST_KEEP)
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal")
    rng = SplitMix64(state.rng.state)
    cards = sorted(c for h in state.hands for c in bits(h))
    assert len(cards) == 32
    rng.shuffle(cards)  # the hand cards only, in canonical order
    act(state, "0:keep")
    for seat in range(4):
        assert hand(state, seat) == texts(KN, sorted(cards[(seat - 2) % 4::4]))


def test_kn_20_pairs_until_a_non_trump_and_the_boasters_lay() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    assert state.to_act == 2 and phase(state) == "boast_lay"
    assert hand(state, 2) == canon(KN, "8C QH KH 7C")
    assert [e["cards"] for e in events(state, "pair", seat=2)] == [["8C", "QH"], ["KH", "7C"]]
    assert legal(state) == ["lay(KH)"]
    state = kn_boasting(BOAST_TWO)
    assert legal(state) == ["lay(KH)", "lay(KH,9S)", "lay(9S)", "lay(9S,KH)"]


def test_kn_20_followers_lay_k_non_trumps_face_up() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    act(state, "2:lay(KH)")
    assert state.to_act == 3 and legal(state) == ["lay(9D)", "lay(AS)"]
    act(state, "3:lay(9D)")
    assert hand(state, 3) == ["AS"]
    state = kn_boasting(BOAST_TWO)
    act(state, "2:lay(KH,9S)")
    assert legal(state) == ["lay(AH,7S)", "lay(7S,AH)"]


def test_kn_20_the_reveal_and_completing_the_hands() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)")
    reveal = events(state, "reveal")[0]
    assert reveal["stacks"] == [{"cards": ["KH", "9D", "AH", "10H"], "winner": 0, "team": "A", "points": 25}]
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    assert state.observe(0)["points"] == {"A": 25, "B": 0}
    fill = {e["seat"]: e["count"] for e in events(state, "fill")}
    assert fill == {2: 5, 3: 7, 0: 7, 1: 7}
    # One card at a time from the top, clockwise from the dealer's left, skipping full hands: seat 2 (three
    # cards kept) gets its fifth and last card on the fifth round; the others get seven.
    order = BOAST_EXAMPLE[5:31]
    expected = {2: [], 3: [], 0: [], 1: []}
    seat, sizes = 2, {2: 3, 3: 1, 0: 1, 1: 1}
    for card in order:
        while sizes[seat] == 8:
            seat = (seat + 1) % 4
        expected[seat].append(card)
        sizes[seat] += 1
        seat = (seat + 1) % 4
    assert {e["seat"]: e["cards"] for e in events(state, "fill")} == {
        s: texts(KN, cards) for s, cards in expected.items()}


def test_kn_20_a_hand_over_t_cards_is_a_misdeal() -> None:
    state = kn_boasting(BOAST_MISDEAL, BOAST_EXAMPLE)
    assert hand(state, 2) == canon(KN, "7C 8C 9C KC 10C AC JD JH JS 6H")
    act(state, "2:lay(6H)", "3:lay(7H)", "0:lay(9H)", "1:lay(KH)")
    assert events(state, "misdeal") == [{"type": "misdeal", "dealer": 1}]
    assert [(e["dealer"], e["redeal"], e.get("boaster")) for e in events(state, "deal")][-2:] == [(1, 0, 2), (1, 0, 2)]
    assert state.observe(0)["redeals"] == 0 and state.observe(0)["points"] == {"A": 0, "B": 0}
    assert state.to_act == 2 and legal(state) == ["lay(KH)"]  # the second boasting, from a new shuffle



def test_kn_21_after_boasting_the_main_play_has_9_minus_k_tricks() -> None:
    state = kn_boasting(BOAST_TIE)
    act(state, "2:lay(KH,9S)", "3:lay(7S,10S)", "0:lay(10H,KS)", "1:lay(6H,6S)")
    pass_offers(state)
    assert [h.bit_count() for h in state.hands] == [7, 7, 7, 7]
    start = state.log_size
    finish_deal(state)
    assert len(events(state, "trick", since=start)) == 7 and not events(state, "catch", since=start)
    assert events(state, "deal_score", since=start)[0]["tricks"] in ({"A": a, "B": 9 - a} for a in range(10))



def test_kn_21_hand_size_is_9_minus_k_once_the_boaster_has_laid() -> None:
    """KN-20 steps 4 and 7, KN-21, WIRE.md `hand_size`: k is public once the boaster lays, and with it t = 9 − k,
    so every seat is shown t from the first `follow_lay` on, not only from the reveal (issue 35, item 9b)."""
    state = kn_boasting(BOAST_TIE)
    assert [state.observe(s)["hand_size"] for s in range(4)] == [9] * 4  # boast_lay: k is not chosen yet
    act(state, "2:lay(KH,9S)")
    assert phase(state) == "follow_lay"
    assert [state.observe(s)["hand_size"] for s in range(4)] == [7] * 4
    act(state, "3:lay(7S,10S)", "0:lay(10H,KS)", "1:lay(6H,6S)")
    assert [state.observe(s)["hand_size"] for s in range(4)] == [7] * 4
    state = kn_boasting(BOAST_EXAMPLE)
    act(state, "2:lay(KH)")
    assert [state.observe(s)["hand_size"] for s in range(4)] == [8] * 4


def test_kn_21_issue_35_seed_follow_lay_shows_9_minus_k() -> None:
    """KN-21 (issue 35, item 9b): seed 142, boasting, target 19, every seat taking its first legal action. Deal 1
    ends at the third demand (KN-16); in deal 2 the boaster lays one card at decision 3, and at decision 4 seat 3,
    in `follow_lay`, used to be shown 9."""
    state = KN.new_state(4, 142, {"boasting": True, "target": 19})
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    view = state.observe(state.to_act)
    assert (state.to_act, view["phase"], view["boasting"]["stacks"], view["hand_size"]) == (3, "follow_lay", 1, 8)


def test_kn_22_the_bigger_stack_leads_and_stack_1_breaks_ties() -> None:
    state = kn_boasting(BOAST_TWO)
    act(state, "2:lay(KH,9S)", "3:lay(7S,AH)", "0:lay(6S,10H)", "1:lay(6H,AS)")
    stacks = events(state, "reveal")[0]["stacks"]
    assert [(s["winner"], s["points"]) for s in stacks] == [(2, 4), (1, 32)]
    pass_offers(state)
    assert state.to_act == 1 and events(state, "first_lead")[-1]["seat"] == 1
    state = kn_boasting(BOAST_TIE)
    act(state, "2:lay(KH,9S)", "3:lay(7S,10S)", "0:lay(10H,KS)", "1:lay(6H,6S)")
    stacks = events(state, "reveal")[0]["stacks"]
    assert [(s["winner"], s["points"]) for s in stacks] == [(0, 14), (3, 14)]
    pass_offers(state)
    assert state.to_act == 0


def test_kn_22_a_misdealt_boasting_names_no_first_leader() -> None:
    """KN-20 step 7, KN-22, WIRE.md `reveal`: a misdeal voids the deal, so nobody leads trick 1 after this
    boasting. The reveal still shows the stacks and their winners, but its `first_leader` is null, and so is the
    observation's in the new boasting (issue 35, item 9c)."""
    state = kn_boasting(BOAST_MISDEAL, BOAST_EXAMPLE)
    act(state, "2:lay(6H)", "3:lay(7H)", "0:lay(9H)", "1:lay(KH)")
    for seat in range(4):
        (reveal,) = events(state, "reveal", seat=seat)
        assert reveal["stacks"] == [{"cards": ["6H", "7H", "9H", "KH"], "winner": 1, "team": "B", "points": 4}]
        assert reveal["first_leader"] is None
        assert state.observe(seat)["first_leader"] is None
    kinds = [e["type"] for e in state.events(0, None)]
    assert kinds[kinds.index("reveal") + 1] == "misdeal"
    assert KN.narrate(reveal).endswith("; nobody leads (a misdeal)")


def test_kn_22_issue_35_seed_the_reveal_before_a_misdeal_names_no_first_leader() -> None:
    """KN-22 (issue 35, item 9c): seed 2448240729411936817, boasting, target 24, every seat taking its last legal
    action. Decision 173 is the last follower's lay; the reveal (seat 2 boasted with 9S and 6H, a hand is over 7
    cards) is followed by a misdeal and a new boasting. The reveal used to name seat 1 as the first leader."""
    state = KN.new_state(4, 2448240729411936817, {"boasting": True, "target": 24})
    for _ in range(173):
        state.apply(state.legal_actions()[-1])
    start = state.log_size
    act(state, "1:lay(AS,8D)")
    new = state.events(start, 3)
    assert [e["type"] for e in new][:4] == ["lay", "reveal", "misdeal", "deal"]
    assert [s["winner"] for s in new[1]["stacks"]] == [1, 2] and new[1]["first_leader"] is None



def test_kn_23_state_table() -> None:
    state = kn_boasting(BOAST_KEEP, BOAST_KEEP)
    seen = []
    for step in ("2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal", "0:reboast"):
        seen.append((phase(state), sorted({a.kind for a in state.legal_actions()})))
        act(state, step)
    assert seen == [("boast_lay", ["lay"]), ("follow_lay", ["lay"]), ("follow_lay", ["lay"]),
                    ("follow_lay", ["lay"]), ("redeal_offer", ["demand_redeal", "pass"]),
                    ("reboast_choice", ["keep", "reboast"])]
    assert legal(state) == ["lay(KH)"]  # back to boasting, with the same boaster
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:pass", "0:pass")
    assert phase(state) == "play" and state.to_act == 0


def test_kn_24_keep_leaves_the_stacks_and_redeals_the_hands() -> None:
    state = kn_boasting(BOAST_KEEP)
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)")
    assert events(state, "redeal_eligible")[-1]["teams"] == ["A"]
    act(state, "2:demand_redeal")
    assert state.to_act == 0 and legal(state) == ["reboast", "keep"]
    discard = state.card_places()["discard"]
    act(state, "0:keep")
    assert state.card_places()["discard"] == discard and state.observe(0)["points"] == {"A": 25, "B": 0}
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    assert state.first_leader == 0 and state.observe(0)["redeals"] == 1
    assert events(state, "keep") == [{"type": "keep", "seat": 0}]
    if phase(state) == "redeal_offer":  # KN-15 runs again on the new hands
        pass_offers(state)
    assert state.to_act == 0 and phase(state) == "play"


def test_kn_24_reboast_starts_a_new_boasting_and_the_third_demand_ends_the_deal() -> None:
    state = kn_boasting(BOAST_KEEP, BOAST_KEEP, BOAST_KEEP)
    mult = state.mult
    for demand in range(3):
        act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal")
        if demand < 2:
            act(state, "0:reboast")
            assert state.observe(0)["points"] == {"A": 0, "B": 0} and state.observe(0)["redeals"] == demand + 1
    penalty = events(state, "penalty")[-1]
    assert (penalty["team"], penalty["game_points"], penalty["reason"]) == ("B", 2 * mult, "three_redeals")
    assert events(state, "reboast") == [{"type": "reboast", "seat": 0}] * 2
    assert state.deal_no == 2 and events(state, "deal")[-1]["dealer"] == 2  # not asked reboast/keep
