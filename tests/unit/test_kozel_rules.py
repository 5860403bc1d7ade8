"""Hand-made deals for every numbered rule of the three Kozel games (RULES.md sections 3-5: KO-1 … KO-16,
KH-1 … KH-18, KN-1 … KN-24), their example scenarios, and the common rules they rely on (C-1, C-5, C-8, C-10,
C-11).

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

import pytest

from protocol.actions import Action
from protocol.cards import Card
from referee.engine import Game
from referee.errors import ConfigError, IllegalActionError, RulesError
from referee.games.cards import bits
from referee.games.kozel.hvaleny import KH_RULES, HvalenyState, KozelHvaleny
from referee.games.kozel.kozel import KOZEL_DECK, Kozel, KozelState, ko_rules
from referee.games.kozel.nn import KN_RULES, KozelNN, NNState
from referee.rng import SplitMix64

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


# ------------------------------------------------------------------------------------- kozel-hvaleny (KH)

# Dealer 0, seat 1 leads. Seat 1 holds every queen and jack and 6C (no catch possible), seat 2's only trump is
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


def test_kh_1_four_players_in_two_teams() -> None:
    assert KH.teams(4) == ((0, 2), (1, 3))
    for seats in (2, 3, 5):
        with pytest.raises(ConfigError):
            KH.new_state(seats, 1)
    obs = kh(KH_BASE).observe(1)
    assert obs["teams"] == {"A": [0, 2], "B": [1, 3]} and obs["team"] == "B"


def test_kh_2_the_deck_has_36_cards() -> None:
    state = KH.new_state(4, 1)
    places = state.card_places()
    assert sorted(c for cards in places.values() for c in cards) == list(range(36))
    assert [h.bit_count() for h in state.hands] == [9, 9, 9, 9]
    assert texts(KH, range(36))[:9] == ["6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]


def test_kh_3_trumps_and_effective_suits() -> None:
    order = "6C QC QS QH QD JC JS JH JD AD 10D KD 9D 8D 7D 6D".split()
    trumps = [idx(KH, t) for t in order]
    assert all(KH_RULES.eff[c] == 4 for c in trumps)
    for strong, weak in zip(trumps, trumps[1:], strict=False):
        assert KH_RULES.winner([weak, strong]) == 1 and KH_RULES.winner([strong, weak]) == 0
    assert bits(KH_RULES.eff_mask[0]) == sorted(idx(KH, t) for t in "AC 10C KC 9C 8C 7C".split())
    assert KH_RULES.eff_mask[1] == 0  # diamonds are all trumps
    for suit in "SH":
        plain = [idx(KH, r + suit) for r in "A 10 K 9 8 7 6".split()]
        assert bits(KH_RULES.eff_mask["CDHS".index(suit)]) == sorted(plain)
        for strong, weak in zip(plain, plain[1:], strict=False):
            assert KH_RULES.winner([weak, strong]) == 1


def test_kh_4_card_points() -> None:
    points = {t: KH_RULES.points[idx(KH, t)] for t in "AS 10S KS QS JS 9S 8S 7S 6S 6C".split()}
    assert points == {"AS": 11, "10S": 10, "KS": 4, "QS": 3, "JS": 2, "9S": 0, "8S": 0, "7S": 0, "6S": 0, "6C": 0}
    assert sum(KH_RULES.points) == 120
    state = kh(KH_61_59.hands)
    KH_61_59.run(state)
    score = events(state, "deal_score")[0]["points"]
    assert score["A"] + score["B"] == 120


def test_kh_5_options_and_the_bonus_counter() -> None:
    assert KH.configure() == {"lyusya": "lose", "target_eyes": 12}
    for value in ("lose", "zero", "off", "ZERO"):
        assert KH.configure({"lyusya": value})["lyusya"] == value.lower()
    for bad in ({"lyusya": "maybe"}, {"lyusya": True}, {"target_eyes": 0}, {"target": 12}):
        with pytest.raises(ConfigError):
            KH.configure(bad)
    assert kh(KH_BASE).observe(0)["bonus"] == 0
    assert {o["name"]: o.get("choices") for o in KH.describe()["options"]} == {
        "lyusya": ["lose", "zero", "off"], "target_eyes": None}


def test_kh_6_the_dealer_moves_to_the_left() -> None:
    state = kh(KH_CATCH, dealer=0)
    act(state, "1:QC", "2:6C")  # the catch ends deal 1
    assert [e["dealer"] for e in events(state, "deal")] == [0, 1]
    state = KH.new_state(4, 3, dealer=3)
    assert events(state, "deal")[0]["dealer"] == 3


def test_kh_7_nine_cards_each_one_at_a_time_from_the_dealers_left() -> None:
    for seed, dealer in ((5, 0), (6, 2)):
        state = KH.new_state(4, seed, dealer=dealer)
        order = list(range(36))
        SplitMix64(seed).shuffle(order)
        for seat in range(4):
            assert hand(state, seat) == texts(KH, sorted(order[(seat - dealer - 1) % 4::4]))


def test_kh_8_weak_hands_are_offered_a_redeal_privately() -> None:
    state = kh(KH_WEAK)
    assert state.to_act == 1 and legal(state) == ["demand_redeal", "pass"]
    assert state.observe(1)["phase"] == "redeal_offer"
    assert state.observe(3)["phase"] == "play"  # C-8: the others do not learn of the offer
    act(state, "1:pass")
    assert state.to_act == 1 and legal(state) == [f"play({c})" for c in canon(KH, KH_WEAK[1])]  # play starts
    assert events(state, "pass", seat=1) == [{"type": "pass", "seat": 1, "offer": "redeal"}]
    for seat in (0, 2, 3):
        assert events(state, "pass", seat=seat) == []


def test_kh_8_a_demand_is_public_and_the_same_dealer_redeals() -> None:
    state = kh(KH_WEAK, then=[order36(KH, KH_BASE)])
    act(state, "1:demand_redeal")
    for seat in range(4):
        assert events(state, "demand_redeal", seat=seat) == [{"type": "demand_redeal", "seat": 1, "redeals": 1}]
    assert [(e["dealer"], e["redeal"]) for e in events(state, "deal")] == [(0, 0), (0, 1)]
    assert hand(state, 1) == canon(KH, KH_BASE[1]) and state.to_act == 1
    assert state.observe(0)["redeals"] == 1


def test_kh_8_at_most_three_redeals() -> None:
    weak = order36(KH, KH_WEAK)
    state = kh(KH_WEAK, then=[weak, weak, weak])
    for _ in range(3):
        act(state, "1:demand_redeal")
    assert state.observe(1)["redeals"] == 3
    assert hand(state, 1) == canon(KH, KH_WEAK[1])  # still a 12-point hand, but no more offers
    assert legal(state)[0].startswith("play(")


def test_kh_9_the_dealers_left_leads_trumps_may_be_led_and_the_winner_leads_next() -> None:
    state = kh(KH_BASE)
    assert state.to_act == 1
    assert legal(state) == [f"play({c})" for c in canon(KH, KH_BASE[1])]  # all trumps, all legal
    act(state, "1:JD", "2:7D", "3:AD", "0:6S")
    assert events(state, "trick")[-1]["winner"] == 1 and state.to_act == 1


def test_kh_10_a_player_must_follow_the_effective_suit() -> None:
    state = kh(KH_BASE)
    act(state, "1:JH")  # a trump lead: hearts do not follow, trumps do
    assert legal(state) == ["play(7D)"]
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS", "3:6D")
    assert legal(state) == ["play(6H)", "play(7H)", "play(8H)"]


def test_kh_11_a_void_player_may_not_discard_an_ace_of_a_suit_not_led() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS")
    assert "play(AC)" not in legal(state)  # seat 3 is void in hearts, clubs not led
    assert legal(state) == [f"play({c})" for c in canon(KH, "KC 9C 6D 9D 10D KD AD JH")]
    state = kh(KH_BASE)
    act(state, "1:JD", "2:7D", "3:AD")
    assert "play(AS)" not in legal(state)  # seat 0 is void in trumps, spades not led
    assert len(legal(state)) == 8


def test_kh_11_the_leader_is_never_restricted() -> None:
    state = kh(KH_BASE, dealer=3)  # seat 0 leads, with AS, before any spade lead
    assert state.to_act == 0 and "play(AS)" in legal(state)


def test_kh_11_a_led_suit_lifts_the_restriction() -> None:
    state = kh(KH_ACE_AS_AC.hands)
    KH_ACE_AS_AC.run(state)  # clubs were led in trick 1; hearts are led now and seat 1 is void
    assert state.to_act == 1 and hand(state, 1) == ["AC", "AS"]
    assert legal(state) == ["play(AC)"]
    assert state.observe(1)["suits_led"] == ["C", "H", "trump"]


def test_kh_12_the_highest_trump_wins_else_the_highest_of_the_led_suit() -> None:
    state = kh(KH_VOID)
    act(state, "1:AH", "2:KS", "3:6D", "0:6H")
    assert events(state, "trick")[-1]["winner"] == 3  # the lowest trump beats AH
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS", "3:KC", "0:8H")  # no trump: the highest heart; KS and KC cannot win
    assert events(state, "trick")[-1]["winner"] == 1


def test_kh_13_six_of_clubs_catches_the_queen_and_the_deal_ends() -> None:
    state = kh(KH_CATCH)
    act(state, "1:QC")
    assert legal(state) == ["play(6C)"]
    act(state, "2:6C")
    assert events(state, "catch") == [{"type": "catch", "seat": 2, "card": "6C", "queen_seat": 1,
                                       "queen": "QC", "team": "A"}]
    assert events(state, "eyes") == [{"type": "eyes", "team": "A", "eyes": 4, "reason": "catch", "bonus": 0,
                                      "totals": {"A": 4, "B": 0}}]
    assert events(state, "trick") == [] and events(state, "deal_score") == []  # no card points counted
    assert [e["seat"] for e in events(state, "play")] == [1, 2]  # seat 3 never plays
    assert state.observe(0)["deal"] == 2 and state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_13_the_catch_takes_the_pending_bonus() -> None:
    state = kh(KH_60_60.hands, then=[order36(KH, rotate(KH_CATCH, 1), dealer=1)])
    KH_60_60.run(state)
    assert state.observe(0)["bonus"] == 2
    act(state, "2:QC", "3:6C")  # team A leads QC, team B catches it
    assert events(state, "eyes")[-1] == {"type": "eyes", "team": "B", "eyes": 6, "reason": "catch", "bonus": 2,
                                         "totals": {"A": 0, "B": 6}}
    assert state.observe(0)["bonus"] == 0


def test_kh_14_eyes_for_more_than_60_and_more_than_90() -> None:
    for deal, team, eyes in ((KH_91_29, "A", 4), (KH_90_30, "A", 2), (KH_61_59, "A", 2), (KH_45_75, "B", 2)):
        state = kh(deal.hands)
        deal.run(state)
        assert events(state, "eyes") == [{"type": "eyes", "team": team, "eyes": eyes, "bonus": 0,
                                          "reason": "no_save" if eyes == 4 else "over_60",
                                          "totals": {team: eyes, "AB".replace(team, ""): 0}}]


def test_kh_14_eggs_give_the_next_eyes_a_bonus() -> None:
    state = kh(KH_60_60.hands, then=[order36(KH, KH_75_45_D1.hands, dealer=1)])
    KH_60_60.run(state)
    assert events(state, "deal_score")[0]["points"] == {"A": 60, "B": 60}
    assert events(state, "eggs") == [{"type": "eggs", "bonus": 2}] and events(state, "eyes") == []
    KH_75_45_D1.run(state)
    assert events(state, "eyes")[-1]["eyes"] == 4 and state.observe(0)["bonus"] == 0


def test_kh_14_lyusya_lose_ends_the_game() -> None:
    state = kh(KH_ALL_A.hands, lyusya="lose")
    KH_ALL_A.run(state)
    assert events(state, "deal_score")[0]["tricks"] == {"A": 9, "B": 0}
    assert events(state, "lyusya") == [{"type": "lyusya", "team": "A", "option": "lose"}]
    assert state.is_terminal and events(state, "eyes") == []
    result = state.result().to_dict()
    assert result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]


def test_kh_14_lyusya_zero_zeroes_the_other_teams_eyes_then_scores() -> None:
    state = kh(KH_45_75.hands, then=[order36(KH, KH_ALL_A_D1.hands, dealer=1)], lyusya="zero")
    KH_45_75.run(state)
    assert state.observe(0)["eyes"] == {"A": 0, "B": 2}
    KH_ALL_A_D1.run(state)
    assert events(state, "lyusya")[0]["option"] == "zero"
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0} and not state.is_terminal


def test_kh_14_lyusya_off_only_scores() -> None:
    state = kh(KH_45_75.hands, then=[order36(KH, KH_ALL_A_D1.hands, dealer=1)], lyusya="off")
    KH_45_75.run(state)
    KH_ALL_A_D1.run(state)
    assert state.observe(0)["eyes"] == {"A": 4, "B": 2}


def test_kh_15_the_first_team_to_reach_the_target_wins() -> None:
    state = kh(KH_61_59.hands, target_eyes=2)
    KH_61_59.run(state)
    assert state.is_terminal and not state.result().aborted
    assert state.result().to_dict()["winner_team"] == "A"
    state = kh(KH_61_59.hands, target_eyes=3)
    KH_61_59.run(state)
    assert not state.is_terminal


def test_kh_15_the_deal_limit_aborts_and_ranks_by_eyes() -> None:
    state = kh(KH_61_59.hands, max_deals=1)
    KH_61_59.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]
    state = kh(KH_60_60.hands, max_deals=1)
    KH_60_60.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] is None and result["places"] == [1, 1, 1, 1]
    assert result["finishing_order"] == [[0, 1, 2, 3]]


def test_kh_16_result() -> None:
    state = kh(KH_91_29.hands, target_eyes=4)
    KH_91_29.run(state)
    result = state.result().to_dict()
    assert result == {"places": [1, 3, 1, 3], "finishing_order": [[0, 2], [1, 3]], "scores": [4, 0, 4, 0],
                      "aborted": False, "teams": {"A": [0, 2], "B": [1, 3]}, "winner_team": "A",
                      "eyes": {"A": 4, "B": 0}}
    assert events(state, "end") == [{"type": "end", "winner_team": "A", "eyes": {"A": 4, "B": 0},
                                     "aborted": False}]


def test_kh_17_visibility() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H", "2:KS")
    obs = state.observe(3)
    assert obs["hand"] == canon(KH, KH_VOID[3])
    assert obs["hand_sizes"] == [9, 8, 8, 9] and obs["dealer"] == 0
    assert obs["trick"] == [{"seat": 1, "card": "9H"}, {"seat": 2, "card": "KS"}]
    assert obs["suits_led"] == ["H"] and obs["points"] == {"A": 0, "B": 0}
    assert obs["eyes"] == {"A": 0, "B": 0} and obs["bonus"] == 0
    assert [e["seat"] for e in obs["events"] if e["type"] == "hand"] == [3]
    shown = {c for e in obs["events"] for c in e.get("cards", [])} | {e.get("card") for e in obs["events"]}
    assert not shown & set(KH_VOID[0].split() + KH_VOID[1].split() + KH_VOID[2].split()) - {"9H", "KS"}
    act(state, "3:6D", "0:6H")
    assert state.observe(2)["tricks"] == [{"leader": 1, "cards": ["9H", "KS", "6D", "6H"], "winner": 3,
                                           "points": 4}]


def test_kh_18_one_shuffle_per_deal_or_redeal() -> None:
    seed = next(s for s in range(100) if legal(KH.new_state(4, s))[0] == "demand_redeal")
    state = KH.new_state(4, seed)
    rng = SplitMix64(seed)
    first = list(range(36))
    rng.shuffle(first)
    second = list(range(36))
    rng.shuffle(second)
    assert hand(state, 1) == texts(KH, sorted(first[0::4]))
    state.apply(Action("demand_redeal"))
    assert hand(state, 1) == texts(KH, sorted(second[0::4]))


def test_kh_example_1_trump_order() -> None:
    def beats(a: str, b: str) -> bool:
        return KH_RULES.winner([idx(KH, b), idx(KH, a)]) == 1

    assert beats("6C", "QC") and beats("QD", "JC") and beats("JD", "AD")
    state = kh(KH_BASE)
    act(state, "1:JD", "2:7D", "3:AD", "0:6S")
    assert events(state, "trick")[-1]["winner"] == 1  # JD > AD
    state = kh(KH_VOID)
    act(state, "1:AH", "2:KS", "3:6D", "0:6H")
    assert events(state, "trick")[-1]["winner"] == 3  # 6D > AH


def test_kh_example_2_following_a_trump_lead() -> None:
    state = kh(KH_BASE)
    act(state, "1:JH")
    assert hand(state, 2) == canon(KH, KH_BASE[2]) and legal(state) == ["play(7D)"]


def test_kh_example_3_queens_are_not_hearts() -> None:
    state = kh(KH_VOID)
    act(state, "1:9H")
    assert {"play(QH)", "play(KS)", "play(7D)"} <= set(legal(state))
    assert legal(state) == [f"play({c})" for c in canon(KH, KH_VOID[2])]


def test_kh_example_4_ace_rule() -> None:
    state = kh(KH_ACE_AS_7D.hands)
    KH_ACE_AS_7D.run(state)
    assert hand(state, 1) == ["7D", "AS"] and "S" not in state.observe(1)["suits_led"]
    assert legal(state) == ["play(7D)"]
    state = kh(KH_ACE_AS_AC.hands)
    KH_ACE_AS_AC.run(state)
    assert hand(state, 1) == ["AC", "AS"] and legal(state) == ["play(AC)"]
    state = kh(KH_ACE_ONLY_AS.hands)
    KH_ACE_ONLY_AS.run(state)
    assert hand(state, 2) == ["AS"] and "S" not in state.observe(2)["suits_led"]
    assert legal(state) == ["play(AS)"]


def test_kh_example_5_six_of_clubs_catches_the_queen() -> None:
    state = kh(KH_CATCH)
    act(state, "1:QC", "2:6C")
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}
    assert state.observe(0)["deal"] == 2 and not any(e["seat"] == 3 for e in events(state, "play"))


def test_kh_example_6_reverse_order() -> None:
    state = kh(KH_REVERSE, dealer=3)
    act(state, "0:6C")
    assert legal(state) == ["play(QC)"]
    act(state, "1:QC")
    assert events(state, "catch")[0]["team"] == "A"
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_example_7_partners() -> None:
    state = kh(KH_PARTNERS, dealer=3)
    act(state, "0:QC", "1:7C", "2:6C", "3:6D")
    assert events(state, "catch") == []
    assert events(state, "trick")[-1]["winner"] == 2 and state.observe(0)["deal"] == 1


def test_kh_example_8_eyes() -> None:
    for deal, eyes in ((KH_91_29, 4), (KH_90_30, 2), (KH_61_59, 2)):
        state = kh(deal.hands)
        deal.run(state)
        assert events(state, "deal_score")[0]["points"]["A"] in (91, 90, 61)
        assert state.observe(0)["eyes"] == {"A": eyes, "B": 0}
    state = kh(KH_60_60.hands, then=[order36(KH, KH_75_45_D1.hands, dealer=1)])
    KH_60_60.run(state)
    assert state.observe(0)["bonus"] == 2 and state.observe(0)["eyes"] == {"A": 0, "B": 0}
    KH_75_45_D1.run(state)
    assert events(state, "deal_score")[1]["points"] == {"A": 75, "B": 45}
    assert state.observe(0)["eyes"] == {"A": 4, "B": 0}


def test_kh_example_9_lyusya() -> None:
    state = kh(KH_ALL_A.hands)
    KH_ALL_A.run(state)
    assert state.is_terminal and state.result().to_dict()["winner_team"] == "A"


def test_kh_example_10_redeal_threshold() -> None:
    assert KH_RULES.hand_points(sum(1 << idx(KH, c) for c in KH_WEAK[1].split())) == 12
    assert KH_RULES.hand_points(sum(1 << idx(KH, c) for c in KH_WEAK[2].split())) == 15
    state = kh(KH_WEAK)
    assert state.to_act == 1 and legal(state) == ["demand_redeal", "pass"]
    act(state, "1:pass")  # seat 2 (an ace and a king) is not asked
    assert legal(state)[0].startswith("play(") and state.to_act == 1


# ------------------------------------------------------------------------------------------ kozel-nn (KN)

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


def test_kn_1_two_teams_and_game_points_are_penalties() -> None:
    assert KN.teams(4) == ((0, 2), (1, 3))
    with pytest.raises(ConfigError):
        KN.new_state(3, 1)
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}  # the team that was caught is penalised


def test_kn_2_the_deck_has_36_cards() -> None:
    state = KN.new_state(4, 2)
    assert sorted(c for cards in state.card_places().values() for c in cards) == list(range(36))


def test_kn_3_trumps_and_effective_suits() -> None:
    order = "7C 8C 9C KC 10C AC JD JH JS JC QD QH QS QC 6C".split()
    trumps = [idx(KN, t) for t in order]
    for weak, strong in zip(trumps, trumps[1:], strict=False):
        assert KN_RULES.winner([weak, strong]) == 1 and KN_RULES.winner([strong, weak]) == 0
    assert KN_RULES.trumps == sum(1 << c for c in trumps) and KN_RULES.eff_mask[0] == 0  # clubs are all trumps
    for suit in "DHS":
        plain = [idx(KN, r + suit) for r in "6 7 8 9 K 10 A".split()]
        assert bits(KN_RULES.eff_mask["CDHS".index(suit)]) == sorted(plain)
        for weak, strong in zip(plain, plain[1:], strict=False):
            assert KN_RULES.winner([weak, strong]) == 1


def test_kn_4_card_points() -> None:
    points = {t: KN_RULES.points[idx(KN, t)] for t in "6H 7H 8H 9H JH QH KH 10H AH".split()}
    assert points == {"6H": 0, "7H": 0, "8H": 0, "9H": 0, "JH": 2, "QH": 3, "KH": 4, "10H": 10, "AH": 11}
    assert sum(KN_RULES.points) == 120


def test_kn_5_options_and_the_multiplier() -> None:
    assert KN.configure() == {"boasting": False, "target": 12}
    assert KN.configure({"boasting": "true"})["boasting"] is True
    with pytest.raises(ConfigError):
        KN.configure({"boast": True})
    obs = kn(KN_BASE).observe(0)
    assert obs["mult"] == 1 and obs["game_points"] == {"A": 0, "B": 0} and obs["redeals"] == 0


def test_kn_6_deals_are_dealt_in_turn_clockwise() -> None:
    state = kn(KN_BASE, dealer=2)
    finish_deal(state)
    finish_deal(state)
    assert [e["dealer"] for e in events(state, "deal")][:3] == [2, 3, 0]


def test_kn_7_nine_cards_each_one_at_a_time_from_the_dealers_left() -> None:
    seed, dealer = 12, 1
    state = KN.new_state(4, seed, dealer=dealer)
    order = list(range(36))
    SplitMix64(seed).shuffle(order)
    for seat in range(4):
        assert hand(state, seat) == texts(KN, sorted(order[(seat - dealer - 1) % 4::4]))


def test_kn_8_the_holder_of_ad_leads_deal_1_even_after_a_redeal() -> None:
    state = kn(KN_BASE)
    assert state.to_act == 0 and legal(state) == ["play(AD)"]
    state = kn(KN_ELIGIBLE, then=[order36(KN, KN_BASE)])
    act(state, "2:demand_redeal")
    assert state.to_act == 0 and legal(state) == ["play(AD)"]


def test_kn_8_later_deals_are_led_by_the_dealers_left() -> None:
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible, order36(KN, KN_BASE, dealer=1)])
    for _ in range(3):
        act(state, "2:demand_redeal")  # KN-16 ends deal 1
    assert state.deal_no == 1 and events(state, "deal")[-1]["dealer"] == 1
    assert state.to_act == 2  # seat 0 holds AD, but it is not deal 1
    assert legal(state) == [f"play({c})" for c in canon(KN, KN_BASE[2])]


def test_kn_9_a_leader_holding_a_non_trump_may_not_lead_a_trump() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD", "1:6D", "2:8D", "3:10D")
    assert state.to_act == 0 and legal(state) == ["play(7H)"]
    act(state, "0:7H", "1:6H", "2:9H", "3:AH")
    assert state.to_act == 3 and hand(state, 3) == canon(KN, "6C QH QD JC JS JH JD")
    assert legal(state) == [f"play({c})" for c in canon(KN, "6C QH QD JC JS JH JD")]


def test_kn_10_following_the_effective_suit() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD")
    assert legal(state) == ["play(6D)", "play(7D)"]
    act(state, "1:6D")
    assert legal(state) == ["play(8D)", "play(9D)", "play(KD)"]
    act(state, "2:8D")
    assert legal(state) == ["play(10D)"]  # QD and JD are trumps, not diamonds
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C")
    assert legal(state) == ["play(JD)"]
    act(state, "1:JD")
    assert legal(state) == [f"play({c})" for c in canon(KN, KN_TRUMP_LEAD[2]) if c != "7D"]  # void: any card


def test_kn_11_the_highest_trump_wins_and_the_winner_leads() -> None:
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D")
    assert events(state, "trick")[-1] == {"type": "trick", "leader": 0, "cards": ["AD", "6D", "7D", "9D"],
                                          "winner": 0, "team": "A", "points": 11}
    act(state, "0:10C", "1:JD", "2:AH", "3:QD")
    trick = events(state, "trick")[-1]
    assert trick["winner"] == 3 and trick["team"] == "B" and trick["points"] == 10 + 2 + 11 + 3
    assert state.to_act == 3 and state.observe(0)["points"] == {"A": 11, "B": 26}


def test_kn_12_shamok_catches_shamka() -> None:
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert events(state, "catch")[0] == {"type": "catch", "seat": 2, "card": "6C", "queen_seat": 1,
                                         "queen": "QC", "team": "A"}
    assert events(state, "penalty") == [{"type": "penalty", "team": "B", "game_points": 4, "reason": "catch",
                                         "mult": 1, "totals": {"A": 0, "B": 4}}]
    assert events(state, "trick") == [] and state.observe(0)["deal"] == 2


def test_kn_12_the_catch_is_multiplied_by_eggs() -> None:
    state = kn(KN_60_60.hands, then=[order36(KN, rotate(KN_CATCH, 2), dealer=1)])
    KN_60_60.run(state)
    assert state.observe(0)["mult"] == 2
    pass_offers(state)
    act(state, "2:AD", "3:QC", "0:6C")
    assert events(state, "penalty")[-1]["game_points"] == 8 and state.observe(0)["mult"] == 1


@pytest.mark.parametrize(("deal", "team", "points", "reason"), [
    ("KN_120_0", "B", 6, "no_points"), ("KN_90_30", "B", 4, "chiper"),
    ("KN_31_89", "A", 2, "pair"), ("KN_59_61", "A", 2, "pair")])
def test_kn_13_deal_scoring(deal: str, team: str, points: int, reason: str) -> None:
    scripted = globals()[deal]
    state = kn(scripted.hands)
    scripted.run(state)
    other = "AB".replace(team, "")
    assert events(state, "penalty") == [{"type": "penalty", "team": team, "game_points": points,
                                         "reason": reason, "mult": 1, "totals": {team: points, other: 0}}]


def test_kn_13_eggs_double_the_multiplier() -> None:
    state = kn(KN_60_60.hands, then=[order36(KN, KN_75_45_D1.hands, dealer=1)])
    KN_60_60.run(state)
    assert events(state, "eggs") == [{"type": "eggs", "mult": 2}] and events(state, "penalty") == []
    KN_75_45_D1.run(state)
    assert events(state, "penalty")[-1]["game_points"] == 4 and events(state, "penalty")[-1]["mult"] == 2
    assert state.observe(0)["mult"] == 1


def three_redeal_orders(deals: int) -> list[list[int]]:
    """Orders in which QC, QS and QH go to the dealer's left neighbour, whoever deals: the dealer's team is
    eligible. Three orders a deal (the deal and two redeals; the third demand deals nothing)."""
    first = [idx(KN, t) for t in ("QC", "7C", "QS", "8C", "QH")]
    order = first + [c for c in range(36) if c not in first]
    return [order] * (3 * deals)


def test_kn_14_the_first_team_to_reach_the_target_loses() -> None:
    orders = three_redeal_orders(11)
    state = NNState(KN, 4, 0, KN.configure(), 0, deck_orders=orders)
    for deal in range(11):
        dealer = deal % 4
        for _ in range(3):
            assert events(state, "redeal_eligible")[-1]["teams"] == ["AB"[dealer & 1]]
            act(state, f"{(dealer + 2) % 4}:demand_redeal")  # the first offer goes to the dealer's partner
        if deal == 9:
            assert state.observe(0)["game_points"] == {"A": 10, "B": 10}
    assert state.is_terminal
    result = state.result().to_dict()
    assert result["game_points"] == {"A": 12, "B": 10} and result["winner_team"] == "B"
    assert result["places"] == [3, 1, 3, 1]


def test_kn_14_the_deal_limit_aborts_and_ranks_by_fewer_points() -> None:
    state = kn(KN_CATCH, max_deals=1)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] == "A" and result["places"] == [1, 3, 1, 3]
    state = kn(KN_60_60.hands, max_deals=1)
    KN_60_60.run(state)
    result = state.result().to_dict()
    assert result["aborted"] and result["winner_team"] is None and result["places"] == [1, 1, 1, 1]


def test_kn_15_eligible_teams_are_announced_and_their_members_offered() -> None:
    state = kn(KN_ELIGIBLE, then=[order36(KN, KN_BASE)])
    for seat in range(4):
        assert events(state, "redeal_eligible", seat=seat) == [{"type": "redeal_eligible", "teams": ["A"]}]
    assert state.observe(2)["eligible"] == ["A"]
    assert state.to_act == 2 and legal(state) == ["demand_redeal", "pass"]  # clockwise from the dealer's left
    act(state, "2:pass")
    assert state.to_act == 0 and legal(state) == ["demand_redeal", "pass"]
    assert events(state, "pass", seat=0) == [] and events(state, "pass", seat=2)[0]["offer"] == "redeal"
    act(state, "0:demand_redeal")
    assert [(e["dealer"], e["redeal"]) for e in events(state, "deal")] == [(0, 0), (0, 1)]
    assert hand(state, 0) == canon(KN, KN_BASE[0]) and state.observe(0)["redeals"] == 1


def test_kn_15_qd_alone_is_eligible_and_qh_is_not() -> None:
    state = kn(KN_ELIGIBLE)
    assert events(state, "redeal_eligible")[0]["teams"] == ["A"]  # A holds only QD, B holds QH


def test_kn_16_the_third_demand_gives_the_dealers_team_a_pair() -> None:
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible])
    act(state, "2:demand_redeal", "2:demand_redeal", "2:pass", "0:demand_redeal")
    assert events(state, "penalty") == [{"type": "penalty", "team": "A", "game_points": 2, "mult": 1,
                                         "reason": "three_redeals", "totals": {"A": 2, "B": 0}}]
    assert state.deal_no == 1 and events(state, "deal")[-1]["dealer"] == 1
    assert state.observe(0)["redeals"] == 0


def test_kn_17_result() -> None:
    state = kn(KN_CATCH, target=4)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.result().to_dict() == {
        "places": [1, 3, 1, 3], "finishing_order": [[0, 2], [1, 3]], "scores": [0, 4, 0, 4], "aborted": False,
        "teams": {"A": [0, 2], "B": [1, 3]}, "winner_team": "A", "game_points": {"A": 0, "B": 4}}


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


def test_kn_example_1_deal_1_lead() -> None:
    state = kn(KN_BASE)
    assert legal(state) == ["play(AD)"]


def test_kn_example_2_trump_order() -> None:
    assert KN_RULES.winner([idx(KN, "AH"), idx(KN, "7C")]) == 1
    assert KN_RULES.winner([idx(KN, "JC"), idx(KN, "QD")]) == 1
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C", "1:JD", "2:AH", "3:QD")
    assert events(state, "trick")[-1]["winner"] == 3


def test_kn_example_3_lead_restriction() -> None:
    state = kn(KN_BASE)
    act(state, "0:AD", "1:6D", "2:8D", "3:10D")
    assert "QS" in hand(state, 0) and legal(state) == ["play(7H)"]
    act(state, "0:7H", "1:6H", "2:9H", "3:AH")
    assert len(legal(state)) == 7


def test_kn_example_4_following_a_trump_lead() -> None:
    state = kn(KN_TRUMP_LEAD)
    act(state, "0:AD", "1:6D", "2:7D", "3:9D", "0:10C")
    assert {"JD", "AS"} <= set(hand(state, 1)) and legal(state) == ["play(JD)"]


def test_kn_example_5_scoring() -> None:
    for deal, penalty in ((KN_120_0, 6), (KN_90_30, 4), (KN_31_89, 2), (KN_59_61, 2)):
        state = kn(deal.hands)
        deal.run(state)
        assert events(state, "penalty")[0]["game_points"] == penalty
    state = kn(KN_60_60.hands, then=[order36(KN, KN_75_45_D1.hands, dealer=1)])
    KN_60_60.run(state)
    assert state.observe(0)["mult"] == 2
    KN_75_45_D1.run(state)
    assert events(state, "deal_score")[-1]["points"] == {"A": 75, "B": 45}
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}


def test_kn_example_6_shamka_caught() -> None:
    state = kn(KN_CATCH)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6C")
    assert state.observe(0)["game_points"] == {"A": 0, "B": 4}


def test_kn_example_7_partners() -> None:
    state = kn(KN_PARTNERS)
    pass_offers(state)
    act(state, "0:AD", "1:QC", "2:6D", "3:6C")
    assert events(state, "catch") == [] and events(state, "trick")[-1]["winner"] == 3


def test_kn_example_8_end_of_game() -> None:
    state = NNState(KN, 4, 0, KN.configure(), 0, deck_orders=three_redeal_orders(11))
    while state.deal_no < 10:  # every deal ends with three demands: the dealer's team gets a pair
        act(state, "demand_redeal")
    assert state.observe(0)["game_points"] == {"A": 10, "B": 10} and state.deal_dealer == 2
    for _ in range(3):
        act(state, "demand_redeal")
    assert events(state, "penalty")[-1]["team"] == "A" and state.is_terminal
    assert state.result().to_dict()["winner_team"] == "B"


def test_kn_example_9_redeal() -> None:
    assert events(kn(KN_ELIGIBLE), "redeal_eligible")[0]["teams"] == ["A"]  # QD only; team B holds QH
    eligible = order36(KN, KN_ELIGIBLE)
    state = kn(KN_ELIGIBLE, then=[eligible, eligible])
    act(state, "2:demand_redeal", "2:demand_redeal", "2:demand_redeal")
    assert events(state, "penalty")[-1]["team"] == "A" and events(state, "penalty")[-1]["game_points"] == 2
    assert events(state, "deal")[-1]["dealer"] == 1 and state.deal_no == 1


def test_kn_example_10_boasting() -> None:
    state = kn_boasting(BOAST_EXAMPLE)
    assert events(state, "deal")[-1] == {"type": "deal", "dealer": 1, "deal": 2, "redeal": 0, "boaster": 2}
    act(state, "2:lay(KH)")
    assert hand(state, 3) == ["9D", "AS"]
    act(state, "3:lay(9D)")
    assert hand(state, 3) == ["AS"]
    act(state, "0:lay(AH)", "1:lay(10H)")
    stack = events(state, "reveal")[0]["stacks"][0]
    assert stack["winner"] == 0 and stack["team"] == "A" and stack["points"] == 25
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    pass_offers(state)
    assert state.to_act == 0 and phase(state) == "play"


# ------------------------------------------------------------------------------------------- common (C)


def test_c_1_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="lyusya"):
        KH.new_state(4, 1, {"lyusya": "sometimes"})
    with pytest.raises(ConfigError, match="no option"):
        KN.new_state(4, 1, {"lyusya": "zero"})
    with pytest.raises(ConfigError):
        KO.new_state(4, 1, dealer=4)
    assert KO.new_state(3, 1, dealer=2).dealer == 2


@pytest.mark.parametrize(("game", "seats", "options"), [
    (KO, 3, {}), (KH, 4, {"lyusya": "zero"}), (KN, 4, {"boasting": True})])
def test_c_5_the_same_seed_and_actions_replay_the_same_game(game: Game, seats: int, options: dict[str, Any]) -> None:
    first = game.new_state(seats, 77, options, dealer=1)
    actions = []
    while not first.is_terminal:
        action = first.legal_actions()[len(actions) % len(first.legal_actions())]
        actions.append(action.text)
        first.apply(action)
    again = game.new_state(seats, 77, options, dealer=1)
    for text in actions:
        again.apply(again.parse_action(text))
    assert again.events() == first.events() and again.result() == first.result()


def test_c_7_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = kn(KN_BASE)
    with pytest.raises(IllegalActionError):
        state.apply(Action.parse("play(QS)"))
    assert legal(state) == ["play(AD)"] and state.log_size == len(state.events())


def test_c_11_redeals_reboasts_and_misdeals_are_not_deals() -> None:
    state = kh(KH_WEAK, then=[order36(KH, KH_61_59.hands)], max_deals=1)
    act(state, "1:demand_redeal")
    assert not state.is_terminal
    KH_61_59.run(state)
    assert state.is_terminal and state.result().aborted
    state = kn(KN_BASE, then=[BOAST_MISDEAL, BOAST_KEEP, BOAST_KEEP], boasting=True, max_deals=2)
    finish_deal(state)
    act(state, "2:lay(6H)", "3:lay(7H)", "0:lay(9H)", "1:lay(KH)")  # a misdeal
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal", "0:reboast")
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal", "0:keep")
    assert not state.is_terminal and state.deal_no == 1
    finish_deal(state)
    assert state.is_terminal and state.result().aborted
