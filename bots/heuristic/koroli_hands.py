"""What a hand is worth to the ``heuristic`` bot in ``koroli`` and ``koroli52``, and the decisions made from that.

A hand is valued by a quick expected-tricks count (honours by how many higher cards are out, long trumps, long
suits in no-trump, ruffs with spare trumps), scaled so that an average hand is worth its share of the tricks. That
value drives the ``koroli`` levy (take the card that adds most, give back the one that costs least) and the
``koroli52`` table talk: swap the whole hand when it is worth less than the target's is likely to be (a hand
someone just gave away is likely weak; a hand we held is known), name the trump that makes the hand worth most
(no-trump with a flat strong hand), offer tricks to keep a hand worth much more than the asker's, and accept an
offer that pays at least what the swap is likely to gain (an offer signals a good hand).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action

from .koroli_memory import _SUIT, ACE, SeatMemory, _action_card, _code, _deck

__all__ = ["BASELINES", "expected_tricks", "measure_baseline"]

#: Honour tricks in the hand valuation, by the number of higher cards held by others.
HONOR = (1.0, 0.55, 0.3, 0.12, 0.04)
#: koroli52 table talk, in tricks.
SWAP_MARGIN = 0.0  # swap for a hand likely better than ours (measured: larger margins lose tricks)
REJECTED = 0.75  # a hand its holder just gave away is that much weaker than an average one
ASKER_WEAK = 0.75  # an asker wants to give his hand away: it is likely weak
#: Bargaining meets adverse selection: an offer is accepted when it overpays, and a target offers when his hand
#: is strong. Measured in self-play (rollouts of every answer), offers pay only when the swap would cost much,
#: and an asker gains by accepting only what beats the swap by a wide margin.
OFFER_FROM = 3.0  # offer tricks only when the swap would cost at least this much; offer this much less one
OFFER_STRONG = 2.5  # a target who offers tricks to keep his hand likely holds a good one
#: No-trump is worth about as much as the best suit to a flat hand, more than the count says, for the King
#: leads every trick (K52-14): a flat hand with at least this many aces and kings names it.
FLAT_HONOURS = 5
FLAT_NO_TRUMP = 0.8


# ----------------------------------------------------------------------------------------- hand value


def expected_tricks(hand: Iterable[int], trump: int | None, seats: int, deck: frozenset[int]) -> float:
    """A quick count of the tricks ``hand`` (card codes) should take with ``trump`` (None: no-trump) among
    ``seats`` players who share ``deck``: honours by how many higher cards the others hold (plain ones
    discounted for ruffs in the later rounds), long trumps and, in no-trump, long suits, and ruffs with the
    spare trumps in short plain suits. Unscaled: compare values of the same game and seat count."""
    by_suit: list[list[int]] = [[], [], [], []]
    for c in hand:
        by_suit[c >> 4].append(c & 15)
    sizes = _suit_sizes(deck)
    others = max(1, seats - 1)
    total = 0.0
    spare = 0.0
    short = 0.0
    for s in range(4):
        mine = sorted(by_suit[s], reverse=True)
        length = len(mine)
        avg = (sizes[s] - length) / others  # the others' mean length in the suit
        plain = trump is not None and s != trump
        tricks = 0.0
        for i, rank in enumerate(mine):
            higher = ACE - rank - i  # higher cards of the suit held by the others
            if higher >= len(HONOR):
                continue
            p = HONOR[higher]
            if length <= higher:
                p *= 0.5
            if plain:
                k = max(i, higher) + 1  # the round in which it can win
                p *= min(1.0, max(0.15, 0.5 + (avg - k + 0.5) / 2))
            tricks += p
        if not plain:
            extra = length - (avg + 1.0)
            if extra > 0:
                tricks += extra * (0.8 if s == trump else 0.5)
        tricks = min(tricks, float(length))
        if s == trump:
            spare = length - tricks
        elif plain:
            short += max(0.0, sizes[s] / seats - length)
        total += tricks
    if trump is not None:
        total += 0.5 * min(spare, short)
    return total


@cache
def _suit_sizes(deck: frozenset[int]) -> tuple[int, ...]:
    return tuple(sum(1 for c in deck if c >> 4 == s) for s in range(4))


def _hand_values(hand: Sequence[int], seats: int, deck: frozenset[int]) -> tuple[float, float]:
    """(mean over the four trump suits, best of the four suits and no-trump), unscaled."""
    values = [expected_tricks(hand, t, seats, deck) for t in (0, 1, 2, 3, None)]
    return sum(values[:4]) / 4, max(values)


#: koroli52, per seat count: (scale, average hand, average hand for a King who names its trump), in tricks.
#: The scale makes the mean value of a random hand its share of the tricks. Measured by :func:`measure_baseline`
#: (a test checks them), kept here so that no decision pays for measuring.
BASELINES = {3: (1.19304, 17 / 3, 7.24649), 4: (0.98967, 13 / 4, 4.32718)}


def measure_baseline(seats: int, deals: int = 300) -> tuple[float, float, float]:
    """:data:`BASELINES` for ``seats``, measured over ``deals`` fixed random deals."""
    deck = _deck("koroli52", seats)
    cards = sorted(deck)
    size = len(cards) // seats
    rng = random.Random(52)
    means, bests = [], []
    for _ in range(deals):
        rng.shuffle(cards)
        for k in range(seats):
            mean, best = _hand_values(cards[k * size:(k + 1) * size], seats, deck)
            means.append(mean)
            bests.append(best)
    scale = size / seats / (sum(means) / len(means))
    return scale, size / seats, scale * sum(bests) / len(bests)


@cache
def _baseline(seats: int) -> tuple[float, float, float]:
    return BASELINES.get(seats) or measure_baseline(seats)


def _value52(hand: Sequence[int], seats: int, king: bool) -> float:
    """The expected tricks of a koroli52 hand: the King names the trump that suits it best (K52-12); anyone
    else does not know the trump yet and gets the mean over the suits."""
    scale = _baseline(seats)[0]
    mean, best = _hand_values(hand, seats, _deck("koroli52", seats))
    return scale * (best if king else mean)


# ------------------------------------------------------------------------------------------- koroli levy


def _take_card(legal: Sequence[Action], obs: dict[str, Any]) -> Action:
    """KR-12: take the Peasant's card that adds most to our hand and costs him most."""
    trump = _SUIT[obs["trump"]]
    deck = _deck("koroli", 4)
    hand = [_code(c) for c in obs["hand"]]
    peasant = [_code(c) for c in obs.get("peasant_hand") or ()]
    base = expected_tricks(hand, trump, 4, deck)
    his = expected_tricks(peasant, trump, 4, deck) if peasant else 0.0

    def gain(action: Action) -> tuple[float, int]:
        card = _action_card(action)
        mine = expected_tricks(hand + [card], trump, 4, deck) - base
        lost = his - expected_tricks([c for c in peasant if c != card], trump, 4, deck) if peasant else 0.0
        return mine + 0.5 * lost, card & 15

    return max(legal, key=gain)


def _give(legal: Sequence[Action], obs: dict[str, Any]) -> Action:
    """KR-12: give back the card whose loss costs least (a low card, preferably of a short plain suit)."""
    trump = _SUIT[obs["trump"]]
    deck = _deck("koroli", 4)
    hand = [_code(c) for c in obs["hand"]]
    lengths = [0] * 4
    for c in hand:
        lengths[c >> 4] += 1

    def kept(action: Action) -> tuple[float, int, int, int]:
        card = _action_card(action)
        value = expected_tricks([c for c in hand if c != card], trump, 4, deck)
        return round(value, 6), card >> 4 != trump, -lengths[card >> 4], -(card & 15)

    return max(legal, key=kept)


# ------------------------------------------------------------------------------------ koroli52 table talk


def _titles(obs: dict[str, Any]) -> list[str]:
    return list(obs.get("titles") or [])


def _hand_estimate(seat: int, obs: dict[str, Any], mem: SeatMemory, king: bool) -> float:
    """What ``seat``'s current hand is likely worth to us: exact if we know it (we held it before a swap),
    else an average hand, less if its dealt owner gave it away this tour."""
    seats = obs["seats"]
    known = _known_hand(seat, obs, mem)
    if known:
        return _value52(known, seats, king)
    _, average, king_average = _baseline(seats)
    value = king_average if king else average
    if mem.current(obs.get("tour")) and mem.origin[seat] in mem.rejected:
        value -= REJECTED
    return value


def _known_hand(seat: int, obs: dict[str, Any], mem: SeatMemory) -> list[int]:
    """``seat``'s whole hand if we know it (we held it before a swap), else an empty list."""
    if not mem.current(obs.get("tour")):
        return []
    known = mem.known[seat]
    return sorted(known) if known and len(known) == obs["hand_sizes"][seat] else []


def _exchange(legal: Sequence[Action], obs: dict[str, Any], mem: SeatMemory) -> Action:
    """K52-11: swap with the target whose hand is likely best, if clearly better than ours; else pass."""
    me, seats = obs["seat"], obs["seats"]
    king = _titles(obs)[me] == "King" if obs.get("titles") else False
    hand = [_code(c) for c in obs["hand"]]
    mine = _value52(hand, seats, king)
    totals = obs.get("totals") or [0] * seats
    best: Action | None = None
    best_key = (SWAP_MARGIN, 0)
    for action in legal:
        if action.kind != "exchange":
            continue
        target = int(action.args[0])  # type: ignore[arg-type]
        gain = _hand_estimate(target, obs, mem, king) - mine
        key = (round(gain, 6), totals[target])  # equal hands: swap with the leader, who can also pay most
        if key > best_key:
            best, best_key = action, key
    return best if best is not None else _find(legal, "pass")


def _bargain(legal: Sequence[Action], obs: dict[str, Any], mem: SeatMemory) -> Action:
    """K52-13: offer tricks to keep a hand worth clearly more than the asker's (likely weak) one."""
    seats = obs["seats"]
    asker = (obs.get("bargain") or {}).get("asker")
    hand = [_code(c) for c in obs["hand"]]
    mine = _value52(hand, seats, False)
    if asker is None:
        return _find(legal, "pass")
    theirs = _hand_estimate(asker, obs, mem, False)
    if not _known_hand(asker, obs, mem):
        theirs -= ASKER_WEAK
    loss = mine - theirs
    offers = [a for a in legal if a.kind == "bargain"]
    if loss < OFFER_FROM or not offers:
        return _find(legal, "pass")
    n = max(1, min(len(offers), int(loss - 1.0)))
    return offers[n - 1]


def _bargain_reply(legal: Sequence[Action], obs: dict[str, Any], mem: SeatMemory) -> Action:
    """K52-13: accept an offer that pays at least what the swap is likely to gain."""
    me, seats = obs["seat"], obs["seats"]
    pending = obs.get("bargain") or {}
    target, offer = pending.get("target"), pending.get("offer") or 0
    king = _titles(obs)[me] == "King" if obs.get("titles") else False
    hand = [_code(c) for c in obs["hand"]]
    mine = _value52(hand, seats, king)
    if target is None:
        return _find(legal, "accept")
    theirs = _hand_estimate(target, obs, mem, king)
    if not _known_hand(target, obs, mem):
        theirs += OFFER_STRONG
    return _find(legal, "accept") if offer + 0.25 >= theirs - mine else _find(legal, "refuse")


def _name_trump(legal: Sequence[Action], obs: dict[str, Any]) -> Action:
    """K52-12: the suit that makes the hand worth most (on a tie the longer suit); no-trump with a flat strong
    hand, or when it is simply worth more."""
    seats = obs["seats"]
    deck = _deck("koroli52", seats)
    hand = [_code(c) for c in obs["hand"]]
    lengths = [0] * 4
    for c in hand:
        lengths[c >> 4] += 1
    quarter = len(hand) / 4
    flat = max(lengths) <= quarter + 1 and min(lengths) >= quarter - 1.25
    honours = sum(1 for c in hand if c & 15 >= ACE - 1)
    best, best_value = legal[0], -1e9
    for action in legal:
        trump = _SUIT.get(str(action.args[0]))
        value = expected_tricks(hand, trump, seats, deck)
        if trump is None:
            value += FLAT_NO_TRUMP if flat and honours >= FLAT_HONOURS else 0.0
        else:
            value += 0.001 * lengths[trump]
        if value > best_value:
            best, best_value = action, value
    return best


def _find(legal: Sequence[Action], kind: str) -> Action:
    return next((a for a in legal if a.kind == kind), legal[0])
