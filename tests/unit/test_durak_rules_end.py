"""The rules of `kazaki` and `durak` from drawing to the next game (RULES.md section 2, KZ-19 … KZ-26: drawing,
going out, the end of the game, the next bout, visibility, the result, randomness, the next game's dealer), the
example scenarios among them and the C-11 bout limit, on hand-made deals (durak_rules_helpers.py).
"""

from __future__ import annotations

import pytest
from durak_rules_helpers import (
    DRAW2_BOUTS,
    ENDGAME3_BOUTS,
    KAZAKI,
    SIX_OUT_BOUT_1,
    canon,
    deal_from_order,
    draw2,
    endgame3,
    events,
    four_durak_drawing,
    four_kazaki,
    hand,
    legal,
    play,
    redeal_deal,
    six_durak_out,
    six_durak_transfer,
    three_durak_take,
)

from referee.errors import RulesError
from referee.games.durak import KAZAKI_DECK, DurakState
from referee.rng import SplitMix64

# ------------------------------------------------------------------------------------------ KZ-19 Drawing


def test_kz_example_7_drawing_order_stops_when_the_stock_is_empty() -> None:
    """KZ-19, Example 7: 4 players, A = 2, D = 3, stock of 3. At the end of the bout A holds 4, seat 0 holds 5,
    seat 1 holds 6 and D holds 2. A draws 2, seat 0 draws 1; the stock is then empty, so seat 1 and D draw
    nothing."""
    state = four_durak_drawing()
    view = state.observe(0)
    assert (view["attacker"], view["defender"], view["stock"]) == (2, 3, 3)
    since = state.log_size
    play(state, "2:attack(QC,QD)", "3:defend(QC,KC)", "3:defend(QD,KD)", "0:throw_in(QS)", "3:defend(QS,KS)",
         "0:throw_in(QH)", "3:defend(QH,AH)")
    draws = events(state, "draw", since=since)
    assert [(d["seat"], d["cards"]) for d in draws] == [(2, ["AD", "AS"]), (0, ["KH"])]
    view = state.observe(0)
    assert view["stock"] == 0
    assert view["hand_sizes"] == [6, 6, 6, 2]


def test_kz_19_the_attacker_draws_first_and_the_defender_last() -> None:
    """KZ-19: after B1 of the endgame deal, seat 0 (A) draws 6 before seat 1 (D); seat 2 holds 6 and draws
    nothing."""
    state = endgame3()
    play(state, *ENDGAME3_BOUTS[0])
    draws = events(state, "draw")
    assert [(d["seat"], d["cards"]) for d in draws] == [
        (0, ["6R", "0R", "0T", "2K", "2F", "7K"]), (1, ["8K", "8R", "5T", "7R", "5R", "2R"])]


# ----------------------------------------------------------------------------------------- KZ-20 Going out


def test_kz_20_an_empty_hand_is_refilled_while_the_stock_lasts() -> None:
    """KZ-20: seats 0 and 1 play out all their cards in B1, but the stock is not empty: both draw and stay."""
    state = endgame3(bouts=1)
    view = state.observe(2)
    assert view["hand_sizes"] == [6, 6, 6]
    assert view["active"] == [True, True, True]
    assert view["finishing_order"] == []
    assert events(state, "out") == []


def test_kz_20_a_player_without_cards_stays_active_until_the_bout_ends() -> None:
    """KZ-20: seat 1 attacked with his last card; he stays in P with 0 cards until the bout ends, then goes
    out alone (the stock is empty)."""
    state = six_durak_transfer()
    view = state.observe(0)
    assert view["hand_sizes"][1] == 0
    assert view["active"][1] is True
    play(state, "2:transfer(KS)")
    assert 1 in state.observe(0)["priority"]
    play(state, "3:take")
    view = state.observe(0)
    assert view["active"] == [True, False, True, True, True, True]
    assert view["finishing_order"] == [[1]]
    assert events(state, "out") == [{"type": "out", "seats": [1]}]


def test_kz_example_8_going_out_together_and_the_robber() -> None:
    """KZ-20, KZ-21, Example 8: the stock is empty and 3 players are active. Seat 0 attacks with his last card,
    seat 1 covers it with his last card, and seat 2 cannot throw in. Seats 0 and 1 go out together, place 1;
    seat 2 is the Robber, place 3."""
    state = endgame3(bouts=5)
    view = state.observe(2)
    assert (view["stock"], view["active"], view["hand_sizes"]) == (0, [True, True, True], [1, 1, 6])
    play(state, "0:attack(7K)")
    assert legal(state) == ["defend(7K,8F)", "take"]
    play(state, "1:defend(7K,8F)")
    assert state.to_act is None
    assert hand(state, 2) == canon(KAZAKI, "4K", "1R", "3R", "3T", "4T", "3F")
    assert events(state, "out") == [{"type": "out", "seats": [0, 1]}]
    result = state.result().to_dict()
    assert result["finishing_order"] == [[0, 1], [2]]
    assert result["places"] == [1, 1, 3]
    assert (result["loser"], result["draw"], result["aborted"]) == (2, False, False)
    assert "Robber" in KAZAKI.narrate(events(state, "end")[0])


def test_kz_example_8_with_only_two_players_it_is_a_draw() -> None:
    """KZ-21, Example 8 (second part): if only seats 0 and 1 are active and both go out at the same bout end,
    the game is a draw: both place 1, loser null."""
    state = draw2(bouts=3)
    view = state.observe(0)
    assert (view["stock"], view["hand_sizes"]) == (0, [6, 6])
    play(state, *DRAW2_BOUTS[3])
    result = state.result().to_dict()
    assert result["finishing_order"] == [[0, 1]]
    assert result["places"] == [1, 1]
    assert (result["loser"], result["draw"], result["aborted"]) == (None, True, False)
    assert events(state, "end") == [{"type": "end", "loser": None, "draw": True, "aborted": False}]


# ----------------------------------------------------------------------------------------- KZ-21 Game end


def test_kz_21_the_game_goes_on_while_two_players_hold_cards() -> None:
    """KZ-21: after seat 1 goes out, five players are still active and the game continues."""
    state = six_durak_out()
    play(state, *SIX_OUT_BOUT_1)
    view = state.observe(0)
    assert view["finishing_order"] == [[1]]
    assert view["hand_sizes"] == [1, 0, 5, 6, 6, 6]
    assert state.to_act == 2
    with pytest.raises(RulesError):
        state.result()


# ---------------------------------------------------------------------------------------- KZ-22 Next bout


def test_kz_22_after_a_beaten_bout_the_defender_attacks() -> None:
    """KZ-22: D (seat 1) attacks next, against seat 2."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:pass", "3:pass")
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (1, 1, 2)
    assert view["priority"] == [1, 3, 0]


def test_kz_22_a_defender_who_went_out_passes_the_attack_to_his_left() -> None:
    """KZ-22: seat 1 covered everything and went out, so the next active player after him, seat 2, attacks;
    P leaves seat 1 out (KZ-11)."""
    state = six_durak_out()
    play(state, *SIX_OUT_BOUT_1)
    view = state.observe(2)
    assert (view["attacker"], view["defender"], view["priority"]) == (2, 3, [2, 4, 5, 0])


def test_kz_22_after_a_taken_bout_the_taker_loses_his_turn() -> None:
    """KZ-22: seat 3 takes, so seat 4 attacks; seat 5 takes, so seat 0 attacks. No throw-in is offered because
    no thrower holds a card of the attacked rank (KZ-17)."""
    state = six_durak_out()
    play(state, *SIX_OUT_BOUT_1, "2:attack(7H)", "3:take")
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (4, 4, 5)
    play(state, "4:attack(8H)", "5:take")
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (0, 0, 2)
    assert view["priority"] == [0, 3, 4, 5]
    assert view["cap"] == 4  # KZ-9: seat 2 holds 4 cards
    assert view["hand_sizes"] == [1, 0, 4, 7, 5, 7]


# --------------------------------------------------------------------------------------- KZ-23 Visibility


def test_kz_23_an_observation_holds_the_public_state_and_only_the_own_hand() -> None:
    """KZ-23, C-8: trump, stock, discard, hand sizes, roles, cap, P and the table are public; hands are not."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:throw_in(9R)")
    view = state.observe(3)
    assert view["hand"] == canon(KAZAKI, "7R", "4R", "4F", "5K", "5R", "6F")
    assert (view["trump"], view["trump_card"], view["stock"], view["discard"]) == ("T", "5T", 16, 0)
    assert view["hand_sizes"] == [5, 5, 5, 6]
    assert (view["attacker"], view["defender"], view["cap"], view["priority"]) == (0, 1, 6, [0, 2, 3])
    assert view["active"] == [True] * 4
    assert view["finishing_order"] == []
    assert view["table"] == [
        {"card": "7K", "owner": 0, "cover": "9K", "thrown_in": False},
        {"card": "9R", "owner": 2, "cover": None, "thrown_in": True},
    ]
    assert [e["seat"] for e in view["events"] if e["type"] == "hand"] == [3]
    seen = {card for e in view["events"] for card in e.get("cards", [])}
    assert not seen & set(hand(state, 0) + hand(state, 1) + hand(state, 2))


def test_kz_23_drawn_cards_are_private_except_the_face_up_trump() -> None:
    """KZ-23: seat 1 sees that seat 2 drew 2 cards but not which; everyone sees seat 0 draw the trump card KH."""
    state = four_durak_drawing()
    since = state.log_size
    play(state, "2:attack(QC,QD)", "3:defend(QC,KC)", "3:defend(QD,KD)", "0:throw_in(QS)", "3:defend(QS,KS)",
         "0:throw_in(QH)", "3:defend(QH,AH)")
    assert events(state, "draw", since=since, seat=1) == [
        {"type": "draw", "seat": 2, "count": 2}, {"type": "draw", "seat": 0, "count": 1, "cards": ["KH"]}]
    assert events(state, "draw", since=since, seat=2)[0] == {"type": "draw", "seat": 2, "count": 2,
                                                             "cards": ["AD", "AS"]}


def test_kz_23_the_cards_a_taker_picks_up_are_public() -> None:
    """KZ-23: every seat sees the pick-up with its cards, so hands can be partly tracked."""
    state = three_durak_take()
    play(state, "0:attack(8C)", "1:take", "0:pass", "2:throw_in(8H)", "2:throw_in(8S)")
    for seat in range(3):
        assert events(state, "pick_up", seat=seat) == [{"type": "pick_up", "seat": 1, "cards": ["8C", "8H", "8S"]}]
    assert events(state, "draw", seat=1) == [{"type": "draw", "seat": 0, "count": 1},
                                             {"type": "draw", "seat": 2, "count": 2}]


# ------------------------------------------------------------------------------------------- KZ-24 Result


def test_kz_24_scores_count_the_players_ranked_strictly_below() -> None:
    """KZ-24: places [1, 1, 3] give scores [1, 1, 0]; loser 2, no draw, not aborted."""
    state = endgame3(bouts=6)
    assert state.result().to_dict() == {
        "places": [1, 1, 3], "finishing_order": [[0, 1], [2]], "scores": [1, 1, 0],
        "aborted": False, "loser": 2, "draw": False,
    }


def test_kz_24_a_draw_has_no_loser_and_no_points() -> None:
    """KZ-24: after a draw loser is null, draw is true and both players score 0."""
    state = draw2(bouts=4)
    assert state.result().to_dict() == {
        "places": [1, 1], "finishing_order": [[0, 1]], "scores": [0, 0],
        "aborted": False, "loser": None, "draw": True,
    }


# --------------------------------------------------------------------------------------- KZ-25 Randomness


def test_kz_25_a_deal_and_a_redeal_are_one_shuffle_each() -> None:
    """KZ-25, C-5: game.new_state deals the seed's first shuffle; the redeal deals its second shuffle."""
    rng = SplitMix64(1714)
    shuffles = []
    for _ in range(2):
        order = list(range(40))
        rng.shuffle(order)
        shuffles.append(order)
    state = KAZAKI.new_state(6, 1714)
    assert isinstance(state, DurakState)
    assert [hand(state, s) for s in range(6)] == deal_from_order(shuffles[0], 6, 0, KAZAKI_DECK)
    assert state.observe(0)["trump_card"] == KAZAKI_DECK.texts[shuffles[0][36]]
    play(state, "4:demand_redeal")
    assert [hand(state, s) for s in range(6)] == deal_from_order(shuffles[1], 6, 0, KAZAKI_DECK)
    assert state.observe(0)["trump_card"] == KAZAKI_DECK.texts[shuffles[1][36]]


def test_kz_25_playing_uses_no_randomness() -> None:
    """KZ-25: a hand-made deal played to its end never touches the seed's stream."""
    state = endgame3(bouts=6)
    assert state.rng.state == SplitMix64(0).state


# -------------------------------------------------------------------------------- KZ-26 Next game's dealer


def test_kz_26_the_lowest_trump_attacks_first_whoever_deals() -> None:
    """KZ-26: a new dealer (the loser of the last game) changes who gets which card, but the lowest trump still
    attacks first (the no-trump case, where the dealer matters, is Example 2)."""
    order = list(range(40))  # trump 8R; 0R is dealt as card 10
    for dealer in range(3):
        state = DurakState(KAZAKI, 3, 0, KAZAKI.configure(), dealer, deck_order=order)
        holder = (dealer + 1 + 10) % 3
        assert "0R" in hand(state, holder)
        assert events(state, "first_attacker") == [{"type": "first_attacker", "seat": holder, "card": "0R"}]
        assert state.to_act == holder


def test_kz_26_the_loser_deals_the_next_game() -> None:
    """KZ-26: "the Fool deals": the Robber of the last game deals the next one; after a draw or an aborted
    game the deal passes to the left neighbour of the previous dealer."""
    lost = endgame3(bouts=len(ENDGAME3_BOUTS))
    assert lost.result().extra["loser"] == 2
    assert KAZAKI.next_dealer(lost.result(), 0, 3) == 2
    drawn = draw2(bouts=len(DRAW2_BOUTS))
    assert drawn.result().extra["draw"]
    assert KAZAKI.next_dealer(drawn.result(), 1, 2) == 0
    aborted = endgame3(bouts=5, max_bouts=5)
    assert aborted.result().aborted
    assert KAZAKI.next_dealer(aborted.result(), 2, 3) == 0


# ----------------------------------------------------------------------------------- C-11 Safety limit


def test_c_11_the_game_is_aborted_after_max_bouts() -> None:
    """C-11, KZ-24: the fifth bout (a taken one) is played out, then the game stops: the active players share
    the last place, loser is null and aborted is true."""
    state = endgame3(bouts=5, max_bouts=5)
    assert state.to_act is None
    assert "4T" in hand(state, 2)  # the pick-up happened before the stop
    assert state.result().to_dict() == {
        "places": [1, 1, 1], "finishing_order": [[0, 1, 2]], "scores": [0, 0, 0],
        "aborted": True, "loser": None, "draw": False,
    }
    assert events(state, "end") == [{"type": "end", "loser": None, "draw": False, "aborted": True}]


def test_c_11_a_game_that_ends_on_the_last_allowed_bout_is_not_aborted() -> None:
    """C-11: the end check of KZ-21 comes first; the draw on the fourth bout stands with max_bouts = 4."""
    state = draw2(bouts=4, max_bouts=4)
    result = state.result().to_dict()
    assert (result["aborted"], result["draw"], result["places"]) == (False, True, [1, 1])


def test_c_11_redeals_are_not_bouts() -> None:
    """C-11: with max_bouts = 1 a redeal does not stop the game; the first real bout does."""
    state = redeal_deal(max_bouts=1)
    play(state, "2:demand_redeal")
    while state.observe(0)["phase"] == "redeal_offer":
        play(state, f"{state.to_act}:pass")
    assert state.observe(0)["bouts"] == 0
    attacker = state.to_act
    assert attacker is not None
    play(state, f"{attacker}:{legal(state)[0]}")
    play(state, f"{state.to_act}:take")
    assert state.to_act is None  # kazaki: no throw-in after take, nothing to withdraw
    result = state.result().to_dict()
    assert result["aborted"] is True
    assert result["finishing_order"] == [[0, 1, 2, 3]]
