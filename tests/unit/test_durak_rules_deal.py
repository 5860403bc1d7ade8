"""The rules of `kazaki` and `durak` up to the first attack (RULES.md section 2, KZ-1 … KZ-12: variants, terms,
beating, the deal, the trump, redeals, the first attacker, roles, the cap, table ranks, the priority list and the
state table) and the example scenarios among them, on hand-made deals (durak_rules_helpers.py).
"""

from __future__ import annotations

import random

from durak_rules_helpers import (
    DURAK,
    ENDGAME3_BOUTS,
    KAZAKI,
    SIX_OUT_BOUT_1,
    deal,
    endgame3,
    events,
    four_kazaki,
    hand,
    legal,
    play,
    redeal_deal,
    six_durak_cap,
    six_durak_out,
)

from referee.games.durak import DURAK_DECK, KAZAKI_DECK, DurakState

# ------------------------------------------------------------------------------------- KZ-1 Variant parameters


def test_kz_1_kazaki_parameters() -> None:
    """KZ-1: kazaki has 40 cards 0-9 × K R T F, 2-6 players and the seed's option defaults."""
    assert KAZAKI.deck is KAZAKI_DECK
    assert len(KAZAKI.deck) == 40
    assert KAZAKI.deck.texts[:10] == tuple(f"{r}K" for r in range(10))
    assert (KAZAKI.min_seats, KAZAKI.max_seats) == (2, 6)
    assert KAZAKI.configure() == {"transfer": False, "throw_after_take": False, "withdraw": True,
                                  "redeal_five": True, "max_bouts": 1000}


def test_kz_1_durak_parameters() -> None:
    """KZ-1: durak has 36 cards 6-A × C D H S, 2-6 players and the classic podkidnoy defaults."""
    assert DURAK.deck is DURAK_DECK
    assert len(DURAK.deck) == 36
    assert DURAK.deck.texts[:9] == ("6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC")
    assert (DURAK.min_seats, DURAK.max_seats) == (2, 6)
    assert DURAK.configure() == {"transfer": False, "throw_after_take": True, "withdraw": False,
                                 "redeal_five": False, "max_bouts": 1000}


def test_kz_1_transfer_combines_with_kazaki() -> None:
    """KZ-1: `transfer` may be switched on in kazaki; it is off by default."""
    hands = [["0T", "5K", "1K", "2K", "3R", "4R"], ["5R", "6K", "7K", "8R", "9R", "0F"]]
    plain = deal(KAZAKI, hands, trump="9T")
    play(plain, "0:attack(5K)")
    assert legal(plain) == ["defend(5K,6K)", "defend(5K,7K)", "take"]
    perevodnoy = deal(KAZAKI, hands, trump="9T", transfer=True)
    play(perevodnoy, "0:attack(5K)")
    assert legal(perevodnoy) == ["defend(5K,6K)", "defend(5K,7K)", "transfer(5R)", "take"]


# ------------------------------------------------------------------------------------------------ KZ-2 Terms


def test_kz_2_a_bout_ends_with_the_discard_pile_holding_the_beaten_cards() -> None:
    """KZ-2: a bout is one attack sequence against one defender; beaten cards go to the discard pile for good."""
    state = four_kazaki()
    assert state.observe(0)["bouts"] == 0
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:throw_in(9R)", "1:defend(9R,9T)", "0:pass",
         "3:pass")
    view = state.observe(2)
    assert view["bouts"] == 1
    assert view["discard"] == 4
    assert (view["attacker"], view["defender"]) == (1, 2)


# --------------------------------------------------------------------------------------------- KZ-3 Beating

# Two players, durak, spades trump; seat 0 holds the lowest trump 6S and attacks with 10H or the trump 8S.
BEATING_DURAK = [["6S", "8S", "10H", "6C", "7C", "8C"], ["7S", "AS", "JH", "9H", "10C", "KD"]]


def test_kz_3_a_higher_card_of_the_suit_and_every_trump_beat_a_plain_card() -> None:
    """KZ-3: 10H is beaten by JH (same suit, higher) and by the trumps 7S and AS; not by 9H, 10C or KD."""
    state = deal(DURAK, BEATING_DURAK, trump="QS")
    play(state, "0:attack(10H)")
    assert legal(state) == ["defend(10H,JH)", "defend(10H,7S)", "defend(10H,AS)", "take"]


def test_kz_3_a_trump_is_beaten_only_by_a_higher_trump() -> None:
    """KZ-3: the trump 8S is beaten by AS only; 7S is lower and no plain card beats a trump."""
    state = deal(DURAK, BEATING_DURAK, trump="QS")
    play(state, "0:attack(8S)")
    assert legal(state) == ["defend(8S,AS)", "take"]


def test_kz_example_1_beating() -> None:
    """KZ-3, Example 1 (kazaki, trump T): 3T beats 9R; 9R does not beat 3T; 5T beats 3T; 2K does not beat 1R."""
    state = deal(KAZAKI, [["0T", "9R", "1R", "6K", "7K", "8K"], ["3T", "5T", "2K", "2R", "4K", "7F"]], trump="9T")
    play(state, "0:attack(9R)")
    assert "defend(9R,3T)" in legal(state)
    state = deal(KAZAKI, [["0T", "9R", "1R", "6K", "7K", "8K"], ["3T", "5T", "2K", "2R", "4K", "7F"]], trump="9T")
    play(state, "0:attack(1R)")
    assert legal(state) == ["defend(1R,2R)", "defend(1R,3T)", "defend(1R,5T)", "take"]  # not 2K
    state = deal(KAZAKI, [["0T", "3T", "1K", "2K", "1R", "2R"], ["9R", "5T", "4K", "4R", "6F", "7F"]], trump="9T")
    play(state, "0:attack(3T)")
    assert legal(state) == ["defend(3T,5T)", "take"]  # not 9R


# ----------------------------------------------------------------------------------------------- KZ-4 Deal


def test_kz_4_cards_are_dealt_one_at_a_time_from_the_dealers_left() -> None:
    """KZ-4: card k of the deck goes to seat (dealer+1+k) mod n; the undealt cards form the stock."""
    state = DurakState(KAZAKI, 3, 0, KAZAKI.configure(), 1, deck_order=list(range(40)))
    assert hand(state, 2) == ["0K", "3K", "6K", "9K", "2R", "5R"]  # the dealer's left neighbour: cards 0, 3, 6 …
    assert hand(state, 0) == ["1K", "4K", "7K", "0R", "3R", "6R"]
    assert hand(state, 1) == ["2K", "5K", "8K", "1R", "4R", "7R"]  # the dealer: cards 2, 5 … 17
    assert state.observe(0)["stock"] == 40 - 18
    assert state.observe(0)["hand_sizes"] == [6, 6, 6]


# ---------------------------------------------------------------------------------------------- KZ-5 Trump


def test_kz_5_the_top_card_of_the_stock_is_turned_up() -> None:
    """KZ-5: the first undealt card (8R here) is turned up, fixes the trump suit and stays in the stock."""
    state = DurakState(KAZAKI, 3, 0, KAZAKI.configure(), 1, deck_order=list(range(40)))
    view = state.observe(2)
    assert (view["trump"], view["trump_card"], view["trump_card_holder"]) == ("R", "8R", None)
    assert view["stock"] == 22  # the trump card is still part of the stock
    assert events(state, "trump", seat=2) == [{"type": "trump", "card": "8R", "suit": "R", "holder": None}]


def test_kz_5_the_turned_up_trump_is_the_last_card_drawn() -> None:
    """KZ-5: the face-up trump card lies at the bottom, so the player who empties the stock draws it last."""
    state = endgame3(bouts=1)
    since = state.log_size
    play(state, *ENDGAME3_BOUTS[1])
    draws = events(state, "draw", since=since)
    assert [(d["seat"], d["cards"]) for d in draws] == [
        (1, ["2T", "3K", "4F", "4T", "8F"]), (2, ["1R", "3R", "3T", "4K", "3F"])]
    assert state.observe(0)["stock"] == 0


def test_kz_example_10_six_player_durak_shows_the_dealers_sixth_card_which_stays_in_his_hand() -> None:
    """KZ-5, Example 10 (second part): with 6 players all 36 cards are dealt; the dealer's sixth card QH is
    shown, hearts are trump and QH stays in the dealer's hand."""
    state = deal(DURAK, [
        ["6C", "7C", "8C", "9C", "10C", "QH"],
        ["JC", "QC", "KC", "AC", "6D", "7D"],
        ["8D", "9D", "10D", "JD", "QD", "KD"],
        ["AD", "6H", "7H", "8H", "9H", "10H"],
        ["JH", "KH", "AH", "6S", "7S", "8S"],
        ["9S", "10S", "JS", "QS", "KS", "AS"],
    ], dealer=0)
    view = state.observe(4)
    assert (view["trump"], view["trump_card"], view["trump_card_holder"]) == ("H", "QH", 0)
    assert view["stock"] == 0
    assert view["hand_sizes"] == [6] * 6
    assert "QH" in hand(state, 0)
    assert events(state, "trump", seat=4) == [{"type": "trump", "card": "QH", "suit": "H", "holder": 0}]
    # KZ-7: the lowest trump 6H (seat 3) attacks first.
    assert (state.to_act, state.observe(0)["defender"]) == (3, 4)



def test_kz_5_the_shown_trump_holder_is_null_once_played_even_if_the_dealer_picks_it_up_again() -> None:
    """KZ-5, KZ-23, WIRE.md `trump_card_holder`: it is public that the dealer holds the shown trump card until he
    plays it. Once he has covered with it and taken it back, the observation no longer names him: the card is one
    of the picked-up cards, whose holder the public `pick_up` event tells (issue 35, item 9a)."""
    state = deal(DURAK, [
        ["7S", "8S", "9S", "10S", "JS", "QH"],
        ["7C", "8C", "9C", "10C", "JC", "KC"],
        ["AC", "7D", "8D", "9D", "10D", "JD"],
        ["QD", "KD", "AD", "7H", "8H", "9H"],
        ["10H", "JH", "KH", "AH", "QC", "QS"],
        ["6C", "6D", "6H", "6S", "KS", "AS"],
    ], dealer=0, throw_after_take=False)
    assert [state.observe(s)["trump_card_holder"] for s in range(6)] == [0] * 6
    play(state, "5:attack(6C,6D)")  # KZ-7: seat 5 holds the lowest trump 6H
    assert legal(state) == ["defend(6C,QH)", "defend(6D,QH)", "take"]
    play(state, "0:defend(6C,QH)")
    assert [state.observe(s)["trump_card_holder"] for s in range(6)] == [None] * 6
    play(state, "0:take")
    assert "QH" in hand(state, 0)
    for seat in range(6):
        assert events(state, "pick_up", seat=seat) == [{"type": "pick_up", "seat": 0, "cards": ["6C", "QH", "6D"]}]
        assert state.observe(seat)["trump_card_holder"] is None


def test_kz_5_issue_35_seed_the_dealer_who_takes_back_the_shown_trump_is_not_named_again() -> None:
    """KZ-5 (issue 35, item 9a): 6-player durak, seed 5431834472394595832, transfer, withdraw and redeal_five
    on, throw_after_take off, dealer 0, actions drawn by ``random.Random(0).choice``. The dealer covers with the
    shown QD at decision 46 and takes at 47; from decision 48 on he holds QD again, and the referee used to name
    him as its holder again."""
    state = DurakState(DURAK, 6, 5431834472394595832,
                       DURAK.configure({"transfer": True, "withdraw": True, "redeal_five": True,
                                        "throw_after_take": False}), 0)
    rng = random.Random(0)
    held: list[int | None] = []
    while len(held) < 49:
        held.append(state.observe(state.to_act)["trump_card_holder"])
        state.apply(rng.choice(state.legal_actions()))
    assert held[:47] == [0] * 47 and held[47:] == [None, None]
    seen = state.events(0, 3)  # what another seat saw: the cover and the pick-up, both public (KZ-23)
    assert {"type": "defend", "seat": 0, "attack": "6H", "card": "QD"} in seen
    assert {"type": "pick_up", "seat": 0, "cards": ["6C", "6H", "QD"]} in seen
    assert "QD" in hand(state, 0)


# --------------------------------------------------------------------------------------------- KZ-6 Redeal


def test_kz_6_five_of_a_suit_is_offered_a_redeal_clockwise_from_the_dealers_left() -> None:
    """KZ-6: candidates are asked clockwise from the dealer's left (seat 2, then seat 0), demand before pass."""
    state = redeal_deal()
    assert state.observe(2)["phase"] == "redeal_offer"
    assert state.to_act == 2
    assert legal(state) == ["demand_redeal", "pass"]
    play(state, "2:pass")
    assert state.to_act == 0
    assert legal(state) == ["demand_redeal", "pass"]
    play(state, "0:pass")
    assert state.observe(0)["phase"] == "attack"
    assert state.to_act == 1  # KZ-7: trump F, seat 1 holds the lowest trump 0F


def test_kz_6_a_declined_offer_is_private_and_a_demand_is_public() -> None:
    """KZ-6, C-8: only seat 2 learns that it declined; seat 0's demand is announced to everyone and the same
    dealer deals again."""
    state = redeal_deal()
    play(state, "2:pass", "0:demand_redeal")
    assert events(state, "pass", seat=2) == [{"type": "pass", "seat": 2, "offer": "redeal"}]
    assert events(state, "pass", seat=0) == []
    assert events(state, "pass", seat=3) == []
    for seat in range(4):
        assert events(state, "demand_redeal", seat=seat) == [{"type": "demand_redeal", "seat": 0}]
        assert events(state, "deal", seat=seat) == [{"type": "deal", "dealer": 1, "redeal": 0},
                                                    {"type": "deal", "dealer": 1, "redeal": 1}]
    assert state.observe(3)["redeals"] == 1


def test_kz_6_a_resample_after_a_redeal_leaves_the_abandoned_deal_alone() -> None:
    """KZ-6, C-8: the redealt hands are history. Re-dealing the cards seat 0 cannot see may only relabel the
    current deal; the first deal's hands must stay as they were (every card once)."""
    state = redeal_deal()
    play(state, "2:pass", "0:demand_redeal")
    first = [d for k, _, d in state.log[:state.relabel_from] if k == "hand"]
    for k in range(20):
        other = state.resample_hidden(0, random.Random(k))
        assert [d for kind, _, d in other.log[:state.relabel_from] if kind == "hand"] == first
        hands = [d for kind, _, d in other.log[other.relabel_from:] if kind == "hand"]
        assert hands == other.hands  # nothing played yet: the relabelled deal is the hands as they are now
        union = 0
        for hand in hands:  # noqa: F402 (the helper hand() is not needed here)
            assert not union & hand  # no card in two hands
            union |= hand


def test_kz_6_there_are_at_most_three_redeals() -> None:
    """KZ-6: after the third redeal no more offers are made, even to a player holding five of a suit.

    Seed 1714 (6 players, dealer 0): its first three shuffles each give some hand five cards of one suit."""
    state = deal(KAZAKI, [
        ["5K", "6K", "1R", "2R", "0T", "1T"],
        ["0K", "1K", "2K", "3K", "4K", "0R"],
        ["7K", "3R", "4R", "2T", "3T", "0F"],
        ["8K", "5R", "6R", "4T", "1F", "2F"],
        ["9K", "7R", "5T", "6T", "3F", "4F"],
        ["8R", "9R", "7T", "8T", "5F", "6F"],
    ], trump="9T", seed=1714)
    play(state, "1:demand_redeal", "4:demand_redeal", "0:demand_redeal")
    view = state.observe(0)
    assert view["redeals"] == 3
    assert view["phase"] == "attack"
    fives = [s for s in range(6)
             if any(sum(card.endswith(suit) for card in hand(state, s)) >= 5 for suit in "KRTF")]
    assert fives == [4]  # a candidate exists, but is not asked


# -------------------------------------------------------------------------------------- KZ-7 First attacker


def test_kz_example_2_the_lowest_trump_is_announced_and_attacks_first() -> None:
    """KZ-7, Example 2: 3 players, dealer 0, trump T; seat 1 holds 4T, seat 2 holds 2T and seat 0 no trump.
    Seat 2 is announced with 2T and attacks seat 0."""
    state = deal(KAZAKI, [
        ["0K", "1K", "2R", "3R", "4F", "5F"],
        ["4T", "6K", "7K", "8R", "9R", "0F"],
        ["2T", "2K", "3K", "6R", "7F", "8F"],
    ], trump="9T", dealer=0)
    for seat in range(3):
        assert events(state, "first_attacker", seat=seat) == [{"type": "first_attacker", "seat": 2, "card": "2T"}]
    assert state.to_act == 2
    view = state.observe(1)
    assert (view["attacker"], view["defender"]) == (2, 0)


def test_kz_example_2_without_trumps_in_hand_the_dealers_left_neighbour_attacks() -> None:
    """KZ-7, Example 2 (second part): no hand holds a trump, so seat 1 (dealer 0's left) attacks seat 2."""
    state = deal(KAZAKI, [
        ["0K", "1K", "2R", "3R", "4F", "5F"],
        ["4K", "6K", "7K", "8R", "9R", "0F"],
        ["9K", "2K", "3K", "6R", "7F", "8F"],
    ], trump="9T", dealer=0)
    assert events(state, "first_attacker") == [{"type": "first_attacker", "seat": 1, "card": None}]
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (1, 1, 2)


def test_kz_7_six_player_durak_counts_the_dealers_shown_trump() -> None:
    """KZ-7: in 6-player durak the dealer's shown card counts; here it is 6H, the lowest trump."""
    state = deal(DURAK, [
        ["JC", "QC", "KC", "AC", "6D", "7D"],
        ["8D", "9D", "10D", "JD", "QD", "KD"],
        ["6C", "7C", "8C", "9C", "10C", "6H"],
        ["AD", "QH", "7H", "8H", "9H", "10H"],
        ["JH", "KH", "AH", "6S", "7S", "8S"],
        ["9S", "10S", "JS", "QS", "KS", "AS"],
    ], dealer=2)
    assert events(state, "first_attacker") == [{"type": "first_attacker", "seat": 2, "card": "6H"}]
    assert state.observe(0)["trump_card_holder"] == 2
    assert (state.to_act, state.observe(0)["defender"]) == (2, 3)


# ------------------------------------------------------------------------------------------------ KZ-8 Roles


def test_kz_8_throwers_are_every_active_player_but_the_defender() -> None:
    """KZ-8: A = 0, D = 1 (his left neighbour); seats 0, 2 and 3 may throw in."""
    state = four_kazaki()
    view = state.observe(0)
    assert (view["attacker"], view["defender"]) == (0, 1)
    assert sorted(view["priority"]) == [0, 2, 3]


def test_kz_8_the_defender_is_the_next_active_player_clockwise() -> None:
    """KZ-8: seat 1 is out, so seat 0 attacks seat 2."""
    state = six_durak_out()
    play(state, *SIX_OUT_BOUT_1, "2:attack(7H)", "3:take", "4:attack(8H)", "5:take")
    view = state.observe(0)
    assert view["active"] == [True, False, True, True, True, True]
    assert (state.to_act, view["attacker"], view["defender"]) == (0, 0, 2)


# -------------------------------------------------------------------------------------------------- KZ-9 Cap


def test_kz_9_the_cap_is_the_defenders_hand_size_when_he_became_defender_at_most_6() -> None:
    """KZ-9: 6 for a full hand, 3 for a defender holding 3 cards; covering does not change it."""
    state = six_durak_cap()
    view = state.observe(0)
    assert (view["defender"], view["cap"], view["hand_sizes"][3]) == (3, 3, 3)
    full = four_kazaki()
    assert full.observe(0)["cap"] == 6
    play(full, "0:attack(7K)", "1:defend(7K,9K)")
    assert full.observe(1)["hand_sizes"][1] == 5
    assert full.observe(1)["cap"] == 6


def test_kz_example_3_the_cap_limits_attacks_and_throw_ins() -> None:
    """KZ-9, KZ-13, Example 3: D holds 3 cards. Any 4-card attack is illegal, a 3-card one is legal, and after D
    has covered all three nobody is offered a throw-in although seat 2 still holds 9S."""
    state = six_durak_cap()
    assert state.to_act == 2
    attacks = legal(state)
    assert "attack(9C,9D,9H)" in attacks
    assert "attack(9C,9D,9H,9S)" not in attacks
    assert max(len(a.cards) for a in state.legal_actions()) == 3
    play(state, "2:attack(9C,9D,9H)", "3:defend(9C,JC)", "3:defend(9D,JD)", "3:defend(9H,JH)")
    assert "9S" in hand(state, 2)
    view = state.observe(2)
    assert view["bouts"] == 2  # beaten at once, no OFFER
    assert state.to_act == 4  # KZ-22: seat 3 is out, so seat 4 attacks next
    assert events(state, "beaten")[-1]["cards"] == ["9C", "JC", "9D", "JD", "9H", "JH"]
    assert view["finishing_order"] == [[3]]  # KZ-20: the stock is empty and seat 3 has no cards


# ------------------------------------------------------------------------------------------ KZ-10 Table ranks


def test_kz_10_cover_cards_add_their_rank_to_the_table_ranks() -> None:
    """KZ-10: after 7K is covered with 9K both 7 and 9 are table ranks; seat 2 may throw its 9R, not its 8T."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass")
    assert state.to_act == 2
    assert legal(state) == ["throw_in(9R)", "pass"]


# ---------------------------------------------------------------------------------------- KZ-11 Priority list


def test_kz_11_priority_is_the_attacker_then_clockwise_from_the_defenders_left() -> None:
    """KZ-11: with 6 players, A = 2 and D = 3, P = [2, 4, 5, 0, 1]."""
    state = six_durak_cap()
    assert state.observe(4)["priority"] == [2, 4, 5, 0, 1]


def test_kz_11_the_walk_follows_p_and_skips_ineligible_players() -> None:
    """KZ-11, KZ-16: after 9C is covered with JC, seat 2 is asked first, seat 4 (no 9 or J) is skipped, seat 5
    (JS) is asked next; when the walk reaches the end of P the bout is beaten."""
    state = six_durak_cap()
    play(state, "2:attack(9C)", "3:defend(9C,JC)")
    assert state.to_act == 2
    assert legal(state) == ["throw_in(9D)", "throw_in(9H)", "throw_in(9S)", "pass"]
    play(state, "2:pass")
    assert state.to_act == 5
    assert legal(state) == ["throw_in(JS)", "pass"]
    play(state, "5:pass")
    assert events(state, "beaten")[-1]["cards"] == ["9C", "JC"]
    assert state.observe(0)["attacker"] == 3  # KZ-22: the defender attacks next


# ----------------------------------------------------------------------------------------- KZ-12 State table


def test_kz_12_the_states_follow_the_table() -> None:
    """KZ-12: ATTACK -> DEFEND -> OFFER -> DEFEND (after a throw-in) -> AFTER_TAKE (after take) -> next bout."""
    state = four_kazaki()

    def phase() -> str:
        return state.observe(0)["phase"]

    assert (phase(), state.to_act) == ("attack", 0)
    assert {a.kind for a in state.legal_actions()} == {"attack"}
    play(state, "0:attack(7K)")
    assert (phase(), state.to_act, legal(state)[-1]) == ("defend", 1, "take")
    play(state, "1:defend(7K,9K)")
    assert (phase(), state.to_act, legal(state)) == ("offer", 0, ["throw_in(7F)", "pass"])
    play(state, "0:pass", "2:throw_in(9R)")
    assert (phase(), state.to_act) == ("defend", 1)
    play(state, "1:take")
    assert (phase(), state.to_act, legal(state)) == ("after_take", 2, ["withdraw(9R)", "pass"])
    play(state, "2:pass")
    assert (phase(), state.to_act) == ("attack", 2)
