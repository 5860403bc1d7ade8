"""Kings with 52 cards (``koroli52``), 3-4 players, 10 tours: RULES.md section 7 (K52-1 … K52-19).

Tour 1 is plain trick play with a random trump; its tricks hand out the titles (King, Prince, Soldier, Jester;
with 3 players King, Prince, Jester). From tour 2 the title holders may swap whole hands with lower titles (from
tour 4 the target may buy the swap off with tricks from his total), the King names the trump or no-trump and leads
every trick, and each tour's tricks re-rank the titles. After tour 10 the highest total is the Emperor.

Everything in this game is public except the hands (K52-18); the two players of a swap know both hands. The trick
play, the log and the resample are :mod:`.base` (on the trick engine :mod:`referee.games.tricks`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.actions import Action
from protocol.cards import STANDARD_SUITS, Deck

from ...engine import Game, Result
from ..cards import bits, remap, tables
from .base import KingsState, narrate_trick

__all__ = ["Koroli52", "Koroli52State", "DECK52", "title_names", "narrate"]

DECK52 = Deck(STANDARD_SUITS, range(2, 15))  # K52-2
REMOVED_3P = 0  # K52-2: the canonical index of 2C, left out with 3 players
TOURS = 10  # K52-3
FIRST_BARGAIN_TOUR = 4  # K52-13
MAX_BARGAIN = 3  # K52-13

# Phases (K52-16 state table).
PLAY, EXCHANGE, BARGAIN, BARGAIN_REPLY, NAME_TRUMP, OVER = range(6)
PHASE_NAMES = ("play", "exchange", "bargain", "bargain_reply", "name_trump", "over")

PASS = Action("pass")
ACCEPT = Action("accept")
REFUSE = Action("refuse")
EXCHANGE_TO = tuple(Action("exchange", (seat,)) for seat in range(4))
BARGAINS = tuple(Action("bargain", (n,)) for n in range(MAX_BARGAIN + 1))  # BARGAINS[0] is never offered
NAME_TRUMPS = tuple(Action("name_trump", (s,)) for s in STANDARD_SUITS) + (Action("name_trump", ("none",)),)
LEGAL_BARGAINS = tuple(BARGAINS[1:k + 1] + (PASS,) for k in range(MAX_BARGAIN + 1))


def title_names(seats: int) -> tuple[str, ...]:
    """K52-1: the titles, high to low."""
    return ("King", "Prince", "Soldier", "Jester") if seats == 4 else ("King", "Prince", "Jester")


class Koroli52(Game):
    """Kings with 52 cards for 3-4 players: ten tours, exchanges, bargaining and an Emperor (seed 004)."""

    id = "koroli52"
    title = "Kings with 52 cards (Короли, 52 карты)"
    min_seats = 3
    max_seats = 4
    deck = DECK52

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> Koroli52State:
        return Koroli52State(self, seats, seed, options, dealer)

    def seat_fields(self, result: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """The seat's final title (K52 ranking after tour 10) and whether it became the Emperor."""
        return {"title": result["titles"][seat], "emperor": result.get("emperor") == seat}

    def score_text(self, score: Any) -> str:
        """The headline of the score: the seat's points over the ten tours."""
        return str(score["total"])

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate(event)


class Koroli52State(KingsState):
    """A position of a ``koroli52`` game. ``ranks[seat]`` is the seat's title (0 = King) during this tour."""

    lead_trump_tricks = 0
    must_trump = True  # K52-5: a void player must trump if he can

    def __init__(self, game: Koroli52, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = ()) -> None:
        """``deck_orders[k]`` (canonical indices, ``deck[0]`` first) replaces the shuffle of tour k + 1: hand-made
        deals for tests. Later tours shuffle from the seed's stream; tour 1's trump is always drawn from it.
        ``dealer`` is kept but plays no part: koroli52 has no dealer (C-1)."""
        self._init_kings(game, seats, seed, options, dealer, tables(DECK52, ("play",)), deck_orders)
        self.cards = list(range(1 if seats == 3 else 0, len(DECK52)))  # K52-2
        self.names = title_names(seats)
        self.tour = 0
        self.ranks: list[int] | None = None  # no titles in tour 1
        self.totals = [0] * seats  # K52-7
        self.net = [0] * seats  # bargaining: received minus given
        self.history = []  # tricks per tour
        self.phase = PLAY
        self.exchanger = 0  # the title (rank) whose exchange right is being used
        self.asker: int | None = None
        self.target: int | None = None
        self.offer = 0
        self.declared: list[int] = []  # seats that used their exchange right this tour
        self._new_tour()

    # ------------------------------------------------------------------------------------- the tours

    def _new_tour(self) -> None:
        """K52-4: one shuffle, one card at a time clockwise from seat 0; then K52-8 or K52-11."""
        self.tour += 1
        order = self._shuffled(list(self.cards))
        n = self.seats
        hands = [0] * n
        for k, card in enumerate(order):
            hands[k % n] |= 1 << card
        self._new_deal(hands, None)
        self.declared = []
        self.log.append(("tour", None, self.tour))
        for seat in range(n):
            self.log.append(("hand", seat, hands[seat]))
        if self.tour == 1:  # K52-8, K52-19: drawn after the shuffle
            self._set_trump(self.rng.randbelow(4))
            self.log.append(("trump", None, self.trump))
            self.phase = PLAY
            self._start_trick(range(n))  # K52-9: seat 0 leads
        else:
            self.exchanger = -1
            self._next_exchanger()

    def _seat_order(self) -> list[int]:
        """The seats by title, King first (K52-14)."""
        order = [0] * self.seats
        for seat, rank in enumerate(self.ranks):  # type: ignore[arg-type]
            order[rank] = seat
        return order

    def _next_exchanger(self) -> None:
        """K52-11: King, Prince, then Soldier declare in turn; then K52-12, the King names the trump."""
        self.asker = self.target = None
        self.exchanger += 1
        if self.exchanger < self.seats - 1:
            self.phase = EXCHANGE
        else:
            self.phase = NAME_TRUMP

    def _swap(self, a: int, b: int) -> None:
        """K52-11: a whole-hand swap. Each of the two knows the hand he gave away."""
        hands, known = self.hands, self.known
        hands[a], hands[b] = hands[b], hands[a]
        known[a] |= hands[b]
        known[b] |= hands[a]
        known[a] &= ~hands[a]
        known[b] &= ~hands[b]
        self.log.append(("swap", a, b))
        self.log.append(("received", a, (hands[a], b)))
        self.log.append(("received", b, (hands[b], a)))

    def _trick_won(self, winner: int) -> None:
        if not self.hands[winner]:
            self._end_tour()
        elif self.tour == 1:  # K52-9: the winner leads, clockwise
            n = self.seats
            self._start_trick([(winner + k) % n for k in range(n)])
        else:  # K52-14: the King leads every trick
            self._start_trick(self._seat_order())

    def _end_tour(self) -> None:
        """K52-10, K52-15: the tour's tricks give the next titles; K52-17 after tour 10."""
        counts = tuple(self.tricks)
        self.history.append(counts)
        for seat in range(self.seats):
            self.totals[seat] += counts[seat]
        self.log.append(("tour_end", None, (self.tour, counts, tuple(self.totals))))
        ranked = self._rank_tour()
        self.ranks = [0] * self.seats
        for rank, seat in enumerate(ranked):
            self.ranks[seat] = rank
        self.log.append(("titles", None, tuple(self.ranks)))
        if self.tour < TOURS:
            self._new_tour()
        else:
            self.phase = OVER
            self.order = ()
            final = self._final_order()
            self.log.append(("end", final[0], tuple(final)))

    def _rank_tour(self) -> list[int]:
        """The seats ranked by this tour's tricks, each tied group ordered by K52-10 (tour 1) or K52-15."""
        tricks = self.tricks
        first = {s: self.win_times(s)[0] for s in range(self.seats) if tricks[s]}
        ranks = self.ranks
        if ranks is None:  # K52-10: the earlier first trick, or at 0 tricks the lower seat
            return sorted(range(self.seats), key=lambda s: (-tricks[s], first.get(s, s)))
        out: list[int] = []
        for c in sorted(set(tricks), reverse=True):
            group = [s for s in range(self.seats) if tricks[s] == c]
            if len(group) == 2 or c == 0:  # "the higher title yields"; at 0 tricks the lower title first
                group.sort(key=lambda s: -ranks[s])
            else:  # three or more with c >= 1: the earlier first trick
                group.sort(key=lambda s: first[s])
            out += group
        return out

    def _final_order(self) -> list[int]:
        """K52-17: by total, ties by the titles the tour-10 ranking gives."""
        return sorted(range(self.seats), key=lambda s: (-self.totals[s], self.ranks[s]))  # type: ignore[index]

    # ------------------------------------------------------------------------------------ engine API

    @property
    def to_act(self) -> int | None:
        phase = self.phase
        if phase == PLAY:
            return self.order[self.turn]
        if phase == EXCHANGE:
            return self.ranks.index(self.exchanger)  # type: ignore[union-attr]
        if phase == BARGAIN:
            return self.target
        if phase == BARGAIN_REPLY:
            return self.asker
        if phase == NAME_TRUMP:
            return self.ranks.index(0)  # type: ignore[union-attr]
        return None

    def _generate(self) -> tuple[Action, ...]:
        phase = self.phase
        if phase == PLAY:
            return self.t.select("play", self._playable())
        if phase == EXCHANGE:  # K52-11: any player with a lower title, by seat
            ranks, me = self.ranks, self.exchanger
            return tuple(EXCHANGE_TO[s] for s in range(self.seats) if ranks[s] > me) + (PASS,)  # type: ignore[index]
        if phase == BARGAIN:  # K52-13: 1 ≤ n ≤ min(3, total)
            return LEGAL_BARGAINS[min(MAX_BARGAIN, self.totals[self.target])]  # type: ignore[index]
        if phase == BARGAIN_REPLY:
            return (ACCEPT, REFUSE)
        if phase == NAME_TRUMP:
            return NAME_TRUMPS
        return ()

    def _apply(self, action: Action) -> None:
        self._legal = None
        phase, kind = self.phase, action.kind
        if phase == PLAY:
            self._play(self.t.card_at[id(action)])
        elif phase == EXCHANGE:
            seat = self.to_act
            assert seat is not None
            self.declared.append(seat)
            if kind == "pass":
                self.log.append(("pass", seat, "exchange"))
                self._next_exchanger()
                return
            asked = int(action.args[0])  # type: ignore[arg-type]
            self.log.append(("exchange", seat, asked))
            self.asker, self.target = seat, asked
            if self.tour >= FIRST_BARGAIN_TOUR and self.totals[asked] >= 1:  # K52-13
                self.phase = BARGAIN
            else:
                self._swap(seat, asked)
                self._next_exchanger()
        elif phase == BARGAIN:
            target = self.target
            assert target is not None and self.asker is not None
            if kind == "pass":  # the target accepts the swap
                self.log.append(("pass", target, "bargain"))
                self._swap(self.asker, target)
                self._next_exchanger()
            else:
                self.offer = int(action.args[0])  # type: ignore[arg-type]
                self.log.append(("bargain", target, self.offer))
                self.phase = BARGAIN_REPLY
        elif phase == BARGAIN_REPLY:
            asker, target, n = self.asker, self.target, self.offer
            assert asker is not None and target is not None
            if kind == "accept":  # K52-13: no swap, n tricks move between the totals
                self.totals[target] -= n
                self.totals[asker] += n
                self.net[target] -= n
                self.net[asker] += n
                self.log.append(("accept", asker, (target, n)))
            else:
                self.log.append(("refuse", asker, target))
                self._swap(asker, target)
            self.offer = 0
            self._next_exchanger()
        elif phase == NAME_TRUMP:  # K52-12
            suit = action.args[0]
            self._set_trump(None if suit == "none" else STANDARD_SUITS.index(suit))  # type: ignore[arg-type]
            self.log.append(("trump", self.to_act, self.trump))
            self.phase = PLAY
            self._start_trick(self._seat_order())

    def deal_places(self) -> tuple[int, ...]:
        """The titles the tour's tricks gave (K52-10, K52-15)."""
        return tuple(rank + 1 for rank in self.ranks)  # type: ignore[union-attr]

    def _result(self) -> Result:
        final = self._final_order()
        scores = tuple({"total": self.totals[s], "tricks": [h[s] for h in self.history], "bargain_net": self.net[s]}
                       for s in range(self.seats))
        titles = [self.names[r] for r in self.ranks]  # type: ignore[union-attr]
        return Result(tuple((s,) for s in final), scores, False, {"titles": titles, "emperor": final[0]})

    # ---------------------------------------------------------------------------------- information

    def _render_own(self, kind: str, seat: int | None, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """One log entry as ``viewer`` may see it (K52-18): everything but other seats' hands is public."""
        names = self.names
        if kind == "received":  # the new hand after a swap: only to its holder
            if viewer is not None and viewer != seat:
                return None
            cards = [self.t.texts[c] for c in bits(data[0])]
            return {"type": "received", "seat": seat, "from": data[1], "cards": cards}
        if kind == "tour":
            return {"type": "tour", "tour": data}
        if kind == "trump":
            return {"type": "trump", "suit": "none" if data is None else STANDARD_SUITS[data], "seat": seat}
        if kind == "exchange":
            return {"type": "exchange", "seat": seat, "target": data}
        if kind == "bargain":
            return {"type": "bargain", "seat": seat, "tricks": data}
        if kind == "accept":
            return {"type": "accept", "seat": seat, "from": data[0], "tricks": data[1]}
        if kind == "refuse":
            return {"type": "refuse", "seat": seat, "target": data}
        if kind == "swap":
            return {"type": "swap", "seats": [seat, data]}
        if kind == "tour_end":
            tour, counts, totals = data
            return {"type": "tour_end", "tour": tour, "tricks": list(counts), "totals": list(totals)}
        if kind == "titles":
            return {"type": "titles", "titles": [names[r] for r in data]}
        if kind == "end":
            return {"type": "end", "emperor": seat, "order": list(data)}
        if kind == "pass":  # no exchange, or the target accepts the swap
            return {"type": "pass", "seat": seat, "phase": data}
        return super()._render_own(kind, seat, data, viewer)  # hand, play, trick

    def _relabel_entry(self, entry: tuple[Any, ...], viewer: int, move: Mapping[int, int]) -> tuple[Any, ...]:
        kind, seat, data = entry
        if kind == "received" and seat != viewer:
            return (kind, seat, (remap(data[0], move), data[1]))
        return super()._relabel_entry(entry, viewer, move)

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        """K52-18: the own hand and the public state."""
        phase = self.phase
        pending = None
        if phase in (BARGAIN, BARGAIN_REPLY):
            pending = {"asker": self.asker, "target": self.target, "offer": self.offer or None}
        trump_known = self.tour == 1 or phase in (PLAY, OVER)
        return {
            "game": self.game.id,
            "seat": seat,
            "seats": self.seats,
            "phase": PHASE_NAMES[phase],
            "tour": self.tour,
            "titles": None if self.ranks is None else [self.names[r] for r in self.ranks],
            "hand": self._texts(self.hands[seat]),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "trump": (None if not trump_known else "none" if self.trump is None else STANDARD_SUITS[self.trump]),
            **self._observe_trick(),
            "tricks": list(self.tricks),
            "tricks_by_tour": [list(h) for h in self.history],
            "totals": list(self.totals),
            "bargain_net": list(self.net),
            "declared": list(self.declared) if phase not in (PLAY, OVER) else [],
            "bargain": pending,
            "events": self.events(since, seat),
        }

    def card_places(self) -> dict[str, list[int]]:
        places = super().card_places()
        places["removed"] = [REMOVED_3P] if self.seats == 3 else []
        return places


# ------------------------------------------------------------------------------------------ narration


def narrate(event: Mapping[str, Any]) -> str:
    """One ``koroli52`` event in plain words ("seat 1 asks to exchange hands with seat 3")."""
    return narrate_trick(event, _narrate_own)


def _narrate_own(kind: str, seat: Any, event: Mapping[str, Any]) -> str | None:
    match kind:
        case "tour":
            return f"tour {event['tour']}: the cards are dealt"
        case "trump":
            if seat is None:
                return f"trump is {event['suit']} (drawn at random)"
            return f"seat {seat} names {'no trump' if event['suit'] == 'none' else 'trump ' + event['suit']}"
        case "received":
            return f"seat {seat} now holds seat {event['from']}'s hand: {' '.join(event['cards'])}"
        case "exchange":
            return f"seat {seat} asks to exchange hands with seat {event['target']}"
        case "pass":
            return f"seat {seat} passes" if event["phase"] == "exchange" else f"seat {seat} accepts the exchange"
        case "bargain":
            return f"seat {seat} offers {event['tricks']} trick(s) to keep his hand"
        case "accept":
            return f"seat {seat} accepts {event['tricks']} trick(s) from seat {event['from']}: no exchange"
        case "refuse":
            return f"seat {seat} refuses the offer"
        case "swap":
            a, b = event["seats"]
            return f"seats {a} and {b} swap hands"
        case "tour_end":
            return f"tour {event['tour']} ends; tricks {event['tricks']}, totals {event['totals']}"
        case "titles":
            return "titles: " + ", ".join(f"seat {s} {t}" for s, t in enumerate(event["titles"]))
        case "end":
            return f"the game ends: seat {event['emperor']} is Emperor; order {event['order']}"
    return None
