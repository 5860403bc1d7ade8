"""What the three Kozel games share (RULES.md sections 3-5) on the trick engine :mod:`referee.games.tricks`: the
deal counter, the stock, the trick led clockwise from the leader and its card points, the observation common to
all three, and their narration. ``kozel`` is :mod:`.kozel`; the team games are :mod:`.team`, :mod:`.hvaleny` and
:mod:`.nn`.

Representation, as in every card engine here: a card is its canonical index in the deck (C-4), a hand is a
bitmask over those indices, and every action is built once per deck. Strength is never the canonical order (C-4):
a :class:`~referee.games.tricks.CardRules` gives each card an *effective suit* (its natural suit, or ``TRUMP``)
and a *power*, so the winner of any Kozel trick is "the highest trump, else the highest card of the led suit"
(KO-9, KH-12, KN-11).

The event log keeps small tuples ``(kind, seat, data)``; they become wire-form dicts only when a seat observes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.cards import Deck

from ...engine import Game
from ..cards import DECK36, bits, narrate_card, tables
from ..tricks import EFFECTIVE_SUITS, TRUMP, CardRules, TrickState

__all__ = ["KozelTrickState", "CardRules", "DECK36", "TRUMP", "EFFECTIVE_SUITS", "POINTS_BY_RANK", "PHASE_NAMES",
           "narrate_common"]

POINTS_BY_RANK = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}  # KO-2, KH-4, KN-4: 120 points a deck

# Phases of every Kozel game. The team games use the others (KH-9, KN-23).
PLAY, REDEAL, BOAST_LAY, FOLLOW_LAY, REBOAST, OVER = range(6)
PHASE_NAMES = ("play", "redeal_offer", "boast_lay", "follow_lay", "reboast_choice", "over")


# ----------------------------------------------------------------------------------------- shared state


class KozelTrickState(TrickState):
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
        self._init_tricks(game, seats, seed, options, dealer, tables(self.deck, ("play",)), deck_orders)
        self.deal_dealer = dealer  # dealer is the configured first dealer (C-1); this rotates (KO-5, KH-6, KN-6)
        self.deal_no = 0  # deals completed so far; the current deal is number deal_no + 1
        self.relabel_from = 0  # log index of the last (re)distribution of hidden cards
        self.phase = PLAY
        self.stock: list[int] = []  # bottom → top
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
        winner = (self.leader + self._trick_winner()) % self.seats
        won = self._take(winner, cards)
        self.tricks.append((self.leader, cards, winner, won))
        self.log.append(("trick", winner, (self.leader, cards, won)))
        self.trick = []
        self.leader = winner
        return winner

    # ------------------------------------------------------------------------------------ engine API

    @property
    def deals_done(self) -> int:
        return self.deal_no

    @property
    def turn(self) -> int:
        return (self.leader + len(self.trick)) % self.seats

    def _seat_at(self, position: int) -> int:
        return (self.leader + position) % self.seats

    def _later(self) -> Sequence[int]:
        n = self.seats
        return [(self.leader + k) % n for k in range(len(self.trick) + 1, n)]

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """The ``trick`` every Kozel game logs (``hand``, ``play`` and the private ``pass_redeal`` are the card
        and trick engines'); each game renders its own kinds first and falls back on this."""
        if kind == "trick":
            leader, cards, won = data
            text = self.t.texts
            return {"type": "trick", "leader": leader, "cards": [text[c] for c in cards], "winner": seat,
                    "points": won}
        return super()._render_own(kind, seat, data, viewer)

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
            "hand": self._texts(self.hands[seat]),
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


# ------------------------------------------------------------------------------------------ narration


def _cards(event: Mapping[str, Any]) -> str:
    return " ".join(event.get("cards") or [])


def narrate_common(event: Mapping[str, Any]) -> str | None:
    """The events every Kozel game has, in plain words (those of every card game by
    :func:`~referee.games.cards.narrate_card`); None for the others."""
    said = narrate_card(event)
    if said is not None:
        return said
    kind = event["type"]
    match kind:
        case "deal":
            again = f" (redeal {event['redeal']})" if event.get("redeal") else ""
            boast = f", seat {event['boaster']} boasts" if event.get("boaster") is not None else ""
            return f"deal {event['deal']}: seat {event['dealer']} deals{again}{boast}"
        case "trump":
            return f"trump is {event['suit']}: {event['card']} turned up under the stock"
        case "trick":
            p = event["points"]
            team = f" (team {event['team']})" if "team" in event else ""
            return (f"seat {event['winner']}{team} takes the trick {_cards(event)}: "
                    f"{p} point{'s' if p != 1 else ''}")
        case "deal_score" if "totals" in event:
            per = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["points"]))
            tot = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["totals"]))
            return f"deal over, points taken: {per}; totals: {tot}"
        case "end" if "scores" in event:
            tot = ", ".join(f"seat {s}: {p}" for s, p in enumerate(event["scores"]))
            return f"game over, final points: {tot}"
    return None
