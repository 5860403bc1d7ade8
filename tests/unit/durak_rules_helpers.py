"""What the tests of the rules of `kazaki` and `durak` share (test_durak_rules_*.py): hand-made deals for every
numbered rule of RULES.md section 2 (KZ-1 … KZ-26), the ten example scenarios of that section, and the C-11 bout
limit.

Every test builds its deal card by card (``deal`` below), plays a short script of actions and checks what the
public API says: the seat to act, the legal actions in canonical order, observations, events and results.

The longer deals are planned bout by bout in the comments above them. Two of them play a whole game to its end:
``endgame3`` (3-player kazaki, ending with a Robber) and ``draw2`` (2-player kazaki, ending in a draw). With 6
players in `durak` every card is dealt and the stock is empty from the start, so those deals reach going out,
caps below 6 and transfer capacity checks within a bout or two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.cards import Card, Deck
from referee.games.durak import Durak, DurakState, Kazaki

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


def redeal_deal(**options: Any) -> DurakState:
    """Four players, kazaki, dealer 1: seat 0 holds five kittens, seat 2 five roosters, seats 1 and 3 no five."""
    return deal(KAZAKI, [
        ["0K", "1K", "2K", "3K", "4K", "0T"],
        ["5K", "6K", "1T", "2T", "0F", "1F"],
        ["0R", "1R", "2R", "3R", "4R", "3T"],
        ["5R", "6R", "4T", "5T", "2F", "3F"],
    ], trump="9F", dealer=1, seed=7, **options)
