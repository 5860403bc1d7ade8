"""The two team games of Kozel, 2 vs 2: ``kozel-hvaleny`` (RULES.md section 4, KH-1 … KH-18) and ``kozel-nn``, the
Nizhny Novgorod variant with its optional boasting, "pants" (section 5, KN-1 … KN-24).

Both are built on the shared trick engine of :mod:`.kozel` (bitmask hands, prebuilt actions, effective suits and
powers in a :class:`~.kozel.CardRules`). What they share beyond it lives in :class:`TeamState`: the teams of C-2
(seats 0 and 2 are team A, 1 and 3 team B), the private redeal offers (C-8), the 6C/QC catch, the deal counter
and the 200-deal safety limit of C-11, and the team result of C-10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action

from ..engine import Game, Option, Result
from ..errors import RulesError
from .cards import bits
from .kozel import (
    BOAST_LAY,
    DECK36,
    EFFECTIVE_SUITS,
    FOLLOW_LAY,
    OVER,
    PLAY,
    REBOAST,
    REDEAL,
    CardRules,
    KozelTrickState,
    narrate_common,
)

__all__ = ["KozelHvaleny", "KozelNN", "HvalenyState", "NNState", "TEAMS", "TEAM_NAMES",
           "narrate_team"]

TEAMS = ((0, 2), (1, 3))  # C-2, KH-1, KN-1
TEAM_NAMES = ("A", "B")
MAX_DEALS = 200  # C-11
HAND9 = 9  # KH-7, KN-7

_INDEX = {text: i for i, text in enumerate(DECK36.texts)}
SIX_C, QUEEN_C, ACE_D = _INDEX["6C"], _INDEX["QC"], _INDEX["AD"]
PLAIN_ORDER = (6, 7, 8, 9, 13, 10, 14)  # 6 7 8 9 K 10 A, weakest first

# KH-3: the permanent trumps and diamonds, weakest first.
KH_RULES = CardRules(DECK36, "6D 7D 8D 9D KD 10D AD JD JH JS JC QD QH QS QC 6C".split(), PLAIN_ORDER)
# KN-3: all clubs, jacks and queens, weakest first; 6C the shamok, QC the shamka.
KN_RULES = CardRules(DECK36, "7C 8C 9C KC 10C AC JD JH JS JC QD QH QS QC 6C".split(), PLAIN_ORDER)
KH_ACES = tuple((_INDEX[t], KH_RULES.eff[_INDEX[t]]) for t in ("AC", "AH", "AS"))  # KH-11
KN_QUEENS = sum(1 << _INDEX[t] for t in ("QC", "QS", "QH"))  # KN-15: QD alone does not count

#: KH-11: for each set of effective suits led this deal (a 5-bit mask), the aces a void player may not discard.
FORBIDDEN_ACES = tuple(sum(1 << ace for ace, suit in KH_ACES if not led >> suit & 1) for led in range(32))

DEMAND_REDEAL = Action("demand_redeal")
PASS = Action("pass")
REBOAST_ACTION = Action("reboast")
KEEP = Action("keep")
REDEAL_ACTIONS = (DEMAND_REDEAL, PASS)  # C-7: demand_redeal before pass
REBOAST_ACTIONS = (REBOAST_ACTION, KEEP)  # KN-23


def _team_dict(values: Sequence[Any]) -> dict[str, Any]:
    return {TEAM_NAMES[0]: values[0], TEAM_NAMES[1]: values[1]}


def _teams_field() -> dict[str, list[int]]:
    return {name: list(team) for name, team in zip(TEAM_NAMES, TEAMS, strict=True)}


class _TeamGame(Game):
    min_seats = 4
    max_seats = 4
    deck = DECK36

    def teams(self, seats: int) -> tuple[tuple[int, ...], ...]:
        return TEAMS

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate_common(event) or narrate_team(event) or super().narrate(event)


# ----------------------------------------------------------------------------------------- team state


class TeamState(KozelTrickState):
    """What the two team games share on top of :class:`~.kozel.KozelTrickState`."""

    deck = DECK36
    #: Name of the per-team counter in observations, results and the end event (``eyes``, ``game_points``).
    counter_name: str

    def _init_team(self, max_deals: int) -> None:
        self.max_deals = max_deals
        self.redeals = 0  # demands in this deal
        self.queue: list[int] = []  # the seats still to be offered a redeal, in order
        self.counters = [0, 0]  # eyes (KH) or game points (KN), per team
        self.winner_team: int | None = None

    @property
    def to_act(self) -> int | None:
        phase = self.phase
        if phase == PLAY:
            return self.turn
        if phase == REDEAL:
            return self.queue[0]
        return self._other_actor()

    def _other_actor(self) -> int | None:
        return None

    def team_points(self) -> tuple[int, int]:
        won = self.won
        return won[0] + won[2], won[1] + won[3]

    def _clockwise_from_left(self) -> list[int]:
        d = self.deal_dealer
        return [(d + k) % 4 for k in range(1, 5)]

    def _deal_cards(self, order: Sequence[int]) -> None:
        """One card at a time clockwise from the dealer's left (KH-7, KN-7, KN-24)."""
        hands = [0, 0, 0, 0]
        d = self.deal_dealer
        for k, card in enumerate(order):
            hands[(d + 1 + k) % 4] |= 1 << card
        self.hands = hands
        for seat in range(4):
            self.log.append(("hand", seat, hands[seat]))

    def _catch(self, card: int) -> tuple[int, int] | None:
        """KH-13, KN-12: ``card`` (6C or QC, just played) meets the other one in this trick from the other team.
        Returns (the seat of 6C, the seat of QC)."""
        other = QUEEN_C if card == SIX_C else SIX_C
        trick = self.trick
        for i in range(len(trick) - 1):
            if trick[i] == other:
                other_seat = (self.leader + i) % 4
                seat = (self.leader + len(trick) - 1) % 4
                if (other_seat - seat) % 2 == 0:
                    return None  # partners: a normal trick
                return (seat, other_seat) if card == SIX_C else (other_seat, seat)
        return None

    def _play_card(self, seat: int, card: int) -> None:
        """``seat`` plays ``card``. A catch of 6C by QC or the other way round (KH-13, KN-12) ends the deal at once;
        a full trick goes to its winner (C-9), and the last trick ends the deal (KH-14, KN-13)."""
        self._play(seat, card)
        if card == SIX_C or card == QUEEN_C:
            caught = self._catch(card)
            if caught is not None:  # the deal ends now, its card points are not counted
                six_seat, queen_seat = caught
                self.log.append(("catch", six_seat, queen_seat))
                self._score_catch(six_seat, queen_seat)
                self._deal_over()
                return
        if len(self.trick) == 4:
            winner = self._close_trick()
            if not self.hands[winner]:
                self._score_deal()

    def _pass_redeal(self, seat: int) -> None:
        """``seat`` declines the redeal offer (KH-8, KN-15), privately (C-8); play starts when nobody is left to
        ask."""
        self.log.append(("pass_redeal", seat, None))
        self.queue.pop(0)
        if not self.queue:
            self._start_play()

    def _start_play(self) -> None:
        raise NotImplementedError

    def _score_catch(self, six_seat: int, queen_seat: int) -> None:
        """Score a catch: the game's own rule (KH-13, KN-12)."""
        raise NotImplementedError

    def _score_deal(self) -> None:
        """Score a deal played to its last trick (KH-14, KN-13)."""
        raise NotImplementedError

    def _deal_over(self) -> None:
        """A deal has ended (normally, by a catch, or by the third redeal demand): the C-11 limit, then the next
        deal, dealt by the left neighbour (KH-6, KN-6)."""
        self.deal_no += 1
        if self.phase == OVER:
            return
        if self.deal_no >= self.max_deals:
            self.aborted = True
            self._finish()
            return
        self.deal_dealer = (self.deal_dealer + 1) % 4
        self.redeals = 0
        self._new_deal()

    def _new_deal(self) -> None:
        raise NotImplementedError

    def _finish(self) -> None:
        self.phase = OVER
        self.queue = []
        self.log.append(("end", self._ranking(), (tuple(self.counters), self.aborted)))

    def _ranking(self) -> int | None:
        """The team ranked first, or None when both share place 1 (only at the C-11 limit)."""
        return self.winner_team

    def result(self) -> Result:
        """KH-16, KN-17: the winners are 1, the losers 3; ``scores[p]`` is the counter of p's team."""
        if self.phase != OVER:
            raise RulesError("the game is not over: there is no result yet")
        first = self._ranking()
        if first is None:
            order: tuple[tuple[int, ...], ...] = ((0, 1, 2, 3),)
        else:
            order = (TEAMS[first], TEAMS[1 - first])
        scores = tuple(self.counters[s & 1] for s in range(4))
        return Result(order, scores, self.aborted, {
            "teams": _teams_field(),
            "winner_team": None if first is None else TEAM_NAMES[first],
            self.counter_name: _team_dict(self.counters),
        })

    # ---------------------------------------------------------------------------------- information

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        kind, seat, data = entry
        if kind == "deal":
            number, redeal, boaster = data
            event: dict[str, Any] = {"type": "deal", "dealer": seat, "deal": number, "redeal": redeal}
            if boaster is not None:
                event["boaster"] = boaster
            return event
        if kind == "trick":
            event = super()._render(entry, viewer)  # type: ignore[assignment]
            event["team"] = TEAM_NAMES[seat & 1]
            return event
        if kind == "demand_redeal":
            return {"type": "demand_redeal", "seat": seat, "redeals": data}
        if kind == "catch":
            text = self.deck.texts
            return {"type": "catch", "seat": seat, "card": text[SIX_C], "queen_seat": data,
                    "queen": text[QUEEN_C], "team": TEAM_NAMES[seat & 1]}
        if kind == "deal_score":
            points, tricks = data
            return {"type": "deal_score", "points": _team_dict(points), "tricks": _team_dict(tricks)}
        if kind == "end":
            counters, aborted = data
            return {"type": "end", "winner_team": None if seat is None else TEAM_NAMES[seat],
                    self.counter_name: _team_dict(counters), "aborted": aborted}
        if kind == "first_lead":
            return {"type": "first_lead", "seat": seat}
        return super()._render(entry, viewer)

    def _observe_team(self, seat: int) -> dict[str, Any]:
        obs = self._observe_common(seat)
        obs.update({
            "teams": _teams_field(),
            "team": TEAM_NAMES[seat & 1],
            "redeals": self.redeals,
            "points": _team_dict(self.team_points()),
            "tricks_taken": _team_dict((self.tricks_won[0] + self.tricks_won[2],
                                        self.tricks_won[1] + self.tricks_won[3])),
            self.counter_name: _team_dict(self.counters),
        })
        return obs


# ------------------------------------------------------------------------------------- kozel-hvaleny


class KozelHvaleny(_TeamGame):
    """Khvaleny kozel, 2 vs 2 with 36 cards: permanent trumps, diamonds, eyes to 12 (seed 001)."""

    id = "kozel-hvaleny"
    title = "Khvaleny Kozel (Хвалёный козёл)"
    options = (
        Option("lyusya", "lose", "a team that takes all 9 tricks: the other team loses at once (lose), has "
                                 "its eyes zeroed (zero), or nothing special (off) (KH-14)",
               choices=("lose", "zero", "off")),
        Option("target_eyes", 12, "the first team with this many eyes wins (KH-15)", 1, 1000),
    )

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> HvalenyState:
        return HvalenyState(self, seats, seed, options, dealer)


class HvalenyState(TeamState):
    """A position of a ``kozel-hvaleny`` game (KH-1 … KH-18)."""

    rules = KH_RULES
    counter_name = "eyes"
    REDEAL_LIMIT = 3  # KH-8
    REDEAL_POINTS = 13  # KH-8: a hand worth 13 points or less

    def __init__(self, game: KozelHvaleny, seats: int, seed: int, options: dict[str, Any], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = (), max_deals: int = MAX_DEALS) -> None:
        self._init_common(game, seats, seed, options, dealer, deck_orders)
        self._init_team(max_deals)
        self.lyusya = str(options["lyusya"])
        self.target = int(options["target_eyes"])
        self.bonus = 0  # KH-5: pending eggs
        self.led = 0  # KH-11: effective suits led this deal, a 5-bit mask
        self._new_deal()

    def _new_deal(self) -> None:
        """KH-7 deal, then the KH-8 offers or play (KH-18: one shuffle per deal or redeal)."""
        order = self._shuffled(list(range(len(self.deck))))
        self.relabel_from = len(self.log)
        self.log.append(("deal", self.deal_dealer, (self.deal_no + 1, self.redeals, None)))
        self._deal_cards(order)
        self._reset_tricks()
        self.led = 0
        self.leader = (self.deal_dealer + 1) % 4
        if self.redeals < self.REDEAL_LIMIT:
            points = self.rules.hand_points
            self.queue = [s for s in self._clockwise_from_left() if points(self.hands[s]) <= self.REDEAL_POINTS]
        else:
            self.queue = []
        if self.queue:
            self.phase = REDEAL
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY  # KH-9: the dealer's left leads trick 1
        self.leader = (self.deal_dealer + 1) % 4
        self.log.append(("first_lead", self.leader, None))

    def _generate(self) -> tuple[Action, ...]:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.turn]
            trick = self.trick
            if not trick:  # KH-9: any card, trumps included; KH-11: the leader is never restricted
                return self.t.select("play", hand)
            follow = hand & self.rules.eff_mask[self.rules.eff[trick[0]]]
            if follow:  # KH-10
                return self.t.select("play", follow)
            allowed = hand & ~FORBIDDEN_ACES[self.led]  # KH-11
            return self.t.select("play", allowed or hand)
        if phase == REDEAL:
            return REDEAL_ACTIONS
        return ()

    def _apply(self, action: Action) -> None:
        self._legal = None
        seat = self.to_act
        assert seat is not None
        if self.phase == REDEAL:
            if action.kind == "demand_redeal":  # KH-8: public; the same dealer deals again
                self.redeals += 1
                self.log.append(("demand_redeal", seat, self.redeals))
                self._new_deal()
            else:
                self._pass_redeal(seat)
            return
        card = self.t.card_of[action]
        if not self.trick:
            self.led |= 1 << self.rules.eff[card]
        self._play_card(seat, card)

    def _score_catch(self, six_seat: int, queen_seat: int) -> None:
        self._award(six_seat & 1, 4, "catch")  # KH-13: 4 eyes to the team of the 6C

    def _award(self, team: int, eyes: int, reason: str) -> None:
        """KH-13, KH-14 step 2: eyes plus the pending bonus, which is reset; then KH-15."""
        total = eyes + self.bonus
        bonus, self.bonus = self.bonus, 0
        self.counters[team] += total
        self.log.append(("eyes", team, (total, reason, tuple(self.counters), bonus)))
        if self.counters[team] >= self.target:
            self.winner_team = team
            self._finish()

    def _score_deal(self) -> None:
        """KH-14: Lyusya, then eyes or eggs."""
        a, b = self.team_points()
        tricks = (self.tricks_won[0] + self.tricks_won[2], self.tricks_won[1] + self.tricks_won[3])
        self.log.append(("deal_score", None, ((a, b), tricks)))
        if 0 in tricks:  # one team took all 9 tricks
            taker = 0 if tricks[1] == 0 else 1
            self.log.append(("lyusya", taker, self.lyusya))
            if self.lyusya == "lose":
                self.winner_team = taker
                self._finish()
                self._deal_over()
                return
            if self.lyusya == "zero":
                self.counters[1 - taker] = 0
        if a > 90 or b > 90:
            self._award(0 if a > 90 else 1, 4, "no_save")
        elif a > 60 or b > 60:
            self._award(0 if a > 60 else 1, 2, "over_60")
        else:  # 60:60
            self.bonus += 2
            self.log.append(("eggs", None, self.bonus))
        self._deal_over()

    def _ranking(self) -> int | None:
        if self.winner_team is not None:
            return self.winner_team
        a, b = self.counters  # KH-15 at the C-11 limit: more eyes ranks first
        return None if a == b else (0 if a > b else 1)

    # ---------------------------------------------------------------------------------- information

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        kind, seat, data = entry
        if kind == "eyes":
            eyes, reason, totals, bonus = data
            return {"type": "eyes", "team": TEAM_NAMES[seat], "eyes": eyes, "reason": reason, "bonus": bonus,
                    "totals": _team_dict(totals)}
        if kind == "eggs":
            return {"type": "eggs", "bonus": data}
        if kind == "lyusya":
            return {"type": "lyusya", "team": TEAM_NAMES[seat], "option": data}
        return super()._render(entry, viewer)

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        obs = self._observe_team(seat)
        if self.phase == REDEAL and self.queue[0] != seat:
            # C-8: the other players learn neither that an offer is being made nor that it was declined.
            obs["phase"] = "play"
            obs["leader"] = self.leader
        obs.update({
            "bonus": self.bonus,
            "suits_led": [EFFECTIVE_SUITS[s] for s in range(5) if self.led >> s & 1],
            "events": self.events(since, seat),
        })
        return obs


# ------------------------------------------------------------------------------------------ kozel-nn


class KozelNN(_TeamGame):
    """Kozel, Nizhny Novgorod style: 2 vs 2, clubs, jacks and queens trump, penalties to 12, optional "pants"
    boasting (seed 001)."""

    id = "kozel-nn"
    title = "Kozel, Nizhny Novgorod variant (Козёл по-нижегородски)"
    options = (
        Option("boasting", False, "deals from the second on start with \"pants\" boasting (KN-20)"),
        Option("target", 12, "the first team with this many game points loses (KN-14)", 1, 1000),
    )

    def _new_state(self, seats: int, seed: int, options: dict[str, bool | int | str], dealer: int) -> NNState:
        return NNState(self, seats, seed, options, dealer)


class _LayTables:
    """The ``lay(...)`` actions of the 36-card deck, built once: one card, or an ordered pair (KN-20)."""

    def __init__(self) -> None:
        cards = DECK36.cards
        n = len(cards)
        self.one = [Action("lay", (cards[a],)) for a in range(n)]
        self.two = {(a, b): Action("lay", (cards[a], cards[b])) for a in range(n) for b in range(n) if a != b}
        self.code: dict[Action, tuple[int, ...]] = {a: (i,) for i, a in enumerate(self.one)}
        self.code.update((action, pair) for pair, action in self.two.items())


@cache
def _lay_tables() -> _LayTables:
    return _LayTables()


class NNState(TeamState):
    """A position of a ``kozel-nn`` game (KN-1 … KN-24)."""

    rules = KN_RULES
    counter_name = "game_points"
    PRIVATE_KINDS = frozenset({"hand", "pair", "boast_lay", "fill"})
    REDEAL_LIMIT = 3  # KN-16

    def __init__(self, game: KozelNN, seats: int, seed: int, options: dict[str, Any], dealer: int, *,
                 deck_orders: Sequence[Sequence[int]] = (), max_deals: int = MAX_DEALS) -> None:
        self._init_common(game, seats, seed, options, dealer, deck_orders)
        self._init_team(max_deals)
        self.lays = _lay_tables()
        self.boasting = bool(options["boasting"])
        self.target = int(options["target"])
        self.mult = 1  # KN-5
        self._new_deal()

    # ------------------------------------------------------------------------------------------ dealing

    def _reset_deal(self) -> None:
        self.relabel_from = len(self.log)
        self._reset_tricks()
        self.hands = [0, 0, 0, 0]
        self.stock = []
        self.boaster: int | None = None
        self.k = 0  # KN-20: the number of boasting stacks
        self.stacks: list[list[tuple[int, int]]] = []  # (seat, card), the boaster's first
        self.revealed = False
        self.stack_winners: tuple[int, ...] = ()
        self.first_leader: int | None = None
        self.received = [0, 0, 0, 0]  # cards received in pairs, per seat
        self.layer = 0  # the seat to lay
        self.eligible: tuple[int, ...] = ()
        self.hand_size = HAND9  # t of KN-20 step 7
        self.ad_lead = False

    def _new_deal(self) -> None:
        """A deal, a redeal without boasting, a reboast or a misdeal: KN-7, or boasting from deal 2 on."""
        if self.boasting and self.deal_no > 0:
            self._boast()
        else:
            order = self._shuffled(list(range(len(self.deck))))  # KN-19
            self._reset_deal()
            self.log.append(("deal", self.deal_dealer, (self.deal_no + 1, self.redeals, None)))
            self._deal_cards(order)
            self._redeal_check()

    def _boast(self) -> None:
        """KN-20 steps 1-3: shuffle, the boaster receives pairs until he holds a non-trump."""
        order = self._shuffled(list(range(len(self.deck))))  # KN-19
        self._reset_deal()
        self.stock = order[::-1]  # bottom → top
        self.boaster = (self.deal_dealer + 1) % 4
        self.log.append(("deal", self.deal_dealer, (self.deal_no + 1, self.redeals, self.boaster)))
        self._give_pairs(self.boaster, 1)
        self.layer = self.boaster
        self.phase = BOAST_LAY

    def _give_pairs(self, seat: int, need: int) -> None:
        """KN-20 steps 2, 3, 5: pairs (the bottom card, then the top card) until ``need`` non-trumps."""
        trumps, stock, hands = self.rules.trumps, self.stock, self.hands
        while (hands[seat] & ~trumps).bit_count() < need:
            bottom = stock.pop(0)
            top = stock.pop()
            hands[seat] |= (1 << bottom) | (1 << top)
            self.received[seat] += 2
            self.log.append(("pair", seat, (bottom, top)))

    def _lay(self, seat: int, cards: tuple[int, ...]) -> None:
        """KN-20 steps 4-5, then the next follower or the reveal."""
        for card in cards:
            self.hands[seat] &= ~(1 << card)
        if seat == self.boaster:
            self.k = len(cards)
            self.stacks = [[(seat, card)] for card in cards]
            self.log.append(("boast_lay", seat, cards))  # face down: only the count is public
        else:
            for stack, card in zip(self.stacks, cards, strict=True):
                stack.append((seat, card))
            self.log.append(("lay", seat, cards))
        nxt = (seat + 1) % 4
        if nxt == self.boaster:
            self._reveal()
        else:
            self._give_pairs(nxt, self.k)
            self.layer = nxt
            self.phase = FOLLOW_LAY

    def _reveal(self) -> None:
        """KN-20 steps 6-8 and KN-22: the stacks are tricks led by the boaster's cards; complete the hands or
        misdeal; then the redeal check."""
        rules = self.rules
        self.revealed = True
        winners = []
        stack_points = []
        for stack in self.stacks:
            # KN-20 step 6: a trick led by the boaster's card; boasting cards are non-trumps (KN-21), so the
            # highest card of the led suit wins, as in any trick.
            cards = [c for _, c in stack]
            winner = stack[rules.winner(cards)][0]
            winners.append(winner)
            stack_points.append(self._take(winner, cards))
        self.stack_winners = tuple(winners)
        if self.k == 2 and stack_points[1] > stack_points[0]:  # KN-22: the bigger stack, stack 1 on a tie
            self.first_leader = winners[1]
        else:
            self.first_leader = winners[0]
        self.log.append(("reveal", self.boaster, (tuple(s[0][1] for s in self.stacks),
                                                  tuple(tuple(c for _, c in s) for s in self.stacks),
                                                  self.stack_winners, tuple(stack_points), self.first_leader)))
        t = self.hand_size = HAND9 - self.k
        hands = self.hands
        if any(h.bit_count() > t for h in hands):  # KN-20 step 7: a misdeal, not a redeal
            self.log.append(("misdeal", self.deal_dealer, None))
            self._boast()
            return
        stock = self.stock
        fill: list[list[int]] = [[], [], [], []]
        seat = (self.deal_dealer + 1) % 4
        while stock:  # one card at a time from the top, skipping full hands
            if hands[seat].bit_count() < t:
                card = stock.pop()
                hands[seat] |= 1 << card
                fill[seat].append(card)
            seat = (seat + 1) % 4
        for s in self._clockwise_from_left():
            if fill[s]:
                self.log.append(("fill", s, tuple(fill[s])))
        self._redeal_check()

    def _keep(self) -> None:
        """KN-24 "keep": the hands are collected in canonical order, shuffled and dealt t cards each."""
        cards = bits(self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3])
        order = self._shuffled(cards)  # KN-19: one shuffle per "keep"
        self.relabel_from = len(self.log)
        self._deal_cards(order)
        self._redeal_check()

    def _redeal_check(self) -> None:
        """KN-15: announce the eligible teams and offer their members a redeal, clockwise from the dealer's
        left; without eligible team, play starts."""
        hands = self.hands
        self.eligible = tuple(team for team in (0, 1)
                              if not (hands[team] | hands[team + 2]) & KN_QUEENS)
        if self.eligible:
            self.log.append(("eligible", None, self.eligible))
            self.queue = [s for s in self._clockwise_from_left() if s & 1 in self.eligible]
            self.phase = REDEAL
        else:
            self._start_play()

    def _start_play(self) -> None:
        """KN-8, KN-22: the first leader."""
        self.queue = []
        self.phase = PLAY
        if self.deal_no == 0:  # deal 1 and its redeals: the holder of AD leads it
            self.leader = next(s for s in range(4) if self.hands[s] >> ACE_D & 1)
            self.ad_lead = True
        elif self.boaster is not None:
            self.leader = self.first_leader  # type: ignore[assignment]
        else:
            self.leader = (self.deal_dealer + 1) % 4
        self.log.append(("first_lead", self.leader, None))

    # ------------------------------------------------------------------------------------ engine API

    def _other_actor(self) -> int | None:
        phase = self.phase
        if phase == BOAST_LAY or phase == FOLLOW_LAY:
            return self.layer
        if phase == REBOAST:
            return self.first_leader
        return None

    def _generate(self) -> tuple[Action, ...]:
        phase = self.phase
        rules = self.rules
        if phase == PLAY:
            hand = self.hands[self.turn]
            trick = self.trick
            if not trick:
                if self.ad_lead:  # KN-8
                    return (self.t.by_card["play"][ACE_D],)
                return self.t.select("play", hand & ~rules.trumps or hand)  # KN-9
            return self.t.select("play", hand & rules.eff_mask[rules.eff[trick[0]]] or hand)  # KN-10
        if phase == REDEAL:
            return REDEAL_ACTIONS
        if phase == BOAST_LAY:  # KN-20 step 4: one card, or both in either order
            plain = bits(self.hands[self.layer] & ~rules.trumps)
            one, two = self.lays.one, self.lays.two
            if len(plain) == 1:
                return (one[plain[0]],)
            a, b = plain
            return (one[a], two[a, b], one[b], two[b, a])
        if phase == FOLLOW_LAY:  # KN-20 step 5: exactly k non-trumps, ordered by stack
            plain = bits(self.hands[self.layer] & ~rules.trumps)
            if self.k == 1:
                return tuple(self.lays.one[c] for c in plain)
            two = self.lays.two
            return tuple(two[a, b] for a in plain for b in plain if a != b)
        if phase == REBOAST:
            return REBOAST_ACTIONS
        return ()

    def _apply(self, action: Action) -> None:
        self._legal = None
        seat = self.to_act
        assert seat is not None
        phase = self.phase
        if phase == PLAY:
            self.ad_lead = False
            self._play_card(seat, self.t.card_of[action])
        elif phase == BOAST_LAY or phase == FOLLOW_LAY:
            self._lay(seat, self.lays.code[action])
        elif phase == REDEAL:
            if action.kind == "demand_redeal":
                self.redeals += 1
                self.log.append(("demand_redeal", seat, self.redeals))
                if self.redeals >= self.REDEAL_LIMIT:  # KN-16: the dealer's team gets a pair, the deal ends
                    self.queue = []
                    self._penalise(self.deal_dealer & 1, 2, "three_redeals")
                    self._deal_over()
                elif self.boaster is not None:  # KN-24: the first leader chooses
                    self.queue = []
                    self.phase = REBOAST
                else:  # KN-15: the same dealer deals again
                    self._new_deal()
            else:
                self._pass_redeal(seat)
        elif phase == REBOAST:
            self.log.append((action.kind, seat, None))
            if action.kind == "reboast":
                self._boast()
            else:
                self._keep()

    def _score_catch(self, six_seat: int, queen_seat: int) -> None:
        self._penalise(queen_seat & 1, 4, "catch")  # KN-12: the shamka's team gets a "chiper"

    def _penalise(self, team: int, points: int, reason: str) -> None:
        """Game points times ``mult``, which is reset (KN-12, KN-13, KN-16); then KN-14."""
        mult, self.mult = self.mult, 1
        total = points * mult
        self.counters[team] += total
        self.log.append(("penalty", team, (total, reason, tuple(self.counters), mult)))
        if self.counters[team] >= self.target:
            self.winner_team = 1 - team
            self._finish()

    def _score_deal(self) -> None:
        """KN-13: eggs double ``mult``; otherwise the team under 60 is penalised."""
        a, b = self.team_points()
        tricks = (self.tricks_won[0] + self.tricks_won[2], self.tricks_won[1] + self.tricks_won[3])
        self.log.append(("deal_score", None, ((a, b), tricks)))
        if a == b:
            self.mult *= 2
            self.log.append(("eggs", None, self.mult))
        else:
            team = 0 if a < b else 1
            points = min(a, b)
            if points == 0:
                self._penalise(team, 6, "no_points")
            elif points <= 30:
                self._penalise(team, 4, "chiper")
            else:
                self._penalise(team, 2, "pair")
        self._deal_over()

    def _ranking(self) -> int | None:
        if self.winner_team is not None:
            return self.winner_team
        a, b = self.counters  # KN-14 at the C-11 limit: fewer game points ranks first
        return None if a == b else (0 if a < b else 1)

    # ---------------------------------------------------------------------------------- information

    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> dict[str, Any] | None:
        kind, seat, data = entry
        text = self.deck.texts
        if kind == "pair":
            event: dict[str, Any] = {"type": "pair", "seat": seat, "count": len(data)}
            if viewer is None or viewer == seat:
                event["cards"] = [text[c] for c in data]
            return event
        if kind == "boast_lay":
            event = {"type": "lay", "seat": seat, "count": len(data), "face_up": False}
            if viewer is None or viewer == seat:
                event["cards"] = [text[c] for c in data]
            return event
        if kind == "lay":
            return {"type": "lay", "seat": seat, "count": len(data), "face_up": True,
                    "cards": [text[c] for c in data]}
        if kind == "reveal":
            cards, stacks, winners, points, first = data
            return {"type": "reveal", "seat": seat, "cards": [text[c] for c in cards],
                    "stacks": [{"cards": [text[c] for c in s], "winner": w, "team": TEAM_NAMES[w & 1],
                                "points": p} for s, w, p in zip(stacks, winners, points, strict=True)],
                    "first_leader": first}
        if kind == "fill":
            event = {"type": "fill", "seat": seat, "count": len(data)}
            if viewer is None or viewer == seat:
                event["cards"] = [text[c] for c in data]
            return event
        if kind == "misdeal":
            return {"type": "misdeal", "dealer": seat}
        if kind == "eligible":
            return {"type": "redeal_eligible", "teams": [TEAM_NAMES[t] for t in data]}
        if kind == "penalty":
            points, reason, totals, mult = data
            return {"type": "penalty", "team": TEAM_NAMES[seat], "game_points": points, "reason": reason,
                    "mult": mult, "totals": _team_dict(totals)}
        if kind == "eggs":
            return {"type": "eggs", "mult": data}
        return super()._render(entry, viewer)

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        text = self.deck.texts
        obs = self._observe_team(seat)
        boasting = None
        if self.boaster is not None:
            boasting = {
                "boaster": self.boaster,
                "stacks": self.k or None,
                "received": list(self.received),
                "laid": [[{"seat": s, "card": text[c] if self.revealed or s != self.boaster or s == seat else None}
                          for s, c in stack] for stack in self.stacks],
                "winners": list(self.stack_winners) if self.revealed else None,
            }
        obs.update({
            "mult": self.mult,
            "boasting": boasting,
            "first_leader": self.first_leader,
            "hand_size": self.hand_size,
            "stock": len(self.stock),
            "eligible": [TEAM_NAMES[t] for t in self.eligible],
            "events": self.events(since, seat),
        })
        return obs

    def _table_cards(self) -> list[int]:
        laid = [] if self.revealed else [c for stack in self.stacks for _, c in stack]
        return laid + list(self.trick)

    def _hidden_cards(self, seat: int) -> list[int]:
        hidden = super()._hidden_cards(seat) + list(self.stock)
        if self.ad_lead:  # KN-8: everybody knows who holds AD and must lead it
            hidden = [c for c in hidden if c != ACE_D]
        if not self.revealed and self.stacks and self.boaster != seat:
            hidden += [stack[0][1] for stack in self.stacks]  # the boaster's face-down cards
        return hidden

    def _relabel(self, seat: int, move: Mapping[int, int]) -> None:
        super()._relabel(seat, move)
        if not self.revealed and self.boaster != seat:
            self.stacks = [[(s, move.get(c, c) if s == self.boaster else c) for s, c in stack]
                           for stack in self.stacks]


# ------------------------------------------------------------------------------------------ narration


def _team(event: Mapping[str, Any]) -> str:
    return f"team {event['team']}"


def narrate_team(event: Mapping[str, Any]) -> str | None:
    """The events of the team games, in plain words; None for the others."""
    kind = event["type"]
    seat = event.get("seat")
    cards = " ".join(event.get("cards") or [])
    match kind:
        case "first_lead":
            return f"seat {seat} leads first"
        case "catch":
            return (f"seat {seat} ({_team(event)}) catches the {event['queen']} of seat {event['queen_seat']} "
                    f"with the {event['card']}: the deal ends at once")
        case "deal_score":
            p, t = event["points"], event["tricks"]
            return f"deal over: team A {p['A']} points in {t['A']} tricks, team B {p['B']} in {t['B']}"
        case "lyusya":
            what = {"lose": "the other team loses the game", "zero": "the other team's eyes become 0",
                    "off": "no special effect"}[event["option"]]
            return f"Lyusya! {_team(event)} took every trick: {what}"
        case "eyes":
            why = {"no_save": " (the other team has no save)", "over_60": "", "catch": " for the catch"}
            bonus = f", {event['bonus']} of them from eggs" if event.get("bonus") else ""
            return (f"{_team(event)} gets {event['eyes']} eye{'s' if event['eyes'] != 1 else ''}"
                    f"{why.get(event['reason'], '')}{bonus}; eyes A {event['totals']['A']}, B {event['totals']['B']}")
        case "eggs" if "bonus" in event:
            return f"eggs, 60:60: no eyes; {event['bonus']} bonus eyes go to the next team that scores"
        case "eggs":
            return f"eggs, 60:60: no game points; the next penalty is multiplied by {event['mult']}"
        case "penalty":
            reason = {"no_points": "no points at all", "chiper": "a chiper (30 points or fewer)",
                      "pair": "a pair (under 60 points)", "catch": "a chiper: its shamka was caught",
                      "three_redeals": "a pair: three redeals in a row"}[event["reason"]]
            times = f" (multiplied by {event['mult']} after eggs)" if event.get("mult", 1) > 1 else ""
            return (f"{_team(event)} gets {event['game_points']} game points for {reason}{times}; "
                    f"game points A {event['totals']['A']}, B {event['totals']['B']}")
        case "pair":
            shown = f": {cards}" if cards else ""
            return f"seat {seat} receives a pair (bottom and top card){shown}"
        case "lay" if event["face_up"]:
            return f"seat {seat} lays {cards} face up"
        case "lay":
            shown = f" ({cards})" if cards else ""
            return f"seat {seat} boasts with {event['count']} card{'s' if event['count'] != 1 else ''} face down{shown}"
        case "reveal":
            stacks = "; ".join(f"stack {i + 1} ({' '.join(s['cards'])}) to seat {s['winner']}, {s['points']} points"
                               for i, s in enumerate(event["stacks"]))
            return f"the boaster shows {cards}: {stacks}; seat {event['first_leader']} will lead"
        case "fill":
            shown = f": {cards}" if cards else ""
            return f"seat {seat} is dealt {event['count']} more card{'s' if event['count'] != 1 else ''}{shown}"
        case "misdeal":
            return f"misdeal: a hand is too big; seat {event['dealer']} shuffles and deals again"
        case "redeal_eligible":
            return f"team{'s' if len(event['teams']) > 1 else ''} {' and '.join(event['teams'])} may demand a redeal"
        case "reboast":
            return f"seat {seat} chooses to boast again"
        case "keep":
            return f"seat {seat} keeps the boasting tricks; the hands are dealt again"
        case "end":
            counter = "eyes" if "eyes" in event else "game_points"
            c = event[counter]
            label = counter.replace("_", " ")
            if event["aborted"]:
                head = "the game is aborted at the deal limit"
            else:
                head = f"team {event['winner_team']} wins"
            return f"{head}; {label}: A {c['A']}, B {c['B']}"
    return None

