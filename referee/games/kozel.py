"""Kozel ("Goat"): the trick engine shared by the three Kozel games, and ``kozel`` itself (RULES.md section 3,
KO-1 … KO-16). The two team games, ``kozel-hvaleny`` and ``kozel-nn``, are in :mod:`.kozel_team`.

Representation, as in :mod:`.durak`: a card is its canonical index in the deck (C-4), a hand is a bitmask over
those indices, and every action is built once per deck. Strength is never the canonical order (C-4): a
:class:`CardRules` gives each card an *effective suit* (its natural suit, or ``TRUMP``) and a *power*, so the
winner of any Kozel trick is "the highest trump, else the highest card of the led suit" (KO-9, KH-12, KN-11).
In ``kozel`` the special jacks (KO-7) simply rank above the trump suit inside ``TRUMP``: the led suit only
matters when no trump-class card is played, which is exactly KO-9.

The event log keeps small tuples ``(kind, seat, data)``; they become wire-form dicts only when a seat observes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.cards import STANDARD_SUITS, Deck

from ..engine import Game, Option, Result
from ..errors import RulesError
from .cards import DECK36, CardState, bits, tables

__all__ = ["Kozel", "KozelState", "CardRules", "KozelTrickState", "KOZEL_DECK", "DECK36", "TRUMP", "bits",
           "narrate_common"]

SUITS = STANDARD_SUITS
TRUMP = 4  # the effective suit of trumps; 0..3 are the natural suits C, D, H, S
EFFECTIVE_SUITS = ("C", "D", "H", "S", "trump")
POINTS_BY_RANK = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}  # KO-2, KH-4, KN-4: 120 points a deck

KOZEL_DECK = Deck(SUITS, range(7, 15))  # KO-1: 32 cards

# Phases of every Kozel game. The team games use the others (KH-9, KN-23).
PLAY, REDEAL, BOAST_LAY, FOLLOW_LAY, REBOAST, OVER = range(6)
PHASE_NAMES = ("play", "redeal_offer", "boast_lay", "follow_lay", "reboast_choice", "over")

HAND = 4  # KO-6
KO_ORDER = (7, 8, 9, 11, 12, 13, 10, 14)  # KO-1, ranks low → high: 7 8 9 J Q K 10 A
SPECIAL_JACKS = ("JD", "JH", "JS")  # KO-7, low → high
REMOVED_3P = ("7C", "7S")  # KO-1 with 3 players


class CardRules:
    """Effective suits, strengths and card points of one trump arrangement (C-9).

    ``trumps`` lists the trump-class cards weakest first; every other card is ranked inside its natural suit by
    ``plain`` (ranks weakest first).
    """

    def __init__(self, deck: Deck, trumps: Sequence[str], plain: Sequence[int]) -> None:
        n = len(deck)
        order = {rank: k for k, rank in enumerate(plain)}
        index = {text: i for i, text in enumerate(deck.texts)}
        self.eff = [deck.suit_of(i) for i in range(n)]
        self.power = [order.get(card.rank, -1) for card in deck.cards]
        for k, text in enumerate(trumps):
            self.eff[index[text]] = TRUMP
            self.power[index[text]] = 100 + k  # above every plain card
        if min(self.power) < 0:
            raise ValueError("every card must be a trump or have a rank of the plain order")
        self.eff_mask = [sum(1 << i for i in range(n) if self.eff[i] == s) for s in range(5)]
        self.trumps = self.eff_mask[TRUMP]
        self.points = [POINTS_BY_RANK.get(card.rank, 0) for card in deck.cards]

    def winner(self, cards: Sequence[int]) -> int:
        """The position (in play order) of the card that wins ``cards``: the highest trump if any was played,
        else the highest card of the led effective suit; cards of other suits never win."""
        eff, power = self.eff, self.power
        led = eff[cards[0]]
        best, best_power = 0, power[cards[0]]
        for i in range(1, len(cards)):
            card = cards[i]
            e = eff[card]
            if (e == TRUMP or e == led) and power[card] > best_power:
                best, best_power = i, power[card]
        return best

    def hand_points(self, hand: int) -> int:
        return sum(self.points[c] for c in bits(hand))


@cache
def ko_rules(trump_suit: int) -> CardRules:
    """KO-1, KO-7: the trump suit (without its special jack) below the special jacks JD < JH < JS."""
    suit = [KOZEL_DECK.texts[trump_suit * 8 + KOZEL_DECK.ranks.index(rank)] for rank in KO_ORDER]
    trumps = [t for t in suit if t not in SPECIAL_JACKS] + list(SPECIAL_JACKS)
    return CardRules(KOZEL_DECK, trumps, KO_ORDER)


# ----------------------------------------------------------------------------------------- shared state


class KozelTrickState(CardState):
    """What the Kozel games share: dealing from the seed, hands, the trick in play, the event log, the
    information functions (C-8) and the leak-check resample.

    ``deck_orders`` (each canonical indices, top card first) replace the first few shuffles, for hand-made deals
    in tests; later shuffles come from the seed's stream.
    """

    deck: Deck
    rules: CardRules
    PRIVATE_KINDS = frozenset({"hand", "draw"})

    def _init_common(self, game: Game, seats: int, seed: int, options: dict[str, Any], dealer: int,
                     deck_orders: Sequence[Sequence[int]]) -> None:
        self._init_engine(game, seats, seed, options, dealer, deck_orders)
        self.deal_dealer = dealer  # dealer is the configured first dealer (C-1); this rotates (KO-5, KH-6, KN-6)
        self.deal_no = 0  # deals completed so far; the current deal is number deal_no + 1
        self.t = tables(self.deck, ("play",))
        self.relabel_from = 0  # log index of the last (re)distribution of hidden cards
        self.phase = PLAY
        self.hands = [0] * seats
        self.stock: list[int] = []  # bottom → top
        self.trick: list[int] = []
        self.leader = 0
        self.tricks: list[tuple[int, tuple[int, ...], int, int]] = []  # (leader, cards, winner, points)
        self.won = [0] * seats  # card points taken this deal, per seat
        self.tricks_won = [0] * seats
        self.discard = 0  # the cards of the tricks taken this deal
        self.aborted = False

    def _reset_tricks(self) -> None:
        n = self.seats
        self.trick = []
        self.tricks = []
        self.won = [0] * n
        self.tricks_won = [0] * n
        self.discard = 0

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] &= ~(1 << card)
        self.trick.append(card)
        self.log.append(("play", seat, card))

    def _take(self, winner: int, cards: Sequence[int]) -> int:
        """``winner`` takes ``cards`` as one trick: its points (returned), its count and the discard."""
        points = self.rules.points
        won = sum(points[c] for c in cards)
        self.won[winner] += won
        self.tricks_won[winner] += 1
        for c in cards:
            self.discard |= 1 << c
        return won

    def _close_trick(self) -> int:
        """C-9: the winner takes the trick and leads the next one (KO-11, KH-9, KN-11)."""
        cards = tuple(self.trick)
        winner = (self.leader + self.rules.winner(cards)) % self.seats
        won = self._take(winner, cards)
        self.tricks.append((self.leader, cards, winner, won))
        self.log.append(("trick", winner, (self.leader, cards, won)))
        self.trick = []
        self.leader = winner
        return winner

    # ------------------------------------------------------------------------------------ engine API

    @property
    def turn(self) -> int:
        return (self.leader + len(self.trick)) % self.seats

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        """The kinds every Kozel game logs; subclasses render their own first and fall back on this."""
        kind, seat, data = entry
        text = self.deck.texts
        if kind == "hand":
            if viewer is not None and viewer != seat:
                return None
            return {"type": "hand", "seat": seat, "cards": [text[c] for c in bits(data)]}
        if kind == "play":
            return {"type": "play", "seat": seat, "card": text[data]}
        if kind == "trick":
            leader, cards, won = data
            return {"type": "trick", "leader": leader, "cards": [text[c] for c in cards], "winner": seat,
                    "points": won}
        if kind == "pass_redeal":
            if viewer is not None and viewer != seat:
                return None  # C-8: nobody else learns of the offer
            return {"type": "pass", "seat": seat, "offer": "redeal"}
        return {"type": kind, "seat": seat}

    def _observe_common(self, seat: int) -> dict[str, Any]:
        text = self.deck.texts
        n = self.seats
        return {
            "game": self.game.id,
            "seat": seat,
            "seats": n,
            "phase": PHASE_NAMES[self.phase],
            "deal": self.deal_no + (self.phase != OVER),  # after the end: the last deal, not one past it
            "dealer": self.deal_dealer,
            "hand": [text[c] for c in bits(self.hands[seat])],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "leader": self.leader if self.phase == PLAY or self.phase == OVER else None,
            "trick": [{"seat": (self.leader + i) % n, "card": text[c]} for i, c in enumerate(self.trick)],
            "tricks": [{"leader": lead, "cards": [text[c] for c in cards], "winner": w, "points": p}
                       for lead, cards, w, p in self.tricks],
        }

    def card_places(self) -> dict[str, list[int]]:
        """Where every card of the game is: hands, the stock (bottom → top), the table (the trick in play, and
        boasting stacks before the reveal), the discard (tricks taken this deal)."""
        places = {f"hand{s}": bits(h) for s, h in enumerate(self.hands)}
        places["stock"] = list(self.stock)
        places["table"] = sorted(self._table_cards())
        places["discard"] = bits(self.discard)
        return places

    def _table_cards(self) -> list[int]:
        return list(self.trick)

    @property
    def deck_cards(self) -> list[int]:
        """The canonical indices of the cards this game is played with."""
        return list(range(len(self.deck)))

    # ----------------------------------------------------------------------------------- resampling

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        super()._relabel(seat, move)
        self.stock = [move.get(c, c) for c in self.stock]


# ------------------------------------------------------------------------------------------- kozel


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

    def __init__(self, game: Kozel, seats: int, seed: int, options: dict[str, Any], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = ()) -> None:
        self._init_common(game, seats, seed, options, dealer, deck_orders)
        self.target = int(options["target"])
        removed = {KOZEL_DECK.texts.index(t) for t in REMOVED_3P} if seats == 3 else set()
        self.cards = [i for i in range(len(KOZEL_DECK)) if i not in removed]  # KO-1
        self.totals = [0] * seats
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
        self._play(self.turn, self.t.card_of[action])
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
        self.log.append(("score", None, (tuple(self.won), tuple(self.totals))))
        self.deal_no += 1
        if max(self.totals) >= self.target:
            self.phase = OVER
            self.log.append(("end", None, tuple(self.totals)))
            return
        self.deal_dealer = (self.deal_dealer + 1) % n
        self._deal()

    def result(self) -> Result:
        """KO-14: places by cumulative points, equal scores share a place."""
        if self.phase != OVER:
            raise RulesError("the game is not over: there is no result yet")
        totals = self.totals
        order = tuple(tuple(s for s in range(self.seats) if totals[s] == v)
                      for v in sorted(set(totals), reverse=True))
        return Result(order, tuple(totals), False, {})

    # ---------------------------------------------------------------------------------- information

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        kind, seat, data = entry
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
        return super()._render(entry, viewer)

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


# ------------------------------------------------------------------------------------------ narration


def _cards(event: Mapping[str, Any]) -> str:
    return " ".join(event.get("cards") or [])


def narrate_common(event: Mapping[str, Any]) -> str | None:
    """The events every Kozel game has, in plain words; None for the others."""
    kind = event["type"]
    seat = event.get("seat")
    match kind:
        case "deal":
            again = f" (redeal {event['redeal']})" if event.get("redeal") else ""
            boast = f", seat {event['boaster']} boasts" if event.get("boaster") is not None else ""
            return f"deal {event['deal']}: seat {event['dealer']} deals{again}{boast}"
        case "hand":
            return f"seat {seat} is dealt {_cards(event)}"
        case "trump":
            return f"trump is {event['suit']}: {event['card']} turned up under the stock"
        case "play":
            return f"seat {seat} plays {event['card']}"
        case "trick":
            p = event["points"]
            team = f" (team {event['team']})" if "team" in event else ""
            return (f"seat {event['winner']}{team} takes the trick {_cards(event)}: "
                    f"{p} point{'s' if p != 1 else ''}")
        case "draw":
            shown = f" ({_cards(event)})" if event.get("cards") else ""
            return f"seat {seat} draws {event['count']} card{'s' if event['count'] != 1 else ''}{shown}"
        case "deal_score" if "totals" in event:
            per = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["points"]))
            tot = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["totals"]))
            return f"deal over, points taken: {per}; totals: {tot}"
        case "end" if "scores" in event:
            tot = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["scores"]))
            return f"game over, final points: {tot}"
        case "pass" if event.get("offer") == "redeal":
            return f"seat {seat} declines the redeal"
        case "demand_redeal":
            return f"seat {seat} demands a redeal"
    return None
