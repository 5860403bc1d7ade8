"""What the tests of the rules of `koroli` and `koroli52` share (test_koroli_rules_*.py): hand-made deals for every
numbered rule of `koroli` (RULES.md section 6, KR-1 … KR-19) and `koroli52` (section 7, K52-1 … K52-19), and the
example scenarios of both sections.

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

from protocol.cards import Card
from referee.games.koroli.koroli import DECK36, Koroli, KoroliState
from referee.games.koroli.koroli52 import Koroli52

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
