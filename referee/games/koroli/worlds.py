"""Worlds from a seat's view for the Kings games ``koroli`` and ``koroli52`` (docs/ENGINE.md, "Sampling worlds";
issue 17).

**What is hidden.** Every deal of ``koroli`` (KR-19) and every tour of ``koroli52`` (K52-19) is a fresh shuffle, and
each is played to its last card, so a finished deal hides almost nothing: a player's hand was the cards he played,
less and plus what moved before the play (the levies of ``koroli``, KR-12, KR-13; the public whole-hand swaps of
``koroli52``, K52-11). What a seat cannot see is the deal in play: the other hands, and in ``koroli``'s reign the
levy cards it did not see (which trump the King took, unless it was the shown trump card, KR-18; what he gave; the
Prince's levy and give), and of a finished reign deal only which cards those levies moved between the others.

**What a seat infers.** A card's possible holders start as the players of the deal but the seat (its own hand is
exact); the shown trump card is the dealer's (KR-7, KR-11); a card handed over in its sight is the receiver's; a
card handed over unseen may have gone from the giver to the receiver; a hand received in a swap (K52-18) and the
hand a seat gave away are known as wholes, and follow the public swaps. In play, a player who does not follow the led
suit holds none of it (KR-8, K52-5), one who then does not trump holds no trump (K52-5), and a leader of trick 1 or 2
who leads no trump holds none (KR-8, KR-14); while a free levy is pending (phase ``levy_take``) the Peasant holds no
trump (KR-13). No card moves once the play has begun, so these voids hold to the end
of the deal. The levy rules (the King gets the Peasant's highest trump; the Prince the highest remaining one, or a
free choice when the Peasant has none; nobody gives back the card just taken) are checked when the levies are undone.

**How a world is built (replay).** :meth:`KoroliWorlds.__init__` reads the view once: each deal's actions (the
hidden levy cards as blanks), its public facts, and per card the seats that may hold it now. The finished deals are
replayed once, with one consistent choice of their unseen levy cards (the same in every world: nothing the seat sees
or that follows depends on it), to a prefix state just before the play that ended the last of them. ``sample``
deals the hidden cards of the deal in play to the seats that may hold them (:func:`deal_hidden`), undoes the levies
(a random consistent choice of the unseen cards, :func:`_undo_levies`), rebuilds the deal's shuffle from the dealt
hands, clones the prefix with that order queued and a chance stream seeded from ``rng``, and replays the deal's
actions. A draw whose levies cannot be undone is drawn again (bounded: :data:`MAX_TRIES`).

**Uniformity.** Where only voids and known cards constrain the hidden cards (``koroli``'s introduction, all of
``koroli52``) the deal is near-uniform: cards are placed most constrained first, each to a seat with room chosen with
a weight of its room among those after which the rest still fits. In the reign of ``koroli`` the draw is of the
hands during the play, then the levies are undone by a random consistent choice, so deals with many ways to undo
the levies are not weighted up: approximately uniform.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.actions import Action

from ...engine import Game, State, View, Worlds
from ...errors import IllegalActionError, RecordError
from ...rng import SplitMix64
from ..cards import bits, tables
from ..deals import deal_hidden, deal_order
from ..seatview import card_of, mask_of, read_view
from .koroli import KINDS, KoroliState

__all__ = ["KoroliWorlds", "MAX_TRIES"]

#: Draws of the hidden cards per world before a view is declared not to fit (a dead end is rare: the levies of
#: ``koroli`` may not undo on a drawn deal).
MAX_TRIES = 200


# ---------------------------------------------------------------------------------------------- dealing


# ------------------------------------------------------------------------------------ reading the view


class _Deal:
    """One deal (or tour) as a seat saw it: its actions in order (ints: the blanks of the levy steps the seat did not
    see), the plays by seat, and what the seat knows of each card's holder."""

    def __init__(self, players: Sequence[int], dealer: int | None, trump_card: int | None) -> None:
        self.players = list(players)
        self.dealer = dealer
        self.trump_card = trump_card  # koroli's shown card (KR-7), public
        self.trump: int | None = None  # the trump suit of the play, once known
        self.hand: int | None = None  # the seat's dealt hand
        self.actions: list[Action | int] = []
        self.steps: list[tuple[str, int, bool, int | None]] = []  # koroli levies: (kind, taker, trump, card)
        self.plays: list[tuple[int, int]] = []
        self.peasant_hand: int | None = None  # the Peasant's hand the Prince was shown (KR-12)
        self.reign = False  # koroli: a deal of the reign (with levies)
        self.block_of = list(range(len(self.players)))  # koroli52: seat -> the dealt hand it holds (K52-11)
        self.known: dict[int, int] = {}  # koroli52: dealt hand -> its cards, where the seat knows them
        self.tour1_trump: int | None = None  # koroli52: the trump drawn in tour 1 (K52-8)


def _card(index: Mapping[str, int], text: object) -> int:
    return card_of(index, text, RecordError)  # the game's name is put in front by _Base._read


def _mask(index: Mapping[str, int], texts: object) -> int:
    return mask_of(index, texts, RecordError)


class _Base(Worlds):
    """What both games share: the prefix, the holders of the hidden cards of the deal in play, the replay."""

    game: Game
    seats: int
    seat: int
    options: dict[str, bool | int | str]
    deals: list[_Deal]
    events: list[Mapping[str, Any]]
    last: Mapping[str, Any]
    #: The state just before the action that ended the last finished deal (None: the deal in play is the first).
    prefix: State | None
    trigger: Action | None
    prefix_events: int  # how many of the view's events the prefix shows the seat

    def _read(self, game: Game, seats: int, seat: int, view: View, options: Mapping[str, object] | None) -> None:
        game.check_seats(seats)
        if not 0 <= seat < seats:
            raise RecordError(f"{game.id}: seat {seat} is not a seat of a {seats}-seat game")
        self.game, self.seats, self.seat = game, seats, seat
        self.options = game.configure(options)
        try:
            self.events, origins, self.last = read_view(view, game.id, seats, seat, RecordError, first=None)
            indexed = list(zip(origins, self.events, strict=True))
            self.deals = self._parse(indexed, view)
            if not self.deals:
                raise RecordError(f"{game.id}: the view shows no deal")
            self._build_prefix()
            self._knowledge()
            self._check()
        except RecordError as exc:
            if str(exc).startswith(game.id + ":"):
                raise
            raise RecordError(f"{game.id}: {exc}") from exc
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordError(f"{game.id}: the view does not fit the game: {type(exc).__name__} {exc}") from exc

    def _check(self) -> None:
        """One world must show the seat the view: the deal in play's events and the position now (the finished
        deals were checked with the prefix)."""
        world = self.sample(random.Random(0))
        start = 0 if self.prefix is None else self.prefix.log_size
        shown = 0 if self.prefix is None else self.prefix_events
        now = dict(world.observe(self.seat, world.log_size))
        last = {k: v for k, v in self.last.items() if k != "events"}
        del now["events"]
        if world.events(start, self.seat) != self.events[shown:] or now != last:
            raise RecordError(f"{self.game.id}: the view's deal in play does not replay to what it shows")

    def _parse(self, indexed: list[tuple[int, Mapping[str, Any]]], view: View) -> list[_Deal]:
        raise NotImplementedError

    def _new(self, seed: int, orders: list[list[int]]) -> State:
        raise NotImplementedError

    def _dealt(self, deal: _Deal, post: list[int], rng: random.Random) -> tuple[list[int], dict[int, int]] | None:
        """The dealt hands (and the cards of the blank actions) from the hands ``post`` at the latest levy or swap."""
        raise NotImplementedError

    def _deal_order(self, deal: _Deal, dealt: list[int]) -> list[int]:
        raise NotImplementedError

    def _blank(self, deal: _Deal, step: int, card: int) -> Action:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ prefix

    def _played(self, deal: _Deal) -> list[int]:
        played = [0] * self.seats
        for s, c in deal.plays:
            played[s] |= 1 << c
        return played

    def _build_prefix(self) -> None:
        """Replay the finished deals once (their hands are the cards played), to just before their last play."""
        finished = self.deals[:-1]
        self.prefix, self.trigger = None, None
        if not finished:
            return
        fixed = random.Random(0)
        orders: list[list[int]] = []
        actions: list[Action] = []
        for deal in finished:
            found = self._dealt(deal, self._played(deal), fixed)
            if found is None:
                raise RecordError(f"{self.game.id}: deal {len(orders) + 1} of the view cannot be dealt as played")
            dealt, fills = found
            orders.append(self._deal_order(deal, dealt))
            actions += [self._blank(deal, a, fills[a]) if isinstance(a, int) else a for a in deal.actions]
        state = self._new(self._prefix_seed(), orders)
        _replay(state, actions[:-1], self.game.id)
        seen = state.events(0, self.seat)
        if seen != self.events[:len(seen)]:
            raise RecordError(f"{self.game.id}: the view's finished deals do not replay to what it shows")
        self.prefix, self.trigger, self.prefix_events = state, actions[-1], len(seen)

    def _prefix_seed(self) -> int:
        return 0

    # --------------------------------------------------------------------------------- the deal in play

    def _knowledge(self) -> None:
        """Per hidden card of the deal in play, the seats that may hold it now; the seats' room for them."""
        deal = self.deals[-1]
        me = self.seat
        poss = self._possible(deal)
        sizes = self.last["hand_sizes"]
        self.holders = [s for s in deal.players if s != me]
        slot = {s: k for k, s in enumerate(self.holders)}
        self.fixed = [0] * self.seats
        self.fixed[me] = _mask(self.index, self.last["hand"])
        self.hidden: list[int] = []
        self.allowed: list[int] = []
        for c, p in enumerate(poss):
            if not p or p == 1 << me:
                continue
            if p & (p - 1) == 0:
                self.fixed[p.bit_length() - 1] |= 1 << c
            else:
                self.hidden.append(c)
                self.allowed.append(sum(1 << slot[s] for s in bits(p)))
        if self.fixed[me].bit_count() != sizes[me] or self.fixed[me] & ~_own(poss, me):
            raise RecordError(f"{self.game.id}: the seat's hand does not fit the view's events")
        self.room = [sizes[s] - self.fixed[s].bit_count() for s in self.holders]
        if any(sizes[s] for s in range(self.seats) if s not in deal.players) or min(self.room, default=0) < 0:
            raise RecordError(f"{self.game.id}: the hand sizes do not fit the view's events")
        self.deal_played = self._played(deal)
        if deal_hidden(self.hidden, self.allowed, self.room, random.Random(0)) is None:
            raise RecordError(f"{self.game.id}: no deal of the hidden cards fits the view")

    def _possible(self, deal: _Deal) -> list[int]:
        raise NotImplementedError

    def _play_voids(self, deal: _Deal, poss: list[int], lead_trump_tricks: int, must_trump: bool) -> None:
        """The plays of the deal: each card leaves its player's possible cards (it must have been possible); a player
        who does not follow holds none of the led suit (KR-8, K52-5), nor of the trump when he then must trump and
        does not (K52-5); a leader of the first ``lead_trump_tricks`` tricks who leads no trump holds none (KR-8)."""
        r = self.ranks
        suit_cards = [[s * r + k for k in range(r)] for s in range(4)]
        trump = deal.trump
        led = -1
        for k, (s, c) in enumerate(deal.plays):
            if not poss[c] >> s & 1:
                raise RecordError(f"{self.game.id}: seat {s} plays {self.texts[c]}, which he cannot hold")
            poss[c] = 0
            suit = c // r
            void: list[int] = []
            position = k % len(deal.players)
            if position == 0:
                led = suit
                if trump is not None and suit != trump and k // len(deal.players) < lead_trump_tricks:
                    void.append(trump)
            elif suit != led:
                void.append(led)
                if must_trump and trump is not None and suit != trump:
                    void.append(trump)
            for v in void:
                for d in suit_cards[v]:
                    poss[d] &= ~(1 << s)

    def sample(self, rng: random.Random) -> State:
        deal = self.deals[-1]
        for _ in range(MAX_TRIES):
            hands = deal_hidden(self.hidden, self.allowed, self.room, rng)
            if hands is None:
                break
            current = list(self.fixed)
            for k, s in enumerate(self.holders):
                current[s] |= hands[k]
            post = [current[s] | self.deal_played[s] for s in range(self.seats)]
            found = self._dealt(deal, post, rng)
            if found is None:
                continue
            dealt, fills = found
            order = self._deal_order(deal, dealt)
            seed = self._seed(rng)
            if self.prefix is None:
                state = self._new(seed, [order])
            else:
                state = self.prefix.clone()
                state.seed = seed
                state.rng = SplitMix64(seed)  # type: ignore[attr-defined]
                state.orders = [order]  # type: ignore[attr-defined]
                _replay(state, [self.trigger], self.game.id)  # type: ignore[list-item]
            _replay(state, [self._blank(deal, a, fills[a]) if isinstance(a, int) else a for a in deal.actions],
                    self.game.id)
            return state
        raise RecordError(f"{self.game.id}: no deal of the hidden cards fits the view of seat {self.seat}")

    def _seed(self, rng: random.Random) -> int:
        return rng.getrandbits(64)

    texts: Sequence[str]
    index: dict[str, int]
    ranks: int
    by_card: dict[str, tuple[Action, ...]]


def _own(poss: Sequence[int], me: int) -> int:
    return sum(1 << c for c, p in enumerate(poss) if p == 1 << me)


def _replay(state: State, actions: Sequence[Action], game_id: str) -> None:
    for action in actions:
        try:
            state.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"{game_id}: the view's events do not replay: {exc}") from exc


# ------------------------------------------------------------------------------------------------ koroli


class KoroliWorlds(_Base):
    """The worlds of a ``koroli`` seat's view (module docstring)."""

    def __init__(self, game: Game, seats: int, seat: int, view: View,
                 options: Mapping[str, object] | None = None) -> None:
        deck: Any = game.deck
        self.texts = deck.texts
        self.index = {t: i for i, t in enumerate(deck.texts)}
        self.ranks = deck.ranks_per_suit
        self.by_card = tables(deck, KINDS).by_card
        self._read(game, seats, seat, view, options)

    def _new(self, seed: int, orders: list[list[int]]) -> State:
        return KoroliState(self.game, self.seats, seed, self.options, self.deals[0].dealer,  # type: ignore[arg-type]
                           deck_orders=orders)

    def _parse(self, indexed: list[tuple[int, Mapping[str, Any]]], view: View) -> list[_Deal]:
        deals: list[_Deal] = []
        me, card = self.seat, self.index
        play = self.by_card["play"]
        for _, e in indexed:
            kind = e["type"]
            if kind == "deal":
                deals.append(_Deal(e["players"], int(e["dealer"]), None))
                deals[-1].reign = e["part"] == "reign"
                continue
            if not deals:
                if kind == "levy" or kind == "play" or kind == "give" or kind == "hand":
                    raise RecordError(f"koroli: a {kind} event before the first deal")
                continue
            deal = deals[-1]
            if kind == "hand" and e["seat"] == me:
                deal.hand = _mask(card, e["cards"])
            elif kind == "trump":
                deal.trump_card = _card(card, e["card"])
                deal.trump = deal.trump_card // self.ranks
            elif kind == "levy" or kind == "give":
                shown = _card(card, e["card"]) if "card" in e else None
                taker = int(e["seat"])
                if kind == "levy":
                    deal.steps.append(("take", taker, bool(e["trump"]), shown))
                    if not e["trump"]:  # a free choice: the taker's take_card
                        deal.actions.append(self.by_card["take_card"][shown] if shown is not None
                                            else len(deal.steps) - 1)
                else:
                    deal.steps.append(("give", taker, False, shown))
                    deal.actions.append(self.by_card["give"][shown] if shown is not None else len(deal.steps) - 1)
            elif kind == "play":
                c = _card(card, e["card"])
                deal.plays.append((int(e["seat"]), c))
                deal.actions.append(play[c])
        count = 0
        for obs in view:  # KR-12: the Peasant's hand shown to the taker while he chooses (an observation field)
            count += sum(1 for e in obs.get("events", ()) if e.get("type") == "deal")
            shown_hand = obs.get("peasant_hand")
            if shown_hand is not None and count:
                deals[count - 1].peasant_hand = _mask(card, shown_hand)
        return deals

    def _possible(self, deal: _Deal) -> list[int]:
        me = self.seat
        players = sum(1 << s for s in deal.players)
        poss = [players & ~(1 << me)] * len(self.texts)
        if deal.hand is not None:
            for c in bits(deal.hand):
                poss[c] = 1 << me
        tc = deal.trump_card
        if tc is None or deal.dealer is None:
            raise RecordError("koroli: a deal without its trump card")
        if poss[tc] != 1 << me:
            poss[tc] = 1 << deal.dealer  # KR-7, KR-11: the dealer holds the shown card
        if deal.reign:
            peasant = deal.players[3]
            for kind, taker, _, shown in deal.steps:
                giver, receiver = (peasant, taker) if kind == "take" else (taker, peasant)
                if shown is not None:
                    poss[shown] = 1 << receiver
                else:  # unseen: any card the giver may hold but the shown trump card may have gone
                    for c in range(len(poss)):
                        if poss[c] >> giver & 1 and c != tc:
                            poss[c] |= 1 << receiver
                    if receiver == me or giver == me:
                        raise RecordError("koroli: a levy of the seat's own is not shown to it")
            if deal.peasant_hand is not None:  # KR-12: shown to the Prince, and what he gave since is known
                for c in range(len(poss)):
                    if deal.peasant_hand >> c & 1:
                        poss[c] = 1 << peasant
                    else:
                        poss[c] &= ~(1 << peasant)
                taken = [s for s in deal.steps if s[1] == me]
                for kind, _, _, shown in taken:
                    if shown is not None:
                        poss[shown] = 1 << (me if kind == "take" else peasant)
            if self.last["phase"] == "levy_take":  # KR-12, KR-13: a free levy is pending, the Peasant has no trump
                for c in range(deal.trump * self.ranks, (deal.trump + 1) * self.ranks):  # type: ignore[operator]
                    poss[c] &= ~(1 << peasant)
        self._play_voids(deal, poss, KoroliState.lead_trump_tricks, KoroliState.must_trump)
        return poss

    def _dealt(self, deal: _Deal, post: list[int], rng: random.Random) -> tuple[list[int], dict[int, int]] | None:
        if not deal.reign:
            if deal.hand is not None and post[self.seat] != deal.hand:
                return None
            return post, {}
        return _undo_levies(deal, post, self.seat, self.ranks, rng)

    def _deal_order(self, deal: _Deal, dealt: list[int]) -> list[int]:
        tc = deal.trump_card
        hands = {s: [c for c in bits(dealt[s]) if c != tc] for s in deal.players}
        hands[deal.dealer].append(tc)  # type: ignore[index,arg-type]  # KR-7: the last card, the dealer's
        return deal_order(hands, deal.players)

    def _blank(self, deal: _Deal, step: int, card: int) -> Action:
        return self.by_card["take_card" if deal.steps[step][0] == "take" else "give"][card]


def _undo_levies(deal: _Deal, post: list[int], me: int, ranks: int,
                 rng: random.Random) -> tuple[list[int], dict[int, int]] | None:
    """KR-12, KR-13 backwards: from the hands after the levies done so far, a random consistent choice of the cards
    the seat did not see, and the dealt hands. Each hand-over is undone from the last: a give moved a card of the
    Peasant's hand now (not the shown trump card when unseen), a take a card of the taker's hand now (not the card he
    gave right after); a trump levy took the Peasant's highest trump then, a free one found him without trumps. The
    dealt hands must hold the shown trump card at the Peasant's, and the seat's own dealt hand. None if none fits."""
    peasant = deal.players[3]
    tc = deal.trump_card
    assert tc is not None and deal.trump is not None
    trumps = ((1 << ranks) - 1) << (deal.trump * ranks)
    steps = deal.steps
    fills: dict[int, int] = {}

    def undo(i: int, hands: list[int], gave: int | None) -> list[int] | None:
        if i < 0:
            if not hands[peasant] >> tc & 1 or (deal.hand is not None and hands[me] != deal.hand):
                return None
            return hands
        kind, taker, trump, shown = steps[i]
        if kind == "give":  # taker gave it to the peasant: it is in the peasant's hand now
            pool = hands[peasant] if shown is None else hands[peasant] & (1 << shown)
            if shown is None:
                pool &= ~(1 << tc)
        else:  # taker took it from the peasant
            pool = hands[taker] if shown is None else hands[taker] & (1 << shown)
            if shown is None:
                pool &= ~(1 << tc)
            if gave is not None:
                pool &= ~(1 << gave)
            if trump:  # it must be above every trump left with the Peasant
                pool &= trumps & ~((1 << (hands[peasant] & trumps).bit_length()) - 1)
            else:
                if hands[peasant] & trumps:
                    return None
                pool &= ~trumps
        cands = bits(pool)
        rng.shuffle(cands)
        for c in cands:
            bit = 1 << c
            h = list(hands)
            if kind == "give":
                h[peasant] ^= bit
                h[taker] |= bit
            else:
                h[taker] ^= bit
                h[peasant] |= bit
                if trump and (h[peasant] & trumps).bit_length() - 1 != c:
                    continue
                if deal.peasant_hand is not None and taker == me and h[peasant] != deal.peasant_hand:
                    continue
            done = undo(i - 1, h, c if kind == "give" else None)
            if done is not None:
                fills[i] = c
                return done
        return None

    dealt = undo(len(steps) - 1, list(post), None)
    return None if dealt is None else (dealt, fills)
