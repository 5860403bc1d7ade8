"""Every numbered rule of ``kozel`` (RULES.md section 3: KO-1 … KO-16) and its example scenarios, on hand-made
deals (kozel_rules_helpers.py says how they are written).
"""

from __future__ import annotations

import pytest
from kozel_rules_helpers import (
    KO,
    KO_DEAL1,
    KO_DEAL2,
    KO_THREE,
    KO_TWO,
    act,
    canon,
    events,
    finish_deal,
    hand,
    idx,
    ko,
    legal,
    texts,
)

from referee.errors import ConfigError, RulesError
from referee.games.kozel.kozel import KOZEL_DECK, KozelState, ko_rules
from referee.rng import SplitMix64

# ---------------------------------------------------------------------------------------------- kozel (KO)


def test_ko_1_deck_has_32_cards_and_30_with_three_players() -> None:
    assert len(KOZEL_DECK) == 32
    assert len(KO.new_state(2, 1).deck_cards) == 32
    three = KO.new_state(3, 1)
    assert sorted(texts(KO, three.deck_cards)) == sorted(t for t in KOZEL_DECK.texts if t not in ("7C", "7S"))
    assert sum(three.card_locations().values()) == 30


def test_ko_1_strength_inside_a_suit_is_7_8_9_j_q_k_10_a() -> None:
    rules = ko_rules(idx(KO, "9H") // 8)  # trump H: spades and clubs are plain
    for suit, ranks in (("C", "7 8 9 J Q K 10 A"), ("S", "7 8 9 Q K 10 A")):  # JS is a special jack
        order = [idx(KO, r + suit) for r in ranks.split()]
        for low, high in zip(order, order[1:], strict=False):
            assert rules.winner([low, high]) == 1 and rules.winner([high, low]) == 0
    state = ko(*KO_TWO)
    act(state, "1:KS", "0:10S")
    assert events(state, "trick")[-1]["winner"] == 0  # 10 beats K


def test_ko_2_card_points_and_120_a_deal() -> None:
    state = ko(*KO_TWO)
    act(state, "1:KS", "0:10S")
    assert events(state, "trick")[-1]["points"] == 14  # K 4 + 10 10
    points = {r: ko_rules(1).points[idx(KO, r + "D")] for r in ("A", "10", "K", "Q", "J", "9", "8", "7")}
    assert points == {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    for seats in (2, 3, 4):
        state = KO.new_state(seats, 7, {"target": 1})
        finish_deal(state)
        assert sum(events(state, "deal_score")[0]["points"]) == 120



def test_ko_3_two_to_four_players_each_for_himself() -> None:
    for seats in (2, 3, 4):
        assert KO.new_state(seats, 1).seats == seats
        assert KO.teams(seats) is None
    for seats in (1, 5):
        with pytest.raises(ConfigError):
            KO.new_state(seats, 1)


def test_ko_4_target_option() -> None:
    assert KO.configure() == {"target": 60}
    with pytest.raises(ConfigError):
        KO.configure({"targt": 60})
    state = KO.new_state(4, 3, {"target": 1})  # anybody with a point ends the game after deal 1
    finish_deal(state)
    assert state.is_terminal and len(events(state, "deal")) == 1


def test_ko_5_the_dealer_moves_to_the_left() -> None:
    state = KO.new_state(3, 5, {"target": 1000}, dealer=2)
    assert [e["dealer"] for e in events(state, "deal")] == [2]
    assert state.to_act == 0  # the dealer's left leads
    finish_deal(state)
    assert [e["dealer"] for e in events(state, "deal")] == [2, 0]
    assert state.to_act == 1


def test_ko_6_four_cards_each_from_the_dealers_left_then_the_trump_card_under_the_stock() -> None:
    seed, dealer = 11, 3
    state = KO.new_state(4, seed, dealer=dealer)
    order = list(range(32))
    SplitMix64(seed).shuffle(order)  # C-5
    for seat in range(4):
        mine = [order[k] for k in range(16) if (dealer + 1 + k) % 4 == seat]
        assert hand(state, seat) == texts(KO, sorted(mine))
    obs = state.observe(0)
    assert obs["trump_card"] == KOZEL_DECK.texts[order[16]] and obs["trump"] == obs["trump_card"][-1]
    assert obs["stock"] == 16
    assert state.card_places()["stock"][0] == order[16]  # the bottom card
    assert state.card_places()["stock"][-1] == order[17]  # the top card, drawn first


def test_ko_7_special_jacks_rank_above_every_trump_whatever_the_trump_suit() -> None:
    for suit in range(4):
        rules = ko_rules(suit)
        trumps = [c for c in range(32) if rules.eff[c] == 4 and KOZEL_DECK.texts[c] not in ("JD", "JH", "JS")]
        assert all(KOZEL_DECK.texts[c][-1] == "CDHS"[suit] for c in trumps)
        jd, jh, js = idx(KO, "JD"), idx(KO, "JH"), idx(KO, "JS")
        for t in trumps:
            assert rules.winner([t, jd]) == 1 and rules.winner([jd, t]) == 0
        assert rules.winner([jd, jh]) == 1 and rules.winner([jh, js]) == 1 and rules.winner([js, jd]) == 0


def test_ko_7_jc_is_an_ordinary_club() -> None:
    clubs = ko_rules(0)  # trump C: JC is a trump between 9C and QC
    jc, c9, cq = idx(KO, "JC"), idx(KO, "9C"), idx(KO, "QC")
    assert clubs.eff[jc] == 4
    assert clubs.winner([jc, c9]) == 0 and clubs.winner([jc, cq]) == 1
    hearts = ko_rules(2)  # trump H: JC is a plain club
    assert hearts.eff[jc] == 0
    assert hearts.winner([jc, idx(KO, "7H")]) == 1  # the lowest trump beats it


def test_ko_8_the_dealers_left_leads_and_any_card_may_be_played() -> None:
    state = ko(*KO_TWO)
    assert state.to_act == 1
    assert legal(state) == ["play(9C)", "play(JC)", "play(8D)", "play(KS)"]
    act(state, "1:9C")
    assert legal(state) == ["play(QC)", "play(7D)", "play(10S)", "play(AS)"]  # no need to follow clubs
    act(state, "0:7D")
    assert events(state, "trick")[-1]["winner"] == 1


def test_ko_9_special_jacks_beat_trumps() -> None:
    # Trump H. Seat 1 leads AH (a trump), seat 2 plays JD, seat 0 plays 10H: JD wins.
    state = ko(["10H 8C 9C 8D", "AH 9D 10D KC", "JD JC QC AC"], "9H", dealer=0)
    act(state, "1:AH", "2:JD", "0:10H")
    assert events(state, "trick")[-1]["winner"] == 2


def test_ko_9_a_trump_beats_the_led_suit_and_off_suit_cards_never_win() -> None:
    state = ko(*KO_THREE, dealer=2)
    act(state, "0:10S", "1:AS", "2:7H")  # example 1
    assert events(state, "trick")[-1]["winner"] == 2
    state = ko(*KO_THREE, dealer=2)
    act(state, "0:8D", "1:10D", "2:AC")  # no trump: the highest diamond, AC cannot win
    assert events(state, "trick")[-1]["winner"] == 1


def test_ko_10_the_winner_draws_first_then_clockwise() -> None:
    state = ko(*KO_THREE, stock="KH QH 10H 8H 9S 8S", dealer=2)
    act(state, "0:10S", "1:AS", "2:7H")
    draws = events(state, "draw")
    assert [e["seat"] for e in draws] == [2, 0, 1]
    assert [e["cards"] for e in draws] == [["KH"], ["QH"], ["10H"]]
    assert all(e["count"] == 1 for e in draws)
    assert [h.bit_count() for h in state.hands] == [4, 4, 4]


def test_ko_11_the_trick_winner_leads_the_next_trick() -> None:
    state = ko(*KO_THREE, dealer=2)
    act(state, "0:10S", "1:AS", "2:7H")
    assert state.to_act == 2
    assert state.observe(0)["leader"] == 2


@pytest.mark.parametrize(("seats", "tricks"), [(2, 16), (3, 10), (4, 8)])
def test_ko_12_a_deal_has_16_10_or_8_tricks_and_points_add_to_the_totals(seats: int, tricks: int) -> None:
    state = KO.new_state(seats, 21, {"target": 1000})
    finish_deal(state)
    assert len(events(state, "trick")) == tricks
    score = events(state, "deal_score")[0]
    won = [sum(e["points"] for e in events(state, "trick") if e["winner"] == s) for s in range(seats)]
    assert score["points"] == won and score["totals"] == won
    assert state.observe(0)["totals"] == won


def test_ko_13_the_game_ends_after_the_deal_in_which_somebody_reaches_the_target() -> None:
    state = KO.new_state(4, 4, {"target": 1})
    while len(events(state, "trick")) < 7:  # points have been taken, but the deal goes on
        state.apply(state.legal_actions()[0])
    assert not state.is_terminal
    finish_deal(state)
    assert state.is_terminal
    state = KozelState(KO, 4, 0, KO.configure(), 0, deck_orders=[KO_DEAL1.order(0)])
    KO_DEAL1.run(state)  # 50/30/25/15: nobody has 60, a second deal follows
    assert not state.is_terminal and state.deal_no == 1


def test_ko_14_result_scores_places_and_ties() -> None:
    state = KO.new_state(2, 15)  # seed 15, always the first card: the game ends 60:60
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    result = state.result()
    assert result.scores == (60, 60)
    assert result.finishing_order == ((0, 1),) and result.places == (1, 1)
    state = KO.new_state(4, 1)  # seed 1, the first card: 74/46/0/0
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    result = state.result()
    assert result.scores == (74, 46, 0, 0)
    assert result.finishing_order == ((0,), (1,), (2, 3)) and result.places == (1, 2, 3, 3)
    assert result.to_dict()["finishing_order"] == [[0], [1], [2, 3]]
    with pytest.raises(RulesError):
        KO.new_state(2, 1).result()


def test_ko_15_visibility() -> None:
    state = ko(*KO_THREE, stock="KH QH 10H 8H 9S 8S", dealer=2)
    obs = state.observe(1)
    assert obs["hand"] == canon(KO, "AS 9D 10D KC")
    assert obs["trump"] == "H" and obs["trump_card"] == "9H" and obs["stock"] == 18
    assert obs["hand_sizes"] == [4, 4, 4]
    assert [e for e in obs["events"] if e["type"] == "hand"] == [{"type": "hand", "seat": 1,
                                                                   "cards": canon(KO, "AS 9D 10D KC")}]
    act(state, "0:10S", "1:AS", "2:7H")
    seen = {e["seat"]: e for e in events(state, "draw", seat=1)}
    assert seen[1]["cards"] == ["10H"] and "cards" not in seen[0] and "cards" not in seen[2]
    obs = state.observe(1)
    assert obs["tricks"] == [{"leader": 0, "cards": ["10S", "AS", "7H"], "winner": 2, "points": 21}]
    assert obs["points"] == [0, 0, 21] and obs["totals"] == [0, 0, 0]
    assert obs["trick"] == [] and obs["trump_card_drawn_by"] is None


def test_ko_16_one_shuffle_per_deal() -> None:
    seed = 99
    state = KO.new_state(2, seed, {"target": 1000})
    rng = SplitMix64(seed)
    for dealer in range(2):
        order = list(range(32))
        rng.shuffle(order)
        left = 1 - dealer  # the dealer's left gets cards 0, 2, 4, 6, the dealer 1, 3, 5, 7
        assert hand(state, left) == texts(KO, sorted(order[0:8:2]))
        assert hand(state, dealer) == texts(KO, sorted(order[1:8:2]))
        assert state.observe(0)["trump_card"] == KOZEL_DECK.texts[order[8]]
        finish_deal(state)


def test_ko_example_1_trumping() -> None:
    state = ko(*KO_THREE, dealer=2)
    act(state, "0:10S", "1:AS", "2:7H")
    assert events(state, "trick")[-1] == {"type": "trick", "leader": 0, "cards": ["10S", "AS", "7H"],
                                          "winner": 2, "points": 21}


def test_ko_example_2_highest_of_the_led_suit() -> None:
    state = ko(["10S 8C 9C 8D", "AS 9D 10D KC", "KD JC QC AC"], "9H", dealer=2)
    act(state, "0:10S", "1:AS", "2:KD")
    assert events(state, "trick")[-1]["winner"] == 1


def test_ko_example_3_off_suit_cards_cannot_win() -> None:
    state = ko(["KD 8C 9C 8D", "QC 9D 10D KC", "AC JC 8S 10S"], "9H", dealer=2)
    act(state, "0:KD", "1:QC", "2:AC")
    assert events(state, "trick")[-1]["winner"] == 0


def test_ko_example_4_jd_tops_trumps() -> None:
    state = ko(["JD 8C 9C 8D", "AH 9D 10D KC"], "9H")
    act(state, "1:AH", "0:JD")
    assert events(state, "trick")[-1]["winner"] == 0


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_ko_example_5_js_beats_jh_and_jd_in_any_order(dealer: int) -> None:
    state = ko(["JD 8C 9C 8D", "JS 9D 10D KC", "JH JC QC AC"], "10H", dealer=dealer)
    for _ in range(3):
        seat = state.to_act
        act(state, {0: "JD", 1: "JS", 2: "JH"}[seat])
    assert events(state, "trick")[-1]["winner"] == 1


@pytest.mark.parametrize(("answer", "wins"), [("10C", True), ("QC", True), ("9C", False)])
def test_ko_example_6_jc_is_ordinary(answer: str, wins: bool) -> None:
    state = ko([f"{answer} 8S 9S 8H", "JC 9D 10D KD"], "7D")  # trump D; seat 1 leads JC
    act(state, "1:JC", f"0:{answer}")
    assert (events(state, "trick")[-1]["winner"] == 0) == wins


def test_ko_example_7_drawing_order_with_three_players() -> None:
    state = ko(*KO_THREE, dealer=2)
    act(state, "0:10S", "1:AS", "2:7H")
    assert [e["seat"] for e in events(state, "draw")] == [2, 0, 1]


def test_ko_example_8_the_trump_card_is_drawn_last() -> None:
    state = ko(*KO_TWO, dealer=0)
    while state.observe(0)["stock"] > 2:
        state.apply(state.legal_actions()[0])
    trump = state.observe(0)["trump_card"]
    before = len(events(state, "draw"))
    while len(events(state, "draw")) == before:
        state.apply(state.legal_actions()[0])
    winner = events(state, "trick")[-1]["winner"]
    first, last = events(state, "draw")[before:]
    assert first["seat"] == winner and first["cards"] != [trump]
    assert last["seat"] == 1 - winner and last["cards"] == [trump]
    # Everyone sees who draws the face-up trump card (KO-15), and only that card.
    assert events(state, "draw", seat=winner)[-1]["cards"] == [trump]
    assert "cards" not in events(state, "draw", seat=1 - winner)[-2]
    assert state.observe(winner)["trump_card_drawn_by"] == 1 - winner


def test_ko_example_9_end_of_game() -> None:
    state = KozelState(KO, 4, 0, KO.configure(), 0, deck_orders=[KO_DEAL1.order(0), KO_DEAL2.order(1)])
    KO_DEAL1.run(state)
    assert events(state, "deal_score")[0]["totals"] == [50, 30, 25, 15]
    assert not state.is_terminal
    assert events(state, "deal")[-1]["dealer"] == 1
    KO_DEAL2.run(state)
    assert events(state, "deal_score")[1]["totals"] == [70, 75, 60, 35]
    assert state.is_terminal
    result = state.result()
    assert result.places == (2, 1, 3, 4)
    assert result.finishing_order == ((1,), (0,), (2,), (3,))
    assert result.scores == (70, 75, 60, 35)


def test_ko_example_10_three_players() -> None:
    state = KO.new_state(3, 8, {"target": 1000})
    assert sum(state.card_locations().values()) == 30
    all_cards = set(texts(KO, [c for cards in state.card_places().values() for c in cards]))
    assert "7C" not in all_cards and "7S" not in all_cards
    finish_deal(state)
    assert len(events(state, "trick")) == 10
