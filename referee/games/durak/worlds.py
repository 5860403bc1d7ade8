"""Sampling worlds from a seat's view for ``kazaki`` and ``durak`` (``Game.worlds``; docs/ENGINE.md "Sampling worlds").

What a seat cannot see (KZ-23): the other hands and the order of the stock, at every deal and redeal. Everything
else is public: the trump card at the bottom of the stock (KZ-5; in 6-player durak the dealer's shown sixth card),
every card played, covered, thrown in, withdrawn and picked up, every draw's count and who drew the trump card.

A world is built by replaying the view through the engine itself: a deck order is chosen for each deal the view
shows, a :class:`~.base.DurakState` is created from them with a seed drawn from the caller's ``rng`` (so later
shuffles are random, never the real seed's), and the view's actions are applied in order; the hidden ones (the
redeal offers another seat declined, KZ-6, which nobody else sees) are ``pass``. A world built so obeys every rule by
construction; the sampler's work is to choose deck orders that replay. The current deal is a set of hidden *slots*
(each other seat's six dealt cards, the draws of the other seats and the undrawn stock, each with the event index
at which its card arrives) and the hidden cards are placed in them under what the seat can infer:

* a card another seat played, covered with, threw in or was announced with (KZ-7) came from one of his slots before
  that event;
* a player the throw-in walk skipped without asking (KZ-16, KZ-17 step 1: "ineligible players are skipped") held no
  card of a table rank then, so such a card was not in his hand: neither dealt to him nor drawn before the skip;
* KZ-7: the trumps below the announced lowest trump (every trump, when no trump was announced) were in no hand;
* KZ-6: the seat that demanded a redeal held five or more cards of one suit in the deal it refused.

The cards are placed one by one, the most constrained first, each uniformly among the free slots it may take. That is
exactly uniform among the deals that fit when the allowed slot sets nest (no player was skipped: the usual case),
and approximately uniform otherwise; a dead end (rare) is solved by an augmenting-path matching. The inferences
that a seat asked held a card are made true by swaps, and where swaps get stuck by choosing a witness card for each:
a placement is found whenever the view fits (the solvers are :mod:`referee.games.deals`).

Whose decision the view ends at is not in the view. Where the rules hide it (a throw-in walk skips silently, redeal
offers are private) the worlds assume that the seat itself is asked when it can be, since a bot samples at its own
decisions; otherwise the seat asked is the one the dealt hands make it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from math import comb
from typing import TYPE_CHECKING, Any

from ...engine import Worlds
from ...errors import IllegalActionError, RecordError
from ..cards import bits
from ..deals import deal_order, solve
from .base import (
    HAND,
    PASS,
    PHASE_NAMES,
    REDEAL,
    DurakState,
)
from .tables import tables
from .view import DurakView, _Deal

if TYPE_CHECKING:
    from .base import DurakFamily

__all__ = ["DurakWorlds"]

TRIES = 20  # greedy placements tried before the matching
REPAIRS = 400  # swaps tried to make the "holds one of" inferences true
REDRAWS = 8  # whole worlds redrawn when a replay does not fit (a hand that makes another seat asked now)


class DurakWorlds(DurakView, Worlds):
    """The worlds of one seat's view of a ``kazaki`` or ``durak`` game (module docstring). The view is read once
    here; :meth:`sample` places the hidden cards and replays."""

    def __init__(self, game: DurakFamily, seats: int, seat: int, view: Sequence[Mapping[str, Any]],
                 options: dict[str, bool | int | str]) -> None:
        game.check_seats(seats)
        if not 0 <= seat < seats:
            raise RecordError(f"seat {seat} is not a seat of a {seats}-player game")
        self.game, self.seats, self.seat, self.options = game, seats, seat, options
        self.t = tables(game.deck)
        try:
            self._read(view, assume=True)
        except RecordError:  # the seat cannot be the one asked now: read it again without assuming so
            self._read(view, assume=False)
            self._check()
        else:
            try:
                self._check()
            except RecordError:
                self._read(view, assume=False)
                self._check()

    def _check(self) -> None:
        """One world now, each action checked legal, so that a view the game cannot replay is one RecordError here,
        not at every sample; the samples then check only what the hidden cards decide."""
        self.checked = True
        try:
            seen = self.sample(random.Random(0)).observe(self.seat, 0)
        finally:
            self.checked = False
        if seen.pop("events") != self.events or seen != {k: v for k, v in self.last.items() if k != "events"}:
            raise self._fail("its events do not replay to its last observation")

    # ------------------------------------------------------------------------------------------ reading
    # ----------------------------------------------------------------------------------------- sampling

    def sample(self, rng: random.Random) -> DurakState:
        for _ in range(REDRAWS):
            orders = [self._refused(d, rng) for d in self.deals[:-1]]
            orders.append(self._last_deal(rng))
            world = self._replay(orders, rng)
            if world is not None:
                return world
        raise self._fail(f"no world replays it ({REDRAWS} tries)")

    def _deal_order(self, hands: list[list[int]], trump: int, stock: list[int]) -> list[int]:
        """A deck order (KZ-4, KZ-5) from each seat's six cards, the trump card and the stock from the top."""
        n = self.seats
        order = deal_order(hands, [(self.dealer + 1 + k) % n for k in range(n)])
        return order + ([trump] + stock if HAND * n < self.t.size else [])

    def _refused(self, deal: _Deal, rng: random.Random) -> list[int]:
        """A deal the view shows refused (KZ-6): uniform among those giving the seat its cards, the trump card its
        place and the demander five or more cards of one suit."""
        return self._simple_deal(deal, rng, deal.demander)

    def _simple_deal(self, deal: _Deal, rng: random.Random, five: int | None) -> list[int]:
        n, t, seat = self.seats, self.t, self.seat
        in_hand = HAND * n == t.size
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[seat] = [c for c in bits(deal.hand) if c != deal.trump]
        if in_hand:  # KZ-5: the shown trump card is the dealer's sixth card
            hands[self.dealer].append(deal.trump)
        pool = [c for c in range(t.size) if not (deal.hand >> c & 1) and c != deal.trump]
        if five is not None and five != seat:
            mine = hands[five]
            room = HAND - len(mine)
            choices = []  # (weight, suit, cards of that suit)
            for suit in range(4):
                have = sum(1 for c in mine if c // t.ranks == suit)
                of_suit = sum(1 for c in pool if c // t.ranks == suit)
                for j in range(max(0, 5 - have), room + 1):
                    w = comb(of_suit, j) * comb(len(pool) - of_suit, room - j)
                    if w:
                        choices.append((w, suit, j))
            if not choices:
                raise self._fail(f"seat {five} demands a redeal, but cannot hold five cards of one suit")
            pick = rng.randrange(sum(w for w, _, _ in choices))
            k = 0
            while pick >= choices[k][0]:
                pick -= choices[k][0]
                k += 1
            _, suit, j = choices[k]
            same = [c for c in pool if c // t.ranks == suit]
            other = [c for c in pool if c // t.ranks != suit]
            chosen = rng.sample(same, j) + rng.sample(other, room - j)
            mine += chosen
            taken = set(chosen)
            pool = [c for c in pool if c not in taken]
        rng.shuffle(pool)
        for s in range(n):
            need = HAND - len(hands[s])
            hands[s] += pool[:need]
            del pool[:need]
        return self._deal_order(hands, deal.trump, pool)

    def _last_deal(self, rng: random.Random) -> list[int]:
        """The last deal's order: the hidden cards placed in the hidden slots (module docstring)."""
        if self.now_in_redeal:
            return self._simple_deal(self.deals[-1], rng, self._redeal_witness(rng))
        placed = solve(self.allowed, self.musts, len(self.slot_pos), rng, tries=TRIES, swaps=REPAIRS,
                       order=self.order)
        if placed is None:
            raise self._fail("the hidden cards fit no deal")
        return self._fill(placed)

    def _fill(self, placed: Mapping[int, int]) -> list[int]:
        order = list(self.base)
        pos = self.slot_pos
        for c, j in placed.items():
            order[pos[j]] = c
        return order

    def _redeal_witness(self, rng: random.Random) -> int | None:
        """The view ends at a redeal offer (KZ-6) that is not the seat's: some seat still to answer holds five or
        more cards of one suit; one is chosen (uniformly among the seats that can be)."""
        seat, n = self.seat, self.seats
        deal = self.deals[-1]
        t = self.t
        order = [(self.dealer + k) % n for k in range(1, n + 1)]
        mine = any((deal.hand & m).bit_count() >= 5 for m in t.suit_mask)
        answered = deal.answered
        if mine and not answered and self.assume:
            return None  # the seat is asked itself
        after = order[order.index(seat) + 1:] if answered else [s for s in order if s != seat]
        if not after:
            raise self._fail("a redeal offer is pending, but nobody is left to be asked")
        return after[rng.randrange(len(after))]

    def _replay(self, orders: list[list[int]], rng: random.Random) -> DurakState | None:
        """The world of these deck orders: the view's actions applied in order, the hidden redeal answers ``pass``;
        None if they do not replay (another seat would be asked, or the end is not the view's)."""
        seat = self.seat
        world = DurakState(self.game, self.seats, rng.getrandbits(64), self.options, self.dealer,
                           deck_order=orders[0])
        world.orders = [list(o) for o in orders[1:]]  # the redeals' orders (CardState._shuffled takes them in turn)
        checked = self.checked
        try:
            for offer, s, action, phases, cards in self.steps:
                while world.phase == REDEAL and (not offer or world.to_act != s):
                    if world.to_act == seat:
                        return None  # the seat's own answer would show
                    world.apply(PASS)  # KZ-6: another seat declines, unseen
                if world.to_act != s:
                    return None
                if checked:
                    world.apply(action)
                elif world.phase in phases and world.hands[s] & cards == cards:
                    world._apply(action)  # legal: the public position is the checked world's (_check)
                else:
                    return None
            if self.now_in_redeal and self.assume:  # the seat's own offer: the ones before it declined
                while world.phase == REDEAL and world.to_act != seat and seat in world.redeal_queue \
                        and world.redeal_queue.index(seat) > 0:
                    world.apply(PASS)
        except IllegalActionError:
            return None
        if PHASE_NAMES[world.phase] != self.last["phase"] or (self.expect_seat and world.to_act != seat):
            return None
        return world
