"""Hand-made deals for every numbered rule of `kazaki` and `durak` (RULES.md section 2, KZ-1 … KZ-26), the ten
example scenarios of that section, and the C-11 bout limit.

Every test builds its deal card by card (``deal`` below), plays a short script of actions and checks what the
public API says: the seat to act, the legal actions in canonical order, observations, events and results.

The longer deals are planned bout by bout in the comments above them. Two of them play a whole game to its end:
``endgame3`` (3-player kazaki, ending with a Robber) and ``draw2`` (2-player kazaki, ending in a draw). With 6
players in `durak` every card is dealt and the stock is empty from the start, so those deals reach going out,
caps below 6 and transfer capacity checks within a bout or two.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from protocol.cards import Card, Deck
from referee.errors import RulesError
from referee.games.durak import DURAK_DECK, KAZAKI_DECK, Durak, DurakState, Kazaki
from referee.rng import SplitMix64

KAZAKI = Kazaki()
DURAK = Durak()
HAND = 6
DurakGame = Kazaki | Durak


# ------------------------------------------------------------------------------------------------ helpers


def deal(game: DurakGame, hands: Sequence[Sequence[str]], stock: Sequence[str] = (), trump: str | None = None, *,
         dealer: int = 0, seed: int = 0, **options: Any) -> DurakState:
    """A game whose first deal is made by hand (KZ-4, KZ-5).

    ``hands[s]`` are the six cards seat ``s`` is dealt, in dealing order; ``trump`` is the card turned up and put
    at the bottom of the stock; ``stock`` lists the stock from the top. Cards named nowhere are placed in
    canonical order after the listed stock, above the trump card. With ``trump=None`` every card must be dealt
    (6-player `durak`) and the dealer's sixth card is the one shown.
    """
    n = len(hands)
    assert all(len(h) == HAND for h in hands), "every hand has six cards"
    order = [hands[(dealer + 1 + k) % n][k // n] for k in range(HAND * n)]  # KZ-4: one card at a time
    if trump is not None:
        order += [trump, *stock]
    indices = [game.deck.index(Card.parse(text)) for text in order]
    assert len(set(indices)) == len(indices), f"a card is dealt twice: {order}"
    named = set(indices)
    rest = [i for i in range(len(game.deck)) if i not in named]
    assert trump is not None or not rest, "without a turned-up trump every card must be dealt"
    return DurakState(game, n, seed, game.configure(options), dealer, deck_order=indices + rest)


def play(state: DurakState, *steps: str) -> None:
    """Apply ``"seat:action"`` steps, checking before each that this seat is to act and the action is legal."""
    for step in steps:
        seat, _, text = step.partition(":")
        assert state.to_act == int(seat), f"{step}: seat {state.to_act} is to act, legal {legal(state)}"
        state.apply(state.parse_action(text))


def legal(state: DurakState) -> list[str]:
    return [a.text for a in state.legal_actions()]


def canon(game: DurakGame, *texts: str) -> list[str]:
    """Card texts in canonical order (C-4), as observations list hands."""
    return sorted(texts, key=lambda t: game.deck.index(Card.parse(t)))


def hand(state: DurakState, seat: int) -> list[str]:
    return state.observe(seat)["hand"]


def events(state: DurakState, kind: str, *, since: int = 0, seat: int | None = None) -> list[dict[str, Any]]:
    return [e for e in state.events(since, seat) if e["type"] == kind]


def deal_from_order(order: Sequence[int], seats: int, dealer: int, deck: Deck) -> list[list[str]]:
    """KZ-4 computed independently of the engine: each seat's hand, canonically sorted."""
    hands: list[list[int]] = [[] for _ in range(seats)]
    for k in range(HAND * seats):
        hands[(dealer + 1 + k) % seats].append(order[k])
    return [[deck.texts[i] for i in sorted(h)] for h in hands]


# ------------------------------------------------------------------------------------------- the deals

# Four players, kazaki, trump T. Seat 0 holds the lowest trump 0T and attacks seat 1 with 7K. Seat 1 can
# cover 7K with 8K, 9K or 9T; seat 2 holds 9R and the trump 8T for throwing in; seat 3 holds 7R.
def four_kazaki() -> DurakState:
    return deal(KAZAKI, [
        ["0T", "7K", "7F", "1K", "2R", "3F"],
        ["8K", "9K", "9T", "1R", "2F", "3K"],
        ["9R", "8T", "1F", "2K", "3R", "4K"],
        ["7R", "4R", "4F", "5K", "5R", "6F"],
    ], trump="5T", dealer=3)


# Two players, kazaki, trump T; seat 0 holds the only trumps dealt (7T, 9T) and three of the four fives (5K 5R
# 5F; 5T is the turned-up card).
def attack_sets() -> DurakState:
    return deal(KAZAKI, [
        ["2K", "5K", "5R", "7T", "9T", "5F"],
        ["6K", "8K", "6R", "1F", "3F", "8F"],
    ], trump="5T")


# Six players, durak: every card is dealt, the stock is empty, the dealer 5 shows AS, so spades are trump and
# seat 0 (6S) attacks first.
#   bout 1: seat 0 attacks seat 1 with 10C; seat 1 takes; seat 3 throws 10D, 10H, 10S after the take.
#   bout 2: seat 2 (four nines) attacks seat 3, who now holds only JC JD JH: the cap is 3.
def six_durak_cap() -> DurakState:
    state = deal(DURAK, [
        ["10C", "6S", "6C", "7C", "8C", "QC"],
        ["KC", "AC", "6D", "7D", "8D", "QD"],
        ["9C", "9D", "9H", "9S", "KD", "AD"],
        ["10D", "10H", "10S", "JC", "JD", "JH"],
        ["6H", "7H", "8H", "QH", "KH", "AH"],
        ["7S", "8S", "JS", "QS", "KS", "AS"],
    ], dealer=5)
    play(state, "0:attack(10C)", "1:take", "3:throw_in(10D)", "3:throw_in(10H)", "3:throw_in(10S)")
    return state


# Six players, durak, spades trump (dealer 5 shows AS), seat 0 holds 6S.
#   bout 1: seat 0 attacks seat 1 with 7C and throws in a ladder 8D 9C 10D JC; seat 2 throws the sixth card QD.
#           Seat 1 covers all six and, the stock being empty, goes out alone.
#   bout 2: seat 2 attacks seat 3 with 7H, seat 3 takes.  bout 3: seat 4 attacks seat 5 with 8H, seat 5 takes.
#   bout 4: seat 0 attacks seat 2, skipping seat 1 who is out.
def six_durak_out() -> DurakState:
    return deal(DURAK, [
        ["7C", "8D", "9C", "10D", "JC", "6S"],
        ["8C", "9D", "10C", "JD", "QC", "KD"],
        ["QD", "7H", "6C", "KC", "AC", "6D"],
        ["7D", "7S", "AD", "6H", "9H", "10H"],
        ["8H", "JH", "QH", "KH", "AH", "9S"],
        ["8S", "10S", "JS", "QS", "KS", "AS"],
    ], dealer=5)


SIX_OUT_BOUT_1 = ("0:attack(7C)", "1:defend(7C,8C)", "0:throw_in(8D)", "1:defend(8D,9D)", "0:throw_in(9C)",
                  "1:defend(9C,10C)", "0:throw_in(10D)", "1:defend(10D,JD)", "0:throw_in(JC)", "1:defend(JC,QC)",
                  "2:throw_in(QD)", "1:defend(QD,KD)")


# Six players, durak with transfer, hearts trump (dealer 5 shows QH), seat 0 holds 6H.
#   bout 1: seat 0 attacks seat 1 with 7C; seat 3 throws 8D 9C 10D JC; seat 1 covers all five and keeps KD.
#   bout 2: seat 1 attacks seat 2 with his last card KD. Seat 3, next after seat 2, holds only 7D and QD.
def six_durak_transfer() -> DurakState:
    state = deal(DURAK, [
        ["7C", "6H", "6C", "6D", "6S", "KC"],
        ["8C", "9D", "10C", "JD", "QC", "KD"],
        ["KH", "KS", "AC", "AD", "AH", "AS"],
        ["8D", "9C", "10D", "JC", "7D", "QD"],
        ["7S", "8S", "9S", "10S", "JS", "QS"],
        ["7H", "8H", "9H", "10H", "JH", "QH"],
    ], dealer=5, transfer=True)
    play(state, "0:attack(7C)", "1:defend(7C,8C)", "3:throw_in(8D)", "1:defend(8D,9D)", "3:throw_in(9C)",
         "1:defend(9C,10C)", "3:throw_in(10D)", "1:defend(10D,JD)", "3:throw_in(JC)", "1:defend(JC,QC)",
         "3:pass", "4:pass", "5:pass")
    play(state, "1:attack(KD)")
    return state


# Three players, durak with transfer, diamonds trump; seat 0 holds the only diamond dealt (6D).
def three_durak_transfer() -> DurakState:
    return deal(DURAK, [
        ["6D", "7H", "8C", "9C", "10C", "JC"],
        ["7S", "8H", "6S", "9S", "10S", "JS"],
        ["7C", "9H", "8S", "QC", "KC", "AC"],
    ], trump="AD", transfer=True)


# Three players, durak, hearts trump; seat 0 (6H) attacks seat 1 with 8C. Seat 0 keeps 8D, seat 2 holds 8H 8S.
def three_durak_take(**options: Any) -> DurakState:
    return deal(DURAK, [
        ["6H", "8C", "8D", "7C", "9C", "10C"],
        ["6C", "6D", "7D", "9D", "10D", "JD"],
        ["8H", "8S", "6S", "7S", "9S", "10S"],
    ], trump="AH", **options)


# Four players, durak, hearts trump (KH turned up); seat 3 holds the lowest trump 6H. Example 7 of KZ.
#   bout 1: seat 3 attacks seat 0 with 6C, seat 0 takes (7 cards); seat 3 draws AC.     stock 12 -> 11
#   bout 2: seat 1 attacks seat 2 with four nines, seat 2 covers with four tens; both draw 4.   -> 3
#   bout 3: seat 2 attacks seat 3 with QC QD, seat 0 throws in QS and QH, seat 3 covers all four.
def four_durak_drawing() -> DurakState:
    state = deal(DURAK, [
        ["6D", "6S", "QS", "QH", "7D", "7S"],
        ["9C", "9D", "9H", "9S", "7C", "7H"],
        ["10C", "10D", "10H", "10S", "QC", "QD"],
        ["6H", "6C", "KC", "KD", "KS", "AH"],
    ], ["AC", "8C", "8D", "JC", "JD", "8H", "8S", "JH", "JS", "AD", "AS"], "KH", dealer=2)
    play(state, "3:attack(6C)", "0:take", "3:pass")
    play(state, "1:attack(9C,9D,9H,9S)", "2:defend(9C,10C)", "2:defend(9D,10D)", "2:defend(9H,10H)",
         "2:defend(9S,10S)")
    return state


# Three players, kazaki, trump F (3F turned up); seat 0 holds the lowest trump 0F. A whole game, Example 8 of KZ:
#   B1 0->1: seat 0 lays a six-card ladder, seat 1 covers all; both draw 6.             stock 22 -> 10
#   B2 1->2: seat 1 lays five cards, seat 2 covers; seat 1 draws 5, seat 2 draws 5.      stock -> 0
#   B3 2->0: 4R covered by 6R.   B4 0->1: four cards covered.   B5 1->2: 4T, seat 2 takes.
#   B6 0->1: seat 0 attacks with his last card 7K, seat 1 covers with his last card 8F; seat 2 holds no 7 or 8.
ENDGAME3_BOUTS = (
    ("0:attack(0F)", "1:defend(0F,6F)", "0:throw_in(0K)", "1:defend(0K,5K)", "0:throw_in(6K)", "1:defend(6K,1F)",
     "0:throw_in(1K)", "1:defend(1K,9K)", "0:throw_in(6T)", "1:defend(6T,9T)", "0:throw_in(1T)", "1:defend(1T,8T)"),
    ("1:attack(8K)", "2:defend(8K,9F)", "1:throw_in(8R)", "2:defend(8R,5F)", "1:throw_in(5T)", "2:defend(5T,7T)",
     "1:throw_in(7R)", "2:defend(7R,7F)", "1:throw_in(5R)", "2:defend(5R,9R)", "0:pass"),
    ("2:attack(4R)", "0:defend(4R,6R)", "2:pass", "1:pass"),
    ("0:attack(0R)", "1:defend(0R,2R)", "0:throw_in(0T)", "1:defend(0T,2T)", "0:throw_in(2K)", "1:defend(2K,3K)",
     "0:throw_in(2F)", "1:defend(2F,4F)", "2:pass"),
    ("1:attack(4T)", "2:take"),
    ("0:attack(7K)", "1:defend(7K,8F)"),
)


def endgame3(*, bouts: int = 0, **options: Any) -> DurakState:
    state = deal(KAZAKI, [
        ["0F", "0K", "6K", "1K", "6T", "1T"],
        ["6F", "5K", "1F", "9K", "9T", "8T"],
        ["9F", "5F", "7T", "7F", "9R", "4R"],
    ], ["6R", "0R", "0T", "2K", "2F", "7K",  # seat 0 after B1
        "8K", "8R", "5T", "7R", "5R", "2R",  # seat 1 after B1
        "2T", "3K", "4F", "4T", "8F",  # seat 1 after B2
        "1R", "3R", "3T", "4K"], "3F", dealer=2, **options)  # seat 2 after B2, then the trump card
    for bout in ENDGAME3_BOUTS[:bouts]:
        play(state, *bout)
    return state


# Two players, kazaki, trump F (6F turned up); seat 0 holds 0F. A whole game that ends in a draw:
#   B1 0->1 and B2 1->0: six-card ladders, both refill.      stock 28 -> 16 -> 4
#   B3 0->1: two cards, both draw 2.                         stock -> 0
#   B4 1->0: seat 1 lays all six cards, seat 0 covers with all six: both go out at once.
DRAW2_BOUTS = (
    ("0:attack(0F)", "1:defend(0F,4F)", "0:throw_in(0R)", "1:defend(0R,1R)", "0:throw_in(0T)", "1:defend(0T,4T)",
     "0:throw_in(4K)", "1:defend(4K,3F)", "0:throw_in(0K)", "1:defend(0K,3K)", "0:throw_in(4R)", "1:defend(4R,1F)"),
    ("1:attack(3R)", "0:defend(3R,9R)", "1:throw_in(9T)", "0:defend(9T,7F)", "1:throw_in(7T)", "0:defend(7T,8F)",
     "1:throw_in(3T)", "0:defend(3T,8T)", "1:throw_in(8R)", "0:defend(8R,5F)", "1:throw_in(7K)", "0:defend(7K,2F)"),
    ("0:attack(1K)", "1:defend(1K,9K)", "0:throw_in(1T)", "1:defend(1T,2T)", "0:pass"),
    ("1:attack(2R)", "0:defend(2R,6R)", "1:throw_in(6F)", "0:defend(6F,9F)", "1:throw_in(6K)", "0:defend(6K,8K)",
     "1:throw_in(2K)", "0:defend(2K,5K)", "1:throw_in(5T)", "0:defend(5T,6T)", "1:throw_in(5R)", "0:defend(5R,7R)"),
)


def draw2(*, bouts: int = 0, **options: Any) -> DurakState:
    state = deal(KAZAKI, [
        ["0F", "0R", "0T", "4K", "0K", "4R"],
        ["4F", "1R", "4T", "3F", "3K", "1F"],
    ], ["9R", "7F", "8F", "8T", "5F", "2F",  # seat 0 after B1
        "3R", "9T", "7T", "3T", "8R", "7K",  # seat 1 after B1
        "9K", "2T", "2R", "6K", "2K", "5T",  # seat 1 after B2
        "1K", "1T", "6R", "9F", "8K", "5K",  # seat 0 after B2
        "7R", "6T", "5R"], "6F", **options)  # after B3: seat 0 draws 7R 6T, seat 1 draws 5R and the trump card
    for bout in DRAW2_BOUTS[:bouts]:
        play(state, *bout)
    return state


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


def redeal_deal(**options: Any) -> DurakState:
    """Four players, kazaki, dealer 1: seat 0 holds five kittens, seat 2 five roosters, seats 1 and 3 no five."""
    return deal(KAZAKI, [
        ["0K", "1K", "2K", "3K", "4K", "0T"],
        ["5K", "6K", "1T", "2T", "0F", "1F"],
        ["0R", "1R", "2R", "3R", "4R", "3T"],
        ["5R", "6R", "4T", "5T", "2F", "3F"],
    ], trump="9F", dealer=1, seed=7, **options)


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
        for hand in hands:
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
