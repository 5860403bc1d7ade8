"""The ``heuristic`` bot's play for the two Kings games, ``koroli`` and ``koroli52`` (RULES.md sections 6 and 7).

In both games every trick is worth having: the introduction of ``koroli`` hands out titles to whoever reaches a
trick target first, its reign re-ranks the roles by each deal's tricks, and ``koroli52`` ranks by the total of
tricks. So the trick play always tries to take tricks; what it weighs is *which* card to spend:

* every playable card gets ``P(win) - keep``: the chance that it takes the trick in play (a hypergeometric
  estimate over the cards still out, the hand sizes, the known voids and the cards whose holder is known) minus
  what the card is worth if kept (how many higher cards of its suit are still out, and how likely its suit is to
  be ruffed; a trump keeps some value as a ruff). That gives the usual rules of thumb: win with the lowest card
  that still wins, duck with the lowest card when the trick is lost anyway (second hand low, third hand high),
  ruff with the lowest trump that wins, and discard the least useful card rather than waste a trump. A leader
  also prefers his long suits (from the top when the top is sure, else low), which sets them up;
* a hand is valued by a quick expected-tricks count (honours by how many higher cards are out, long trumps,
  long suits in no-trump, ruffs with spare trumps), scaled so that an average hand is worth its share of the
  tricks. That value drives the ``koroli`` levy (take the card that adds most, give back the one that costs
  least) and the ``koroli52`` table talk: swap the whole hand when it is worth less than the target's is likely
  to be (a hand someone just gave away is likely weak; a hand we held is known), name the trump that makes the
  hand worth most (no-trump with a flat strong hand), offer tricks to keep a hand worth much more than the
  asker's, and accept an offer that pays at least what the swap is likely to gain (an offer signals a good hand).

The constants were checked against rollouts: from sampled positions of self-play games, every legal answer was
played out to the end of the deal and the bot's choice compared with the others.

The hand valuation and the decisions made from it (the ``koroli`` levy, the ``koroli52`` table talk) are in
:mod:`.koroli_hands`; what a seat remembers between decisions is in :mod:`.koroli_memory`. :func:`choose` needs
nothing but the decision; with the bot's :class:`Memory` of the game it also counts the cards played in the
current deal, the voids they showed, and where handed-over or swapped cards went (the observation carries only
the events since the seat's previous request, RULES.md C-8).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

from protocol.actions import Action
from protocol.bot import Decision, GameInfo

from .koroli_hands import _bargain, _bargain_reply, _exchange, _give, _name_trump, _take_card, expected_tricks
from .koroli_memory import _SUIT, Memory, SeatMemory, _action_card, _code, _deck

__all__ = ["GAMES", "Memory", "choose", "expected_tricks"]

GAMES = frozenset({"koroli", "koroli52"})

# ------------------------------------------------------------------------------------------ constants

#: Future value of a card by the number of higher cards of its suit still out (0: it is the top card).
KEEP = (1.0, 0.5, 0.25, 0.1, 0.03)
#: A plain card may yet be ruffed while the others still hold trumps: its chance of surviving a lead now,
#: discounted by this factor because voids only grow.
PLAIN_KEEP = 0.9
#: Even a low trump can ruff later.
TRUMP_KEEP = 0.15
#: Leads come from long suits, which the lead sets up (measured by rollouts: better than cashing short winners).
LONG_LEAD = 0.3


# ---------------------------------------------------------------------------------------- the table


class _View:
    """One decision's picture of the cards: the own hand, the trick in play, and the cards still out."""

    def __init__(self, obs: dict[str, Any], mem: SeatMemory, game: str) -> None:
        self.me = me = obs["seat"]
        self.n = n = obs["seats"]
        self.game = game
        trump = obs.get("trump")
        self.trump: int | None = _SUIT.get(trump) if trump else None
        self.hand = [_code(c) for c in obs["hand"]]
        self.trick = [(e["seat"], _code(e["card"])) for e in obs.get("trick") or ()]
        self.order: list[int] = list(obs.get("play_order") or ())
        self.sizes: list[int] = list(obs["hand_sizes"])
        deck = _deck(game, n)
        on_table = {c for _, c in self.trick}
        mine = set(self.hand)
        deal = obs.get("deal") if game == "koroli" else obs.get("tour")
        # The trick in play is in the memory already (its plays came with this observation's events).
        valid = (mem.current(deal) and not mem.played & mine
                 and len(mem.played | on_table) + sum(self.sizes) == len(deck))
        out = set(deck) - mine - on_table
        known: list[set[int]] = [set() for _ in range(n)]
        self.voids: list[set[int]] = [set() for _ in range(n)]
        if valid:
            out -= mem.played
            for s in range(n):
                if s != me:
                    known[s] = mem.known[s] & out
                    self.voids[s] = set(mem.voids[s])
        holder = obs.get("trump_card_holder")  # koroli: public (KR-18)
        if holder is not None and holder != me and obs.get("trump_card"):
            card = _code(obs["trump_card"])
            if card in out:
                for s in range(n):
                    known[s].discard(card)
                known[holder].add(card)
        for s in range(n):
            if s == me:
                continue
            if len(known[s]) > self.sizes[s]:  # stale knowledge: drop it
                known[s] = set()
            for c in known[s]:
                self.voids[s].discard(c >> 4)
        self.known = known
        self.out = out  # every card not in my hand, not on the table and not known to be played
        self.out_by_suit = [sorted((c & 15 for c in out if c >> 4 == s), reverse=True) for s in range(4)]
        pool = out - set().union(*known)
        self.pool_by_suit = [sorted((c & 15 for c in pool if c >> 4 == s), reverse=True) for s in range(4)]
        self.slots = [0 if s == me else max(0, self.sizes[s] - len(known[s])) for s in range(n)]
        self.pool_size = len(pool)
        self.my_suits = [0] * 4
        for c in self.hand:
            self.my_suits[c >> 4] += 1
        self._eligible: dict[int, int] = {}
        self._survive: dict[int, float] = {}

    # -------------------------------------------------------------------- probabilities about other hands

    def _eligible_slots(self, suit: int) -> int:
        """The unknown places where a card of ``suit`` may be: the pool, less the hands known void in it."""
        e = self._eligible.get(suit)
        if e is None:
            e = self.pool_size - sum(self.slots[s] for s in range(self.n) if s != self.me and suit in self.voids[s])
            self._eligible[suit] = e
        return e

    def _none_of(self, seat: int, count: int, suit: int) -> float:
        """The chance that ``seat`` holds none of ``count`` given unknown cards of ``suit``."""
        if count <= 0 or suit in self.voids[seat]:
            return 1.0
        e, u = self._eligible_slots(suit), self.slots[seat]
        if u <= 0:
            return 1.0
        if e - u < count:
            return 0.0
        return comb(e - u, count) / comb(e, count)

    def p_higher(self, seat: int, suit: int, rank: int) -> float:
        """The chance that ``seat`` holds a card of ``suit`` above ``rank``."""
        if any(c >> 4 == suit and c & 15 > rank for c in self.known[seat]):
            return 1.0
        if suit in self.voids[seat]:
            return 0.0
        higher = 0
        for r in self.pool_by_suit[suit]:
            if r <= rank:
                break
            higher += 1
        return 1.0 - self._none_of(seat, higher, suit)

    def p_void(self, seat: int, suit: int) -> float:
        if suit in self.voids[seat]:
            return 1.0
        if any(c >> 4 == suit for c in self.known[seat]):
            return 0.0
        return self._none_of(seat, len(self.pool_by_suit[suit]), suit)

    def p_beat(self, seat: int, card: int, led: int) -> float:
        """The chance that ``seat``, playing after us, beats ``card`` (the best card of the trick so far)."""
        suit, rank, trump = card >> 4, card & 15, self.trump
        if suit == led:
            high = self.p_higher(seat, led, rank)
            if trump is None or led == trump:
                return high
            ruff = self.p_void(seat, led) * self.p_higher(seat, trump, 1)
            return min(1.0, high + ruff)
        return self.p_void(seat, led) * self.p_higher(seat, suit, rank)  # our card is a ruff

    def beats(self, card: int, best: int) -> bool:
        if card >> 4 == best >> 4:
            return card > best
        return card >> 4 == self.trump

    def p_win(self, card: int) -> float:
        """The chance that ``card`` takes the trick in play (KR-9, K52-6)."""
        trick = self.trick
        if trick:
            led = trick[0][1] >> 4
            best = trick[0][1]
            for _, c in trick[1:]:
                if self.beats(c, best):
                    best = c
            if not self.beats(card, best):
                return 0.0
        else:
            led = card >> 4
        p = 1.0
        for seat in self.order[len(trick) + 1:]:
            if seat != self.me:
                p *= 1.0 - self.p_beat(seat, card, led)
        return p

    def survives(self, suit: int) -> float:
        """The chance that a lead of ``suit`` is not ruffed now; it only gets worse as the deal goes on."""
        p = self._survive.get(suit)
        if p is None:
            p = 1.0
            if self.trump is not None and suit != self.trump:
                for seat in range(self.n):
                    if seat != self.me and (self.slots[seat] or self.known[seat]):
                        p *= 1.0 - self.p_void(seat, suit) * self.p_higher(seat, self.trump, 1)
            self._survive[suit] = p
        return p

    def keep(self, card: int) -> float:
        """What ``card`` is worth if kept: how likely it is to take a trick later."""
        suit, rank = card >> 4, card & 15
        higher = 0
        for r in self.out_by_suit[suit]:
            if r <= rank:
                break
            higher += 1
        value = KEEP[higher] if higher < len(KEEP) else 0.0
        trump = self.trump
        if suit == trump:
            return max(value, TRUMP_KEEP)
        if trump is not None and self.out_by_suit[trump]:
            value *= PLAIN_KEEP * self.survives(suit)
        if higher and self.my_suits[suit] <= higher:  # an honour that cannot be guarded
            value *= 0.7
        return value


# ------------------------------------------------------------------------------------------- trick play


def _play(legal: Sequence[Action], view: _View) -> Action:
    """The card with the best ``P(win) - keep``: the cheapest card that wins, else the cheapest to lose."""
    trump = view.trump
    have_trumps = trump is not None and view.my_suits[trump] > 0
    lead = not view.trick
    best, best_score = legal[0], -1e9
    for action in legal:
        card = _action_card(action)
        suit = card >> 4
        win = view.p_win(card)
        score = 1.05 * win - view.keep(card) - 0.001 * (card & 15)
        if have_trumps and suit != trump:
            score -= 0.002 * view.my_suits[suit]  # with trumps, shorten short plain suits: ruffs later
        if lead:
            score += LONG_LEAD * view.my_suits[suit]
        if score > best_score:
            best, best_score = action, score
    return best


# ---------------------------------------------------------------------------------------------- entry


def choose(decision: Decision, info: GameInfo | None, memory: Memory | None = None) -> Action:
    """The heuristic's action for a ``koroli`` or ``koroli52`` decision (always one of ``decision.legal``).

    ``memory`` is what the bot has seen of this game so far (kept by the bot from ``new_game`` to ``game_over``,
    one per game); without it the decision is made from this observation alone."""
    legal = decision.legal
    obs = decision.observation  # read every time: its events feed the memory
    game = obs.get("game") or (info.game if info is not None else "")
    seat = obs.get("seat", decision.seat)
    n = obs.get("seats") or (info.seats if info is not None else 4)
    mem = memory.seat(seat, n) if memory is not None else SeatMemory(seat, n)
    mem.update(obs.get("events") or (), must_trump=game == "koroli52")
    shown = obs.get("peasant_hand")
    levy = obs.get("levy")
    if shown and levy and levy.get("from") is not None:  # KR-12: the Peasant's hand, shown to the taker
        mem.known[levy["from"]] = {_code(c) for c in shown}
    if len(legal) <= 1 or game not in GAMES:
        return legal[0]
    kind = legal[0].kind
    if kind == "play":
        return _play(legal, _View(obs, mem, game))
    if kind == "take_card":
        return _take_card(legal, obs)
    if kind == "give":
        return _give(legal, obs)
    if kind == "exchange" or (kind == "pass" and obs.get("phase") == "exchange"):
        return _exchange(legal, obs, mem)
    if kind == "bargain":
        return _bargain(legal, obs, mem)
    if kind == "accept":
        return _bargain_reply(legal, obs, mem)
    if kind == "name_trump":
        return _name_trump(legal, obs)
    return legal[0]

