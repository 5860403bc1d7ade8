"""``kozel-hvaleny``, Khvaleny kozel: 2 vs 2 with 36 cards, permanent trumps and diamonds, eyes to 12 (RULES.md
section 4, KH-1 … KH-18), on the team base :mod:`.team`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.actions import Action

from ...engine import Option
from ..tricks import EFFECTIVE_SUITS, CardRules
from .base import DECK36, PLAY, POINTS_BY_RANK, REDEAL
from .team import CARD_INDEX, MAX_DEALS, PLAIN_ORDER, REDEAL_ACTIONS, TEAM_NAMES, TeamGame, TeamState, team_dict

__all__ = ["KozelHvaleny", "HvalenyState", "KH_RULES"]

# KH-3: the permanent trumps and diamonds, weakest first.
KH_RULES = CardRules(DECK36, "6D 7D 8D 9D KD 10D AD JD JH JS JC QD QH QS QC 6C".split(), PLAIN_ORDER,
                     POINTS_BY_RANK)
KH_ACES = tuple((CARD_INDEX[t], KH_RULES.eff[CARD_INDEX[t]]) for t in ("AC", "AH", "AS"))  # KH-11

#: KH-11: for each set of effective suits led this deal (a 5-bit mask), the aces a void player may not discard.
FORBIDDEN_ACES = tuple(sum(1 << ace for ace, suit in KH_ACES if not led >> suit & 1) for led in range(32))


class KozelHvaleny(TeamGame):
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
    counter_wins = True
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
        if self.phase == REDEAL:
            seat = self.queue[0]
            if action.kind == "demand_redeal":  # KH-8: public; the same dealer deals again
                self.redeals += 1
                self.log.append(("demand_redeal", seat, self.redeals))
                self._new_deal()
            else:
                self._pass_redeal(seat)
            return
        card = self.t.card_at[id(action)]
        if not self.trick:
            self.led |= 1 << self.rules.eff[card]
        self._play_card(self.turn, card)

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

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        if kind == "eyes":
            eyes, reason, totals, bonus = data
            return {"type": "eyes", "team": TEAM_NAMES[seat], "eyes": eyes, "reason": reason, "bonus": bonus,
                    "totals": team_dict(totals)}
        if kind == "eggs":
            return {"type": "eggs", "bonus": data}
        if kind == "lyusya":
            return {"type": "lyusya", "team": TEAM_NAMES[seat], "option": data}
        return super()._render_own(kind, seat, data, viewer)

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
