"""What the tests of the three Kozel games' rules share (test_kozel_rules_*.py): hand-made deals for the
numbered rules of RULES.md sections 3-5 (KO-1 … KO-16, KH-1 … KH-18, KN-1 … KN-24), their example scenarios,
and the common rules they rely on (C-1, C-5, C-8, C-10, C-11).

Each test builds its deals card by card and drives the public API: the seat to act, the legal actions in canonical
order (C-7), observations, events and results.

- ``kozel`` deals (``ko``) list four cards per seat, the turned-up trump card and the stock from the top.
- Team deals (``order36``) list each seat's nine cards; a hand given with fewer cards is completed with the unnamed
  cards in canonical order, seat 0 first.
- ``kozel-nn`` boasting deals (``boast_order``) list the pairs, bottom card then top card, in the order they are
  given, then the cards dealt from the top to complete the hands.

The longer deals (``Scripted``) were found by a seeded random search for a given score and are replayed here
trick by trick; the tricks are written in play order, leader first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.actions import Action
from protocol.cards import Card
from referee.engine import Game
from referee.games.kozel.hvaleny import HvalenyState, KozelHvaleny
from referee.games.kozel.kozel import Kozel, KozelState
from referee.games.kozel.nn import KozelNN, NNState

KO = Kozel()
KH = KozelHvaleny()
KN = KozelNN()
PASS = Action("pass")


# ------------------------------------------------------------------------------------------------ helpers


def idx(game: Game, text: str) -> int:
    return game.deck.index(Card.parse(text))  # type: ignore[attr-defined]


def texts(game: Game, cards: Sequence[int]) -> list[str]:
    return [game.deck.texts[c] for c in cards]  # type: ignore[attr-defined]


def ko_order(hands: Sequence[str], trump: str, stock: str = "", *, dealer: int = 0) -> list[int]:
    """KO-6: four cards each, one at a time from the dealer's left; the next card is turned up (trump) and the
    stock follows it, top first; unnamed cards go under the named stock, above the trump card."""
    n = len(hands)
    split = [h.split() for h in hands]
    assert all(len(h) == 4 for h in split), "every kozel hand has four cards"
    order = [idx(KO, split[(dealer + 1 + k) % n][k // n]) for k in range(4 * n)]
    order += [idx(KO, trump)] + [idx(KO, c) for c in stock.split()]
    removed = {idx(KO, "7C"), idx(KO, "7S")} if n == 3 else set()
    order += [c for c in range(32) if c not in order and c not in removed]
    assert len(set(order)) == len(order), "a card is dealt twice"
    return order


def ko(hands: Sequence[str], trump: str, stock: str = "", *, dealer: int = 0,
       then: Sequence[list[int]] = (), **options: Any) -> KozelState:
    return KozelState(KO, len(hands), 0, KO.configure(options), dealer,
                      deck_orders=[ko_order(hands, trump, stock, dealer=dealer), *then])


def order36(game: Game, hands: Sequence[str], dealer: int = 0) -> list[int]:
    """KH-7, KN-7: nine cards each, one at a time from the dealer's left. Short hands are completed with the
    unnamed cards in canonical order, seat 0 first."""
    split = [[idx(game, c) for c in h.split()] for h in hands]
    named = {c for h in split for c in h}
    assert len(named) == sum(len(h) for h in split), "a card is dealt twice"
    rest = [c for c in range(36) if c not in named]
    for h in split:
        while len(h) < 9:
            h.append(rest.pop(0))
    return [split[(dealer + 1 + k) % 4][k // 4] for k in range(36)]


def rotate(hands: Sequence[str], k: int) -> list[str]:
    """The same hands, each moved k seats clockwise."""
    return [hands[(s - k) % 4] for s in range(4)]


def kh(hands: Sequence[str], *, dealer: int = 0, then: Sequence[list[int]] = (), max_deals: int = 200,
       **options: Any) -> HvalenyState:
    return HvalenyState(KH, 4, 0, KH.configure(options), dealer,
                        deck_orders=[order36(KH, hands, dealer), *then], max_deals=max_deals)


def kn(hands: Sequence[str], *, dealer: int = 0, then: Sequence[list[int]] = (), max_deals: int = 200,
       seed: int = 0, **options: Any) -> NNState:
    return NNState(KN, 4, seed, KN.configure(options), dealer,
                   deck_orders=[order36(KN, hands, dealer), *then], max_deals=max_deals)


def boast_order(pairs: Sequence[str], fill: str = "") -> list[int]:
    """KN-20: the deck for one boasting. Pair i is ``"bottom top"``: the i-th card from the bottom and from the
    top. ``fill`` continues from the top (it completes the hands); unnamed cards follow in canonical order."""
    bottoms = [p.split()[0] for p in pairs]
    tops = [p.split()[1] for p in pairs]
    middle = [idx(KN, c) for c in fill.split()]
    named = [idx(KN, c) for c in tops] + middle + [idx(KN, c) for c in bottoms]
    middle += [c for c in range(36) if c not in named]
    order = [idx(KN, c) for c in tops] + middle + [idx(KN, c) for c in reversed(bottoms)]
    assert sorted(order) == list(range(36)), "a card is named twice"
    return order


def legal(state: Any) -> list[str]:
    return [a.text for a in state.legal_actions()]


def act(state: Any, *steps: str) -> None:
    """Apply ``"seat:action"`` steps (a bare card means ``play(card)``), checking the seat first."""
    for step in steps:
        seat, _, text = step.rpartition(":")
        if "(" not in text and text not in ("pass", "demand_redeal", "reboast", "keep"):
            text = f"play({text})"
        if seat:
            assert state.to_act == int(seat), f"{step}: seat {state.to_act} is to act, legal {legal(state)}"
        state.apply(state.parse_action(text))


def play(state: Any, tricks: str) -> None:
    """Play the cards of ``tricks`` (play order, ``|`` between tricks) for whoever is to act."""
    for card in tricks.replace("|", " ").split():
        act(state, card)


def pass_offers(state: Any) -> None:
    """Decline every redeal offer now pending."""
    while legal(state) == ["demand_redeal", "pass"]:
        state.apply(PASS)


def phase(state: Any) -> str:
    """The phase as the seat to act sees it."""
    return state.observe(state.to_act)["phase"] if state.to_act is not None else "over"


def finish_deal(state: Any) -> None:
    """Play the current deal to its end: ``pass`` on offers, else the first legal action."""
    deal = state.deal_no
    while state.deal_no == deal and state.to_act is not None:
        actions = state.legal_actions()
        state.apply(PASS if PASS in actions else actions[0])


def events(state: Any, kind: str, *, since: int = 0, seat: int | None = None) -> list[dict[str, Any]]:
    return [e for e in state.events(since, seat) if e["type"] == kind]


def hand(state: Any, seat: int) -> list[str]:
    return state.observe(seat)["hand"]


def canon(game: Game, cards: str) -> list[str]:
    return sorted(cards.split(), key=lambda t: idx(game, t))


@dataclass(frozen=True)
class Scripted:
    """A whole deal: the hands by seat and every card played, trick by trick."""

    hands: list[str]
    plays: str

    def run(self, state: Any) -> None:
        pass_offers(state)
        play(state, self.plays)


@dataclass(frozen=True)
class KoScripted(Scripted):
    trump: str = ""
    stock: str = ""

    def order(self, dealer: int) -> list[int]:
        return ko_order(self.hands, self.trump, self.stock, dealer=dealer)


# ------------------------------------------------------------------------------------------- the deals

# Found by a seeded random search; each replays one complete deal.
KH_91_29 = Scripted(  # dealer 0, 91:29
    ['6C QC AC 7D 10D 6H KH 8S QS', '7C 9C 6D 8D JD QD 6S 9S AS',
     '8C JC 9D 7H 9H JH QH 10S KS', '10C KC KD AD 8H 10H AH 7S JS'],
    ('JD JC AD 6C | KH 9S 7H 10H | 8H 6H QD 9H | 6S KS 7S 8S | JH KD 7D 8D | 8C 10C AC 7C | '
     '10D 6D 9D JS | KC QC 9C QH | QS AS 10S AH'),
)
KH_90_30 = Scripted(  # dealer 0, 90:30
    ['6C 7C 8D QD KD 6H JH KS AS', '10C AC 7D 9D 8H 10H 7S 8S 9S',
     'JC 6D 10D JD AD KH AH 10S JS', '8C 9C QC KC 7H 9H QH 6S QS'],
    ('9S 10S 6S AS | JH 7D JC QH | 7H 6H 10H AH | KH 9H 6C 8H | 7C 10C AD KC | 6D QC QD 9D | '
     '8C 8D AC JS | 10D QS KD 8S | 9C KS 7S JD'),
)
KH_61_59 = Scripted(  # dealer 0, 61:59
    ['6C KC JD QD KD 6H 9H 6S 10S', '9C JC 6D 7D 10D AD 7H QS AS',
     '7C 8C QC 8D JH KH AH 8S 9S', '10C AC 9D 8H 10H QH 7S JS KS'],
    ('6D 8D JS 6C | 9H 7H KH 10H | 8H 6H 9C AH | QC QH KD AD | 8S 7S 6S AS | 10D JH 9D JD | '
     '9S KS 10S JC | 7D 7C 10C QD | KC QS 8C AC'),
)
KH_60_60 = Scripted(  # dealer 0, 60:60
    ['6C 9C QC AC AD 9H KH JS AS', '10C JC 6D 10D JD QD JH QH 6S',
     '7D 8D 9D KD 10H AH 8S 9S KS', '7C 8C KC 6H 7H 8H 7S 10S QS'],
    ('10D 7D QS QC | AD QD 9D 6H | QH KD 8H 6C | AS 6S KS 10S | 9C 10C 8D 8C | 9S 7S JS 6D | '
     'KH JC 10H 7H | JD 8S 7C AC | JH AH KC 9H'),
)
KH_45_75 = Scripted(  # dealer 0, 45:75
    ['6C 9C 7D 6H 7H 8H 10H 8S 10S', '7C 8C KC 6D 9D KD QH KH QS',
     '10C JC AC 8D 10D AD 9H JH AH', 'QC JD QD 6S 7S 9S JS KS AS'],
    ('QH 8D JS 6C | 6H KH AH QC | AS 8S 8C AD | AC QD 9C 7C | KS 10S 6D 9H | KD 10D JD 7D | '
     '9S 7H QS 10C | 9D JC 6S 10H | JH 7S 8H KC'),
)
KH_75_45_D1 = Scripted(  # dealer 1, 75:45
    ['QC JD QD 6S 7S 9S JS KS AS', '6C 9C 7D 6H 7H 8H 10H 8S 10S',
     '7C 8C KC 6D 9D KD QH KH QS', '10C JC AC 8D 10D AD 9H JH AH'],
    ('QH 8D JS 6C | 6H KH AH QC | AS 8S 8C AD | AC QD 9C 7C | KS 10S 6D 9H | KD 10D JD 7D | '
     '9S 7H QS 10C | 9D JC 6S 10H | JH 7S 8H KC'),
)
KH_ALL_A = Scripted(  # dealer 0, team A takes all 9 tricks
    ['6D 8D 9D 10D JD QD 9H JH 9S', '7C 8C 10C AD 7H 10H 7S JS QS',
     '6C 9C JC QC KC 7D AH 8S AS', 'AC KD 6H 8H QH KH 6S 10S KS'],
    ('QS 6C QH 6D | QC KD QD AD | JC 8H JH JS | 7D 6H JD 7C | 10D 8C KC 10S | 9S 7S AS 6S | '
     'AH KH 9H 10H | 9C AC 9D 10C | 8D 7H 8S KS'),
)
KH_ALL_A_D1 = Scripted(  # dealer 1, team A takes all 9 tricks
    ['6C QC 6D 9D KD 9H JH JS QS', '10C 10D 6H 7H 8H 10H AH 9S AS',
     'JC KC 7D JD QD AD QH KH KS', '7C 8C 9C AC 8D 6S 7S 8S 10S'],
    ('QD 8D 6C 10D | QC 6H QH 6S | QS 10H JC 7C | KD 7H JD 7S | AD 10S JS 8H | 6D 10C 7D 8C | '
     'KC 9C JH 9S | 9D AH KH 8S | 9H AS KS AC'),
)
KH_ACE_ONLY_AS = Scripted(  # dealer 0; then seat 2 is void in hearts
    ['6C 10C QC KC AC 7D 8D QD 9H', '7C 9C 10H 7S 8S 10S JS QS KS',
     '8C JC AD 8H JH KH 6S 9S AS', '6D 9D 10D JD KD 6H 7H QH AH'],
    ('9C 8C 7H AC | 10C 7C JH KD | JC QH 8D QS | JS AD 9D QD | KC 10H 6S 6D | 6H 9H 8S 8H | '
     'QC 10S 9S JD | 7D KS KH 10D | AH 6C 7S'),
)
KH_ACE_AS_7D = Scripted(  # dealer 0; then seat 1 is void in hearts
    ['7C 8C 8D QD AD 6H 8H AH QS', '6C KC 7D JD 9H JH QH 6S AS',
     '9C 10C QC KD 7H 10H KH 10S JS', 'JC AC 6D 9D 10D 7S 8S 9S KS'],
    ('QH JS 10D 8D | KC 9C AC 8C | 9D AD JH QC | 7H 7S 6H 9H | 6C KD JC QD | JD 10C 6D QS | '
     '8H 6S KH 9S | 10H KS AH'),
)
KH_ACE_AS_AC = Scripted(  # dealer 0; then seat 1 is void in hearts
    ['10C 6D 7D JD QD JH KH AH JS', '7C 8C KC AC 7H 8H 6S 8S AS',
     'JC QC 9D KD AD 9H QH 9S 10S', '6C 9C 8D 10D 6H 10H 7S QS KS'],
    ('7C 9S 9C 10C | 6D 8H QC QS | AD 6C JH 8S | 10D QD 7H JC | 7D KC KD 8D | 9H 6H KH 8C | '
     'JD 6S 9D 10H | AH'),
)
KN_120_0 = Scripted(  # dealer 0, 120:0
    ['7C JC QC AC QD 6H JH JS QS', '10C 7D JD 7H 10H KH 8S 10S AS',
     '6C 8C KC 9D 10D 8H QH 6S 9S', '9C 6D 8D KD AD 9H AH 7S KS'],
    ('AD QC 7D 9D | 6H 7H 8H 9H | 6D QS 10H 10D | QD 10C 6C 9C | 9S 7S JC 8S | JS JD KC 8D | '
     'JH KH QH KD | 6S KS AC 10S | 7C AS 8C AH'),
)
KN_90_30 = Scripted(  # dealer 0, 90:30
    ['6C JC KC 7D JD 8H JH QH JS', '7C QC 10D 9H 10H AH 6S 8S KS',
     '8C 9C 8D 9D QD AD 6H 9S 10S', '10C AC 6D KD 7H KH 7S QS AS'],
    ('AD 6D 7D 10D | 9D KD JC AH | 8H 10H 6H KH | 8S 10S AS KC | JH 7C QD AC | 9S 7S JD KS | '
     'QH QC 8C 10C | 9H 9C 7H JS | 6C 6S 8D QS'),
)
KN_31_89 = Scripted(  # dealer 0, 31:89
    ['6C AC 7D KD 7H JH KH 6S 9S', '8C 9C QC KC JD 10H AH 8S JS',
     '7C 6D QD AD 6H 8H 7S 10S AS', '10C JC 8D 9D 10D 9H QH QS KS'],
    ('AD 9D KD 8C | 10H 8H 9H KH | AH 6H QH 7H | 10D 7D QC 6D | 8S 10S KS 9S | AS QS 6S JD | '
     '8D 6C JS QD | JH 9C 7C 10C | AC KC 7S JC'),
)
KN_59_61 = Scripted(  # dealer 0, 59:61
    ['8D QD 8H 9H 10H JH KH 9S KS', '6C 7D 10D JD 6H AH 8S QS AS',
     '8C 9C QC AC KD 7H QH 6S JS', '7C 10C JC KC 6D 9D AD 7S 10S'],
    ('AD 8D 7D KD | 10S 9S 8S 6S | 6D 10H 10D JS | 7H 10C KH AH | 7S KS AS QC | 9C 7C JH JD | '
     '8H 6H AC KC | QH JC QD QS | 6C 8C 9D 9H'),
)
KN_60_60 = Scripted(  # dealer 0, 60:60
    ['7C AC 6D 8D AD 9H 10H JS AS', '6C QC 7D JD KD QH 7S 9S QS',
     '8C 9C 10D 6H 7H JH KH 8S 10S', '10C JC KC 9D QD 8H AH 6S KS'],
    ('AD KD 10D 9D | 8D 7D 9C KC | AH 9H QH KH | 7S 10S KS AS | 10H 9S 6H 8H | 6D QS 7H 10C | '
     'JD JH QD AC | 6S 7C QC 8S | 6C 8C JC JS'),
)
KN_75_45_D1 = Scripted(  # dealer 1, 75:45
    ['7C 9C JC 9D QD JH KH KS AS', '10C QC 6H 9H QH 8S 9S 10S JS',
     '6C 8C 6D 7D AD 7H 8H AH QS', 'KC AC 8D 10D JD KD 10H 6S 7S'],
    ('7H 10H KH 6H | 7S AS 10S 8H | 9D 9S 7D 8D | KS 8S AD 6S | JH JS 8C AC | 9H AH KD 9C | '
     '7C 10C 6C JD | 6D 10D QD QC | QH QS KC JC'),
)
KO_DEAL1 = KoScripted(  # dealer 0: points 50, 30, 25, 15
    ['7D KD JH 8S', '8C JC 10D QD',
     '10C AD JS QS', '7C QC 10S AS'],
    ('JC QS AS 7D | QD JS QH KD | 10H 10S AH 8D | 9C 7S AC 9S | 10C 7C 7H KH | 10D KS QC JH | '
     '8S KC AD 8H | 9D 9H 8C JD'),
    trump='KH',
    stock='KC 10H QH 9C AC 9D AH 8D 9H 7S JD 9S KS 8H 7H',
)
KO_DEAL2 = KoScripted(  # dealer 1: points 20, 45, 35, 20
    ['7C AC 9D JH', 'JD QH JS KS',
     '8C 10C 10S QS', 'QC 8D KD 8S'],
    ('10C KD 9D QH | JS QS 8S 7H | 9S 9C QC JH | AD KS 8C 7D | 7C 9H 10S 10H | 7S AC JD 10D | '
     'QD AH 8D JC | KH AS 8H KC'),
    trump='10H',
    stock='9S 9C 7D 7H KC 10D 7S AD JC 9H AH AS 8H QD KH',
)


# Two players, trump H (dealer 0: seat 1 leads). Seat 1 leads KS; seat 0 answers 10S (10 beats K).
KO_TWO = (["10S AS QC 7D", "KS JC 9C 8D"], "9H")
# Three players, trump H, dealer 2 so that seat 0 leads (KO example 1).
KO_THREE = (["10S 8C 9C 8D", "AS 9D 10D KC", "7H JC QC AC"], "9H")

# 7D, seat 3 holds the top diamonds and clubs, seat 0 the spades with AS. Every hand is worth more than 13.
KH_BASE = ["9H 10H KH 6S 7S 8S 9S 10S AS", "6C QC QS QH QD JC JS JH JD",
           "7C 8C 9C 7D 6H 7H 8H AH KS", "AC 10C KC 6D 8D 9D 10D KD AD"]
# Dealer 0, seat 1 leads hearts (9H or AH); seat 2 is void in hearts and holds QH, KS, 7D; seat 3 is void in
# hearts and holds AC; seat 0 holds 6H 7H 8H.
KH_VOID = ["QD JD AS 10S 9S 8S 8H 7H 6H", "9H 10H KH AH 6C QC QS JC JS",
           "7C 8C 10C 7D 8D QH 6S 7S KS", "AC KC 9C 6D 9D 10D KD AD JH"]
# KH_BASE with 6C and 7D swapped: seat 1 (team B) leads QC, seat 2 (team A) has 6C as its only trump.
KH_CATCH = ["9H 10H KH 6S 7S 8S 9S 10S AS", "7D QC QS QH QD JC JS JH JD",
            "6C 7C 8C 9C 6H 7H 8H AH KS", "AC 10C KC 6D 8D 9D 10D KD AD"]
# Dealer 3, seat 0 (team A) leads 6C; seat 1 (team B) holds QC as its only trump.
KH_REVERSE = ["6C QS QH QD JC JS JH JD 7D", "QC 7C 8C 9C 6H 7H 8H AH KS",
              "9H 10H KH 6S 7S 8S 9S 10S AS", "AC 10C KC 6D 8D 9D 10D KD AD"]
# Dealer 3, seat 0 leads QC, seat 1 holds no trump, seat 2 (seat 0's partner) holds 6C as its only trump.
KH_PARTNERS = ["QC QS QH QD JC JS JH JD 7D", "7C 8C 9C 10C 6H 7H 8H AH KS",
               "6C 9H 10H KH 6S 7S 8S 9S 10S", "AC KC 6D 8D 9D 10D KD AD AS"]
# Dealer 0. Seat 1 holds the 12-point hand of KH example 10; seat 2 an ace and a king (15); seats 3 and 0 more.
KH_WEAK = ["AH 10H AD 10D KD QD 9D JS JH", "KS QH QS JD 9C 8H 7S 6S 6H",
           "AS KH 6C 7C 8C 9S 8S 7H 6D", "AC 10C KC QC JC 10S 9H 7D 8D"]

# Dealer 0, no eligible team. Seat 0 holds AD and leads it; everyone follows diamonds and AD wins. Seat 0 must
# then lead its only non-trump 7H; everyone follows hearts, seat 3 wins with AH and holds only trumps.
KN_BASE = ["AD QS 7H 7C 8C 9C KC 10C AC", "6D 7D 6H 8H 6S 7S 8S 9S QC",
           "8D 9D KD 9H 10H KH 10S KS AS", "10D AH 6C QH QD JC JS JH JD"]
# Dealer 0. Seat 0 wins AD and then holds only trumps; it leads 10C and seat 1, holding JD and AS, must play JD.
KN_TRUMP_LEAD = ["AD 10C 7C 8C 9C KC AC QS QH", "6D JD AS 6H 7H 8H 6S 7S 8S",
                 "7D 8D 9H 10H KH AH 9S 10S KS", "9D 10D KD 6C QC QD JC JS JH"]
# Dealer 0. Seat 0 leads AD; seats 1 (QC) and 2 (6C) are void in diamonds. Team A is eligible for a redeal.
KN_CATCH = ["AD 10D KD 9D 8D 7D 6D 6H 7H", "QC 8H 9H 10H KH AH 6S 7S 8S",
            "6C 9S 10S KS AS 7C 8C 9C KC", "10C AC JC QD QH QS JD JH JS"]
# Dealer 0. Seat 0 leads AD; seat 1 plays QC and its partner seat 3 plays 6C. Team A is eligible.
KN_PARTNERS = ["AD 10D KD 9D 8D 7D 6H 7H 8H", "QC 9H 10H KH AH 6S 7S 8S 9S",
               "6D 10S KS AS 7C 8C 9C KC 10C", "6C AC JC QD QH QS JD JH JS"]
# Dealer 0. Team A's only queen is QD: it is eligible; team B holds QC, QH and QS.
KN_ELIGIBLE = ["AD 10D KD 9D 8D 7D 6D 6H 7H", "QC 8H 9H 10H KH AH 6S 7S 8S",
               "6C QD 10S KS AS 7C 8C 9C KC", "10C AC JC 9S QH QS JD JH JS"]

# Boasting decks for deal 2 (dealer 1, boaster 2); pairs are "bottom top".
# KN example 10: seat 2 gets 8C QH (two trumps), then KH 7C, and lays KH; seat 3 gets AS 9D and lays 9D;
# seat 0 gets AH JD and lays AH; seat 1 gets 10H QS and lays 10H. AH takes the stack (25 points).
BOAST_EXAMPLE = boast_order(["8C QH", "KH 7C", "AS 9D", "AH JD", "10H QS"])
# k = 2: seat 2 lays KH and 9S. Stack 1 (KH 7S 6S 6H) goes to seat 2 with 4 points, stack 2 (9S AH 10H AS) to
# seat 1 with 32: seat 1 leads.
BOAST_TWO = boast_order(["KH 9S", "7S AH", "6S 10H", "6H AS"])
# k = 2 with equal stacks: stack 1 (KH 7S 10H 6H) to seat 0, stack 2 (9S 10S KS 6S) to seat 3, 14 points each.
BOAST_TIE = boast_order(["KH 9S", "7S 10S", "10H KS", "6H 6S"])
# The boaster needs five pairs (four of them two trumps), lays 6H and keeps nine cards: a misdeal.
BOAST_MISDEAL = boast_order(["7C 8C", "9C KC", "10C AC", "JD JH", "JS 6H", "7H 8H", "9H 10H", "KH AH"])
# Like the example, but team B ends with QC, QH and QS, so team A is eligible for a redeal; seat 0 leads.
BOAST_KEEP = boast_order(["KH 8C", "QC 9D", "AH JD", "10H QS"], fill="6D QH")


def kn_boasting(*boasts: list[int], seed: int = 0) -> NNState:
    """A boasting game whose deal 1 is KN_BASE, played out; deal 2 (dealer 1) boasts with ``boasts[0]``."""
    state = kn(KN_BASE, then=list(boasts), boasting=True, seed=seed)
    finish_deal(state)
    assert state.deal_no == 1 and state.boaster == 2
    return state
