"""What the two team games of Kozel, 2 vs 2, share: ``kozel-hvaleny`` (RULES.md section 4, KH-1 … KH-18, in
:mod:`.hvaleny`) and ``kozel-nn``, the Nizhny Novgorod variant with its optional boasting, "pants" (section 5,
KN-1 … KN-24, in :mod:`.nn`).

Both are built on the Kozel base :mod:`.base` and the trick engine :mod:`referee.games.tricks` (bitmask hands,
prebuilt actions, effective suits and powers in a :class:`~referee.games.tricks.CardRules`). What they share
beyond it lives in :class:`TeamState`: the teams of C-2 (seats 0 and 2 are team A, 1 and 3 team B), the private
redeal offers (C-8), the 6C/QC catch, the deal counter and the 200-deal safety limit of C-11, and the team result
of C-10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.actions import Action

from ...engine import Game, Result, places_by
from .base import DECK36, OVER, PLAY, REDEAL, KozelTrickState, narrate_common

__all__ = ["TeamGame", "TeamState", "TEAMS", "TEAM_NAMES", "MAX_DEALS", "team_dict", "teams_field", "narrate_team"]

TEAMS = ((0, 2), (1, 3))  # C-2, KH-1, KN-1
TEAM_NAMES = ("A", "B")
MAX_DEALS = 200  # C-11
HAND9 = 9  # KH-7, KN-7

CARD_INDEX = {text: i for i, text in enumerate(DECK36.texts)}
SIX_C, QUEEN_C, ACE_D = CARD_INDEX["6C"], CARD_INDEX["QC"], CARD_INDEX["AD"]
PLAIN_ORDER = (6, 7, 8, 9, 13, 10, 14)  # 6 7 8 9 K 10 A, weakest first

DEMAND_REDEAL = Action("demand_redeal")
PASS = Action("pass")
REDEAL_ACTIONS = (DEMAND_REDEAL, PASS)  # C-7: demand_redeal before pass


def team_dict(values: Sequence[Any]) -> dict[str, Any]:
    return {TEAM_NAMES[0]: values[0], TEAM_NAMES[1]: values[1]}


def teams_field() -> dict[str, list[int]]:
    return {name: list(team) for name, team in zip(TEAM_NAMES, TEAMS, strict=True)}


class TeamGame(Game):
    """What the definitions of the two team games share: four seats in two teams, the 36-card deck."""

    min_seats = 4
    max_seats = 4
    deck = DECK36

    def teams(self, seats: int) -> tuple[tuple[int, ...], ...]:
        return TEAMS

    def narrate(self, event: Mapping[str, Any]) -> str:
        return narrate_common(event) or narrate_team(event) or super().narrate(event)


# ----------------------------------------------------------------------------------------- team state


class TeamState(KozelTrickState):
    """What the two team games share on top of :class:`~.base.KozelTrickState`."""

    deck = DECK36
    #: Name of the per-team counter in observations, results and the end event (``eyes``, ``game_points``).
    counter_name: str
    #: Whether the counter is good to have (eyes, KH-15) or bad (game points, KN-14).
    counter_wins: bool

    def _init_team(self, max_deals: int) -> None:
        self.max_deals = max_deals
        self.redeals = 0  # demands in this deal
        self.queue: list[int] = []  # the seats still to be offered a redeal, in order
        self.counters = [0, 0]  # eyes (KH) or game points (KN), per team
        self.opening = (0, 0)  # the counters when the deal in play began
        self.deal_gains = (0, 0)  # what the last finished deal added to each counter
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
        self._add_to_trick(seat, card)
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
        self.log.append(("pass_redeal", seat, None))  # rendered by CardState, to this seat only
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
        (a, b), (was_a, was_b) = self.counters, self.opening
        self.deal_gains = (a - was_a, b - was_b)
        self.opening = (a, b)
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

    def deal_places(self) -> tuple[int, ...]:
        """The team the deal scored for first (eyes, KH-13 and KH-14), or the one it did not penalise (game points,
        KN-12 and KN-13); both share place 1 when the deal left the counters even (eggs, a redeal)."""
        sign = -1 if self.counter_wins else 1
        return places_by([sign * self.deal_gains[s & 1] for s in range(4)])

    def _result(self) -> Result:
        """KH-16, KN-17: the winners are 1, the losers 3; ``scores[p]`` is the counter of p's team."""
        first = self._ranking()
        if first is None:
            order: tuple[tuple[int, ...], ...] = ((0, 1, 2, 3),)
        else:
            order = (TEAMS[first], TEAMS[1 - first])
        scores = tuple(self.counters[s & 1] for s in range(4))
        return Result(order, scores, self.aborted, {
            "teams": teams_field(),
            "winner_team": None if first is None else TEAM_NAMES[first],
            self.counter_name: team_dict(self.counters),
        })

    # ---------------------------------------------------------------------------------- information

    def _render_own(self, kind: str, seat: Any, data: Any, viewer: int | None) -> dict[str, Any] | None:
        if kind == "deal":
            number, redeal, boaster = data
            event: dict[str, Any] = {"type": "deal", "dealer": seat, "deal": number, "redeal": redeal}
            if boaster is not None:
                event["boaster"] = boaster
            return event
        if kind == "trick":
            event = super()._render_own(kind, seat, data, viewer)  # type: ignore[assignment]
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
            return {"type": "deal_score", "points": team_dict(points), "tricks": team_dict(tricks)}
        if kind == "end":
            counters, aborted = data
            return {"type": "end", "winner_team": None if seat is None else TEAM_NAMES[seat],
                    self.counter_name: team_dict(counters), "aborted": aborted}
        if kind == "first_lead":
            return {"type": "first_lead", "seat": seat}
        return super()._render_own(kind, seat, data, viewer)

    def _observe_team(self, seat: int) -> dict[str, Any]:
        obs = self._observe_common(seat)
        obs.update({
            "teams": teams_field(),
            "team": TEAM_NAMES[seat & 1],
            "redeals": self.redeals,
            "points": team_dict(self.team_points()),
            "tricks_taken": team_dict((self.tricks_won[0] + self.tricks_won[2],
                                        self.tricks_won[1] + self.tricks_won[3])),
            self.counter_name: team_dict(self.counters),
        })
        return obs


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
            first = event["first_leader"]
            lead = "nobody leads (a misdeal)" if first is None else f"seat {first} will lead"
            return f"the boaster shows {cards}: {stacks}; {lead}"
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
