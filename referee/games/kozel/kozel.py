"""``kozel`` ("Goat") for 2-4 players, each for himself (RULES.md section 3, KO-1 … KO-16), on the Kozel base
:mod:`.base`. In ``kozel`` the special jacks (KO-7) simply rank above the trump suit inside ``TRUMP``: the led suit
only matters when no trump-class card is played, which is exactly KO-9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.cards import STANDARD_SUITS, Deck

from ...engine import Game, Option, Result, places_by
from ..cards import bits
from ..tricks import CardRules
from .base import OVER, PLAY, POINTS_BY_RANK, KozelTrickState, narrate_common

__all__ = ["Kozel", "KozelState", "KOZEL_DECK", "ko_rules"]

KOZEL_DECK = Deck(STANDARD_SUITS, range(7, 15))  # KO-1: 32 cards
HAND = 4  # KO-6
KO_ORDER = (7, 8, 9, 11, 12, 13, 10, 14)  # KO-1, ranks low → high: 7 8 9 J Q K 10 A
SPECIAL_JACKS = ("JD", "JH", "JS")  # KO-7, low → high
REMOVED_3P = ("7C", "7S")  # KO-1 with 3 players


@cache
def ko_rules(trump_suit: int) -> CardRules:
    """KO-1, KO-7: the trump suit (without its special jack) below the special jacks JD < JH < JS."""
    suit = [KOZEL_DECK.texts[trump_suit * 8 + KOZEL_DECK.ranks.index(rank)] for rank in KO_ORDER]
    trumps = [t for t in suit if t not in SPECIAL_JACKS] + list(SPECIAL_JACKS)
    return CardRules(KOZEL_DECK, trumps, KO_ORDER, POINTS_BY_RANK)



class Kozel(Game):
    """Kozel for 2-4 players, each for himself: 32 cards, 4-card hands with drawing, to 60 points (seed 001)."""

    id = "kozel"
    title = "Kozel (Козёл)"
    min_seats = 2
    max_seats = 4
    deck = KOZEL_DECK
    options = (Option("target", 60, "the game ends after the deal in which somebody reaches this many points "
                                    "(KO-13)", 1, 1200),)

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> KozelState:
        return KozelState(self, seats, seed, options, dealer)

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate_common(event) or super().narrate(event)


class KozelState(KozelTrickState):
    """A position of a ``kozel`` game (KO-1 … KO-16)."""

    deck = KOZEL_DECK
    must_follow = False  # KO-8: any card may be played

    def __init__(self, game: Kozel, seats: int, seed: int, options: dict[str, Any], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = ()) -> None:
        self._init_common(game, seats, seed, options, dealer, deck_orders)
        self.target = int(options["target"])
        removed = {KOZEL_DECK.texts.index(t) for t in REMOVED_3P} if seats == 3 else set()
        self.cards = [i for i in range(len(KOZEL_DECK)) if i not in removed]  # KO-1
        self.totals = [0] * seats
        self.last_won: tuple[int, ...] = ()  # the card points of the last finished deal, per seat
        self._deal()

    @property
    def deck_cards(self) -> list[int]:
        return list(self.cards)

    def _deal(self) -> None:
        """KO-6: shuffle, four cards each one at a time from the dealer's left, turn up the trump."""
        n, d = self.seats, self.deal_dealer
        order = self._shuffled(list(self.cards))  # KO-16: one shuffle per deal
        self.relabel_from = len(self.log)
        self.log.append(("deal", d, self.deal_no + 1))
        hands = [0] * n
        for k in range(HAND * n):
            hands[(d + 1 + k) % n] |= 1 << order[k]
        self.hands = hands
        rest = order[HAND * n:]
        self.trump_card = rest[0]
        self.stock = [rest[0]] + rest[:0:-1]  # bottom → top: the face-up trump card is drawn last
        self.trump_drawn_by: int | None = None
        self.rules = ko_rules(self.deck.suit_of(self.trump_card))
        for seat in range(n):
            self.log.append(("hand", seat, hands[seat]))
        self.log.append(("trump", None, self.trump_card))
        self._reset_tricks()
        self.leader = (d + 1) % n  # KO-8
        self.phase = PLAY

    @property
    def to_act(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def _generate(self) -> tuple[Action, ...]:
        if self.phase == OVER:
            return ()
        return self.t.select("play", self.hands[self.turn])  # KO-8: any card

    def _apply(self, action: Action) -> None:
        self._legal = None
        n = self.seats
        self._add_to_trick(self.turn, self.t.card_at[id(action)])
        if len(self.trick) < n:
            return
        winner = self._close_trick()
        stock, hands = self.stock, self.hands
        if stock:  # KO-10: the winner first, then clockwise; the stock is a multiple of n
            for k in range(n):
                seat = (winner + k) % n
                card = stock.pop()
                hands[seat] |= 1 << card
                if card == self.trump_card:  # KO-15: everyone sees who draws the face-up trump card
                    self.trump_drawn_by = seat
                    self.log.append(("draw_trump", seat, (card,)))
                else:
                    self.log.append(("draw", seat, (card,)))
        if not hands[winner]:  # KO-12: every hand is empty together
            self._end_deal()

    def _end_deal(self) -> None:
        """KO-12 scoring, KO-13 end of game or the next deal (KO-5)."""
        n = self.seats
        for s in range(n):
            self.totals[s] += self.won[s]
        self.last_won = tuple(self.won)
        self.log.append(("score", None, (self.last_won, tuple(self.totals))))
        self.deal_no += 1
        if max(self.totals) >= self.target:
            self.phase = OVER
            self.log.append(("end", None, tuple(self.totals)))
            return
        self.deal_dealer = (self.deal_dealer + 1) % n
        self._deal()

    def deal_places(self) -> tuple[int, ...]:
        """The seats by the card points they took in the deal (KO-12), the most first."""
        return places_by([-won for won in self.last_won])

    def _result(self) -> Result:
        """KO-14: places by cumulative points, equal scores share a place."""
        totals = self.totals
        order = tuple(tuple(s for s in range(self.seats) if totals[s] == v)
                      for v in sorted(set(totals), reverse=True))
        return Result(order, tuple(totals), False, {})

    # ---------------------------------------------------------------------------------- information

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        text = self.deck.texts
        if kind == "deal":
            return {"type": "deal", "dealer": seat, "deal": data}
        if kind == "trump":
            return {"type": "trump", "card": text[data], "suit": text[data][-1]}
        if kind == "draw":
            event: dict[str, Any] = {"type": "draw", "seat": seat, "count": len(data)}
            if viewer is None or viewer == seat:
                event["cards"] = [text[c] for c in data]
            return event
        if kind == "draw_trump":  # the face-up trump card: public (KO-15)
            return {"type": "draw", "seat": seat, "count": 1, "cards": [text[data[0]]]}
        if kind == "score":
            return {"type": "deal_score", "points": list(data[0]), "totals": list(data[1])}
        if kind == "end":
            return {"type": "end", "scores": list(data)}
        return super()._render_own(kind, seat, data, viewer)

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        text = self.deck.texts
        obs = self._observe_common(seat)
        obs.update({
            "trump": text[self.trump_card][-1],
            "trump_card": text[self.trump_card],
            "trump_card_drawn_by": self.trump_drawn_by,
            "stock": len(self.stock),
            "points": list(self.won),
            "totals": list(self.totals),
            "target": self.target,
            "events": self.events(since, seat),
        })
        return obs

    def _hidden_cards(self, seat: int) -> list[int]:
        fixed = self.trump_card  # KO-15: its place is public, in the stock or in its drawer's hand
        hidden = [c for s, h in enumerate(self.hands) if s != seat for c in bits(h) if c != fixed]
        return hidden + [c for c in self.stock if c != fixed]
