"""The solvers that deal the unseen cards (referee/games/deals.py), each against exhaustive enumeration on small
cases: it finds a deal exactly when one exists, every deal it draws fits, every deal that fits is drawn, and where
it promises uniform draws the frequencies are uniform.

The samplers built on them are tested on real views in test_worlds_*.py and test_sampling.py.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from referee.errors import RecordError
from referee.games.deals import Dealer, deal_hidden, match, place, repair, solve, witnessed

Placement = tuple[int, ...]  # the slot of each card, cards 0 … n-1


def placements(allowed: dict[int, int], musts: Sequence[Sequence[tuple[int, int]]], n: int) -> set[Placement]:
    """Every placement of cards 0 … n-1 in slots 0 … n-1 that keeps each card to its allowed slots and meets every
    must."""
    out = set()
    for perm in itertools.permutations(range(n)):
        if all(allowed[c] >> perm[c] & 1 for c in range(n)) and \
                all(any(1 << perm[c] & slots for c, slots in pairs) for pairs in musts):
            out.add(perm)
    return out


def as_tuple(placed: dict[int, int] | None, n: int) -> Placement | None:
    return None if placed is None else tuple(placed[c] for c in range(n))


def problem(rng: random.Random, n: int, musts: int) -> tuple[dict[int, int], list[list[tuple[int, int]]]]:
    """A random problem: each card allowed a random set of slots, and ``musts`` musts of one to three pairs."""
    full = (1 << n) - 1
    allowed = {c: rng.randrange(1, full + 1) | (1 << rng.randrange(n)) for c in range(n)}
    out = []
    for _ in range(musts):
        pairs = []
        for c in rng.sample(range(n), rng.randint(1, 3)):
            slots = allowed[c] & rng.randrange(1, full + 1)
            if slots:
                pairs.append((c, slots))
        if pairs:
            out.append(pairs)
    return allowed, out


def draws(fn: Callable[[random.Random], Placement | None], times: int, seed: int = 0) -> Counter[Placement | None]:
    rng = random.Random(seed)
    return Counter(fn(rng) for _ in range(times))


CASES = [problem(random.Random(k), 5, k % 4) for k in range(40)]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_solve_finds_a_placement_exactly_when_one_exists_and_can_draw_every_one(k: int) -> None:
    allowed, musts = CASES[k]
    every = placements(allowed, musts, 5)
    for fn in (lambda rng: solve(allowed, musts, 5, rng, tries=3, swaps=20), lambda rng: witnessed(allowed, musts,
                                                                                                    5, rng)):
        seen = draws(lambda rng, fn=fn: as_tuple(fn(rng), 5), 60 * max(1, len(every)) + 40)
        if not every:
            assert set(seen) == {None}
        else:
            assert set(seen) == every  # each draw fits, and each placement that fits is drawn


def test_a_must_that_two_card_swaps_cannot_meet_is_met() -> None:
    """The issue-36 shape: cards 0 and 1 fill slots 0 and 1, card 2 must be in one of them, and neither may go
    where card 2 is: a swap of two cards cannot help (:func:`repair` is stuck, three cards must move), the witness
    search can."""
    allowed = {0: 0b0111, 1: 0b0111, 2: 0b1011, 3: 0b1100}
    musts = [[(2, 0b0011)]]
    stuck = {0: 0, 1: 1, 2: 3, 3: 2}
    assert not repair(dict(stuck), allowed, musts, random.Random(0), 1000)
    every = placements(allowed, musts, 4)
    assert len(every) == 4
    seen = draws(lambda rng: as_tuple(solve(allowed, musts, 4, rng, tries=2, swaps=10), 4), 400)
    assert set(seen) == every


LAMINAR = [  # allowed sets that nest: any two disjoint or one inside the other
    {0: 0b00011, 1: 0b00011, 2: 0b11111, 3: 0b01111, 4: 0b11111},
    {0: 0b00001, 1: 0b00111, 2: 0b00111, 3: 0b11111, 4: 0b11000},
    {0: 0b11111, 1: 0b11111, 2: 0b11111, 3: 0b11111, 4: 0b11111},
]


@pytest.mark.parametrize("allowed", LAMINAR)
def test_place_is_uniform_when_the_allowed_sets_nest(allowed: dict[int, int]) -> None:
    every = placements(allowed, [], 5)
    per = 300
    seen = draws(lambda rng: as_tuple(place(allowed, 5, rng), 5), per * len(every))
    assert set(seen) == every
    for count in seen.values():  # each within five standard deviations of its share
        assert abs(count - per) < 5 * per ** 0.5


def test_match_finds_a_placement_whenever_one_exists() -> None:
    for allowed, _ in CASES:
        assert (match(allowed, None) is None) == (not placements(allowed, [], 5))


def holder_deals(cards: Sequence[int], allowed: Sequence[int], room: Sequence[int]) -> set[tuple[int, ...]]:
    """Every deal of ``cards`` to the holders (one card mask per holder) with ``room[k]`` cards each, each card to a
    holder of its mask."""
    out = set()
    for who in itertools.product(range(len(room)), repeat=len(cards)):
        if all(allowed[i] >> k & 1 for i, k in enumerate(who)) and \
                all(who.count(k) == room[k] for k in range(len(room))):
            out.add(tuple(sum(1 << c for c, w in zip(cards, who, strict=True) if w == k) for k in range(len(room))))
    return out


HOLDER_CASES = [([0, 1, 2, 3, 4, 5], [0b001, 0b011, 0b110, 0b111, 0b101, 0b111], [2, 2, 2]),
                ([0, 1, 2, 3, 4, 5], [0b011, 0b011, 0b011, 0b100, 0b111, 0b111], [1, 2, 3]),
                ([0, 1, 2, 3, 4, 5], [0b001, 0b001, 0b001, 0b110, 0b111, 0b111], [2, 2, 2]),  # none fits
                ([3, 5, 7, 8, 9], [0b11, 0b10, 0b11, 0b01, 0b11], [2, 3])]


@pytest.mark.parametrize(("cards", "allowed", "room"), HOLDER_CASES)
def test_deal_hidden_draws_every_deal_that_fits_and_nothing_else(cards: list[int], allowed: list[int],
                                                                 room: list[int]) -> None:
    every = holder_deals(cards, allowed, room)
    seen = draws(lambda rng: (lambda h: None if h is None else tuple(h))(deal_hidden(cards, allowed, room, rng)),
                 40 * max(1, len(every)))
    assert set(seen) == (every or {None})


@pytest.mark.parametrize(("cards", "allowed", "room"), HOLDER_CASES)
def test_the_dealer_is_exactly_uniform_over_the_deals_that_fit(cards: list[int], allowed: list[int],
                                                               room: list[int]) -> None:
    every = holder_deals(cards, allowed, room)
    masks = dict(zip(cards, allowed, strict=True))
    if not every:
        with pytest.raises(RecordError):
            Dealer(cards, masks, room)
        return
    dealer = Dealer(cards, masks, room)
    assert dealer.count(0, dealer.caps) == len(every)  # the count is exact
    per = 200
    seen = draws(lambda rng: tuple(sum(1 << c for c in hand) for hand in dealer.deal(rng)), per * len(every))
    assert set(seen) == every
    for count in seen.values():
        assert abs(count - per) < 5 * per ** 0.5
