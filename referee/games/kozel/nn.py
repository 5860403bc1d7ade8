"""``kozel-nn``, Kozel Nizhny Novgorod style: 2 vs 2, clubs, jacks and queens trump, penalties to 12, optional
"pants" boasting (RULES.md section 5, KN-1 … KN-24), on the team base :mod:`.team`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action

from ...engine import Option
from ..cards import bits
from ..tricks import CardRules
from .base import BOAST_LAY, DECK36, FOLLOW_LAY, PLAY, POINTS_BY_RANK, REBOAST, REDEAL
from .team import (
    ACE_D,
    CARD_INDEX,
    HAND9,
    MAX_DEALS,
    PLAIN_ORDER,
    REDEAL_ACTIONS,
    TEAM_NAMES,
    TeamGame,
    TeamState,
    team_dict,
)

__all__ = ["KozelNN", "NNState", "KN_RULES"]

# KN-3: all clubs, jacks and queens, weakest first; 6C the shamok, QC the shamka.
KN_RULES = CardRules(DECK36, "7C 8C 9C KC 10C AC JD JH JS JC QD QH QS QC 6C".split(), PLAIN_ORDER,
                     POINTS_BY_RANK)
KN_QUEENS = sum(1 << CARD_INDEX[t] for t in ("QC", "QS", "QH"))  # KN-15: QD alone does not count

REBOAST_ACTION = Action("reboast")
KEEP = Action("keep")
REBOAST_ACTIONS = (REBOAST_ACTION, KEEP)  # KN-23


class KozelNN(TeamGame):
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
    counter_wins = False
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
            self.hand_size = HAND9 - self.k  # KN-20 step 7, KN-21: t is fixed (and public) once k is
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
        t = self.hand_size
        hands = self.hands
        misdeal = any(h.bit_count() > t for h in hands)  # KN-20 step 7: a misdeal, not a redeal
        if misdeal:  # the deal is void: nobody leads trick 1 after this boasting (KN-22)
            self.first_leader = None
        elif self.k == 2 and stack_points[1] > stack_points[0]:  # KN-22: the bigger stack, stack 1 on a tie
            self.first_leader = winners[1]
        else:
            self.first_leader = winners[0]
        self.log.append(("reveal", self.boaster, (tuple(s[0][1] for s in self.stacks),
                                                  tuple(tuple(c for _, c in s) for s in self.stacks),
                                                  self.stack_winners, tuple(stack_points), self.first_leader)))
        if misdeal:
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
            self._play_card(seat, self.t.card_at[id(action)])
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

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
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
                    "mult": mult, "totals": team_dict(totals)}
        if kind == "eggs":
            return {"type": "eggs", "mult": data}
        return super()._render_own(kind, seat, data, viewer)

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
