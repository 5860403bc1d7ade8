"""The rules of a bout in `kazaki` and `durak` (RULES.md section 2, KZ-13 … KZ-18: attack, defence, transfer,
throw-ins, taking and the end of a bout) and the example scenarios among them, on hand-made deals
(durak_rules_helpers.py).
"""

from __future__ import annotations

from durak_rules_helpers import (
    DURAK,
    KAZAKI,
    attack_sets,
    canon,
    deal,
    events,
    four_kazaki,
    hand,
    legal,
    play,
    six_durak_cap,
    six_durak_transfer,
    three_durak_take,
    three_durak_transfer,
)

# -------------------------------------------------------------------------------------------- KZ-13 ATTACK


def test_kz_13_attacks_are_every_same_rank_set_in_canonical_order() -> None:
    """KZ-13, C-7: one or more cards of one rank; sets sorted as canonical lists, a prefix first."""
    state = attack_sets()
    assert legal(state) == [
        "attack(2K)", "attack(5K)", "attack(5K,5R)", "attack(5K,5R,5F)", "attack(5K,5F)", "attack(5R)",
        "attack(5R,5F)", "attack(7T)", "attack(9T)", "attack(5F)",
    ]


def test_kz_13_attack_cards_are_placed_uncovered() -> None:
    """KZ-13: the attack cards lie on the table, uncovered, owned by the attacker, not thrown in."""
    state = attack_sets()
    play(state, "0:attack(5K,5R)")
    assert state.observe(1)["table"] == [
        {"card": "5K", "owner": 0, "cover": None, "thrown_in": False},
        {"card": "5R", "owner": 0, "cover": None, "thrown_in": False},
    ]
    assert hand(state, 0) == ["2K", "7T", "9T", "5F"]


# -------------------------------------------------------------------------------------------- KZ-14 DEFEND


def test_kz_14_defences_list_every_uncovered_card_and_every_card_that_beats_it() -> None:
    """KZ-14, C-7: sorted by attack card, then covering card; take comes last."""
    state = attack_sets()
    play(state, "0:attack(5K,5R)")
    assert legal(state) == ["defend(5K,6K)", "defend(5K,8K)", "defend(5R,6R)", "take"]


def test_kz_14_the_defender_covers_in_any_order_and_a_cover_is_final() -> None:
    """KZ-14: covering 5R first leaves DEFEND with only 5K to cover; once all is covered the state is OFFER."""
    state = attack_sets()
    play(state, "0:attack(5K,5R)", "1:defend(5R,6R)")
    view = state.observe(0)
    assert (view["phase"], state.to_act) == ("defend", 1)
    assert legal(state) == ["defend(5K,6K)", "defend(5K,8K)", "take"]
    assert view["table"][1] == {"card": "5R", "owner": 0, "cover": "6R", "thrown_in": False}
    play(state, "1:defend(5K,8K)")
    assert (state.observe(0)["phase"], state.to_act) == ("offer", 0)
    assert legal(state) == ["throw_in(5F)", "pass"]


def test_kz_14_a_card_that_does_not_beat_cannot_cover() -> None:
    """KZ-14, KZ-3: seat 1 holds 2K and 4K but nothing beats the trump 0T; only take is legal."""
    state = deal(KAZAKI, [["0T", "9R", "1R", "6K", "7K", "8K"], ["2K", "4K", "2R", "3R", "6F", "7F"]], trump="9T")
    play(state, "0:attack(0T)")
    assert legal(state) == ["take"]
    assert state.to_act == 1  # C-6: asked although only one action is legal


# ------------------------------------------------------------------------------------------ KZ-15 Transfer


def test_kz_example_9_transfer_passes_the_attack_on() -> None:
    """KZ-15, Example 9: seat 0 attacks seat 1 with 7H, seat 1 plays transfer(7S). Seat 2 now faces 7H and 7S
    and seat 1 is the attacker; once seat 2 has covered either card no transfer is legal."""
    state = three_durak_transfer()
    play(state, "0:attack(7H)", "1:transfer(7S)")
    view = state.observe(2)
    assert (state.to_act, view["phase"]) == (2, "defend")
    assert (view["attacker"], view["defender"], view["cap"], view["priority"]) == (1, 2, 6, [1, 0])
    assert view["table"] == [
        {"card": "7H", "owner": 0, "cover": None, "thrown_in": False},
        {"card": "7S", "owner": 1, "cover": None, "thrown_in": False},
    ]
    assert legal(state) == ["defend(7H,9H)", "defend(7S,8S)", "transfer(7C)", "take"]
    play(state, "2:defend(7H,9H)")
    assert legal(state) == ["defend(7S,8S)", "take"]


def test_kz_15_transfer_needs_room_in_the_next_players_hand() -> None:
    """KZ-15, Example 9 (second part): seat 3, next after the defender, holds 2 cards, so 1 attack card plus one
    transferred card fits and two do not. After the transfer the cap is recomputed from seat 3's hand."""
    state = six_durak_transfer()
    assert state.to_act == 2
    assert state.observe(3)["hand_sizes"][3] == 2
    assert legal(state) == ["defend(KD,AD)", "defend(KD,KH)", "defend(KD,AH)", "transfer(KH)", "transfer(KS)",
                            "take"]
    play(state, "2:transfer(KS)")
    view = state.observe(3)
    assert (view["attacker"], view["defender"], view["cap"]) == (2, 3, 2)
    assert view["priority"] == [2, 4, 5, 0, 1]
    assert legal(state) == ["take"]


def test_kz_15_a_transfer_may_come_back_to_the_first_attacker() -> None:
    """KZ-15, decision 13: with 2 players N is the attacker; chains go on while the next hand has room."""
    state = deal(DURAK, [["6D", "7H", "7C", "8C", "9C", "10C"], ["7S", "7D", "6S", "8S", "9S", "10S"]],
                 trump="AD", transfer=True)
    play(state, "0:attack(7H)")
    assert [a for a in legal(state) if a.startswith("transfer")] == [
        "transfer(7D)", "transfer(7D,7S)", "transfer(7S)"]
    play(state, "1:transfer(7S)")
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (0, 1, 0)
    assert "transfer(7C)" in legal(state)
    play(state, "0:transfer(7C)")
    view = state.observe(1)
    assert (state.to_act, view["attacker"], view["defender"], view["cap"]) == (1, 0, 1, 5)
    assert [t["card"] for t in view["table"]] == ["7H", "7S", "7C"]
    assert "transfer(7D)" in legal(state)  # seat 0 holds 4 cards: 3 + 1 fits


def test_kz_15_the_transferring_player_attacks_and_draws_first() -> None:
    """KZ-15, KZ-19, decision 13: after seat 1's transfer is beaten, seat 1 draws first, then seat 0, then the
    defender; the defender attacks next (KZ-22)."""
    state = three_durak_transfer()
    play(state, "0:attack(7H)", "1:transfer(7S)", "2:defend(7H,9H)", "2:defend(7S,8S)", "1:pass", "0:pass")
    assert [(d["seat"], d["count"]) for d in events(state, "draw")] == [(1, 1), (0, 1), (2, 2)]
    assert state.observe(0)["attacker"] == 2


# ------------------------------------------------------------------------------------------- KZ-16 OFFER


def test_kz_example_4_priority_returns_to_the_first_attacker() -> None:
    """KZ-16, Example 4: 0 attacks 7K, D covers with 9K. Seat 0 is asked first and passes, seat 2 throws 9R, D
    covers it with the trump 9T, and the new walk asks seat 0 first again."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)")
    assert state.to_act == 0
    play(state, "0:pass", "2:throw_in(9R)")
    assert legal(state) == ["defend(9R,9T)", "take"]
    play(state, "1:defend(9R,9T)")
    assert state.to_act == 0
    assert legal(state) == ["throw_in(7F)", "pass"]


def test_kz_16_a_thrown_in_card_is_marked_with_its_owner_and_must_be_answered() -> None:
    """KZ-16: the thrown-in card lies uncovered with owner and flag, and the state is DEFEND again."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:throw_in(9R)")
    view = state.observe(3)
    assert view["table"][1] == {"card": "9R", "owner": 2, "cover": None, "thrown_in": True}
    assert (view["phase"], state.to_act) == ("defend", 1)
    assert events(state, "throw_in", seat=3) == [{"type": "throw_in", "seat": 2, "card": "9R"}]


def test_kz_16_a_walk_without_a_throw_in_ends_the_bout_beaten() -> None:
    """KZ-16: seat 0 and seat 3 pass, seat 2 has no 7 or 9 and is skipped: the bout is beaten."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:throw_in(9R)", "1:defend(9R,9T)", "0:pass")
    assert state.to_act == 3
    assert legal(state) == ["throw_in(7R)", "pass"]
    play(state, "3:pass")
    assert events(state, "beaten") == [{"type": "beaten", "cards": ["7K", "9K", "9R", "9T"]}]


# -------------------------------------------------------------------------------------------- KZ-17 Take


def test_kz_17_take_is_legal_only_while_a_card_is_uncovered() -> None:
    """KZ-17, decision 7: once everything is covered the defender is not asked again, so he cannot take."""
    state = four_kazaki()
    play(state, "0:attack(7K)")
    assert "take" in legal(state)
    play(state, "1:defend(7K,9K)")
    assert state.to_act != 1
    assert "take" not in legal(state)


def test_kz_example_5_no_throw_in_after_take_and_the_taker_loses_his_turn() -> None:
    """KZ-17, KZ-22, Example 5 (kazaki): D takes after a throw-in. Seat 3 holds 7R, a table rank, but is not
    offered anything; D picks up every table card and the next bout is seat 2 against seat 3."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:throw_in(9R)", "1:take")
    assert state.to_act == 2  # only the withdrawal of 9R (KZ-17 step 2), no throw-in walk
    play(state, "2:pass")
    assert "7R" in hand(state, 3)
    assert all(e["seat"] != 3 for e in state.events() if e["type"] in ("pass", "throw_in"))
    assert events(state, "pick_up") == [{"type": "pick_up", "seat": 1, "cards": ["7K", "9K", "9R"]}]
    assert hand(state, 1) == canon(KAZAKI, "8K", "9T", "1R", "2F", "3K", "7K", "9K", "9R")
    view = state.observe(0)
    assert (state.to_act, view["attacker"], view["defender"]) == (2, 2, 3)


def test_kz_example_6_a_thrower_withdraws_his_uncovered_card() -> None:
    """KZ-17, Example 6: seat 2 threw in the trump 8T, D takes; seat 2 withdraws 8T and gets it back, D picks up
    the remaining table cards."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,8K)", "0:pass", "2:throw_in(8T)", "1:take")
    assert legal(state) == ["withdraw(8T)", "pass"]
    play(state, "2:withdraw(8T)")
    assert "8T" in hand(state, 2)
    assert events(state, "withdraw", seat=3) == [{"type": "withdraw", "seat": 2, "card": "8T"}]
    assert events(state, "pick_up", seat=3) == [{"type": "pick_up", "seat": 1, "cards": ["7K", "8K"]}]
    assert hand(state, 1) == canon(KAZAKI, "9K", "9T", "1R", "2F", "3K", "7K", "8K")


def test_kz_17_durak_throws_after_take_asking_the_same_player_again() -> None:
    """KZ-17 step 1, decision 5: one walk through P; after a pass it moves on, after a throw-in the same player
    is asked again. The taker picks the thrown cards up too."""
    state = three_durak_take()
    play(state, "0:attack(8C)", "1:take")
    assert (state.to_act, state.observe(0)["phase"]) == (0, "after_take")
    assert legal(state) == ["throw_in(8D)", "pass"]
    play(state, "0:pass")
    assert legal(state) == ["throw_in(8H)", "throw_in(8S)", "pass"]
    play(state, "2:throw_in(8H)")
    assert (state.to_act, legal(state)) == (2, ["throw_in(8S)", "pass"])
    play(state, "2:throw_in(8S)")
    assert events(state, "pick_up") == [{"type": "pick_up", "seat": 1, "cards": ["8C", "8H", "8S"]}]
    assert "8D" in hand(state, 0)  # the walk did not come back to seat 0
    assert state.observe(0)["attacker"] == 2


def test_kz_example_10_throw_after_take_stops_at_the_cap() -> None:
    """KZ-17, KZ-9, Example 10 (first part): D takes with 2 uncovered cards; A may still add cards of the table
    ranks until the cap (3) is reached, and D picks those up too."""
    state = six_durak_cap()
    play(state, "2:attack(9C,9D)", "3:take")
    assert (state.to_act, legal(state)) == (2, ["throw_in(9H)", "throw_in(9S)", "pass"])
    play(state, "2:throw_in(9H)")
    assert events(state, "pick_up")[-1] == {"type": "pick_up", "seat": 3, "cards": ["9C", "9D", "9H"]}
    assert "9S" in hand(state, 2)
    assert hand(state, 3) == canon(DURAK, "JC", "JD", "JH", "9C", "9D", "9H")


def test_kz_17_withdrawals_are_offered_in_the_order_played_and_never_for_the_attack() -> None:
    """KZ-17 step 2: each uncovered thrown-in card is offered to its owner in the order it was played; the
    initial attack card 8C is not offered."""
    state = three_durak_take(withdraw=True)
    play(state, "0:attack(8C)", "1:take", "0:pass", "2:throw_in(8H)", "2:throw_in(8S)")
    assert (state.to_act, legal(state)) == (2, ["withdraw(8H)", "pass"])
    play(state, "2:pass")
    assert (state.to_act, legal(state)) == (2, ["withdraw(8S)", "pass"])
    play(state, "2:withdraw(8S)")
    assert events(state, "pick_up") == [{"type": "pick_up", "seat": 1, "cards": ["8C", "8H"]}]
    assert "8S" in hand(state, 2)


# -------------------------------------------------------------------------------------- KZ-18 End of bout


def test_kz_18_beaten_cards_leave_the_game() -> None:
    """KZ-18: after a beaten bout the table is empty, the discard pile holds its cards and no hand has them."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:defend(7K,9K)", "0:pass", "2:pass", "3:pass")
    view = state.observe(0)
    assert view["table"] == []
    assert view["discard"] == 2
    assert state.card_locations()["discard"] == 2
    assert all(card not in hand(state, s) for s in range(4) for card in ("7K", "9K"))


def test_kz_18_taken_cards_are_already_in_the_takers_hand() -> None:
    """KZ-18: a taken bout sends nothing to the discard pile."""
    state = four_kazaki()
    play(state, "0:attack(7K)", "1:take")
    view = state.observe(1)
    assert view["discard"] == 0
    assert view["table"] == []
    assert "7K" in view["hand"]
