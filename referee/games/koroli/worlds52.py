"""Worlds from a seat's view for ``koroli52`` (:mod:`.worlds` says what is hidden, what a seat infers and how a
world is built; this module holds what only ``koroli52`` reads: the 3-seat deck, the exchanges, the bargain and the
named trump)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from protocol.actions import Action

from ...engine import Game, State, View
from ...errors import RecordError
from ...rng import SplitMix64
from ..cards import bits, tables
from ..deals import deal_order
from . import koroli52 as k52
from .koroli52 import Koroli52State
from .worlds import _Base, _card, _Deal, _mask

__all__ = ["Koroli52Worlds"]


class Koroli52Worlds(_Base):
    """The worlds of a ``koroli52`` seat's view (module docstring): everything is public but the hands (K52-18)."""

    def __init__(self, game: Game, seats: int, seat: int, view: View,
                 options: Mapping[str, object] | None = None) -> None:
        deck: Any = game.deck
        self.texts = deck.texts
        self.index = {t: i for i, t in enumerate(deck.texts)}
        if seats == 3:
            del self.index[deck.texts[k52.REMOVED_3P]]  # K52-2: 2C is not in a 3-seat game
        self.ranks = deck.ranks_per_suit
        self.by_card = tables(deck, ("play",)).by_card
        self._read(game, seats, seat, view, options)

    def _new(self, seed: int, orders: list[list[int]]) -> State:
        return Koroli52State(self.game, self.seats, seed, self.options, 0,  # type: ignore[arg-type]
                             deck_orders=orders)

    def _parse(self, indexed: list[tuple[int, Mapping[str, Any]]], view: View) -> list[_Deal]:
        deals: list[_Deal] = []
        me, card = self.seat, self.index
        play = self.by_card["play"]
        suits = {a.args[0]: a for a in k52.NAME_TRUMPS}
        for _, e in indexed:
            kind = e["type"]
            if kind == "tour":
                deals.append(_Deal(range(self.seats), None, None))
                continue
            if not deals:
                raise RecordError(f"koroli52: a {kind} event before the first tour")
            deal = deals[-1]
            if kind == "hand" and e["seat"] == me:
                deal.hand = _mask(card, e["cards"])
                deal.known[me] = deal.hand
            elif kind == "trump":
                suit = e["suit"]
                deal.trump = None if suit == "none" else "CDHS".index(suit)
                if e.get("seat") is not None:
                    deal.actions.append(suits[suit])
                else:
                    deal.tour1_trump = deal.trump
            elif kind == "exchange":
                deal.actions.append(k52.EXCHANGE_TO[int(e["target"])])
            elif kind == "pass":
                deal.actions.append(k52.PASS)
            elif kind == "bargain":
                deal.actions.append(k52.BARGAINS[int(e["tricks"])])
            elif kind == "accept":
                deal.actions.append(k52.ACCEPT)
            elif kind == "refuse":
                deal.actions.append(k52.REFUSE)
            elif kind == "swap":
                a, b = (int(s) for s in e["seats"])
                blocks = deal.block_of
                blocks[a], blocks[b] = blocks[b], blocks[a]
            elif kind == "received" and e["seat"] == me:
                deal.known[deal.block_of[me]] = _mask(card, e["cards"])
            elif kind == "play":
                c = _card(card, e["card"])
                deal.plays.append((int(e["seat"]), c))
                deal.actions.append(play[c])
        return deals

    def _prefix_seed(self) -> int:
        return self._trump_seed(self.deals[0], random.Random(0))

    def _trump_seed(self, deal: _Deal, rng: random.Random) -> int:
        """K52-8: a seed whose first draw (the tour-1 shuffle being a hand-made order) names the tour-1 trump."""
        want = deal.tour1_trump
        if want is None:
            raise RecordError("koroli52: tour 1 shows no trump")
        for _ in range(10_000):
            seed = rng.getrandbits(64)
            if SplitMix64(seed).randbelow(4) == want:
                return seed
        raise RecordError("koroli52: no seed draws the tour-1 trump")  # pragma: no cover - (3/4)^10000

    def _seed(self, rng: random.Random) -> int:
        if self.prefix is None:
            return self._trump_seed(self.deals[0], rng)
        return rng.getrandbits(64)

    def _possible(self, deal: _Deal) -> list[int]:
        blocks, known = deal.block_of, deal.known
        unknown = sum(1 << s for s in range(self.seats) if blocks[s] not in known)
        poss = [0] * len(self.texts)
        for c in self.index.values():
            poss[c] = unknown
        for s in range(self.seats):
            if blocks[s] in known:
                for c in bits(known[blocks[s]]):
                    poss[c] = 1 << s
        self._play_voids(deal, poss, 0, True)
        return poss

    def _dealt(self, deal: _Deal, post: list[int], rng: random.Random) -> tuple[list[int], dict[int, int]] | None:
        blocks = deal.block_of
        dealt = [0] * self.seats
        for s in range(self.seats):
            dealt[blocks[s]] = post[s]
        if deal.hand is not None and dealt[self.seat] != deal.hand:
            return None
        return dealt, {}

    def _deal_order(self, deal: _Deal, dealt: list[int]) -> list[int]:
        return deal_order({s: bits(dealt[s]) for s in range(self.seats)}, range(self.seats))

    def _blank(self, deal: _Deal, step: int, card: int) -> Action:  # pragma: no cover - koroli52 hides no action
        raise RecordError("koroli52: no action is hidden")
