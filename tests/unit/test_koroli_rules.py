"""Hand-made deals for every numbered rule of `koroli` (RULES.md section 6, KR-1 … KR-19) and `koroli52` (section 7,
K52-1 … K52-19), and the example scenarios of both sections.

Every test builds its deals card by card and plays a script through the public API, checking the seat to act, the
legal actions in canonical order, observations, events and results.

Two kinds of deal are used:

- *Written out*: each seat's cards are listed in dealing order (``kr_order``), for the deals whose play is scripted
  card by card in the test.
- *Planned* (``plan``): a deal built from the list of trick winners it should produce. Each suit is cut into
  tricks of one card per player, the winner of each trick receiving its highest card, and the cards left over (one
  of each suit with 4 players) make the last trick, won by whoever holds the trump among them. ``drive`` plays
  such a deal: every player plays his card of the current trick, so every trick follows suit and goes to the
  planned winner (the trump suit comes first, so the trump leads of KR-8 and KR-14 are obeyed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from protocol.cards import Card
from referee.errors import ConfigError, RulesError
from referee.games.koroli.koroli import DECK36, Koroli, KoroliState
from referee.games.koroli.koroli52 import DECK52, Koroli52, Koroli52State
from referee.rng import SplitMix64

KR = Koroli()
K52 = Koroli52()
SUITS = "CDHS"


# ------------------------------------------------------------------------------------------------ helpers


def idx(text: str, deck: Any = DECK36) -> int:
    return deck.index(Card.parse(text))


def kr_order(hands: dict[int, str], receivers: Sequence[int]) -> list[int]:
    """KR-7/KR-11: ``hands[seat]`` is the seat's cards in dealing order; ``receivers`` get one card at a time, the
    last receiver (the dealer) last, so his last card is ``deck[35]``, the shown trump."""
    cards = {s: hands[s].split() for s in receivers}
    m = len(receivers)
    order = [idx(cards[receivers[k % m]][k // m]) for k in range(36)]
    assert sorted(order) == list(range(36)), "every card exactly once"
    return order


def legal(state: Any) -> list[str]:
    return [a.text for a in state.legal_actions()]


def play(state: Any, *steps: str) -> None:
    """Apply ``"seat:action"`` steps (a bare card means ``play(card)``), checking the seat to act each time."""
    for step in steps:
        for token in step.split():
            seat, _, text = token.partition(":")
            if "(" not in text and text not in ("pass", "accept", "refuse"):
                text = f"play({text})"
            assert state.to_act == int(seat), f"{token}: seat {state.to_act} is to act, legal {legal(state)}"
            state.apply(state.parse_action(text))


def auto(state: Any, stop: Any) -> None:
    """Play the last legal action (the highest card, canonically) until ``stop(state)`` or the end."""
    while not state.is_terminal and not stop(state):
        state.apply(state.legal_actions()[-1])


def obs(state: Any, seat: int) -> dict[str, Any]:
    return state.observe(seat, since=state.log_size)


def events(state: Any, kind: str, seat: int | None = None) -> list[dict[str, Any]]:
    return [e for e in state.events(0, seat) if e["type"] == kind]


class Plan:
    """A planned deal: ``hands[seat]`` (card indices) and ``tricks[k]`` (the cards of trick k)."""

    def __init__(self, hands: dict[int, list[int]], tricks: list[set[int]]) -> None:
        self.hands = hands
        self.tricks = tricks


def plan(deck: Any, players: Sequence[int], winners: Sequence[int], trump: int | None,
         removed: Sequence[int] = ()) -> Plan:
    """A deal in which trick k goes to ``winners[k]`` (see the module docstring). The trump suit is cut first."""
    r = deck.ranks_per_suit
    n = len(players)
    order = ([trump] if trump is not None else []) + [s for s in range(4) if s != trump]
    hands: dict[int, list[int]] = {p: [] for p in players}
    tricks: list[set[int]] = []
    left: list[int] = []
    k = 0
    for suit in order:
        cards = [suit * r + i for i in range(r) if suit * r + i not in removed]
        full = len(cards) // n * n
        for i in range(0, full, n):
            chunk = cards[i:i + n]
            others = [p for p in players if p != winners[k]]
            hands[winners[k]].append(chunk[-1])
            for p, c in zip(others, chunk[:-1], strict=True):
                hands[p].append(c)
            tricks.append(set(chunk))
            k += 1
        left += cards[full:]
    if left:  # the last trick: the trump among the leftovers (if any) goes to the planned winner
        assert len(left) == n
        left.sort(key=lambda c: c // r != trump)
        hands[winners[k]].append(left[0])
        for p, c in zip([p for p in players if p != winners[k]], left[1:], strict=True):
            hands[p].append(c)
        tricks.append(set(left))
        k += 1
    assert k == len(winners), f"{len(winners)} winners for {k} tricks"
    return Plan(hands, tricks)


def kr_plan_order(p: Plan, receivers: Sequence[int], trump: int) -> list[int]:
    """The deck order of a planned `koroli` deal: the dealer (last receiver) receives one of his trumps last."""
    dealer = receivers[-1]
    mine = sorted(p.hands[dealer], key=lambda c: c // 9 == trump)  # a trump last
    hands = {s: " ".join(DECK36.texts[c] for c in (mine if s == dealer else p.hands[s])) for s in receivers}
    return kr_order(hands, receivers)


def drive(state: Any, p: Plan, decisions: Sequence[str] = (), *, stop: Any = None) -> None:
    """Play one planned deal: each player plays his card of the current trick; other decisions come from
    ``decisions`` ("seat:action"), or default to ``pass`` / ``name_trump(S)``."""
    queue = list(decisions)
    start = len(state.history)
    while not state.is_terminal and len(state.history) == start:
        if stop is not None and stop(state):
            return
        seat = state.to_act
        kinds = {a.kind for a in state.legal_actions()}
        if kinds == {"play"}:
            trick = p.tricks[len(state.wins)]
            card = [c for c in trick if state.hands[seat] >> c & 1]
            assert len(card) == 1, f"seat {seat} holds {card} of trick {len(state.wins) + 1}"
            state.apply(state.parse_action(f"play({state.t.texts[card[0]]})"))
        elif queue:
            play(state, queue.pop(0))
        elif "name_trump" in kinds:
            state.apply(state.parse_action("name_trump(S)"))
        else:
            state.apply(state.parse_action("pass"))
    assert not queue, f"decisions left over: {queue}"


# ----------------------------------------------------------------------------------------- koroli deals

# Stage 1, dealer 0 (receivers 1, 2, 3, 0), spades trump (9S shown), the deal D1 of scenario 4:
#   seat 1 wins tricks 1-2 with AC KC, seat 2 trick 3 with AD, seat 0 trumps trick 4 and wins 5-9 with spades.
D1 = {0: "AS KS QS JS 10S 6C 7C 8C 9S", 1: "AC KC 6D 7D 8D 9D 10D JD QD",
      2: "AD KD 6H 7H 8H 9H 10H JH QH", 3: "9C 10C JC QC 6S 7S 8S AH KH"}
D1_PLAY = ("1:AC 2:6H 3:9C 0:6C", "1:KC 2:7H 3:10C 0:7C", "1:6D 2:AD 3:KH 0:8C", "2:KD 3:AH 0:9S 1:7D",
           "0:AS 1:8D 2:8H 3:6S", "0:KS 1:9D 2:9H 3:7S", "0:QS 1:10D 2:10H 3:8S", "0:JS 1:JD 2:JH 3:JC",
           "0:10S 1:QD 2:QH 3:QC")
# The same cards in deal 2: seat 0 trumps trick 3 and takes tricks 3-9, his 10th trick of the stage at trick 6.
D1_PLAY_2 = ("1:AC 2:6H 3:9C 0:6C", "1:KC 2:7H 3:10C 0:7C", "1:6D 2:KD 3:KH 0:9S", "0:AS 1:7D 2:8H 3:6S",
             "0:KS 1:8D 2:9H 3:7S", "0:QS 1:9D 2:10H 3:8S", "0:JS 1:10D 2:JH 3:JC", "0:10S 1:JD 2:QH 3:QC",
             "0:8C 1:QD 2:AD 3:AH")

# The standard introduction (4 deals), titles King 0, Prince 2, Soldier 1, Peasant 3, whatever is played:
#   stage 1, deals 1-2 (dealer 0): seat 0 holds all nine spades and takes every trick; King in deal 2.
#   stage 2 (dealer 1, the next active player after seat 0, receivers 2, 3, 1): seat 2 holds eight spades and
#     AC AD AH KC and takes all 12 tricks; seat 1's only trump, the shown 6S, falls to his trump lead.
#   stage 3 (dealer 1 again: the title holder took every trick and seat 1 is still active; receivers 3, 1):
#     seat 1 holds all spades and the clubs, seat 3 the red suits; playing the highest card, seat 1 wins 9 tricks.
STAGE1 = {0: "AS KS QS JS 10S 9S 8S 7S 6S", 1: "6C 7C 8C 9C 10C JC QC KC AC",
          2: "6D 7D 8D 9D 10D JD QD KD AD", 3: "6H 7H 8H 9H 10H JH QH KH AH"}
STAGE2 = {2: "AS KS QS JS 10S 9S 8S 7S AC AD AH KC", 1: "6C 7C 8C 9C 10C JC QC 6D 7D 8D 9D 6S",
          3: "10D JD QD KD 6H 7H 8H 9H 10H JH QH KH"}
STAGE3 = {1: "6C 7C 8C 9C 10C JC QC KC AC AS KS QS JS 10S 9S 8S 7S 6S",
          3: "6D 7D 8D 9D 10D JD QD KD AD 6H 7H 8H 9H 10H JH QH KH AH"}


def intro_orders() -> list[list[int]]:
    return [kr_order(STAGE1, [1, 2, 3, 0]), kr_order(STAGE1, [1, 2, 3, 0]), kr_order(STAGE2, [2, 3, 1]),
            kr_order(STAGE3, [3, 1])]


def kr_state(*orders: list[int], reign_deals: int = 6, dealer: int = 0, seed: int = 0) -> KoroliState:
    return KoroliState(KR, 4, seed, KR.configure({"reign_deals": reign_deals}), dealer, deck_orders=orders)


def reign(*deals: dict[int, str], reign_deals: int = 6) -> KoroliState:
    """The standard introduction, then hand-made reign deals (role order King 0, Prince 2, Soldier 1, Peasant 3
    for the first). Returned at the first decision of the reign: the King's give."""
    state = kr_state(*intro_orders(), *[kr_order(d, [0, 2, 1, 3]) for d in deals], reign_deals=reign_deals)
    auto(state, lambda s: s.reign_no > 0)
    return state


# Reign deal of scenario 9 (trump S, 6S shown). The King takes AS and gives 8C; the Prince takes QS and gives 8D.
#   Then: K wins 1-2 with AS KS, P wins 3 (AC), S 4 (KC), P 5 (AD), S 6 (KD), S 7 (AH), P 8 (KH), Pe 9 (10S).
REIGN9 = {0: "KS 6C 9C 6D 9D 6H 9H QC 8C", 2: "JS AC 10C AD 10D 7H KH QD 8D",
          1: "8S 9S 7C KC 7D KD AH 10H QH", 3: "AS QS 7S 10S JC JD 8H JH 6S"}
REIGN9_PLAY = ("0:give(8C)", "2:give(8D)", "0:AS 2:QS 1:8S 3:6S", "0:KS 2:JS 1:9S 3:7S", "0:6C 2:AC 1:7C 3:8C",
               "0:9C 2:10C 1:KC 3:JC", "0:6D 2:AD 1:7D 3:8D", "0:9D 2:10D 1:KD 3:JD", "0:6H 2:7H 1:AH 3:8H",
               "0:9H 2:KH 1:10H 3:JH", "0:QC 2:QD 1:QH 3:10S")

# Reign deal of scenarios 7 (trump D, 7D shown): the Peasant holds 7D KD AS, the King AD QD JD 10D 9D.
REIGN7 = {3: "KD AS 6C 7C 8C 6H 7H 8H 7D", 0: "AD QD JD 10D 9D 9C 10C 9H 10H",
          2: "8D 6D JC QC KC AC JH QH KH", 1: "6S 7S 8S 9S 10S JS QS KS AH"}

# Reign deal of scenarios 8 and 10 (trump D, 7D shown, the Peasant's only trump). The King has no diamond but the
# one he levies, so he must lead it; the Prince holds AD..6D and wins trick 1; the Peasant is left without trumps.
REIGN10 = {3: "6C 7C 8C 9C 6H 7H 8H 9H 7D", 0: "10C JC 10H JH 6S 7S 8S 9S 10S",
           2: "AD KD QD JD 10D 9D 8D 6D QC", 1: "KC AC QH KH AH JS QS KS AS"}

# A reign deal the King wins entirely (trump S, AS shown): the King levies AS in public, gives 6C; the Peasant has
# no trump left, so the Prince chooses. Everybody else takes 0 tricks.
REIGN_KING = {0: "KS QS JS 10S 9S 8S 7S AC 6C", 2: "6S 7C 8C 9C 10C JC QC KC 6D",
              1: "7D 8D 9D 10D JD QD KD 6H 7H", 3: "AD 8H 9H 10H JH QH KH AH AS"}


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


# ---------------------------------------------------------------------------------------------- koroli52


def seed_for_trump(suit: str) -> int:
    """A seed whose first draw, with the tour-1 shuffle replaced by a hand-made order, names ``suit``."""
    return next(s for s in range(100) if SplitMix64(s).randbelow(4) == SUITS.index(suit))


def k52_order(p: Plan, n: int) -> list[int]:
    per = len(p.hands[0])
    return [p.hands[k % n][k // n] for k in range(per * n)]


def k52_plan(n: int, winners: Sequence[int], trump: str | None) -> Plan:
    return plan(DECK52, list(range(n)), winners, None if trump is None else SUITS.index(trump),
                removed=(0,) if n == 3 else ())


def k52_state(n: int, plans: Sequence[Plan], trump1: str = "S") -> Koroli52State:
    return Koroli52State(K52, n, seed_for_trump(trump1), K52.configure(), 0,
                         deck_orders=[k52_order(p, n) for p in plans])


def spread(counts: dict[int, int]) -> list[int]:
    """Winners giving each seat its count, round-robin so that every seat's first trick comes early, in seat
    order of the dict."""
    left = dict(counts)
    out: list[int] = []
    while any(left.values()):
        for s in counts:
            if left[s]:
                out.append(s)
                left[s] -= 1
    return out


# Tours 1-3 for four players (trump S in tour 1, named S after): tour 1 seat 0 7, seat 1 5, seat 2 1, seat 3 0;
# tours 2-3 the King (seat 0) takes all 13. Titles: tour 2 K0 P1 S2 J3, tour 3 K0 P3 S2 J1, tour 4 K0 P1 S2 J3.
# Totals before tour 4: 33, 5, 1, 0.
TOUR1 = [0, 1, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]
FIRST3 = [k52_plan(4, TOUR1, "S"), k52_plan(4, [0] * 13, "S"), k52_plan(4, [0] * 13, "S")]


def to_tour(state: Koroli52State, tour: int, plans: Sequence[Plan]) -> None:
    for p in plans[:tour - 1]:
        drive(state, p)
    assert state.tour == tour


def test_k52_1_three_or_four_players_and_their_titles() -> None:
    assert (K52.min_seats, K52.max_seats) == (3, 4)
    for seats in (2, 5):
        with pytest.raises(ConfigError):
            K52.new_state(seats, 1)
    for n, names in ((4, ["King", "Prince", "Soldier", "Jester"]), (3, ["King", "Prince", "Jester"])):
        p = k52_plan(n, [0] * (52 // n), "S")
        state = k52_state(n, [p])
        assert obs(state, 0)["titles"] is None  # no titles in tour 1
        drive(state, p)
        assert obs(state, 0)["titles"] == names  # 0 ties: by seat


def test_k52_2_the_deck_and_the_hands() -> None:
    assert len(DECK52) == 52 and DECK52.texts[0] == "2C" and DECK52.texts[-1] == "AS"
    state = K52.new_state(4, 3)
    assert obs(state, 0)["hand_sizes"] == [13] * 4
    state = K52.new_state(3, 3)
    assert obs(state, 0)["hand_sizes"] == [17] * 3
    assert all("2C" not in obs(state, s)["hand"] for s in range(3))
    assert state.card_places()["removed"] == [0]


def test_k52_3_ten_tours_and_no_dealer() -> None:
    a, b = K52.new_state(4, 11, dealer=0), K52.new_state(4, 11, dealer=2)
    auto(a, lambda s: False)
    auto(b, lambda s: False)
    assert a.events(0, None) == b.events(0, None)  # the dealer is ignored (C-1)
    assert [e["tour"] for e in events(a, "tour")] == list(range(1, 11))
    assert all(len(t) == 10 for t in (sc["tricks"] for sc in a.result().scores))


def test_k52_4_dealt_one_at_a_time_from_seat_0() -> None:
    p = k52_plan(4, TOUR1, "S")
    state = k52_state(4, [p])
    order = k52_order(p, 4)
    for k, card in enumerate(order):
        assert DECK52.texts[card] in obs(state, k % 4)["hand"]


def test_k52_5_follow_else_trump_else_anything() -> None:
    # Tour 1, trump S. Seat 0 leads 2H; a void player holding a spade must play a spade (any spade).
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S 3S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:2H")
    assert legal(state) == [f"play({c})" for c in hands[1].split()]  # no heart, no spade: anything
    play(state, "1:2D")
    assert legal(state) == ["play(2S)", "play(3S)"]  # must trump, not necessarily high
    play(state, "2:2S")
    assert legal(state) == [f"play({c})" for c in ["4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
                                                   "AS"]]


def test_k52_6_highest_trump_else_highest_of_the_led_suit() -> None:
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S 3S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:AH 1:AD 2:2S 3:4S")
    assert events(state, "trick")[-1]["winner"] == 3
    play(state, "3:KC 0:2H 1:2D 2:QC")
    assert events(state, "trick")[-1]["winner"] == 3  # KC beats QC; 2H, 2D are off-suit


def test_k52_7_totals_are_tricks_plus_bargains() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    assert obs(state, 2)["totals"] == [33, 5, 1, 0]
    play(state, "0:exchange(1)", "1:bargain(3)", "0:accept")
    assert obs(state, 2)["totals"] == [36, 2, 1, 0] and obs(state, 2)["bargain_net"] == [3, -3, 0, 0]


def test_k52_8_the_tour_1_trump_is_drawn_at_random_after_the_shuffle() -> None:
    for seed in range(8):
        rng = SplitMix64(seed)
        rng.shuffle(list(range(52)))
        suit = SUITS[rng.randbelow(4)]
        state = K52.new_state(4, seed)
        assert events(state, "trump") == [{"type": "trump", "suit": suit, "seat": None}]
        assert obs(state, 1)["trump"] == suit


def test_k52_9_tour_1_seat_0_leads_and_the_winner_leads_clockwise() -> None:
    p = k52_plan(4, [2, 3, 1] + [0] * 10, "S")
    state = k52_state(4, [p])
    assert state.to_act == 0 and {a.kind for a in state.legal_actions()} == {"play"}
    drive(state, p, stop=lambda s: len(s.wins) == 1)
    assert state.to_act == 2 and obs(state, 0)["play_order"] == [2, 3, 0, 1]
    drive(state, p, stop=lambda s: len(s.wins) == 2)
    assert state.to_act == 3 and obs(state, 0)["play_order"] == [3, 0, 1, 2]


def test_k52_10_tour_1_ranking() -> None:
    # Ties at c >= 1 by the earlier first trick: seats 1 and 3 take 6 each, seat 3 first.
    p = k52_plan(4, [3, 1] + [3] * 5 + [1] * 5 + [2], "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert state.history == [(0, 6, 1, 6)]
    assert obs(state, 0)["titles"] == ["Jester", "Prince", "Soldier", "King"]
    # Ties at 0 tricks by the lower seat.
    p = k52_plan(4, [2] * 13, "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert obs(state, 0)["titles"] == ["Prince", "Soldier", "King", "Jester"]


def test_k52_11_exchange_phase_order_and_targets() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    assert obs(state, 0)["titles"] == ["King", "Prince", "Soldier", "Jester"]
    assert state.to_act == 0 and legal(state) == ["exchange(1)", "exchange(2)", "exchange(3)", "pass"]
    play(state, "0:pass")
    assert state.to_act == 1 and legal(state) == ["exchange(2)", "exchange(3)", "pass"]
    play(state, "1:pass")
    assert state.to_act == 2 and legal(state) == ["exchange(3)", "pass"]
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "2:exchange(3)")  # a whole-hand swap, at once in tour 2
    assert [obs(state, s)["hand"] for s in (2, 3)] == [before[3], before[2]]
    assert state.to_act == 0 and legal(state)[0] == "name_trump(C)"


def test_k52_12_the_king_names_a_trump_or_no_trump() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    play(state, "0:pass", "1:pass", "2:pass")
    assert legal(state) == ["name_trump(C)", "name_trump(D)", "name_trump(H)", "name_trump(S)", "name_trump(none)"]
    assert obs(state, 1)["trump"] is None
    play(state, "0:name_trump(none)")
    assert obs(state, 1)["trump"] == "none"
    assert events(state, "trump")[-1] == {"type": "trump", "suit": "none", "seat": 0}


def test_k52_13_bargaining_from_tour_4() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)")
    assert state.to_act == 1 and legal(state) == ["bargain(1)", "bargain(2)", "bargain(3)", "pass"]
    play(state, "1:bargain(1)")
    assert state.to_act == 0 and legal(state) == ["accept", "refuse"]
    play(state, "0:refuse")  # the swap happens
    assert [obs(state, s)["hand"] for s in (0, 1)] == [before[1], before[0]]
    assert obs(state, 0)["totals"] == [33, 5, 1, 0]
    play(state, "1:exchange(2)")
    assert legal(state) == ["bargain(1)", "pass"]  # a total of 1
    play(state, "2:pass")  # pass accepts the swap
    assert obs(state, 2)["hand"] == before[0]
    play(state, "2:exchange(3)")  # a total of 0: swapped at once
    assert obs(state, 3)["hand"] == before[0] and state.to_act == 0 and legal(state)[-1] == "name_trump(none)"


def test_k52_14_the_king_leads_every_trick_in_title_order() -> None:
    plans = FIRST3[:2] + [k52_plan(4, [1] + [0] * 12, "S")]
    state = k52_state(4, plans)
    to_tour(state, 3, plans)
    assert obs(state, 0)["titles"] == ["King", "Jester", "Soldier", "Prince"]
    play(state, "0:pass", "3:pass", "2:pass", "0:name_trump(S)")
    # Seat 1 (the Jester, not next to the King) plays last and wins trick 1; the King still leads trick 2.
    p = plans[2]
    assert obs(state, 0)["play_order"] == [0, 3, 2, 1] and state.to_act == 0
    drive(state, p, stop=lambda s: len(s.wins) == 1)
    assert events(state, "trick")[-1]["winner"] == 1
    assert state.to_act == 0 and obs(state, 1)["play_order"] == [0, 3, 2, 1]


def test_k52_15_tour_ranking_ties() -> None:
    """K52-15, and example test scenario 4 (two-way tie) of RULES.md (K52)."""
    # Tour 2 (titles K1 P0 S2 J3 from the tour-1 plan of scenario 3): counts 4 each for the Prince (0) and the
    # Soldier (2), the Prince first; the Soldier ranks higher (two-way tie). Then the King 3 and the Jester 2.
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    tour2 = [0, 2, 1, 3, 0, 2, 1, 3, 0, 2, 1, 0, 2]
    state = k52_state(4, [k52_plan(4, tour1, "S"), k52_plan(4, tour2, "S")])
    drive(state, k52_plan(4, tour1, "S"))
    assert obs(state, 0)["titles"] == ["Prince", "King", "Soldier", "Jester"]
    drive(state, k52_plan(4, tour2, "S"))
    assert state.history[-1] == (4, 3, 4, 2)
    assert obs(state, 0)["titles"] == ["Prince", "Soldier", "King", "Jester"]


def test_k52_15_zero_trick_ties_lower_title_first() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 3, FIRST3)  # tour 2: the King took all; Prince 1, Soldier 2, Jester 3 had 0
    assert obs(state, 0)["titles"] == ["King", "Jester", "Soldier", "Prince"]


def test_k52_16_state_table() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    seen = []
    for step in ("0:exchange(1)", "1:bargain(2)", "0:refuse", "1:pass", "2:pass", "0:name_trump(H)"):
        seen.append((obs(state, 0)["phase"], [a.kind for a in state.legal_actions()]))
        play(state, step)
    assert seen == [
        ("exchange", ["exchange", "exchange", "exchange", "pass"]),
        ("bargain", ["bargain", "bargain", "bargain", "pass"]),
        ("bargain_reply", ["accept", "refuse"]),
        ("exchange", ["exchange", "exchange", "pass"]),
        ("exchange", ["exchange", "pass"]),
        ("name_trump", ["name_trump"] * 5),
    ]
    assert obs(state, 0)["phase"] == "play"


def final_plans() -> list[Plan]:
    """Ten tours: seat 0 4 tricks a tour, seat 2 2, seats 1 and 3 sharing 7 (tour 10: 2 and 5)."""
    plans = []
    for tour in range(10):
        one = 4 if tour < 6 else 3
        counts = {0: 4, 1: one, 2: 2, 3: 7 - one}
        if tour == 9:
            counts = {0: 4, 1: 2, 2: 2, 3: 5}
        plans.append(k52_plan(4, spread(counts), "S"))
    return plans


def test_k52_17_final_ranking_by_total_ties_by_the_tour_10_titles() -> None:
    """K52-17, and example test scenario 9 (final ranking) of RULES.md (K52)."""
    plans = final_plans()
    state = k52_state(4, plans)
    for p in plans:
        drive(state, p)
    assert state.is_terminal
    result = state.result()
    assert [sc["total"] for sc in result.scores] == [40, 35, 20, 35]
    assert result.finishing_order == ((0,), (3,), (1,), (2,))
    assert result.places == (1, 3, 4, 2)
    assert result.extra["emperor"] == 0
    assert result.extra["titles"][3] == "King"
    assert result.scores[1] == {"total": 35, "tricks": [4] * 6 + [3] * 3 + [2], "bargain_net": 0}
    assert events(state, "end") == [{"type": "end", "emperor": 0, "order": [0, 3, 1, 2]}]


def test_k52_18_only_the_hands_are_private() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    play(state, "0:exchange(2)")
    public = [e for e in state.events(0, None) if e["type"] not in ("hand", "received")]
    for seat in range(4):
        mine = state.events(0, seat)
        assert [e for e in mine if e["type"] not in ("hand", "received")] == public
        assert {e["seat"] for e in mine if e["type"] in ("hand", "received")} == {seat}
    assert events(state, "swap", 1)[-1] == {"type": "swap", "seats": [0, 2]}
    # The two players of the swap know both hands: each receives the other's.
    got = events(state, "received", 0)[-1]
    assert got["from"] == 2 and got["cards"] == events(state, "hand", 2)[-1]["cards"]
    assert events(state, "received", 1) == []


def test_k52_19_one_shuffle_per_tour_and_one_draw_for_the_tour_1_trump() -> None:
    state = K52.new_state(3, 5)
    rng = SplitMix64(5)
    first = list(range(1, 52))
    rng.shuffle(first)
    trump = SUITS[rng.randbelow(4)]
    second = list(range(1, 52))
    rng.shuffle(second)
    assert obs(state, 0)["trump"] == trump
    for k, card in enumerate(first):
        assert DECK52.texts[card] in obs(state, k % 3)["hand"]
    auto(state, lambda s: s.tour == 2)
    for k, card in enumerate(second):
        assert DECK52.texts[card] in events(state, "hand", k % 3)[-1]["cards"]


def test_k52_example_1_must_trump() -> None:
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "3S AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
             2: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KD 2S", 3: "KC AC 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}
    order = [idx(hands[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0, deck_orders=[order])
    play(state, "0:2H")
    assert legal(state) == ["play(3S)"]


# Tour 2 after FIRST3's tour 1 (titles K0 P1 S2 J3): the King holds the hearts; the Prince, void in hearts,
# holds diamonds and spades.
TOUR2_VOID = {0: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S 8S",
              2: "8D 9D 10D JD QD KD AD 2C 3C 4C 5C 6C 7C", 3: "8C 9C 10C JC QC KC AC 9S 10S JS QS KS AS"}


@pytest.mark.parametrize(("named", "count"), [("none", 13), ("S", 7)])
def test_k52_example_2_no_trump_void_plays_anything(named: str, count: int) -> None:
    order = [idx(TOUR2_VOID[k % 4].split()[k // 4], DECK52) for k in range(52)]
    state = Koroli52State(K52, 4, seed_for_trump("S"), K52.configure(), 0,
                          deck_orders=[k52_order(FIRST3[0], 4), order])
    drive(state, FIRST3[0])
    play(state, "0:pass", "1:pass", "2:pass", f"0:name_trump({named})", "0:2H")
    assert len(legal(state)) == count  # no trump: any of 13; spades trump: one of the 7 spades


def test_k52_example_3_tour_1_ranking() -> None:
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    p = k52_plan(4, tour1, "S")
    state = k52_state(4, [p])
    drive(state, p)
    assert state.history == [(4, 4, 3, 2)]
    assert obs(state, 0)["titles"] == ["Prince", "King", "Soldier", "Jester"]


def test_k52_example_5_three_way_tie() -> None:
    # Tour 2 (titles K1 P0 S2 J3): the Jester takes 4; the others 3 each with first tricks Soldier, King, Prince.
    tour1 = [2, 1, 3, 2, 0, 0, 1, 0, 1, 0, 1, 2, 3]
    tour2 = [2, 1, 0, 3, 3, 3, 3, 2, 1, 0, 2, 1, 0]
    state = k52_state(4, [k52_plan(4, tour1, "S"), k52_plan(4, tour2, "S")])
    drive(state, k52_plan(4, tour1, "S"))
    drive(state, k52_plan(4, tour2, "S"))
    assert state.history[-1] == (3, 3, 3, 4)
    assert obs(state, 0)["titles"] == ["Jester", "Soldier", "Prince", "King"]


def test_k52_example_6_exchange_chain() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 2, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(3)")
    assert legal(state) == ["exchange(2)", "exchange(3)", "pass"]
    play(state, "1:exchange(3)")  # the Jester now holds the King's old hand
    assert obs(state, 1)["hand"] == before[0]
    assert obs(state, 3)["hand"] == before[1] and obs(state, 0)["hand"] == before[3]


def test_k52_example_7_buy_off_accepted() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)", "1:bargain(2)", "0:accept")
    assert obs(state, 3)["totals"] == [35, 3, 1, 0]
    assert [obs(state, s)["hand"] for s in range(4)] == before
    assert state.to_act == 1  # the King's right is used up: the Prince declares next
    assert events(state, "accept", 3)[-1] == {"type": "accept", "seat": 0, "from": 1, "tricks": 2}


def test_k52_example_8_when_bargaining_is_possible() -> None:
    state = k52_state(4, FIRST3)
    to_tour(state, 3, FIRST3)  # tour 3, titles K0 P3 S2 J1
    before = [obs(state, s)["hand"] for s in range(4)]
    play(state, "0:exchange(1)")  # seat 1's total is 5, but tour 3 has no bargaining
    assert obs(state, 0)["hand"] == before[1] and obs(state, 0)["phase"] == "exchange"
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    play(state, "0:exchange(2)")
    assert legal(state) == ["bargain(1)", "pass"]
    state = k52_state(4, FIRST3)
    to_tour(state, 4, FIRST3)
    play(state, "0:exchange(3)")
    assert state.to_act == 1 and obs(state, 1)["phase"] == "exchange"


def test_k52_example_10_three_players() -> None:
    winners = [0] * 9 + [1] * 6 + [2] * 2
    p = k52_plan(3, winners, "S")
    state = k52_state(3, [p, k52_plan(3, [0] * 17, "S")])
    assert obs(state, 0)["hand_sizes"] == [17, 17, 17]
    drive(state, p)
    assert obs(state, 0)["titles"] == ["King", "Prince", "Jester"]
    assert legal(state) == ["exchange(1)", "exchange(2)", "pass"]
    play(state, "0:pass")
    assert legal(state) == ["exchange(2)", "pass"]
