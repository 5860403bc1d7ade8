"""The engine of Cossacks-Robbers (``kazaki``, :mod:`.kazaki`) and podkidnoy ``durak`` (:mod:`.durak`): RULES.md
section 2 (KZ-1 … KZ-26).

One engine serves both; they differ only in the deck and the option defaults (KZ-1), so this module holds the
whole engine and the two game modules only their definitions.

Representation, chosen for speed: a card is its canonical index in the deck (C-4); a hand, the table and the
discard pile are bitmasks over those indices, so "cards of a table rank" or "cards that beat 7T" are one AND.
Every action a game can produce is built once per deck and reused, so generating the legal actions copies
nothing and allocates little. The event log keeps small tuples; they become wire-form dicts only when a
seat observes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from protocol.actions import Action
from protocol.cards import Deck

from ...engine import Game, Option, Result
from ..cards import CardState, bits
from .narrate import narrate
from .tables import tables

__all__ = ["DurakFamily", "DurakState", "family_options", "narrate"]

HAND = 6  # KZ-1 hand size
MAX_ATTACK = 6  # KZ-9
MAX_REDEALS = 3  # KZ-6

# Phases (KZ-12 state table, plus the redeal offer of KZ-6 and the two steps after a take, KZ-17).
REDEAL, ATTACK, DEFEND, OFFER, TAKE_THROW, WITHDRAW, OVER = range(7)
PHASE_NAMES = ("redeal_offer", "attack", "defend", "offer", "after_take", "after_take", "over")

TAKE = Action("take")
PASS = Action("pass")
DEMAND_REDEAL = Action("demand_redeal")


class DurakFamily(Game):
    """The shared game definition of ``kazaki`` and ``durak``; subclasses set the deck and defaults."""

    min_seats = 2
    max_seats = 6
    deck: ClassVar[Deck]
    loser_name: str

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> DurakState:
        return DurakState(self, seats, seed, options, dealer)

    def next_dealer(self, result: Result, dealer: int, seats: int) -> int:
        """KZ-26: the loser deals the next game ("the Fool deals"); after a draw or an aborted game the deal
        passes to the left neighbour of the previous dealer."""
        loser = result.extra.get("loser")
        return loser if loser is not None and not result.aborted else (dealer + 1) % seats

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate(event, self.loser_name)


def family_options(*, throw_after_take: bool, withdraw: bool, redeal_five: bool) -> tuple[Option, ...]:
    return (
        Option("transfer", False, "the defender may pass the attack on with cards of its rank (KZ-15)"),
        Option("throw_after_take", throw_after_take, "throwers may add cards after the defender takes (KZ-17)"),
        Option("withdraw", withdraw, "a thrower may take back an uncovered thrown-in card after a take (KZ-17)"),
        Option("redeal_five", redeal_five, "a player dealt 5+ cards of one suit may demand a redeal (KZ-6)"),
        Option("max_bouts", 1000, "safety limit: the game is aborted after this many bouts (C-11)", 1, 1_000_000),
    )


class DurakState(CardState):
    """A position of a ``kazaki`` or ``durak`` game."""

    def __init__(self, game: DurakFamily, seats: int, seed: int, options: dict[str, bool | int | str],
                 dealer: int, *, deck_order: list[int] | None = None) -> None:
        """``deck_order`` (canonical indices, top card first) replaces the first shuffle: hand-made deals
        for tests. Redeals still shuffle from the seed's stream."""
        self._init_engine(game, seats, seed, options, dealer, [deck_order] if deck_order is not None else ())
        self.t = tables(game.deck)
        self.transfer = bool(options["transfer"])
        self.throw_after_take = bool(options["throw_after_take"])
        self.withdraw = bool(options["withdraw"])
        self.max_bouts = int(options["max_bouts"])
        self.redeals = 0
        self.bouts = 0
        self.active = [True] * seats
        self.left = seats  # how many of them are still active
        self.finishing_order: list[tuple[int, ...]] = []
        self.discard = 0
        self.known = 0  # cards in hands whose holder everyone knows (announced, picked up, withdrawn)
        self.priority: list[int] = []
        self.aborted = False
        self.loser: int | None = None
        self._deal()

    # ----------------------------------------------------------------------------------------- dealing

    def _deal(self) -> None:
        """KZ-4 deal, KZ-5 trump, then the KZ-6 redeal offers or the first bout."""
        n, t = self.seats, self.t
        order = self._shuffled(list(range(t.size)))  # C-5, KZ-25: one shuffle per deal
        hands = [0] * n
        dealt = HAND * n
        for k in range(dealt):  # one card at a time from the dealer's left
            hands[(self.dealer + 1 + k) % n] |= 1 << order[k]
        self.hands = hands
        rest = order[dealt:]
        if rest:  # KZ-5: turn the top card, put it face up at the bottom
            self.trump_card = rest[0]
            self.trump_shown = False
            self.stock = rest[:0:-1]  # stock[-1] is the top, stock[0] the face-up trump card
            self.stock.insert(0, rest[0])
        else:  # KZ-5: 6-player durak, the dealer's last card is shown and stays in his hand
            self.trump_card = order[dealt - 1]
            self.trump_shown = True  # KZ-5: public that the dealer holds it, until he plays it
            self.stock = []
        self.trump = self.trump_card // t.ranks
        self.beaten_by = t.beaten_by[self.trump]  # KZ-3: the cards that beat each card
        self.relabel_from = len(self.log)  # a redealt deal's cards are history
        self.log.append(("deal", self.dealer, self.redeals))
        for seat in range(n):
            self.log.append(("hand", seat, hands[seat]))
        self.log.append(("trump", self.dealer if self.trump_shown else None, self.trump_card))
        self.phase = REDEAL
        self.redeal_queue = self._redeal_candidates() if self.options["redeal_five"] else []
        if self.redeal_queue:
            self.to_act = self.redeal_queue[0]
        else:
            self._start_play()

    def _redeal_candidates(self) -> list[int]:
        """KZ-6: players holding 5+ cards of one suit, clockwise from the dealer's left."""
        if self.redeals >= MAX_REDEALS:
            return []
        masks = self.t.suit_mask
        seats = [(self.dealer + k) % self.seats for k in range(1, self.seats + 1)]
        return [s for s in seats if any((self.hands[s] & m).bit_count() >= 5 for m in masks)]

    def _start_play(self) -> None:
        """KZ-7: the lowest trump attacks first, announced with the card; else the dealer's left."""
        trumps = self.t.suit_mask[self.trump]
        lowest = None
        for seat in range(self.seats):
            mine = self.hands[seat] & trumps
            if mine:
                card = (mine & -mine).bit_length() - 1
                if lowest is None or card < lowest[1]:
                    lowest = (seat, card)
        if lowest is None:
            first = (self.dealer + 1) % self.seats
            self.log.append(("first_attacker", first, None))
        else:
            first = lowest[0]
            self.known |= 1 << lowest[1]  # KZ-7: announced with the card
            self.log.append(("first_attacker", first, lowest[1]))
        self._start_bout(first)

    # ------------------------------------------------------------------------------------------ bouts

    def _next_active(self, seat: int) -> int:
        n = self.seats
        s = seat + 1 if seat + 1 < n else 0
        if self.active[s]:  # the usual case: the left neighbour still plays
            return s
        for k in range(2, n + 1):
            s = (seat + k) % n
            if self.active[s]:
                return s
        raise AssertionError("no active player")  # pragma: no cover - the game ends before this

    def _playing(self) -> tuple[int, ...]:
        """The active seats, in seat order (the game's end: KZ-21, C-11)."""
        return tuple([s for s in range(self.seats) if self.active[s]])

    def _set_roles(self, attacker: int) -> None:
        """KZ-8, KZ-9, KZ-11: the defender (the attacker's next active neighbour), the cap and the priority list P."""
        n, active = self.seats, self.active
        defender = self._next_active(attacker)
        self.attacker = attacker
        self.defender = defender
        size = self.hands[defender].bit_count()
        self.cap = size if size < MAX_ATTACK else MAX_ATTACK
        if self.left == 2:  # the usual case: nobody else plays, P is the attacker alone
            self.priority = [attacker]
            return
        priority = [attacker]
        for k in range(defender + 1, defender + n):  # the others clockwise from D's left, D not among them
            s = k % n
            if active[s] and s != attacker:
                priority.append(s)
        self.priority = priority

    def _start_bout(self, attacker: int) -> None:
        self._set_roles(attacker)
        self.table: list[list[int]] = []  # [attack card, cover card or -1, owner, thrown-in flag]
        self.table_mask = 0
        self.rank_cards = 0  # every card of a table rank (KZ-10)
        self.attack_count = 0
        self.open_mask = 0  # the uncovered attack cards
        self.phase = ATTACK
        self.to_act = attacker
        self.log.append(("bout", attacker, (self.defender, self.cap)))

    def _put(self, card: int, owner: int, thrown: bool) -> None:
        self.hands[owner] &= ~(1 << card)
        self.table.append([card, -1, owner, thrown])
        self.table_mask |= 1 << card
        self.rank_cards |= self.t.rank_mask[card % self.t.ranks]
        self.attack_count += 1
        self.open_mask |= 1 << card

    def _walk(self, start: int, phase: int) -> bool:
        """Find the first eligible thrower in P from ``start`` (KZ-16: below the cap and holding a card of a table
        rank); False when the walk reaches its end."""
        if self.attack_count >= self.cap:
            return False
        hands, ranks, priority = self.hands, self.rank_cards, self.priority
        for i in range(start, len(priority)):
            if hands[priority[i]] & ranks:
                self.walk = i
                self.phase = phase
                self.to_act = priority[i]
                return True
        return False

    def _after_take(self, start: int) -> None:
        """KZ-17: step 1 (throw after take), step 2 (withdrawal), step 3 (pick-up)."""
        if self.throw_after_take and self._walk(start, TAKE_THROW):
            return
        if self.withdraw:
            self.withdrawals = [e for e in self.table if e[3] and e[1] < 0]
            self.walk = 0
            if self.withdrawals:
                self.phase = WITHDRAW
                self.to_act = self.withdrawals[0][2]
                return
        self._end_bout(taken=True)

    def _end_bout(self, *, taken: bool) -> None:
        """KZ-18 … KZ-22 and the C-11 limit, checked once the bout is played out."""
        d = self.defender
        played = []  # the table's cards as they lie: each attack card, then its cover
        for e in self.table:
            played.append(e[0])
            if e[1] >= 0:
                played.append(e[1])
        table_cards = tuple(played)
        if taken:
            self.hands[d] |= self.table_mask
            self.known |= self.table_mask  # everyone saw which cards the taker picked up (KZ-23)
            self.log.append(("pick_up", d, table_cards))
        else:
            self.discard |= self.table_mask
            self.log.append(("discard", None, table_cards))
        # KZ-19: A first, then the others clockwise from D's left, D last: that is P (KZ-11), then D.
        stock, hands, n = self.stock, self.hands, self.seats
        if stock:
            for seat in self.priority + [d]:
                need = HAND - hands[seat].bit_count()
                if need > 0:
                    drawn = tuple(stock[:-need - 1:-1])  # from the top: stock[-1] first
                    del stock[-need:]
                    for card in drawn:
                        hands[seat] |= 1 << card
                    self.log.append(("draw", seat, drawn))
                    if not stock:
                        break
        # KZ-20: with the stock empty, everyone with no cards goes out together.
        active = self.active
        if not stock:
            group = tuple([s for s in range(n) if active[s] and not hands[s]])
            if group:
                for s in group:
                    active[s] = False
                self.left -= len(group)
                self.finishing_order.append(group)
                self.log.append(("out", None, group))
        self.bouts += 1
        if self.left <= 1:  # KZ-21: the one player left is the loser; none left is a draw
            if self.left:
                remaining = self._playing()
                self.finishing_order.append(remaining)
                self.loser = remaining[0]
            self._finish()
        elif self.bouts >= self.max_bouts:  # C-11: the active players share the last place
            self.finishing_order.append(self._playing())
            self.aborted = True
            self._finish()
        elif taken:  # KZ-22
            self._start_bout(self._next_active(d))
        else:
            self._start_bout(d if self.active[d] else self._next_active(d))

    def _finish(self) -> None:
        self.phase = OVER
        self.to_act = None
        self.log.append(("end", None, (self.loser, self.loser is None and not self.aborted, self.aborted)))

    # ------------------------------------------------------------------------------------ engine API

    #: The seat to act (None once the game is over): a field, not a property, because every loop over a game reads
    #: it once a decision. It is set wherever the phase or the seat it asks changes: the attacker in ATTACK, the
    #: defender in DEFEND, ``priority[walk]`` in OFFER and TAKE_THROW, the owner of ``withdrawals[walk]`` in
    #: WITHDRAW, ``redeal_queue[0]`` in REDEAL (tests/unit/test_fast_paths.py checks it against the phase after every
    #: move of random games).
    to_act: int | None = None

    def _generate(self) -> tuple[Action, ...]:
        # The masks are walked lowest card first (``low = m & -m``) inline: this is the engine's hottest code.
        t, phase = self.t, self.phase
        if phase == ATTACK:  # KZ-13: same-rank sets of at most cap cards
            return t.attacks(self.hands[self.attacker], self.cap)
        if phase == DEFEND:  # KZ-14, KZ-15, KZ-17
            hand, beaten_by, defend = self.hands[self.defender], self.beaten_by, t.defend
            out: list[Action] = []
            attacks = self.open_mask
            while attacks:
                low = attacks & -attacks
                a = low.bit_length() - 1
                row = defend[a]
                m = hand & beaten_by[a]
                while m:
                    card = m & -m
                    out.append(row[card.bit_length() - 1])
                    m ^= card
                attacks ^= low
            if self.transfer and self.open_mask.bit_count() == self.attack_count:
                out += self._transfers(hand)
            out.append(TAKE)
            return tuple(out)
        if phase == OFFER or phase == TAKE_THROW:  # KZ-16, KZ-17 step 1
            return t.throw_in_index.select(self.hands[self.priority[self.walk]] & self.rank_cards) + (PASS,)
        if phase == WITHDRAW:  # KZ-17 step 2
            return (t.withdraw[self.withdrawals[self.walk][0]], PASS)
        if phase == REDEAL:  # KZ-6: demand_redeal before pass (C-7)
            return (DEMAND_REDEAL, PASS)
        return ()

    def _transfers(self, hand: int) -> list[Action]:
        """KZ-15: only before any cover; cards of the one table rank; the next defender must fit them."""
        t = self.t
        rank = self.table[0][0] % t.ranks
        nxt = self._next_active(self.defender)
        room = min(MAX_ATTACK, self.hands[nxt].bit_count()) - self.attack_count
        if room <= 0:
            return []
        room = min(room, MAX_ATTACK)
        mine = hand & t.rank_mask[rank]
        out: list[Action] = []
        sets = t.transfer[room]
        for i in bits(mine):
            out += sets[i][mine & t.same_rank_above[i]]
        return out

    def _apply(self, action: Action) -> None:
        self._legal = None
        phase, kind = self.phase, action.kind
        code = self.t.code.get(id(action), ())
        if phase == ATTACK:  # the bout's first cards: the table is empty (_start_bout), the cards of one rank
            seat = self.attacker
            mask = 0
            for card in code:
                mask |= 1 << card
            self.hands[seat] &= ~mask
            self.table = [[card, -1, seat, False] for card in code]
            self.table_mask = self.open_mask = mask
            self.rank_cards = self.t.rank_mask[code[0] % self.t.ranks]
            self.attack_count = len(code)
            self.log.append(("attack", seat, code))
            self.phase = DEFEND
            self.to_act = self.defender
        elif phase == DEFEND:
            seat = self.defender
            if kind == "defend":
                a, c = code
                for entry in self.table:
                    if entry[0] == a:
                        entry[1] = c
                        break
                self.hands[seat] &= ~(1 << c)
                self.table_mask |= 1 << c
                self.rank_cards |= self.t.rank_mask[c % self.t.ranks]
                self.open_mask &= ~(1 << a)
                self.log.append(("defend", seat, (a, c)))
                if not self.open_mask and not self._walk(0, OFFER):  # KZ-16: a new walk from P[0]
                    self._end_bout(taken=False)
            elif kind == "transfer":  # KZ-15
                for card in code:
                    self._put(card, seat, False)
                self.log.append(("transfer", seat, code))
                self._set_roles(seat)
                self.to_act = self.defender
                self.log.append(("bout", seat, (self.defender, self.cap)))
            else:  # take, KZ-17
                self.log.append(("take", seat, None))
                self._after_take(0)
        elif phase == OFFER or phase == TAKE_THROW:
            seat = self.priority[self.walk]
            if kind == "throw_in":
                card = code[0]
                self._put(card, seat, True)
                self.log.append(("throw_in", seat, card))
                if phase == OFFER:
                    self.phase = DEFEND
                    self.to_act = self.defender
                else:  # KZ-17 step 1: the same player is asked again
                    self._after_take(self.walk)
            else:
                self.log.append(("pass", seat, None))
                if phase == OFFER:
                    if not self._walk(self.walk + 1, OFFER):
                        self._end_bout(taken=False)
                else:
                    self._after_take(self.walk + 1)
        elif phase == WITHDRAW:
            entry = self.withdrawals[self.walk]
            seat = entry[2]
            if kind == "withdraw":
                card = entry[0]
                self.table.remove(entry)
                self.table_mask &= ~(1 << card)
                self.hands[seat] |= 1 << card
                self.known |= 1 << card
                self.attack_count -= 1
                self.log.append(("withdraw", seat, card))
            else:
                self.log.append(("pass", seat, None))
            self.walk += 1
            if self.walk == len(self.withdrawals):
                self._end_bout(taken=True)
            else:
                self.to_act = self.withdrawals[self.walk][2]
        elif phase == REDEAL:
            seat = self.redeal_queue[0]
            if kind == "demand_redeal":  # KZ-6: public, the same dealer deals again
                self.log.append(("demand_redeal", seat, None))
                self.redeals += 1
                self._deal()
            else:  # C-8: a declined offer is private (rendered by CardState, to this seat only)
                self.log.append(("pass_redeal", seat, None))
                self.redeal_queue.pop(0)
                if self.redeal_queue:
                    self.to_act = self.redeal_queue[0]
                else:
                    self._start_play()
        if self.trump_shown and not self.hands[self.dealer] >> self.trump_card & 1:
            # KZ-5: the shown trump card is public in the dealer's hand until he plays it; picked up or withdrawn
            # later it is a card like any other, whose holder the public log tells (KZ-23)
            self.trump_shown = False

    def _result(self) -> Result:
        order = tuple(self.finishing_order)
        places = Result(order, (0,) * self.seats).places
        scores = tuple(sum(1 for q in places if q > p) for p in places)  # KZ-24
        return Result(order, scores, self.aborted,
                      {"loser": self.loser, "draw": self.loser is None and not self.aborted})

    # ---------------------------------------------------------------------------------- information

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        """One log entry in wire form as ``viewer`` may see it (KZ-23, C-8); None if he may not. ``hand`` and the
        private ``pass_redeal`` are rendered by :class:`~referee.games.cards.CardState`."""
        text = self.t.texts
        # The most frequent kinds first (a bout is about three decisions).
        if kind == "bout":
            return {"type": "bout", "attacker": seat, "defender": data[0], "cap": data[1]}
        if kind in ("attack", "transfer", "pick_up"):
            return {"type": kind, "seat": seat, "cards": [text[c] for c in data]}
        if kind == "defend":
            return {"type": "defend", "seat": seat, "attack": text[data[0]], "card": text[data[1]]}
        if kind == "draw":
            event: dict[str, Any] = {"type": "draw", "seat": seat, "count": len(data)}
            if viewer is None or viewer == seat:
                event["cards"] = [text[c] for c in data]
            elif self.trump_card in data:  # KZ-23: everyone knows who draws the face-up trump
                event["cards"] = [text[self.trump_card]]
            return event
        if kind == "discard":
            return {"type": "beaten", "cards": [text[c] for c in data]}
        if kind in ("throw_in", "withdraw"):
            return {"type": kind, "seat": seat, "card": text[data]}
        if kind == "deal":
            return {"type": "deal", "dealer": seat, "redeal": data}
        if kind == "trump":
            return {"type": "trump", "card": text[data], "suit": text[data][-1], "holder": seat}
        if kind == "first_attacker":
            return {"type": "first_attacker", "seat": seat, "card": None if data is None else text[data]}
        if kind == "out":
            return {"type": "out", "seats": list(data)}
        if kind == "end":
            return {"type": "end", "loser": data[0], "draw": data[1], "aborted": data[2]}
        return super()._render_own(kind, seat, data, viewer)  # take, pass, demand_redeal

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        text = self.t.texts
        in_bout = self.phase not in (REDEAL, OVER)
        return {
            "game": self.game.id,
            "seat": seat,
            "seats": self.seats,
            "phase": PHASE_NAMES[self.phase],
            "hand": self._texts(self.hands[seat]),
            "trump": text[self.trump_card][-1],
            "trump_card": text[self.trump_card],
            "trump_card_holder": self.dealer if self.trump_shown and self.phase != OVER else None,  # KZ-5
            "stock": len(self.stock),
            "discard": self.discard.bit_count(),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "active": list(self.active),
            "finishing_order": [list(g) for g in self.finishing_order],
            "attacker": self.attacker if in_bout else None,
            "defender": self.defender if in_bout else None,
            "cap": self.cap if in_bout else None,
            "priority": list(self.priority) if in_bout else [],
            "table": [
                {"card": text[a], "owner": o, "cover": text[c] if c >= 0 else None, "thrown_in": bool(th)}
                for a, c, o, th in (self.table if in_bout else [])
            ],
            "redeals": self.redeals,
            "bouts": self.bouts,
            "events": self.events(since, seat),
        }

    def card_places(self) -> dict[str, list[int]]:
        places = {f"hand{s}": bits(h) for s, h in enumerate(self.hands)}
        places["stock"] = list(self.stock)
        places["table"] = bits(self.table_mask) if self.phase not in (REDEAL, OVER) else []
        places["discard"] = bits(self.discard)
        return places

    PRIVATE_KINDS = frozenset({"hand", "draw"})

    def _hidden_cards(self, seat: int) -> list[int]:
        # Public places stay: the face-up trump card, and cards seen picked up or withdrawn (KZ-23).
        fixed = (1 << self.trump_card) | self.known
        hidden = [c for s, h in enumerate(self.hands) if s != seat for c in bits(h & ~fixed)]
        return hidden + [c for c in self.stock if not fixed >> c & 1]

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        super()._relabel(seat, move)
        self.stock = [move.get(c, c) for c in self.stock]
