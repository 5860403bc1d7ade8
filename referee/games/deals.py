"""Dealing the unseen cards: the solvers the games' world samplers share (``Game.worlds``, docs/ENGINE.md "Sampling
worlds").

The problem, whatever the game: some hidden cards and as many hidden *slots* (a seat's dealt card, a draw, a stock
place), each card with the bitmask of the slots it may take (``allowed``: what the seat infers from the view), every
slot to get one card. A game may add *musts*: lists of (card, slots) pairs, at least one of which must hold (a seat
that was asked held a card of some ranks then). The game reads the view into this problem; the functions here solve
it and know nothing of any game:

* :func:`place`: each card, most constrained first, uniformly in a free slot it may take. Exactly uniform among the
  solutions when the allowed sets nest (any two are disjoint or one holds the other); ``None`` at a dead end.
* :func:`match`: a solution by augmenting paths, cards and slots in random order: found whenever one exists.
* :func:`repair`: swaps that make the musts true, a local search that may give up.
* :func:`witnessed`: a solution that meets every must, found whenever one exists (a witness pair chosen per must,
  each choice kept only while a matching still exists).

Where the slots of a holder are alike (a hand whose order does not matter), two solvers deal cards to holders:

* :func:`deal_hidden`: holders with room, each card to a holder its mask allows; never a dead end (Hall's condition
  checked before each choice). Every deal that fits can be drawn; not exactly uniform.
* :class:`Dealer`: the same problem, exactly uniform among the deals that fit (they are counted group by group).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from math import comb

from ..errors import RecordError
from .cards import bits

__all__ = ["Musts", "place", "match", "repair", "witnessed", "solve", "deal_hidden", "deal_order", "Dealer"]

#: The "one of these holds" constraints: each a list of (card, slots the card may take to make it true).
Musts = Sequence[Sequence[tuple[int, int]]]


def _pick(mask: int, rng: random.Random) -> int:
    """One set bit of ``mask``, uniformly: its index."""
    for _ in range(rng.randrange(mask.bit_count())):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def place(allowed: Mapping[int, int], slots: int, rng: random.Random,
          order: Sequence[int] | None = None) -> dict[int, int] | None:
    """Each card (in ``order``, default: fewest allowed slots first) in a free slot it may take, uniformly; ``slots``
    is how many there are. Returns card -> slot, or None at a dead end."""
    free = (1 << slots) - 1
    placed = {}
    if order is None:
        order = sorted(allowed, key=lambda c: allowed[c].bit_count())
    for c in order:
        m = allowed[c] & free
        if not m:
            return None
        j = _pick(m, rng)
        free ^= 1 << j
        placed[c] = j
    return placed


def match(allowed: Mapping[int, int], rng: random.Random | None) -> dict[int, int] | None:
    """A placement by augmenting paths (Kuhn), cards and slots in random order (in canonical order without ``rng``):
    found whenever one exists."""
    holder: dict[int, int] = {}
    options = {c: bits(m) for c, m in allowed.items()}
    if rng is not None:
        for slots in options.values():
            rng.shuffle(slots)

    def augment(c: int, seen: set[int]) -> bool:
        for j in options[c]:
            if j not in seen:
                seen.add(j)
                if j not in holder or augment(holder[j], seen):
                    holder[j] = c
                    return True
        return False

    cards = list(allowed)
    if rng is not None:
        rng.shuffle(cards)
    for c in cards:
        if not augment(c, set()):
            return None
    return {c: j for j, c in holder.items()}


def _unmet(placed: Mapping[int, int], musts: Musts) -> list[Sequence[tuple[int, int]]]:
    return [pairs for pairs in musts if not any(1 << placed[c] & slots for c, slots in pairs)]


def repair(placed: dict[int, int], allowed: Mapping[int, int], musts: Musts, rng: random.Random,
           tries: int) -> bool:
    """Make every must true by swaps that keep each card in a slot it may take and never leave more of them false
    (a local search of at most ``tries`` swaps, seeded by ``rng``); ``placed`` is changed in place. False if it gives
    up: a swap of two cards cannot always reach a solution (three cards may have to move at once)."""
    wrong = _unmet(placed, musts)
    if not wrong:
        return True
    at = {j: c for c, j in placed.items()}
    for _ in range(tries):
        pairs = wrong[rng.randrange(len(wrong))]
        c, slots = pairs[rng.randrange(len(pairs))]
        j1 = _pick(slots, rng)
        j0 = placed[c]
        d = at[j1]
        if d == c or not allowed[d] >> j0 & 1:
            continue
        placed[c], placed[d], at[j0], at[j1] = j1, j0, d, c
        now_wrong = _unmet(placed, musts)
        if len(now_wrong) > len(wrong):
            placed[c], placed[d], at[j0], at[j1] = j0, j1, c, d
            continue
        wrong = now_wrong
        if not wrong:
            return True
    return False


def witnessed(allowed: Mapping[int, int], musts: Musts, slots: int, rng: random.Random) -> dict[int, int] | None:
    """A placement meeting every must, or None if there is none. For each must in turn a pair is chosen (in random
    order) and its card kept to the pair's slots, as long as a matching of all cards still exists; the cards are then
    placed as :func:`place` does, or by :func:`match` at a dead end. Every solution can be drawn: its own witnesses
    are among the choices."""
    todo = list(musts)

    def search(k: int, cur: dict[int, int]) -> dict[int, int] | None:
        if k == len(todo):
            return place(cur, slots, rng) or match(cur, rng)
        pairs = list(todo[k])
        rng.shuffle(pairs)
        for c, where in pairs:
            m = cur[c] & where
            if not m:
                continue
            nxt = dict(cur)
            nxt[c] = m
            if match(nxt, None) is None:
                continue
            found = search(k + 1, nxt)
            if found is not None:
                return found
        return None

    if match(allowed, None) is None:
        return None
    return search(0, dict(allowed))


def solve(allowed: Mapping[int, int], musts: Musts, slots: int, rng: random.Random, *, tries: int, swaps: int,
          order: Sequence[int] | None = None) -> dict[int, int] | None:
    """A placement meeting ``allowed`` and every must, or None if there is none: ``tries`` rounds of :func:`place`
    (:func:`match` at a dead end) and :func:`repair` (``swaps`` swaps), then :func:`witnessed`, which always finds
    one when there is one."""
    for _ in range(tries):
        placed = place(allowed, slots, rng, order) or match(allowed, rng)
        if placed is None:
            return None
        if repair(placed, allowed, musts, rng, swaps):
            return placed
    return witnessed(allowed, musts, slots, rng)


# ------------------------------------------------------------------ cards to holders with room (koroli)


def deal_hidden(cards: Sequence[int], allowed: Sequence[int], room: Sequence[int],
                rng: random.Random) -> list[int] | None:
    """Deal ``cards`` to holders 0 … h-1: ``cards[i]`` may go to the holders of the bitmask ``allowed[i]``, holder
    ``k`` gets ``room[k]`` cards (``sum(room) == len(cards)``). Returns one card bitmask per holder, or None when no
    deal fits.

    Cards go most constrained first, each to a holder with room, chosen with a weight of its room among the holders
    after which the rest still fits (Hall's condition over every set of holders), so the draw never runs into a
    dead end; once only unconstrained cards are left they are shuffled into the room that remains."""
    h = len(room)
    full = (1 << h) - 1
    room = list(room)
    if sum(room) != len(cards) or min(room, default=0) < 0:
        return None
    need = [0] * (full + 1)
    for a in allowed:
        need[a & full] += 1
    if need[0] or not _fits(need, room, full):
        return None
    order = list(range(len(cards)))
    rng.shuffle(order)
    order.sort(key=lambda i: (allowed[i] & full).bit_count())
    hands = [0] * h
    free: list[int] = []
    for i in order:
        a = allowed[i] & full
        if a == full and need[full] == sum(need):  # the rest is unconstrained
            free.append(cards[i])
            continue
        need[a] -= 1
        choices = [k for k in range(h) if a >> k & 1 and room[k]]
        if len(choices) > 1:  # (a lone choice keeps the rest fitting: every deal that fits puts the card there)
            weights = []
            for k in choices[:]:
                room[k] -= 1
                if _fits(need, room, full):
                    weights.append(room[k] + 1)
                else:
                    choices.remove(k)
                room[k] += 1
        if not choices:
            return None
        k = choices[0] if len(choices) == 1 else rng.choices(choices, weights)[0]
        room[k] -= 1
        hands[k] |= 1 << cards[i]
    rng.shuffle(free)
    at = 0
    for k in range(h):
        for c in free[at:at + room[k]]:
            hands[k] |= 1 << c
        at += room[k]
    return hands


def _fits(need: Sequence[int], room: Sequence[int], full: int) -> bool:
    """Hall's condition: for every set S of holders, the cards that may only go to S fit in S's room."""
    for masks, members in _subsets(full):
        cards = 0
        for m in masks:
            cards += need[m]
        if cards:
            space = 0
            for k in members:
                space += room[k]
            if cards > space:
                return False
    return True


@cache
def _subsets(full: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Per proper set S of the holders of ``full``: the masks inside S, and S's holders."""
    return tuple((tuple(m for m in range(1, s + 1) if m & ~s == 0), tuple(k for k in range(full.bit_length())
                                                                          if s >> k & 1)) for s in range(1, full))


# ------------------------------------------------------------ cards to hands, exactly uniform (kozel)


@cache
def _splits(n: int, caps: tuple[int, ...], allowed: int) -> tuple[tuple[int, ...], ...]:
    """The ways to split n cards over len(caps) seats, none to a seat outside ``allowed`` (a bitmask)."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
        if i == len(caps):
            if left == 0:
                out.append(acc)
            return
        top = min(left, caps[i]) if allowed >> i & 1 else 0
        for a in range(top + 1):
            rec(i + 1, left - a, (*acc, a))

    rec(0, n, ())
    return tuple(out)


def _multinomial(n: int, parts: Sequence[int]) -> int:
    out, left = 1, n
    for a in parts:
        out *= comb(left, a)
        left -= a
    return out


class Dealer:
    """Deal ``cards`` to ``seats`` (the hidden hands), ``caps[i]`` each, each card only to the seats its mask
    allows: exactly uniform among those deals. The cards are grouped by mask; the deals are counted group by group
    (memoised on the capacities left), and a deal is drawn group by group in proportion to its completions."""

    def __init__(self, cards: Sequence[int], masks: Mapping[int, int], caps: Sequence[int]) -> None:
        groups: dict[int, list[int]] = {}
        for c in cards:
            groups.setdefault(masks[c], []).append(c)
        self.groups = sorted(groups.items())
        self.caps = tuple(caps)
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.choices: dict[tuple[int, tuple[int, ...]], list[tuple[int, tuple[int, ...]]]] = {}
        if sum(caps) != len(cards) or self.count(0, self.caps) == 0:
            raise RecordError("no deal of the hidden cards fits the view")

    def count(self, g: int, caps: tuple[int, ...]) -> int:
        if g == len(self.groups):
            return 1 if not any(caps) else 0
        key = (g, caps)
        if key not in self.memo:
            mask, cards = self.groups[g]
            total = 0
            options = []
            for split in _splits(len(cards), caps, mask):
                rest = tuple(c - a for c, a in zip(caps, split, strict=True))
                ways = _multinomial(len(cards), split) * self.count(g + 1, rest)
                if ways:
                    total += ways
                    options.append((total, split))
            self.memo[key] = total
            self.choices[key] = options
        return self.memo[key]

    def deal(self, rng: random.Random) -> list[list[int]]:
        hands: list[list[int]] = [[] for _ in self.caps]
        caps = self.caps
        for g, (_, cards) in enumerate(self.groups):
            total = self.count(g, caps)
            pick = rng.randrange(total)
            split = next(s for upto, s in self.choices[g, caps] if pick < upto)
            order = cards[:]
            rng.shuffle(order)
            k = 0
            for i, a in enumerate(split):
                hands[i].extend(order[k:k + a])
                k += a
            caps = tuple(c - a for c, a in zip(caps, split, strict=True))
        return hands


def deal_order(hands: Sequence[Sequence[int]] | Mapping[int, Sequence[int]], receivers: Sequence[int]) -> list[int]:
    """The shuffled deck that deals ``hands[seat]`` (in order) one card at a time to ``receivers`` in turn."""
    m = len(receivers)
    per = len(hands[receivers[0]])
    return [hands[receivers[k % m]][k // m] for k in range(per * m)]
