"""Kings (``koroli``), the old Russian game for 4 players with 36 cards: RULES.md section 6 (KR-1 … KR-19).

A game is the *introduction*, three stages of trick play that hand out the titles King, Prince and Soldier (the
last player is Peasant), then ``reign_deals`` deals of the *reign*: the Peasant deals, the King and then the
Prince levy a card from the Peasant and give one back, the King leads every trick, and after each deal the roles
are re-ranked by that deal's tricks.

The trick play, the log and the resample are :mod:`.base` (on the trick engine :mod:`referee.games.tricks`). The
levy is the only private exchange: whether it was a trump or a free choice is public, the two cards are seen only
by the two players, except that everyone follows the shown trump card (KR-18). Log entries ``levy`` and ``give``
carry a ``shown`` flag for that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.actions import Action

from ...engine import Game, Option, Result, places_by
from ..cards import DECK36, bits, tables
from .base import KingsState, narrate_trick

__all__ = ["Koroli", "KoroliState", "DECK36", "TITLES", "narrate"]

KING, PRINCE, SOLDIER, PEASANT = range(4)
TITLES = ("King", "Prince", "Soldier", "Peasant")  # KR-3, high to low
STAGES = {1: (9, 10), 2: (12, 9), 3: (18, 8)}  # KR-5: stage → (cards each, target)
LEAD_TRUMP_TRICKS = 2  # KR-8, KR-14

# Phases (KR-16 state table).
PLAY, LEVY_TAKE, LEVY_GIVE, OVER = range(4)
PHASE_NAMES = ("play", "levy_take", "levy_give", "over")
KINDS = ("play", "take_card", "give")


class Koroli(Game):
    """Kings for 4 players with 36 cards: the introduction and the reign (seed 002)."""

    id = "koroli"
    title = "Kings (Короли)"
    min_seats = 4
    max_seats = 4
    deck = DECK36
    options = (Option("reign_deals", 6, "deals of the reign after the introduction (KR-3)", 0, 1000),)

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> KoroliState:
        return KoroliState(self, seats, seed, options, dealer)

    def seat_fields(self, result: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """The seat's final role (its title after the reign) and the title the introduction gave it."""
        return {"title": result["roles"][seat], "introduction_title": result["titles"][seat]}

    def score_text(self, score: Any) -> str:
        """The headline of the score: the seat's role at the end of the reign."""
        return str(score["role"])

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate(event)


class KoroliState(KingsState):
    """A position of a ``koroli`` game."""

    lead_trump_tricks = LEAD_TRUMP_TRICKS
    must_trump = False  # KR-8: a void player may play any card

    def __init__(self, game: Koroli, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = ()) -> None:
        """``deck_orders[k]`` (canonical indices, ``deck[0]`` first) replaces the shuffle of deal k + 1: hand-made
        deals for tests. Later deals shuffle from the seed's stream. ``dealer`` is the configured first dealer
        (KR-6); ``deal_dealer`` is the current one."""
        self._init_kings(game, seats, seed, options, dealer, tables(DECK36, KINDS), deck_orders)
        self.reign_deals = int(options["reign_deals"])
        self.titles: list[int | None] = [None] * seats  # titles of the introduction (KR-10)
        self.roles: list[int | None] = [None] * seats  # roles of the reign, re-ranked after each deal (KR-15)
        self.active = [True] * seats  # players still in the introduction
        self.stage = 1
        self.stage_counts = [0] * seats
        self.title_seat: int | None = None  # the title holder of the current deal (KR-10)
        self.deal_no = 0
        self.reign_no = 0  # 0 in the introduction
        self.history = []  # trick counts per deal, None for a player not in it
        self.deal_dealer = dealer
        self.trump_card = -1
        self.phase = PLAY
        self.levy_taker: int | None = None
        self.levy_taken: int | None = None
        self.levy_trump = False
        self._intro_deal()

    # ------------------------------------------------------------------------------------- the deals

    def _clockwise(self, seat: int) -> list[int]:
        """The active players clockwise, starting with the next active player after ``seat`` (C-2)."""
        n = self.seats
        return [s for s in ((seat + k) % n for k in range(1, n + 1)) if self.active[s]]

    def _deal(self, receivers: Sequence[int], dealer: int) -> None:
        """KR-7, KR-11: one shuffle, cards one at a time to ``receivers`` in turn; the last card, which goes to
        the dealer, is shown and fixes the trump."""
        order = self._shuffled(list(range(self.t.size)))
        hands = [0] * self.seats
        m = len(receivers)
        for k, card in enumerate(order):
            hands[receivers[k % m]] |= 1 << card
        card = order[-1]
        assert receivers[(len(order) - 1) % m] == dealer
        self.deal_no += 1
        self.deal_dealer = dealer
        self.trump_card = card
        self._new_deal(hands, card // self.t.ranks, public=1 << card)
        self.log.append(("deal", dealer, (self.deal_no, self.stage if not self.reign_no else None, self.reign_no,
                                          tuple(receivers))))
        for seat in receivers:
            self.log.append(("hand", seat, hands[seat]))
        self.log.append(("trump", dealer, card))

    def _intro_deal(self) -> None:
        """KR-7, KR-8: the dealer's left active neighbour receives the first card and leads trick 1."""
        receivers = self._clockwise(self.deal_dealer)
        self.title_seat = None
        self._deal(receivers, self.deal_dealer)
        self.phase = PLAY
        self._start_trick(receivers)

    def _reign_deal(self) -> None:
        """KR-11: the Peasant deals, in role order King, Prince, Soldier, Peasant; then the King's levy."""
        self.reign_no += 1
        self._deal(self._role_order(), self._seat_of(PEASANT))
        self._levy(KING)

    def _role_order(self) -> list[int]:
        seat_of = [0] * 4
        for seat, role in enumerate(self.roles):
            seat_of[role] = seat  # type: ignore[index]
        return seat_of

    def _seat_of(self, role: int) -> int:
        return self.roles.index(role)

    # -------------------------------------------------------------------------------------- the levy

    def _levy(self, role: int) -> None:
        """KR-12, KR-13: the Peasant's highest trump goes to the taker; without a trump, the taker chooses."""
        taker, peasant = self._seat_of(role), self._seat_of(PEASANT)
        self.levy_taker = taker
        self.levy_taken = None
        trumps = self.hands[peasant] & self.t.suit_mask[self.trump]  # type: ignore[index]
        self.levy_trump = bool(trumps)
        if trumps:
            self._take(trumps.bit_length() - 1)
        else:
            self.phase = LEVY_TAKE
            self.known[taker] |= self.hands[peasant]  # KR-12: he is shown the Peasant's hand

    def _take(self, card: int) -> None:
        taker, peasant = self.levy_taker, self._seat_of(PEASANT)
        assert taker is not None
        self._move(card, peasant, taker)
        self.levy_taken = card
        self.log.append(("levy", taker, (peasant, card, self.levy_trump, card == self.trump_card)))
        self.phase = LEVY_GIVE

    def _give(self, card: int) -> None:
        taker, peasant = self.levy_taker, self._seat_of(PEASANT)
        assert taker is not None
        self._move(card, taker, peasant)
        self.log.append(("give", taker, (peasant, card, card == self.trump_card)))
        if self.roles[taker] == KING:
            self._levy(PRINCE)
        else:
            self.levy_taker = self.levy_taken = None
            self.phase = PLAY
            self._start_trick(self._role_order())

    def _move(self, card: int, giver: int, receiver: int) -> None:
        """A private hand-over (KR-12): the two players know where the card is, the others no longer do."""
        bit = 1 << card
        self.hands[giver] &= ~bit
        self.hands[receiver] |= bit
        for seat in range(self.seats):
            self.known[seat] &= ~bit
        self.known[giver] |= bit

    # ------------------------------------------------------------------------------------- the tricks

    def _trick_won(self, winner: int) -> None:
        if self.reign_no:
            if self.hands[winner]:
                self._start_trick(self._role_order())  # KR-14: the King leads every trick
            else:
                self._end_reign_deal()
            return
        self.stage_counts[winner] += 1
        if self.title_seat is None and self.stage_counts[winner] >= STAGES[self.stage][1]:  # KR-10
            self.title_seat = winner
            self.titles[winner] = self.stage - 1
            self.log.append(("title", winner, self.stage - 1))
        if self.hands[winner]:
            self._start_trick(self._clockwise(winner - 1))  # KR-8: the winner leads
        else:
            self._end_intro_deal()

    def _reached_first(self, seat: int) -> tuple[int, int]:
        """KR-4 sort key for c ≥ 1: more tricks first, then the earlier c-th trick."""
        c = self.tricks[seat]
        return (-c, self.win_times(seat)[c - 1] if c else 0)

    def _record_deal(self) -> None:
        counts = tuple(self.tricks[s] if s in self.order else None for s in range(self.seats))
        self.history.append(counts)
        self.log.append(("deal_end", None, (self.deal_no, counts)))

    def _end_intro_deal(self) -> None:
        """KR-10 (leaving, next stage, the Peasant) and KR-6 (the next dealer)."""
        self._record_deal()
        previous = self.deal_dealer
        if self.title_seat is not None:
            self.active[self.title_seat] = False
            self.stage += 1
            self.stage_counts = [0] * self.seats  # KR-5: counts start at 0 in each stage
            if self.stage > 3:  # KR-10: the remaining player becomes Peasant
                last = self.active.index(True)
                self.titles[last] = PEASANT
                self.log.append(("title", last, PEASANT))
                self.active = [True] * self.seats
                self.roles = list(self.titles)
                self.log.append(("roles", None, tuple(self.roles)))
                if self.reign_deals:
                    self._reign_deal()
                else:
                    self._finish()
                return
        players = [s for s in range(self.seats) if self.active[s]]
        best = min(players, key=self._reached_first)
        if self.tricks[best]:
            self.deal_dealer = best
        elif self.active[previous]:  # KR-6: the new title holder took every trick
            self.deal_dealer = previous
        else:
            self.deal_dealer = self._clockwise(previous)[0]
        self._intro_deal()

    def _end_reign_deal(self) -> None:
        """KR-15: re-rank by the deal's tricks; ties by KR-4, at 0 tricks by the previous role."""
        self._record_deal()
        ranked = sorted(range(self.seats),
                        key=lambda s: self._reached_first(s) if self.tricks[s] else (0, self.roles[s]))
        for role, seat in enumerate(ranked):
            self.roles[seat] = role
        self.log.append(("roles", None, tuple(self.roles)))
        if self.reign_no < self.reign_deals:
            self._reign_deal()
        else:
            self._finish()

    def _finish(self) -> None:
        """KR-17."""
        self.phase = OVER
        self.order = ()
        self.log.append(("end", None, tuple(self.roles)))

    # ------------------------------------------------------------------------------------ engine API

    @property
    def to_act(self) -> int | None:
        phase = self.phase
        if phase == PLAY:
            return self.order[self.turn]
        if phase == OVER:
            return None
        return self.levy_taker

    def _generate(self) -> tuple[Action, ...]:
        phase, t = self.phase, self.t
        if phase == PLAY:
            return t.select("play", self._playable())
        if phase == LEVY_GIVE:  # KR-12: any card but the one just taken
            return t.select("give", self.hands[self.levy_taker] & ~(1 << self.levy_taken))  # type: ignore[index,operator]
        if phase == LEVY_TAKE:  # KR-12: any card of the Peasant
            return t.select("take_card", self.hands[self._seat_of(PEASANT)])
        return ()

    def _apply(self, action: Action) -> None:
        self._legal = None
        card = self.t.card_at[id(action)]
        phase = self.phase
        if phase == PLAY:
            self._play(card)
        elif phase == LEVY_GIVE:
            self._give(card)
        else:
            self._take(card)

    def deal_places(self) -> tuple[int, ...]:
        """The roles the deal left (KR-15; after the introduction its titles, KR-10); in the introduction, the titled
        seats in title order, then the others by their tricks in the stage (a choice: docs/ENGINE.md, "Deals")."""
        if self.roles[0] is not None:
            return tuple(role + 1 for role in self.roles)  # type: ignore[operator]
        counts = self.stage_counts
        return places_by([(len(TITLES), -counts[s]) if t is None else (t, 0) for s, t in enumerate(self.titles)])

    def _result(self) -> Result:
        seat_of = self._role_order()
        roles = [TITLES[r] for r in self.roles]  # type: ignore[index]
        scores = tuple({"role": roles[s], "tricks": [h[s] for h in self.history]} for s in range(self.seats))
        return Result(tuple((s,) for s in seat_of), scores, False,
                      {"roles": roles, "titles": [TITLES[r] for r in self.titles]})  # type: ignore[index]

    # ---------------------------------------------------------------------------------- information

    def _render_own(self, kind: str, seat: int | None, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """One log entry as ``viewer`` may see it (KR-18, C-8)."""
        text = self.t.texts
        event: dict[str, Any]
        if kind in ("levy", "give"):  # KR-12, KR-18: the card only to the two players, or if it is the shown one
            peasant, card = data[0], data[1]
            if kind == "levy":
                event = {"type": "levy", "seat": seat, "from": peasant, "trump": data[2]}
            else:
                event = {"type": "give", "seat": seat, "to": peasant}
            if viewer is None or viewer == seat or viewer == peasant or data[-1]:
                event["card"] = text[card]
            return event
        if kind == "deal":
            number, stage, reign, receivers = data
            return {"type": "deal", "deal": number, "dealer": seat, "part": "reign" if reign else "introduction",
                    "stage": stage, "reign_deal": reign or None, "players": list(receivers)}
        if kind == "trump":
            return {"type": "trump", "card": text[data], "suit": text[data][-1], "holder": seat}
        if kind == "title":
            return {"type": "title", "seat": seat, "title": TITLES[data]}
        if kind == "deal_end":
            number, counts = data
            return {"type": "deal_end", "deal": number, "tricks": list(counts)}
        if kind in ("roles", "end"):
            return {"type": kind, "roles": [TITLES[r] for r in data]}
        return super()._render_own(kind, seat, data, viewer)  # hand, play, trick

    def _relabel_entry(self, entry: tuple[Any, ...], viewer: int, move: Mapping[int, int]) -> tuple[Any, ...]:
        kind, seat, data = entry
        if kind in ("levy", "give") and viewer != seat and viewer != data[0] and not data[-1]:
            return (kind, seat, (data[0], move.get(data[1], data[1]), *data[2:]))
        return super()._relabel_entry(entry, viewer, move)

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        super()._relabel(seat, move)
        if self.levy_taken is not None:
            self.levy_taken = move.get(self.levy_taken, self.levy_taken)

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        """KR-18: the own hand, the public state, and the levy as far as this seat may see it."""
        text = self.t.texts
        hands = self.hands
        in_deal = self.phase != OVER
        holder = next((s for s in range(self.seats) if hands[s] >> self.trump_card & 1), None) if in_deal else None
        levy = None
        if self.levy_taker is not None:
            peasant = self._seat_of(PEASANT)
            taken = self.levy_taken
            show = taken is not None and (seat in (self.levy_taker, peasant) or taken == self.trump_card)
            levy = {"taker": self.levy_taker, "from": peasant, "trump": self.levy_trump,
                    "card": text[taken] if show else None}  # type: ignore[index]
        shown = None
        if self.phase == LEVY_TAKE and seat == self.levy_taker:  # KR-18: only while he chooses
            shown = [text[c] for c in bits(hands[self._seat_of(PEASANT)])]
        stage = None if self.reign_no or self.phase == OVER else self.stage
        return {
            "game": self.game.id,
            "seat": seat,
            "seats": self.seats,
            "phase": PHASE_NAMES[self.phase],
            "part": "over" if self.phase == OVER else "reign" if self.reign_no else "introduction",
            "deal": self.deal_no,
            "stage": stage,
            "target": STAGES[stage][1] if stage else None,
            "reign_deal": self.reign_no or None,
            "dealer": self.deal_dealer,
            "active": list(self.active),
            "titles": [None if r is None else TITLES[r] for r in self.titles],
            "roles": [None if r is None else TITLES[r] for r in self.roles],
            "hand": self._texts(hands[seat]),
            "hand_sizes": [h.bit_count() for h in hands],
            "trump": text[self.trump_card][-1],
            "trump_card": text[self.trump_card],
            "trump_card_holder": holder,
            **self._observe_trick(),
            "tricks": [c if self.active[s] or self.reign_no else None for s, c in enumerate(self.tricks)],
            "stage_counts": list(self.stage_counts) if stage else None,
            "tricks_by_deal": [list(h) for h in self.history],
            "levy": levy,
            "peasant_hand": shown,
            "events": self.events(since, seat),
        }


# ------------------------------------------------------------------------------------------ narration


def narrate(event: Mapping[str, Any]) -> str:
    """One ``koroli`` event in plain words ("seat 2 becomes King")."""
    return narrate_trick(event, _narrate_own)


def _narrate_own(kind: str, seat: Any, event: Mapping[str, Any]) -> str | None:
    match kind:
        case "deal":
            part = (f"introduction, stage {event['stage']}" if event["part"] == "introduction"
                    else f"reign, deal {event['reign_deal']}")
            return f"deal {event['deal']} ({part}): seat {event['dealer']} deals to {event['players']}"
        case "trump":
            return f"trump is {event['suit']}: {event['card']} shown, held by seat {event['holder']}"
        case "title":
            return f"seat {seat} becomes {event['title']}"
        case "levy":
            how = "the Peasant's highest trump" if event["trump"] else "a card of his choice"
            card = f" ({event['card']})" if "card" in event else ""
            return f"seat {seat} levies {how} from seat {event['from']}{card}"
        case "give":
            card = f" {event['card']}" if "card" in event else " a card"
            return f"seat {seat} gives{card} to seat {event['to']}"
        case "deal_end":
            taken = ", ".join(f"seat {s} {n}" for s, n in enumerate(event["tricks"]) if n is not None)
            return f"deal {event['deal']} ends; tricks: {taken}"
        case "roles":
            return "roles: " + ", ".join(f"seat {s} {r}" for s, r in enumerate(event["roles"]))
        case "end":
            return "the game ends: " + ", ".join(f"seat {s} {r}" for s, r in enumerate(event["roles"]))
    return None
