"""Sampling worlds from a seat's view for the Kozel games (``Game.worlds``, docs/ENGINE.md "Sampling worlds").

A world is built by replaying the seat's history through the engine itself, on a deal chosen to fit it: a hand-made
deck order for every shuffle so far (``deck_orders``), a seed drawn from the caller's ``rng`` for any later shuffle,
the dealer of the view's first ``deal`` event, then the actions the events show, in order, with the hidden ones (the
other seats' private ``pass`` of a redeal offer, KH-8, KN-15) put back where the rules need them. A world so built
obeys every rule by construction; the sampler's job is to choose deals for which the replay is legal.

What a seat knows and infers, per shuffle (a deal or a redeal):

- ``kozel`` (KO-6, KO-10, KO-15): its own four cards and its draws, the face-up trump card (and who draws it), every
  card played with its player and trick. Nobody has to follow suit (KO-8), so a play shows only that the card was in
  the player's hand then: dealt to him, or drawn by him before that trick. The order's positions are slots (the
  first 4n cards the hands, the next the trump card, the rest the stock, drawn in order in the public draw order);
  the played cards of each other player are matched to his slots available by then (in time order, which always
  succeeds when the view is possible), and the cards nobody has shown are dealt uniformly over the remaining slots
  (the other hands now and the stock). Which of his slots a played card came from changes nothing now, so the worlds
  are uniform among the deals that fit.
- ``kozel-hvaleny`` and ``kozel-nn`` (9 cards each, no stock): the cards each player played were his; a player who
  did not follow the led effective suit holds none of it (KH-10, KN-10); a leader who led a trump while holding a
  non-trump is impossible, so he holds only trumps (KN-9); a void player who discarded an ace of a suit not led yet
  held only such aces (KH-11); the first leader of deal 1 holds ``AD`` until he leads it (KN-8); an eligible team
  holds none of ``QC`` ``QS`` ``QH`` and a team not eligible holds one (KN-15); a seat that demanded a redeal had at
  most 13 points (KH-8). Each card the seat has not seen gets the set of seats that may hold it; the deal is drawn
  exactly uniformly among the assignments that respect those sets and the hand sizes (the assignments counted by
  groups of cards with the same set), and the team-wide conditions (a team holds a queen; some seat may be making
  the open offer) by bounded rejection on top, which keeps it uniform.
- Shuffles that are over (deals played out or redealt) are dealt once per :class:`Worlds`, at random among those that
  fit: they cannot change the present, only make the replay legal.

Where the view cannot tell, the sampler chooses: while a redeal offer is open, the other seats do not see who is
being asked (KH: not even that an offer is open; KN: the queue is public, its passes private); the world asks a
seat drawn at random among those that can be asked (in KN the seat itself when it has not answered yet, since a bot
is asked only at its own decisions).

Boasting (``kozel-nn`` with ``boasting``, KN-20): the seat knows its own pairs and fill, every card laid face up, the
boaster's face-down cards once revealed, and how many pairs and fill cards each player got (their positions in the
deck follow: pair j is the j-th card from the bottom and from the top, the fill continues from the top). The unseen
cards are dealt as above over the other hands, the stock and the boaster's face-down cards (non-trumps); then each
hand is split between its pairs and its fill so that its pairs follow KN-20 (a pair is given while the hand holds
fewer non-trumps than the stacks: every pair before the last two trumps, or one non-trump early with two stacks),
rejecting a deal with no such split. How many of a hand's non-trumps came with its pairs is drawn in proportion to
the ways to choose them, not to the ways to order the pairs: there the sampler is only approximately uniform. A "keep"
(KN-24) is a shuffle of the hand cards like a deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, cast

from protocol.actions import Action

from ...engine import Game, State, View, Worlds
from ...errors import IllegalActionError, RecordError
from ...rng import SplitMix64
from ..cards import tables
from ..seatview import Fail, card_of, read_view
from .base import REDEAL
from .kozel import HAND, KOZEL_DECK, REMOVED_3P, KozelState
from .team import DEMAND_REDEAL, PASS

__all__ = ["kozel_worlds"]

TRIES = 40  # bounded retries of a whole world whose replay fails (never expected: a bug would show here)


def _view_events(view: View, game: Game, seats: int, seat: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The view's events in order and its last observation; RecordError when the view is not this game's."""
    events, _, last = read_view(view, game.id, seats, seat, _fail(game))
    return cast(list[dict[str, Any]], events), dict(last)


def _fail(game: Game) -> Fail:
    return lambda why: RecordError(f"{game.id}: {why}")


def _card(index: Mapping[str, int], text: Any, game: Game) -> int:
    return card_of(index, text, _fail(game))


class _Replay(Worlds):
    """What the three samplers share: the replay of the visible actions on a state made from chosen deck orders,
    the hidden redeal passes put back, and a check, once, that the view replays to exactly what the seat saw."""

    game: Game
    seats: int
    seat: int
    options: Mapping[str, Any]
    dealer: int
    actions: list[tuple[int, Action]]  # (seat, action) as the events show them, in order

    #: The index in :attr:`actions` of the action that deals the last shuffle (None: the first deal is the last).
    trigger: int | None = None

    def _finish_init(self, expected: dict[str, Any]) -> None:
        """Replay the history up to the last shuffle once (the past is dealt once, see the module docstring), so
        that a sample replays only the present deal from a copy; then check that the view replays exactly."""
        self.prefix: Any = None
        if self.trigger is not None:
            orders, _, actions = self._orders(random.Random(0))
            prefix = self._state(0, orders[:-1])
            if not self._replay(prefix, None, actions, stop=self.trigger):
                raise RecordError(f"{self.game.id}: the view does not replay: its past deals do not fit")
            self.prefix = prefix
        world = self.sample(random.Random(0x5EA7))
        if world.observe(self.seat, 0) != expected:
            raise RecordError(f"{self.game.id}: the view does not replay: no deal fits what seat {self.seat} saw")

    def _state(self, seed: int, orders: list[list[int]]) -> Any:
        raise NotImplementedError

    def _orders(self, rng: random.Random) -> tuple[list[list[int]], int | None, list[tuple[int, Action]]]:
        """The deck orders of one world, the seat being asked at an open offer (None: no hidden offer) and the
        actions to replay (the view's, with a hidden choice made)."""
        raise NotImplementedError

    def sample(self, rng: random.Random) -> State:
        for _ in range(TRIES):
            orders, asked, actions = self._orders(rng)
            seed = rng.getrandbits(64)
            if self.prefix is None:
                state, start = self._state(seed, orders), 0
            else:  # the past as replayed once; the last shuffle from this world's order, later ones from its seed
                assert self.trigger is not None
                state, start = self.prefix.clone(), self.trigger
                state.orders = [orders[-1]]
                state.seed = seed
                state.rng = SplitMix64(seed)
            if self._replay(state, asked, actions, start):
                return state
        raise RecordError(f"{self.game.id}: no sampled deal replays seat {self.seat}'s view")

    def _replay(self, state: Any, asked: int | None, actions: list[tuple[int, Action]], start: int = 0,
                stop: int | None = None) -> bool:
        """Apply ``actions[start:]`` (up to ``stop``, excluded) with the hidden passes; whether they all fit."""
        me = self.seat
        try:
            for k in range(start, len(actions)):
                who, action = actions[k]
                while state.phase == REDEAL and state.to_act != me and not (action is DEMAND_REDEAL
                                                                            and state.to_act == who):
                    state.apply(PASS)  # KH-8, KN-15: a private pass the seat does not see
                if k == stop:
                    return True
                if state.to_act != who:
                    return False
                state.apply(action)
            while state.phase == REDEAL and state.to_act != me and state.to_act != asked:
                state.apply(PASS)
        except IllegalActionError:
            return False
        return asked is None or state.to_act == asked


# ---------------------------------------------------------------------------------------------------- kozel


class _KozelWorlds(_Replay):
    """``kozel``: slots of the deck order per deal, the played cards matched to their players' slots (module
    docstring). Uniform among the deals that fit."""

    def __init__(self, game: Game, seats: int, seat: int, view: View, options: Mapping[str, Any]) -> None:
        self.game, self.seats, self.seat, self.options = game, seats, seat, options
        events, last = _view_events(view, game, seats, seat)
        texts = KOZEL_DECK.texts
        index = {t: i for i, t in enumerate(texts)}
        removed = {index[t] for t in REMOVED_3P} if seats == 3 else set()
        deck = [i for i in range(len(texts)) if i not in removed]
        size = len(deck)
        play = tables(KOZEL_DECK, ("play",)).by_card["play"]
        n = seats
        self.actions = []
        self.fixed: list[list[int]] = []  # per deal: the order, -1 where a card is still to be dealt
        self.free: list[int] = []  # positions of the last deal to deal at random
        self.unknown: list[int] = []  # the cards to deal there
        deals: list[dict[str, Any]] = []
        cur: dict[str, Any] = {}
        for ev in events:
            kind = ev.get("type")
            if kind == "deal":
                cur = {"dealer": ev.get("dealer"), "order": [-1] * size, "draws": 0, "tricks": 0,
                       "slots": {s: [] for s in range(n)}, "played": {s: [] for s in range(n)}}
                if not isinstance(cur["dealer"], int) or not 0 <= cur["dealer"] < n:
                    raise RecordError(f"kozel: a deal event names no dealer: {ev}")
                if deals:
                    self.trigger = len(self.actions) - 1  # the last play of the deal before
                deals.append(cur)
                d = cur["dealer"]
                for k in range(HAND * n):
                    cur["slots"][(d + 1 + k) % n].append((k, 0))
            elif not deals:
                raise RecordError("kozel: an event before the first deal")
            elif kind == "hand":
                cards = [_card(index, c, game) for c in ev.get("cards", ())]
                mine = [k for k, _ in cur["slots"][seat]]
                if ev.get("seat") != seat or len(cards) != len(mine):
                    raise RecordError(f"kozel: a hand event that is not seat {seat}'s four cards: {ev}")
                for k, c in zip(mine, cards, strict=True):
                    cur["order"][k] = c
                cur["slots"][seat] = []
            elif kind == "trump":
                cur["order"][HAND * n] = _card(index, ev.get("card"), game)  # KO-6: face up, drawn last
            elif kind == "draw":
                who = ev.get("seat")
                if not isinstance(who, int) or not 0 <= who < n:
                    raise RecordError(f"kozel: a draw by no seat: {ev}")
                if cur["draws"] >= size - HAND * n:
                    raise RecordError("kozel: more draws than the stock holds")
                # KO-6, KO-10: the stock is drawn in the order dealt, the face-up trump card (next after the hands)
                # last
                pos = HAND * n + (1 + cur["draws"]) % (size - HAND * n)
                cur["draws"] += 1
                if ev.get("cards"):
                    shown = _card(index, ev["cards"][0], game)
                    if pos == HAND * n and cur["order"][pos] != shown:
                        raise RecordError("kozel: the last draw is not the face-up trump card")
                    cur["order"][pos] = shown
                elif who == seat:
                    raise RecordError(f"kozel: seat {seat}'s own draw shows no card")
                else:
                    cur["slots"][who].append((pos, cur["tricks"]))
            elif kind == "play":
                who = ev.get("seat")
                c = _card(index, ev.get("card"), game)
                if not isinstance(who, int) or not 0 <= who < n:
                    raise RecordError(f"kozel: a play by no seat: {ev}")
                cur["played"][who].append((cur["tricks"], c))
                self.actions.append((who, play[c]))
            elif kind == "trick":
                cur["tricks"] += 1
        shown_cards: set[int] = set()
        for k, deal in enumerate(deals):
            order = deal["order"]
            known = {c for c in order if c >= 0}
            for who in range(n):
                if who == seat:
                    continue
                free = sorted(deal["slots"][who], key=lambda slot: slot[1])
                for time, c in sorted(deal["played"][who]):
                    if c in known:  # the trump card he drew (KO-15), already in its place
                        continue
                    fits = [slot for slot in free if slot[1] <= time]
                    if not fits:
                        raise RecordError(f"kozel: seat {who} plays {texts[c]} in deal {k + 1}, which he cannot "
                                          f"hold then")
                    free.remove(fits[0])
                    order[fits[0][0]] = c
                    known.add(c)
            if k == len(deals) - 1:
                shown_cards = {c for c in order if c >= 0}
                self.free = [p for p, c in enumerate(order) if c < 0]
                self.unknown = [c for c in deck if c not in shown_cards]
                if len(self.free) != len(self.unknown) or len(shown_cards) != size - len(self.free):
                    raise RecordError(f"kozel: the view shows a card twice or one that is not in the deck "
                                      f"(deal {k + 1})")
            elif sorted(order) != deck:
                raise RecordError(f"kozel: deal {k + 1} is over but its cards do not add up")
            self.fixed.append(order)
        self.dealer = deals[0]["dealer"]
        self._finish_init(dict(last, events=events))

    def _orders(self, rng: random.Random) -> tuple[list[list[int]], int | None, list[tuple[int, Action]]]:
        cards = self.unknown[:]
        rng.shuffle(cards)
        last = self.fixed[-1][:]
        for p, c in zip(self.free, cards, strict=True):
            last[p] = c
        return [*self.fixed[:-1], last], None, self.actions

    def _state(self, seed: int, orders: list[list[int]]) -> Any:
        return KozelState(self.game, self.seats, seed, dict(self.options), self.dealer,  # type: ignore[arg-type]
                          deck_orders=orders)


def kozel_worlds(game: Game, seats: int, seat: int, view: View, options: Mapping[str, Any]) -> Worlds:
    """The worlds of seat ``seat`` of a ``kozel`` game (module docstring); RecordError if the view does not fit."""
    return _KozelWorlds(game, seats, seat, view, options)
