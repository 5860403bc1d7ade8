"""Sampling worlds from a seat's view for the team Kozel games ``kozel-hvaleny`` and ``kozel-nn`` (``Game.worlds``;
:mod:`.worlds` says how a world is built and what a seat of each game infers, this module holds the team games' part:
the shuffles, the team-wide conditions and the boasting of KN-20)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from math import comb
from typing import Any

from protocol.actions import Action

from ...engine import Game, View, Worlds
from ...errors import RecordError
from ..cards import DECK36, bits, tables
from ..deals import Dealer, deal_order
from .hvaleny import FORBIDDEN_ACES, KH_RULES, HvalenyState
from .nn import KEEP, KN_QUEENS, KN_RULES, REBOAST_ACTION, NNState, _lay_tables
from .team import ACE_D, CARD_INDEX, DEMAND_REDEAL, PASS
from .worlds import _card, _Replay, _view_events

__all__ = ["team_worlds"]

REJECTIONS = 400  # bounded retries of a team-wide condition (a queen in a team, a seat that may be asked)


# ----------------------------------------------------------------------------------------------- team games


class _Shuffle:
    """One shuffle of a team game: a deal or a redeal, 9 cards each from the dealer's left (KH-7, KN-7); a
    boasting (KN-20: pairs from both ends of the deck, the lays, the fill from the top); or a "keep", the hand
    cards dealt again, t each (KN-24)."""

    def __init__(self, kind: str, dealer: int, number: int, universe: Sequence[int], size: int) -> None:
        self.kind = kind
        self.dealer = dealer
        self.number = number  # the deal number (1 for the first deal and its redeals)
        self.universe = list(universe)  # the cards shuffled
        self.size = size  # cards per hand once dealt (9, or t after a boasting)
        self.mine: list[int] = []  # the seat's own hand once dealt (after a boasting: pairs - laid + fill)
        self.played: list[list[int]] = [[], [], [], []]
        self.allowed = [(1 << 36) - 1] * 4  # the cards each seat may hold now (voids, KN-9, KH-11, KN-15)
        self.demand: int | None = None  # the seat that demanded a redeal of it
        self.started = False  # play started (first_lead)
        self.eligible: tuple[int, ...] | None = None  # KN-15: None until announced (or play starts)
        self.passed = False  # the seat itself passed its offer
        self.ad_holder: int | None = None  # KN-8: deal 1's first leader holds AD until he leads it
        # KN-20, a boasting only:
        self.boaster: int | None = None
        self.k = 0  # the stacks
        self.pairs: list[tuple[int, list[int] | None]] = []  # (seat, [bottom, top] when the seat's own)
        self.laid: dict[int, list[int] | None] = {}  # seat -> the cards laid, in stack order (None: face down)
        self.revealed = False
        self.fill: dict[int, int] = {}  # seat -> cards received in the fill
        self.my_fill: list[int] = []

    def received(self, seat: int) -> int:
        return sum(1 for who, _ in self.pairs if who == seat)

    def stacks(self) -> list[int]:
        return [c for cards in self.laid.values() if cards for c in cards]


class _TeamWorlds(_Replay):
    """``kozel-hvaleny`` and ``kozel-nn``: per shuffle, a uniform deal of the unseen cards among the places each may
    be in (module docstring); after a boasting, the cards of each hand split between its pairs and its fill."""

    def __init__(self, game: Game, seats: int, seat: int, view: View, options: Mapping[str, Any]) -> None:
        self.game, self.seats, self.seat, self.options = game, seats, seat, options
        self.nn = game.id == "kozel-nn"
        rules = KN_RULES if self.nn else KH_RULES
        self.rules = rules
        events, last = _view_events(view, game, seats, seat)
        index = CARD_INDEX
        play = tables(DECK36, ("play",)).by_card["play"]
        lays = _lay_tables()
        eff = rules.eff
        shuffles: list[_Shuffle] = []
        cur: _Shuffle | None = None
        trick: list[tuple[int, int]] = []
        led = 0  # KH-11: the effective suits led this deal
        self.actions = []
        self.face_down: int | None = None  # the index in actions of a boaster's lay still face down

        def cards_of(ev: Mapping[str, Any]) -> list[int]:
            shown = ev.get("cards")
            return [_card(index, c, game) for c in shown] if isinstance(shown, list) else []

        def lay_action(cards: Sequence[int]) -> Action:
            return lays.one[cards[0]] if len(cards) == 1 else lays.two[cards[0], cards[1]]

        for ev in events:
            kind = ev.get("type")
            who = ev.get("seat")
            if kind == "deal":
                dealer, number = ev.get("dealer"), ev.get("deal")
                if not isinstance(dealer, int) or not 0 <= dealer < 4 or not isinstance(number, int):
                    raise RecordError(f"{game.id}: a deal event names no dealer: {ev}")
                boaster = ev.get("boaster")
                cur = _Shuffle("deal" if boaster is None else "boast", dealer, number, range(36), 9)
                if boaster is not None:
                    if not self.nn or boaster != (dealer + 1) % 4:
                        raise RecordError(f"{game.id}: a boasting that is not the dealer's left's: {ev}")
                    cur.boaster = boaster
                if shuffles:
                    self.trigger = len(self.actions) - 1  # the play, demand, lay or reboast that deals it
                shuffles.append(cur)
                trick, led = [], 0
                continue
            if cur is None:
                raise RecordError(f"{game.id}: an event before the first deal")
            if not isinstance(who, int) or not 0 <= who < 4:
                who = -1
            if kind == "hand":
                if who != seat or len(ev.get("cards") or ()) != cur.size:
                    raise RecordError(f"{game.id}: a hand event that is not seat {seat}'s {cur.size} cards: {ev}")
                cur.mine = cards_of(ev)
            elif kind == "pair":
                cur.pairs.append((who, cards_of(ev) if who == seat else None))
            elif kind == "lay":
                shown = cards_of(ev)
                if who == cur.boaster:
                    cur.k = int(ev.get("count") or 0)
                    cur.size = 9 - cur.k
                    cur.laid[who] = shown or None
                    if not shown:
                        self.face_down = len(self.actions)
                        self.actions.append((who, PASS))  # a placeholder: the world chooses (sample)
                        continue
                else:
                    cur.laid[who] = shown
                if not shown or len(shown) != int(ev.get("count") or 0):
                    raise RecordError(f"{game.id}: a lay that shows no cards: {ev}")
                self.actions.append((who, lay_action(shown)))
            elif kind == "reveal":
                shown = cards_of(ev)
                cur.revealed = True
                if cur.boaster is None or len(shown) != cur.k:
                    raise RecordError(f"{game.id}: a reveal of no boasting: {ev}")
                if cur.laid.get(cur.boaster) is None and self.face_down is not None:
                    self.actions[self.face_down] = (cur.boaster, lay_action(shown))
                    self.face_down = None
                cur.laid[cur.boaster] = shown
            elif kind == "fill":
                cur.fill[who] = int(ev.get("count") or 0)
                if who == seat:
                    cur.my_fill = cards_of(ev)
            elif kind in ("reboast", "keep"):
                self.actions.append((who, REBOAST_ACTION if kind == "reboast" else KEEP))
                if kind == "keep":  # KN-24: the hand cards are dealt again, t each
                    stacks = set(cur.stacks())
                    cur = _Shuffle("keep", cur.dealer, cur.number, [c for c in cur.universe if c not in stacks],
                                   cur.size)
                    self.trigger = len(self.actions) - 1
                    shuffles.append(cur)
                    trick, led = [], 0
            elif kind == "first_lead":
                cur.started = True
                if cur.eligible is None:
                    cur.eligible = ()
                if self.nn and cur.number == 1 and who != seat:
                    cur.ad_holder = who
            elif kind == "redeal_eligible":
                names = ev.get("teams") or []
                cur.eligible = tuple(t for t, name in enumerate(("A", "B")) if name in names)
            elif kind == "demand_redeal":
                if who < 0:
                    raise RecordError(f"{game.id}: a redeal demand by no seat: {ev}")
                cur.demand = who
                self.actions.append((who, DEMAND_REDEAL))
            elif kind == "pass" and ev.get("offer") == "redeal":
                cur.passed = True
                self.actions.append((seat, PASS))
            elif kind == "play":
                if who < 0:
                    raise RecordError(f"{game.id}: a play by no seat: {ev}")
                c = _card(index, ev.get("card"), game)
                self.actions.append((who, play[c]))
                if c == ACE_D:
                    cur.ad_holder = None
                if who != seat:
                    cur.played[who].append(c)
                    self._infer(cur, who, c, trick, led)
                if not trick:
                    led |= 1 << eff[c]
                trick.append((who, c))
            elif kind in ("trick", "catch"):
                trick = []
        if not shuffles:
            raise RecordError(f"{game.id}: the view shows no deal")
        for s in shuffles:
            if s.kind == "boast":
                mine = [c for who, pair in s.pairs if who == seat for c in pair or ()]
                laid = set(s.laid.get(seat) or ())
                s.mine = [c for c in mine if c not in laid] + s.my_fill
        self.dealer = shuffles[0].dealer
        self.shuffles = shuffles
        self.asking = self._open_offer(shuffles[-1], last)
        fit = random.Random(0x0DEA1)
        self.past = [self._draw(s, Dealer(*self._hidden(s)), fit)[0] for s in shuffles[:-1]]
        self.dealer_now = Dealer(*self._hidden(shuffles[-1]))
        self._finish_init(dict(last, events=events))

    def _infer(self, cur: _Shuffle, who: int, card: int, trick: list[tuple[int, int]], led: int) -> None:
        """What a play tells about the player's other cards (KN-9, KH-10, KN-10, KH-11)."""
        rules = self.rules
        eff = rules.eff
        if not trick:
            if self.nn and eff[card] == 4:  # KN-9: he led a trump, so he held only trumps
                cur.allowed[who] &= rules.trumps
            return
        suit = eff[trick[0][1]]
        if eff[card] != suit:  # KH-10, KN-10: void in the led suit
            cur.allowed[who] &= ~rules.eff_mask[suit]
            if not self.nn and FORBIDDEN_ACES[led] >> card & 1:  # KH-11: only forbidden aces were left
                cur.allowed[who] &= FORBIDDEN_ACES[led]

    def _open_offer(self, last: _Shuffle, obs: Mapping[str, Any]) -> list[int] | None:
        """The seats that may be being asked now, when an offer is open that the seat does not see (None: none)."""
        if last.started or last.demand is not None or (last.kind == "boast" and not last.revealed):
            return None
        me = self.seat
        if obs.get("phase") == "redeal_offer" and not self.nn:
            return None  # KH: the seat itself is asked (C-8: only the asked seat sees the offer)
        if self.nn:
            if not last.eligible:
                return None
            queue = [(last.dealer + k) % 4 for k in range(1, 5) if (last.dealer + k) % 4 & 1 in last.eligible]
        else:  # KH-8: those with at most 13 points (the others' are drawn, see _condition)
            mine = KH_RULES.hand_points(sum(1 << c for c in last.mine)) <= 13
            queue = [(last.dealer + k) % 4 for k in range(1, 5) if (last.dealer + k) % 4 != me or mine]
        if me in queue:
            at = queue.index(me)
            if last.passed:
                return queue[at + 1:]
            if self.nn:
                return [me]  # the view cannot tell whether it is asked now: a bot is asked at its own decisions
            return queue[:at]
        return queue

    def _hidden(self, s: _Shuffle) -> tuple[list[int], dict[int, int], list[int]]:
        """The unseen cards of shuffle ``s``, the places each may go to (bits over the other three hands, the
        stock, the boaster's face-down cards) and the places' sizes."""
        me = self.seat
        others = [p for p in range(4) if p != me]
        seen = set(s.mine) | set(s.stacks())
        caps = [0] * 5
        if s.kind == "boast":
            seen.update(c for who, pair in s.pairs if who == me for c in pair or ())
            pairs = len(s.pairs)
            caps[3] = 36 - 2 * pairs - sum(s.fill.values())  # the stock
            if s.boaster != me and s.k and not s.revealed:
                caps[4] = s.k  # KN-20 step 4: face down
            for i, p in enumerate(others):
                laid = s.k if p in s.laid else 0
                caps[i] = 2 * s.received(p) - laid + s.fill.get(p, 0) - len(s.played[p])
        else:
            if len(s.mine) != s.size:
                raise RecordError(f"{self.game.id}: no hand of seat {me} in deal {s.number}")
            for i, p in enumerate(others):
                caps[i] = s.size - len(s.played[p])
        for p in others:
            seen.update(s.played[p])
        cards = [c for c in s.universe if c not in seen]
        if len(seen) != len(s.universe) - len(cards) or sum(caps) != len(cards) or min(caps) < 0:
            raise RecordError(f"{self.game.id}: the view shows a card twice or the counts do not add up in deal "
                              f"{s.number}")
        masks = {}
        for c in cards:
            m = 0b1000 | (0b10000 if not KN_RULES.trumps >> c & 1 else 0)  # the stock; face down: non-trumps
            for i, p in enumerate(others):
                if s.allowed[p] >> c & 1:
                    if self.nn and s.eligible and p & 1 in s.eligible and KN_QUEENS >> c & 1:
                        continue  # KN-15: an eligible team holds none of QC QS QH
                    if s.ad_holder is not None and c == ACE_D and p != s.ad_holder:
                        continue  # KN-8
                    m |= 1 << i
            masks[c] = m
        return cards, masks, caps

    def _condition(self, s: _Shuffle, hands: list[int], asking: list[int] | None) -> list[int] | None:
        """The team-wide conditions of a whole deal (``hands`` per seat once dealt); the seats that may be asked
        now (or [-1] when no offer is open); None when the deal does not fit."""
        if self.nn and s.eligible is not None:
            for team in (0, 1):
                if team not in s.eligible and not (hands[team] | hands[team + 2]) & KN_QUEENS:
                    return None  # KN-15: a team not eligible holds a queen
        if not self.nn and s.demand is not None and KH_RULES.hand_points(hands[s.demand]) > 13:
            return None  # KH-8: only a hand of 13 points or less is offered a redeal
        if asking is None:
            return [-1]
        if self.nn:
            return asking
        fits = [p for p in asking if KH_RULES.hand_points(hands[p]) <= 13]
        return fits or None

    def _draw(self, s: _Shuffle, dealer: Dealer, rng: random.Random, asking: list[int] | None = None
              ) -> tuple[list[int], int | None, list[int]]:
        """A deck order for shuffle ``s``, the seat asked now, and the boaster's face-down cards (when hidden)."""
        me = self.seat
        others = [p for p in range(4) if p != me]
        for _ in range(REJECTIONS):
            dealt = dealer.deal(rng)
            hands = [0, 0, 0, 0]
            hands[me] = sum(1 << c for c in s.mine)
            for i, p in enumerate(others):
                hands[p] = sum(1 << c for c in dealt[i]) | sum(1 << c for c in s.played[p])
            fits = self._condition(s, hands, asking)
            if fits is None:
                continue
            asked = None if fits == [-1] else rng.choice(fits)
            if s.kind != "boast":
                lists = [bits(h) for h in hands]
                return deal_order(lists, [(s.dealer + 1 + k) % 4 for k in range(4)]), asked, []
            order = self._boast_order(s, hands, dealt[3], dealt[4], rng)
            if order is not None:
                return order, asked, dealt[4]
        raise RecordError(f"{self.game.id}: no deal of deal {s.number} fits the view (after {REJECTIONS} tries)")

    def _boast_order(self, s: _Shuffle, hands: list[int], stock: list[int], face_down: list[int],
                     rng: random.Random) -> list[int] | None:
        """KN-20: the deck order of a boasting whose hands (the pairs kept and the fill, or the pairs before the
        lay) are ``hands``: each hand split between its pairs, which must follow the pairs' rule (a pair is given
        while the hand holds fewer non-trumps than the stacks), and its fill. None when it cannot be split so.
        Among the splits that fit, the number of non-trumps kept from the pairs is drawn in proportion to its
        ways (approximately uniform: the ways to place them in the pairs are not counted)."""
        me, trumps, k = self.seat, KN_RULES.trumps, s.k
        order = [-1] * 36
        fills: dict[int, list[int]] = {}
        pair_cards: dict[int, list[list[int]]] = {}
        for p in range(4):
            m = s.received(p)
            if p == me or m == 0:
                continue
            need = 1 if p == s.boaster else k
            laid = s.laid.get(p) if p in s.laid else None
            held = bits(hands[p])
            if p in s.laid:
                laid = list(laid) if laid else list(face_down)
                ts = [c for c in held if trumps >> c & 1]
                ns = [c for c in held if not trumps >> c & 1]
                keep = 2 * m - k
                top = min(1, 2 - k) if p == s.boaster else (1 if k == 1 or m >= 2 else 0)
                ways = [(comb(len(ts), keep - x) * comb(len(ns), x), x) for x in range(top + 1)
                        if 0 <= keep - x <= len(ts) and x <= len(ns)]
                if not ways:
                    return None
                pick = rng.randrange(sum(w for w, _ in ways))
                x = next(x for w, x in ways if (pick := pick - w) < 0)
                rng.shuffle(ts)
                rng.shuffle(ns)
                kept = ts[:keep - x] + ns[:x]
                fills[p] = ts[keep - x:] + ns[x:]
                rng.shuffle(fills[p])
                cards = laid + kept
            else:
                cards, fills[p] = held, []
            arranged = _arrange(cards, need, m, trumps, rng)
            if arranged is None:
                return None
            pair_cards[p] = arranged
        taken = {p: 0 for p in range(4)}
        for j, (who, pair) in enumerate(s.pairs):
            if who == me:
                assert pair is not None
                bottom, top_card = pair
            else:
                bottom, top_card = pair_cards[who][taken[who]]
                taken[who] += 1
            order[35 - j], order[j] = bottom, top_card
        at = len(s.pairs)
        if s.fill:  # KN-20 step 7: from the top, clockwise from the dealer's left, skipping full hands
            size = {p: 2 * s.received(p) - k for p in range(4)}
            mine = iter(s.my_fill)
            seat = (s.dealer + 1) % 4
            given = 0
            total = sum(s.fill.values())
            while given < total:
                if size[seat] < s.size:
                    order[at] = next(mine) if seat == me else fills[seat].pop()
                    size[seat] += 1
                    at += 1
                    given += 1
                seat = (seat + 1) % 4
        rest = iter(stock)
        for j in range(36):
            if order[j] < 0:
                order[j] = next(rest)
        return order

    def _orders(self, rng: random.Random) -> tuple[list[list[int]], int | None, list[tuple[int, Action]]]:
        last = self.shuffles[-1]
        order, asked, face_down = self._draw(last, self.dealer_now, rng, self.asking)
        actions = self.actions
        if self.face_down is not None:  # the boaster's cards, face down: any k of his non-trumps
            actions = actions[:]
            lays = _lay_tables()
            actions[self.face_down] = (actions[self.face_down][0], lays.one[face_down[0]] if len(face_down) == 1
                                       else lays.two[face_down[0], face_down[1]])
        return [*self.past, order], asked, actions

    def _state(self, seed: int, orders: list[list[int]]) -> Any:
        cls: Callable[..., Any] = NNState if self.nn else HvalenyState
        return cls(self.game, 4, seed, dict(self.options), self.dealer, deck_orders=orders)


def _arrange(cards: list[int], need: int, m: int, trumps: int, rng: random.Random) -> list[list[int]] | None:
    """KN-20 steps 3 and 5: ``cards`` as ``m`` pairs given to a hand until it holds ``need`` non-trumps: the pairs
    before the last leave it short of ``need``, the last reaches it. None when no order of pairs does."""
    ns = [c for c in cards if not trumps >> c & 1]
    ts = [c for c in cards if trumps >> c & 1]
    rng.shuffle(ts)
    if len(cards) != 2 * m or not need <= len(ns) <= 2 + (need == 2 and m >= 2):
        return None
    if need == 2 and len(ns) == 3:  # one non-trump early, then a pair of two
        first, last, ns = [ns[0], ts.pop()], ns[1:], []
        middle = ts
        pairs = [first] + [middle[i:i + 2] for i in range(0, len(middle), 2)] + [last]
    else:
        last = ns + [ts.pop() for _ in range(2 - len(ns))]
        pairs = [ts[i:i + 2] for i in range(0, len(ts), 2)] + [last]
    return pairs


def team_worlds(game: Game, seats: int, seat: int, view: View, options: Mapping[str, Any]) -> Worlds:
    """The worlds of seat ``seat`` of a ``kozel-hvaleny`` or ``kozel-nn`` game (module docstring)."""
    return _TeamWorlds(game, seats, seat, view, options)
