"""Reading one seat's view of a ``kazaki`` or ``durak`` game into what its worlds must keep (:mod:`.worlds`
samples them): the deals it saw, the program of actions to replay, and the hidden slots with the cards each may take
(the inferences listed in :mod:`.worlds`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from protocol.actions import Action
from protocol.cards import Deck

from ...errors import RecordError
from ..cards import bits
from ..seatview import card_of, read_view
from .base import (
    ATTACK,
    DEFEND,
    DEMAND_REDEAL,
    HAND,
    OFFER,
    PASS,
    REDEAL,
    TAKE,
    TAKE_THROW,
    WITHDRAW,
)
from .tables import _Tables as Tables
from .tables import tables

if TYPE_CHECKING:
    from .base import DurakFamily

__all__ = ["DurakView", "PHASES", "STOCK", "NEVER"]


#: The phases in which each kind of action is played (KZ-12), by (a redeal offer's answer?, kind).
PHASES = {(True, "pass"): (REDEAL,), (True, "demand_redeal"): (REDEAL,), (False, "attack"): (ATTACK,),
          (False, "defend"): (DEFEND,), (False, "transfer"): (DEFEND,), (False, "take"): (DEFEND,),
          (False, "throw_in"): (OFFER, TAKE_THROW), (False, "pass"): (OFFER, TAKE_THROW, WITHDRAW),
          (False, "withdraw"): (WITHDRAW,)}
STOCK = -1  # the owner of an undrawn stock slot
NEVER = 1 << 30  # the arrival time of a card still in the stock


@cache
def _actions(deck: Deck) -> dict[tuple[str, tuple[int, ...]], Action]:
    """Every action of the deck's tables by (kind, card indices): the engine's own objects."""
    t = tables(deck)
    out: dict[tuple[str, tuple[int, ...]], Action] = {}
    for kind, sets in (("attack", t.attack[6]), ("transfer", t.transfer[6])):
        for per_card in sets:
            for group in per_card.values():
                for action in group:
                    out[(kind, t.code[id(action)])] = action
    for c in range(t.size):
        out[("throw_in", (c,))] = t.throw_in[c]
        out[("withdraw", (c,))] = t.withdraw[c]
        for a in range(t.size):
            out[("defend", (a, c))] = t.defend[a][c]
    return out


class _Deal:
    """One deal of the view: the seat's own six cards, the trump card and, for a refused deal, who demanded the
    redeal (KZ-6)."""

    def __init__(self, hand: int, trump: int, demander: int | None, answered: bool) -> None:
        self.hand, self.trump, self.demander, self.answered = hand, trump, demander, answered



class DurakView:
    """A seat's view read (module docstring): :meth:`_read` fills the fields the sampler of :mod:`.worlds` uses."""

    game: DurakFamily
    seats: int
    seat: int
    options: dict[str, bool | int | str]
    t: Tables

    def _card(self, text: Any) -> int:
        return card_of(self.index, text, self._fail)

    def _fail(self, why: str) -> RecordError:
        return RecordError(f"the view does not fit {self.game.id}: {why}")

    def _read(self, view: Sequence[Mapping[str, Any]], *, assume: bool) -> None:
        """Read the view; with ``assume``, the seat is the one asked now if the rules allow it (module docstring)."""
        try:
            self._read_view(view, assume)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise self._fail(f"malformed event or observation ({exc!r})") from None

    def _read_view(self, view: Sequence[Mapping[str, Any]], assume: bool) -> None:
        self.index = {text: i for i, text in enumerate(self.t.texts)}
        self.events, _, self.last = read_view(view, self.game.id, self.seats, self.seat, self._fail)
        events = self.events
        self.dealer = int(events[0]["dealer"])
        if not 0 <= self.dealer < self.seats:
            raise self._fail(f"dealer {self.dealer} is not a seat")
        starts = [i for i, e in enumerate(events) if e["type"] == "deal"]
        self.deals: list[_Deal] = []
        self.program: list[tuple[bool, int, Action]] = []  # (a redeal offer's answer?, seat, action)
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(events)
            self._read_deal(start, end, final=k + 1 == len(starts), assume=assume)
        # Each action with what makes it legal in every world once it is in one (the public position is the same):
        # the seat to act, the phase, and the cards it puts down in the actor's hand.
        code = self.t.code
        self.steps = [(offer, s, action, PHASES[(offer, action.kind)],
                       sum(1 << c for c in code[id(action)][-1 if action.kind == "defend" else 0:])
                       if action.kind in ("attack", "transfer", "defend", "throw_in") else 0)
                      for offer, s, action in self.program]

    def _read_deal(self, start: int, end: int, *, final: bool, assume: bool) -> None:
        """One deal's events: the seat's hand, the trump, the redeal answers it saw; the play if it is the last."""
        events, seat = self.events, self.seat
        hand = trump = None
        demander = None
        answered = False  # the seat declined its own offer (KZ-6)
        play_from = end
        for i in range(start + 1, end):
            e = events[i]
            kind = e["type"]
            if kind == "hand" and e["seat"] == seat:
                hand = sum(1 << self._card(c) for c in e["cards"])
            elif kind == "trump":
                trump = self._card(e["card"])
            elif kind == "pass" and e.get("offer") == "redeal":
                answered = int(e["seat"]) == seat
                self.program.append((True, int(e["seat"]), PASS))
            elif kind == "demand_redeal":
                demander = int(e["seat"])
                self.program.append((True, demander, DEMAND_REDEAL))
            elif kind == "first_attacker":
                play_from = i
                break
            else:
                raise self._fail(f"event {i} ({kind}) comes before the play of its deal starts")
        if hand is None or trump is None or hand.bit_count() != HAND:
            raise self._fail("a deal without the seat's six cards and the trump card")
        if not final and demander is None:
            raise self._fail("a deal is followed by another one without a redeal demand")
        self.deals.append(_Deal(hand, trump, demander, answered))
        if final:
            self.now_in_redeal = play_from == end
            self.assume = assume
            self._read_play(start, play_from, hand, trump, assume)

    def _read_play(self, start: int, first: int, hand: int, trump: int, assume: bool) -> None:
        """The play of the last deal: the public course of each bout (KZ-8 … KZ-22), to infer the slots the hidden
        cards may come from."""
        n, seat, t, events = self.seats, self.seat, self.t, self.events
        size, r = t.size, t.ranks
        dealt = HAND * n
        stock_total = size - dealt
        in_hand = stock_total == 0  # KZ-5: 6-player durak, the trump is the dealer's sixth card
        # The hidden slots: (owner, the event index after which its card is in the owner's hand).
        slot_owner: list[int] = []
        slot_time: list[int] = []
        slot_pos: list[int] = []  # its place in the deck order
        base: list[int] = [-1] * size
        y_cards: list[int] = []  # the seat's own dealt cards, in order
        own = bits(hand)
        if in_hand and seat == self.dealer:  # the shown trump card is the dealer's sixth card (KZ-5)
            own = [c for c in own if c != trump] + [trump]
        for k in range(dealt):
            s = (self.dealer + 1 + k) % n
            if s == seat:
                base[k] = own[len(y_cards)]
                y_cards.append(base[k])
            elif in_hand and k == dealt - 1:
                base[k] = trump
            else:
                slot_owner.append(s)
                slot_time.append(start)
                slot_pos.append(k)
        if in_hand:
            if self.seat == self.dealer and not hand >> trump & 1:
                raise self._fail("the shown trump card is not in the dealer's hand")
        else:
            base[dealt] = trump
        draws = stock_total - 1  # the draw positions above the trump card
        known = [0] * n  # cards each hand is known to hold (KZ-23: announced, picked up, withdrawn, the trump)
        if in_hand and self.dealer != seat:
            known[self.dealer] |= 1 << trump
        public = (1 << trump) | hand  # cards whose origin the seat knows or which were seen played
        first_play: dict[int, tuple[int, int]] = {}
        voids: list[tuple[int, int, int]] = []  # (seat, event index, mask): held none of mask then
        y_hand = hand

        def shown(c: int, s: int, i: int) -> None:
            """Card c leaves the hand of s at event i."""
            nonlocal public, y_hand
            bit = 1 << c
            if s == seat:
                if not y_hand & bit:
                    raise self._fail(f"event {i}: the seat plays {t.texts[c]}, which it does not hold")
                y_hand &= ~bit
            elif known[s] & bit:
                known[s] &= ~bit
            elif public & bit:
                raise self._fail(f"event {i}: seat {s} plays {t.texts[c]}, which is elsewhere")
            else:
                first_play[c] = (s, i)
            public |= bit

        holds: list[tuple[list[int], int, int]] = []  # (players, event index, mask): one of them held a card of it

        def void(s: int, i: int, mask: int) -> None:
            if walk is not None and walk[0] == "take" and walk[2] is None and self.options["withdraw"]:
                mask &= ~known[s]  # the walk may be over, and this a withdrawal decision (KZ-17 step 2)
            if s == seat:
                if y_hand & mask:
                    raise self._fail(f"event {i}: the seat was skipped though it could throw in")
                return
            if known[s] & mask:
                raise self._fail(f"event {i}: seat {s} was skipped though it holds a card it could throw in")
            voids.append((s, i, mask))

        active = [True] * n
        attacker = defender = cap = -1
        priority: list[int] = []
        table: dict[int, list[Any]] = {}  # attack card -> [owner, thrown in, covered]
        count = open_count = ranks = 0
        walk: list[Any] | None = None  # [kind, position in P, walk events left (take walks: None = unknown)]
        drawn = 0
        prev = ""

        def end_walk(i: int) -> None:
            nonlocal walk
            if walk is not None and count < cap:  # KZ-16: the rest of P was skipped, none eligible
                for s in priority[walk[1]:]:
                    void(s, i, ranks)
            walk = None

        def walk_step(s: int, i: int, throw: bool) -> None:
            """A throw-in walk asked s: the players between were skipped (KZ-16, KZ-17 step 1)."""
            assert walk is not None
            if s not in priority or priority.index(s) < walk[1]:
                raise self._fail(f"event {i}: seat {s} is asked out of the priority order {priority}")
            at = priority.index(s)
            for skipped in priority[walk[1]:at]:
                void(skipped, i, ranks)
            if not throw:  # asked, so eligible: he held a card of a table rank (KZ-16)
                if s == seat:
                    if not y_hand & ranks:
                        raise self._fail(f"event {i}: the seat is asked to throw in, but holds no card to")
                elif not known[s] & ranks:
                    holds.append(([s], i, ranks))
            walk[1] = at if throw and walk[0] == "take" else at + 1
            if walk[2] is not None:
                walk[2] -= 1

        def put(cards: list[int], s: int, i: int, thrown: bool) -> None:
            nonlocal count, open_count, ranks
            for c in cards:
                shown(c, s, i)
                table[c] = [s, thrown, False]
                ranks |= t.rank_mask[c % r]
            count += len(cards)
            open_count += len(cards)

        act = self.program.append
        for i in range(first, len(events)):
            e = events[i]
            kind = e["type"]
            s = -1 if e.get("seat") is None else int(e["seat"])
            if kind == "first_attacker":  # KZ-7
                trumps = t.suit_mask[trump // r]
                lower = trumps
                if e["card"] is not None:
                    c = self._card(e["card"])
                    lower = trumps & ((1 << c) - 1)
                    if s == seat and not y_hand >> c & 1:
                        raise self._fail(f"the seat is announced with {e['card']}, which it does not hold")
                    if s != seat and not known[s] >> c & 1:
                        if public >> c & 1:
                            raise self._fail(f"seat {s} is announced with {e['card']}, which is elsewhere")
                        first_play[c] = (s, i)
                        public |= 1 << c
                        known[s] |= 1 << c
                for other in range(n):
                    void(other, i, lower)
            elif kind == "bout":
                attacker, defender, cap = int(e["attacker"]), int(e["defender"]), int(e["cap"])
                priority = [attacker] + [q for q in ((defender + k) % n for k in range(1, n))
                                         if active[q] and q != attacker]
                if prev != "transfer":  # KZ-15: a transfer keeps the table
                    table, count, open_count, ranks, walk = {}, 0, 0, 0, None
            elif kind in ("attack", "transfer"):
                act((False, s, self._action(kind, [self._card(c) for c in e["cards"]], i)))
                put([self._card(c) for c in e["cards"]], s, i, False)
            elif kind == "defend":
                a, c = self._card(e["attack"]), self._card(e["card"])
                act((False, s, self._action("defend", [a, c], i)))
                shown(c, s, i)
                ranks |= t.rank_mask[c % r]
                open_count -= 1
                if a in table:
                    table[a][2] = True
                if open_count == 0:
                    walk = ["offer", 0, None]
            elif kind == "take":
                act((False, s, TAKE))
                walk = ["take", 0, self._take_walk(i, table)] if self.options["throw_after_take"] else None
            elif kind == "throw_in":
                c = self._card(e["card"])
                act((False, s, self._action("throw_in", [c], i)))
                if walk is None:
                    raise self._fail(f"event {i}: a throw-in outside a walk")
                walk_step(s, i, True)
                put([c], s, i, True)
                if walk[0] == "offer":
                    walk = None
            elif kind == "pass" and e.get("offer") is None:
                act((False, s, PASS))
                if walk is not None and walk[2] != 0 and (walk[0] == "offer" or s in priority[walk[1]:]):
                    walk_step(s, i, False)
                elif walk is not None:
                    end_walk(i)
            elif kind == "withdraw":
                c = self._card(e["card"])
                act((False, s, self._action("withdraw", [c], i)))
                end_walk(i)
                if c in table:
                    del table[c]
                count -= 1
                known[s] |= 1 << c
                if s == seat:
                    y_hand |= 1 << c
            elif kind == "pick_up":
                end_walk(i)
                picked = sum(1 << self._card(c) for c in e["cards"])
                if s == seat:
                    y_hand |= picked
                else:
                    known[s] |= picked
                table = {}
            elif kind == "beaten":
                end_walk(i)
                table = {}
            elif kind == "draw":
                k = int(e["count"])
                cards = [self._card(c) for c in e.get("cards") or ()]
                for j in range(k):
                    p = drawn + j
                    if p > draws:
                        raise self._fail(f"event {i}: more cards drawn than the stock held")
                    if p == draws:  # the face-up trump card, the last one drawn (KZ-5, KZ-23)
                        if s != seat:
                            known[s] |= 1 << trump
                        continue
                    if s == seat:
                        base[dealt + 1 + p] = cards[j]
                        if public >> cards[j] & 1:
                            raise self._fail(f"event {i}: the seat draws {t.texts[cards[j]]}, which is elsewhere")
                        public |= 1 << cards[j]
                    else:
                        slot_owner.append(s)
                        slot_time.append(i)
                        slot_pos.append(dealt + 1 + p)
                if s == seat:
                    y_hand |= sum(1 << c for c in cards)
                drawn += k
            elif kind == "out":
                for q in e["seats"]:
                    active[int(q)] = False
            elif kind == "end":
                walk = None
            else:
                raise self._fail(f"event {i} ({kind}) has no place in the play")
            prev = kind
        for p in range(drawn, draws):  # the stock still to draw, above the trump card
            slot_owner.append(STOCK)
            slot_time.append(NEVER)
            slot_pos.append(dealt + 1 + p)
        if y_hand != sum(1 << self._card(c) for c in self.last["hand"]):
            raise self._fail("the seat's hand is not what its events leave it")

        now = len(events)
        self.expect_seat = False  # the worlds make the seat itself asked now (module docstring)
        if walk is not None and not self.now_in_redeal and self.last["phase"] in ("offer", "after_take"):
            rest = priority[walk[1]:]
            if assume and seat in rest and count < cap and y_hand & ranks \
                    and not any(known[q] & ranks for q in rest[:rest.index(seat)]):
                self.expect_seat = True
                for q in rest[:rest.index(seat)]:
                    void(q, now, ranks)
            elif not (walk[0] == "take" and self.options["withdraw"]
                      and any(o[1] and not o[2] for o in table.values())):
                holds.append(([q for q in rest if q != seat], now, ranks))  # the walk goes on: someone is asked
        self.base, self.slot_pos, self.slot_owner, self.slot_time = base, slot_pos, slot_owner, slot_time
        hidden = [c for c in range(size) if not (c == trump or hand >> c & 1 or c in base[dealt + 1:])]
        if len(hidden) != len(slot_pos):
            raise self._fail(f"{len(hidden)} hidden cards for {len(slot_pos)} hidden places")
        self.allowed = allowed = {c: self._allowed(c, first_play.get(c), voids, slot_owner, slot_time)
                                  for c in hidden}
        for c, mask in allowed.items():
            if not mask:
                raise self._fail(f"{t.texts[c]} fits no hidden place")
        self.order = sorted(hidden, key=lambda c: allowed[c].bit_count())
        # Each "holds one of" as the (card, slots) pairs that would make it true: a hidden card of the mask in one
        # of the player's slots that arrived before, not played by then.
        self.musts: list[list[tuple[int, int]]] = []
        for players, i, mask in holds:
            pairs: list[tuple[int, int]] = []
            for q in players:
                if i == now and known[q] & mask:
                    pairs = []
                    break
                before = sum(1 << j for j, (o, tm) in enumerate(zip(slot_owner, slot_time, strict=True))
                             if o == q and tm < i)
                for c in bits(mask):
                    played = first_play.get(c)
                    if c in allowed and (played is None or (played[0] == q and played[1] > i)) \
                            and allowed[c] & before:
                        pairs.append((c, allowed[c] & before))
            else:
                if not pairs:
                    raise self._fail(f"event {i}: seat {players} is asked to throw in, but can hold no card to")
                self.musts.append(pairs)

    @staticmethod
    def _allowed(c: int, played: tuple[int, int] | None, voids: list[tuple[int, int, int]], slot_owner: list[int],
                 slot_time: list[int]) -> int:
        """The slots card c may come from: before its first play by its player, after his last skip that excludes
        it; a card never seen: any slot of a player after his last skip that excludes it, or the stock."""
        bit = 1 << c
        floor: dict[int, int] = {}
        for s, i, mask in voids:
            if mask & bit and (played is None or i <= played[1]):
                floor[s] = max(floor.get(s, -1), i)
        mask = 0
        for j, (o, tm) in enumerate(zip(slot_owner, slot_time, strict=True)):
            if played is not None:
                ok = o == played[0] and floor.get(o, -1) < tm < played[1]
            else:
                ok = o == STOCK or floor.get(o, -1) < tm
            if ok:
                mask |= 1 << j
        return mask

    def _action(self, kind: str, cards: list[int], i: int) -> Action:
        action = _actions(self.game.deck).get((kind, tuple(cards)))
        if action is None:
            raise self._fail(f"event {i}: {kind} {cards} is no action of the game")
        return action

    def _take_walk(self, i: int, table: Mapping[int, list[Any]]) -> int | None:
        """How many of the actions after the take at event i belong to the KZ-17 step 1 walk: those before the
        pick-up, less one withdrawal decision per uncovered thrown-in card (step 2). None when the view ends first."""
        actions = throws = 0
        for e in self.events[i + 1:]:
            kind = e["type"]
            if kind == "pick_up":
                if not self.options["withdraw"]:
                    return actions
                uncovered = sum(1 for owner, thrown, covered in table.values() if thrown and not covered)
                return actions - (uncovered + throws)
            if kind in ("throw_in", "withdraw", "pass"):
                actions += 1
                throws += kind == "throw_in"
        return None
