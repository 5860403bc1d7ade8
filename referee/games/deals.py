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
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

__all__ = ["Musts", "place", "match", "repair", "witnessed", "solve"]

#: The "one of these holds" constraints: each a list of (card, slots the card may take to make it true).
Musts = Sequence[Sequence[tuple[int, int]]]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


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
    options = {c: _bits(m) for c, m in allowed.items()}
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
