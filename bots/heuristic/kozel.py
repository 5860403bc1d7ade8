"""``heuristic`` for the three Kozel games: ``kozel``, ``kozel-hvaleny`` and ``kozel-nn`` (RULES.md sections 3-5).

Like the durak heuristic it remembers nothing between decisions: every choice is made from the legal actions and
the observation, which holds the whole deal so far (the completed tricks, the current trick, the boasting stacks).
From them the bot knows which cards are still unseen and which suits each player has shown void in (the team
games oblige players to follow, KH-10 and KN-10).

Card play scores every legal card with one formula, in card points:

    value = (2p - 1) × (points on the table + the card's points) − keep(card)

where p is the chance that our side (the bot, or its partner) ends up taking the trick if the card is played: 0
when an opponent keeps winning, else the chance that no opponent still to play can beat the winning card, from
the unseen cards and the voids. keep(card) is what the card is still worth in hand: high trumps (the special jacks
of KO-7 on top in ``kozel``) and the masters of a plain suit are worth more than low cards. This one formula gives
the rules of thumb:

* win a trick that has points with the cheapest card that surely wins it, and leave a pointless trick alone
  rather than spend a high trump on it;
* when the partner surely wins the trick, "smear" (throw points onto it): the plain ten or ace that is cheapest
  to give up;
* when the trick is lost, throw the card of lowest value: few points, low rank, no trump;
* lead masters while the opponents can still follow, otherwise a low card of a long side suit.

On top of it: play the 6C whenever it catches the opponents' QC (KH-13, KN-12), keep the 6C while the QC is still
out, and never risk the QC while an opponent still to play may catch it with the 6C. Redeal, boasting and
"keep"/"reboast" choices follow the strength of the hand and the points already taken (see their functions).

The weights below were set by self-play: a variant against the module as it is, on duplicate seeds, a few
thousand games per game. Against such opponents keeping trumps pays more than against ``random`` (which throws
points about), and more with 3-4 players than with 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from protocol.cards import STANDARD_SUITS, Card

__all__ = ["GAMES", "choose"]

GAMES = frozenset({"kozel", "kozel-hvaleny", "kozel-nn"})
TEAM_GAMES = frozenset({"kozel-hvaleny", "kozel-nn"})

TRUMP = 4  # the effective suit of every trump; 0..3 are the natural suits
POINTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}  # KO-2, KH-4, KN-4

# Strength orders, weakest first (RULES.md), written out here: a bot never imports the engine.
KO_PLAIN = (7, 8, 9, 11, 12, 13, 10, 14)  # KO-1: 7 8 9 J Q K 10 A
KO_SPECIAL_JACKS = ("JD", "JH", "JS")  # KO-7, above every trump
KO_REMOVED_3P = ("7C", "7S")  # KO-1 with 3 players
TEAM_PLAIN = (6, 7, 8, 9, 13, 10, 14)  # KH-3, KN-3: 6 7 8 9 K 10 A
KH_TRUMPS = tuple("6D 7D 8D 9D KD 10D AD JD JH JS JC QD QH QS QC 6C".split())  # KH-3
KN_TRUMPS = tuple("7C 8C 9C KC 10C AC JD JH JS JC QD QH QS QC 6C".split())  # KN-3
SIX_C, QUEEN_C = "6C", "QC"  # KH-13, KN-12: the 6C catches the QC of the other team

# ------------------------------------------------------------------------------------------------ weights

#: Points the other players are expected to add to a trick we lead: the partner smears on a sure trick. In
#: ``kozel`` nobody must follow, and the others throw nothing of value on a trick they cannot take.
LEAD_EXTRA = 3.0
KO_LEAD_EXTRA = 0.0
#: keep(): a trump is worth KEEP_TRUMP (the weakest) to KEEP_TRUMP + KEEP_TRUMP_SPAN (the strongest); in
#: ``kozel`` (KO_KEEP_TRUMP) trumps are scarcer and every trick may be trumped.
KEEP_TRUMP = 5.0
KEEP_TRUMP_SPAN = 20.0
KO_KEEP_TRUMP = {2: 4.0, 3: 12.0, 4: 12.0}  # by the number of players
KO_KEEP_TRUMP_SPAN = {2: 14.0, 3: 26.0, 4: 26.0}
#: keep(): a plain card with no unseen higher card of its suit, and one with exactly one.
KEEP_MASTER = 1.5
KEEP_SECOND = 0.75
#: keep(): in ``kozel`` anyone may trump anything (KO-8), so plain masters are worth less.
KO_PLAIN_FACTOR = 0.0
#: The 6C is worth this much more while the QC is still out: it may yet catch it.
KEEP_SIX_FOR_CATCH = 10.0
#: The QC is worth this much less while the 6C is out: it must be played some day, and the safe moments (no
#: opponent left to play in the trick) are worth taking.
QUEEN_LIABILITY = 5.0
#: A catch, in card points: 4 eyes (KH-13) or a 4-point chiper (KN-12) outweighs a whole deal's play.
CATCH = 60.0
#: A small preference, among equal cards, for leading from a long suit.
LONG_SUIT = 0.2
#: A small preference for leading a suit the partner ruffs (he is void in it) and the opponents follow.
PARTNER_RUFF = 1.0

#: Redeal (KH-8, KN-15): a hand whose strength() is below this asks for new cards. The average hand is about
#: 5.8 in kozel-hvaleny; in kozel-nn a team without the three big queens is weak, and the average hand of such a
#: team is about 4.6: its members ask for new cards unless they hold a strong hand.
KH_REDEAL_BELOW = 5.5
KN_REDEAL_BELOW = 6.5
#: Boasting (KN-20): the boaster lays his second non-trump too when it is at least a ten (plain order index).
BOAST_BOTH_FROM = 5  # TEAM_PLAIN.index(10)


class _Rules:
    """The cards of one game with their effective suit, power and points (KO-1, KO-7, KH-3, KN-3)."""

    def __init__(self, cards: Iterable[str], trumps: Sequence[str], plain: Sequence[int]) -> None:
        order = {rank: k for k, rank in enumerate(plain)}
        self.cards = tuple(cards)
        self.eff: dict[str, int] = {}
        self.power: dict[str, int] = {}
        self.points: dict[str, int] = {}
        for text in self.cards:
            rank = Card.parse(text).rank
            self.eff[text] = STANDARD_SUITS.index(text[-1])
            self.power[text] = order.get(rank, -1)  # set below for the trumps
            self.points[text] = POINTS.get(rank, 0)
        self.trumps = tuple(t for t in trumps if t in self.points)
        for k, text in enumerate(self.trumps):
            self.eff[text] = TRUMP
            self.power[text] = 100 + k  # above every plain card
        self.top = len(self.trumps) - 1

    def trump_level(self, card: str) -> float:
        """0.0 for the weakest trump, 1.0 for the strongest."""
        return (self.power[card] - 100) / self.top

    def beats(self, card: str, best: str, led: int) -> bool:
        """KO-9, KH-12, KN-11: ``card`` takes the trick from ``best`` when the led effective suit is ``led``."""
        e = self.eff[card]
        return (e == TRUMP or e == led) and self.power[card] > self.power[best]


@cache
def _rules(game: str, trump: str | None, seats: int) -> _Rules:
    if game == "kozel":
        assert trump is not None
        removed = KO_REMOVED_3P if seats == 3 else ()
        cards = [str(Card(r, s)) for s in STANDARD_SUITS for r in range(7, 15)]
        suit = [str(Card(r, trump)) for r in KO_PLAIN]
        trumps = [t for t in suit if t not in KO_SPECIAL_JACKS] + list(KO_SPECIAL_JACKS)
        return _Rules((c for c in cards if c not in removed), trumps, KO_PLAIN)
    cards = [str(Card(r, s)) for s in STANDARD_SUITS for r in range(6, 15)]
    return _Rules(cards, KH_TRUMPS if game == "kozel-hvaleny" else KN_TRUMPS, TEAM_PLAIN)


def _none(pool: int, good: int, hand: int) -> float:
    """The chance that ``hand`` cards drawn from ``pool`` hold none of ``good`` given cards (hypergeometric)."""
    if good <= 0:
        return 1.0
    p = 1.0
    for i in range(min(hand, pool)):
        rest = pool - good - i
        if rest <= 0:
            return 0.0
        p *= rest / (pool - i)
    return p


# ------------------------------------------------------------------------------------------------ the view


class _View:
    """What one observation tells: the rules in force, the hand, the trick, the unseen cards and the voids."""

    def __init__(self, obs: dict[str, Any], info: GameInfo | None) -> None:
        self.game: str = info.game if info is not None else obs["game"]
        self.seat: int = obs["seat"]
        self.n: int = obs["seats"]
        self.team = self.game in TEAM_GAMES
        self.rules = rules = _rules(self.game, obs.get("trump") if self.game == "kozel" else None, self.n)
        self.partner = (self.seat + 2) % 4 if self.team else None
        self.hand: list[str] = list(obs["hand"])
        self.sizes: list[int] = list(obs["hand_sizes"])
        self.trick: list[tuple[int, str]] = [(e["seat"], e["card"]) for e in obs["trick"]]
        played = [c for t in obs["tricks"] for c in t["cards"]] + [c for _, c in self.trick]
        boasting = obs.get("boasting")
        if boasting:  # KN-20: the face-up boasting cards are out of play
            played += [e["card"] for stack in boasting["laid"] for e in stack if e["card"] is not None]
        self.known: dict[int, str] = {}  # seat → a card it is known to hold
        gone = set(self.hand) | set(played)
        if self.game == "kozel":  # KO-15: the face-up trump card is in the stock, or with the seat that drew it
            card = obs["trump_card"]
            holder = obs["trump_card_drawn_by"]
            if card not in gone:
                gone.add(card)
                if holder is not None and holder != self.seat:
                    self.known[holder] = card
        self.unseen = [c for c in rules.cards if c not in gone]
        self.remaining = len(self.hand) + obs.get("stock", 0) // self.n  # tricks left to play, this one included
        self.voids: list[set[int]] = [set() for _ in range(self.n)]
        if self.team:  # KH-10, KN-10: a player who does not follow the led suit has none of it
            for t in obs["tricks"]:
                self._note_voids(t["leader"], t["cards"])
            if self.trick:
                self._note_voids(self.trick[0][0], [c for _, c in self.trick])

    def _note_voids(self, leader: int, cards: Sequence[str]) -> None:
        eff = self.rules.eff
        led = eff[cards[0]]
        for i in range(1, len(cards)):
            if eff[cards[i]] != led:
                self.voids[(leader + i) % self.n].add(led)

    def ours(self, seat: int) -> bool:
        return seat == self.seat or seat == self.partner

    def after_me(self) -> list[int]:
        """The seats still to play in this trick after this seat, in order."""
        return [(self.seat + k) % self.n for k in range(1, self.n - len(self.trick))]

    def winning(self) -> tuple[int, str, int]:
        """The seat and card winning the current trick, and the led effective suit."""
        rules = self.rules
        seat, best = self.trick[0]
        led = rules.eff[best]
        for s, card in self.trick[1:]:
            if rules.beats(card, best, led):
                seat, best = s, card
        return seat, best, led

    # -------------------------------------------------------------------------------------- chances

    def pool(self, seat: int) -> list[str]:
        """The unseen cards ``seat`` may hold: none of a suit it is void in."""
        voids = self.voids[seat]
        if not voids:
            return self.unseen
        eff = self.rules.eff
        return [c for c in self.unseen if eff[c] not in voids]

    def p_beaten_by(self, seat: int, best: str, led: int) -> float:
        """The chance that ``seat`` holds a card that takes the trick from ``best`` and may play it."""
        rules = self.rules
        known = self.known.get(seat)
        if known is not None and rules.beats(known, best, led):
            return 1.0
        pool = self.pool(seat)
        hand = self.sizes[seat] - (known is not None)
        size = len(pool)
        eff, power = rules.eff, rules.power
        strength = power[best]
        trump_best = eff[best] == TRUMP
        higher_led = sum(1 for c in pool if eff[c] == led and power[c] > strength) if not trump_best else 0
        trumps = sum(1 for c in pool if eff[c] == TRUMP and power[c] > strength)
        if not self.team:  # KO-8: anyone may play any card
            return 1.0 - _none(size, higher_led + trumps, hand)
        if led == TRUMP:
            return 1.0 - _none(size, trumps, hand)
        led_cards = sum(1 for c in pool if eff[c] == led)
        void = _none(size, led_cards, hand)  # KH-10, KN-10: trumps only when void in the led suit
        ruff = void * (1.0 - _none(size - led_cards, trumps, hand))
        return min(1.0, 1.0 - _none(size, higher_led, hand) + ruff)

    def p_hold(self, best: str, led: int, seats: Iterable[int]) -> float:
        """The chance that no opponent among ``seats`` takes the trick from ``best``."""
        p = 1.0
        for seat in seats:
            if not self.ours(seat):
                p *= 1.0 - self.p_beaten_by(seat, best, led)
        return p

    def p_holds(self, seat: int, card: str, led: int) -> float:
        """The chance that ``seat`` holds the unseen ``card`` and may play it on a trick led in ``led``."""
        if card not in self.unseen:
            return 0.0
        pool = self.pool(seat)
        if card not in pool or not pool:
            return 0.0
        hand = self.sizes[seat]
        held = min(1.0, hand / len(pool))
        eff = self.rules.eff
        if led == TRUMP or eff[card] == led:
            return held
        led_cards = sum(1 for c in pool if eff[c] == led)
        return held * _none(len(pool), led_cards, hand)

    # ------------------------------------------------------------------------------------------ values

    def keep(self, card: str) -> float:
        """What ``card`` is still worth in hand, in card points; nothing once few tricks are left."""
        rules = self.rules
        eff = rules.eff[card]
        if eff == TRUMP:
            if self.team:
                value = KEEP_TRUMP + KEEP_TRUMP_SPAN * rules.trump_level(card)
            else:
                value = KO_KEEP_TRUMP[self.n] + KO_KEEP_TRUMP_SPAN[self.n] * rules.trump_level(card)
            if self.team and card == SIX_C and QUEEN_C in self.unseen:
                value += KEEP_SIX_FOR_CATCH
            elif self.team and card == QUEEN_C and SIX_C in self.unseen:
                value -= QUEEN_LIABILITY
        else:
            strength = rules.power[card]
            higher = sum(1 for c in self.unseen if rules.eff[c] == eff and rules.power[c] > strength)
            value = KEEP_MASTER if higher == 0 else KEEP_SECOND if higher == 1 else 0.0
            if not self.team:
                value *= KO_PLAIN_FACTOR
        return value * min(1.0, (self.remaining - 1) / 3)

    def catch_value(self, card: str, led: int, after: Sequence[int]) -> float:
        """KH-13, KN-12: the gain of a catch by playing ``card``, or the expected loss of being caught."""
        if not self.team or card not in (SIX_C, QUEEN_C):
            return 0.0
        other = QUEEN_C if card == SIX_C else SIX_C
        on_table = [s for s, c in self.trick if c == other]
        if on_table:
            return 0.0 if self.ours(on_table[0]) else CATCH if card == SIX_C else -CATCH
        if card == SIX_C:
            return 0.0
        risk = sum(self.p_holds(s, SIX_C, led) for s in after if not self.ours(s))
        return -CATCH * min(1.0, risk)


# ------------------------------------------------------------------------------------------------ choices


def choose(decision: Decision, info: GameInfo | None) -> Action:
    """The heuristic's action for one decision of ``kozel``, ``kozel-hvaleny`` or ``kozel-nn``."""
    legal = decision.legal
    if len(legal) == 1:
        return legal[0]
    obs = decision.observation
    if (info.game if info is not None else obs.get("game")) not in GAMES:
        return legal[0]
    kinds = {action.kind for action in legal}
    if "play" in kinds:
        return _play(legal, _View(obs, info))
    if "demand_redeal" in kinds:
        return _redeal(legal, _View(obs, info), obs)
    if "reboast" in kinds:
        return _reboast(legal, _View(obs, info), obs)
    if "lay" in kinds:
        return _lay(legal, _View(obs, info), obs)
    return legal[0]


def _by_kind(legal: Sequence[Action], kind: str) -> Action:
    return next(a for a in legal if a.kind == kind)


# ------------------------------------------------------------------------------------------------ card play


def _play(legal: Sequence[Action], view: _View) -> Action:
    """The legal card of highest value (see the module docstring); the first in canonical order on a tie."""
    score = _follow_value if view.trick else _lead_value
    best, best_value = legal[0], float("-inf")
    for action in legal:
        value = score(str(action.args[0]), view)
        if value > best_value + 1e-9:
            best, best_value = action, value
    return best


def _follow_value(card: str, view: _View) -> float:
    rules = view.rules
    seat, best, led = view.winning()
    table = sum(rules.points[c] for _, c in view.trick)
    after = view.after_me()
    if rules.beats(card, best, led):
        p = view.p_hold(card, led, after)
    elif view.ours(seat):
        p = view.p_hold(best, led, after)
    else:
        p = 0.0
    gain = (2 * p - 1) * (table + rules.points[card])
    return gain - view.keep(card) + view.catch_value(card, led, after)


def _lead_value(card: str, view: _View) -> float:
    rules = view.rules
    led = rules.eff[card]
    after = view.after_me()
    p = view.p_hold(card, led, after)
    extra = LEAD_EXTRA if view.team else KO_LEAD_EXTRA
    value = (2 * p - 1) * (rules.points[card] + extra) - view.keep(card) + view.catch_value(card, led, after)
    if led != TRUMP:
        value += LONG_SUIT * sum(1 for c in view.hand if rules.eff[c] == led)
        if view.partner is not None and led in view.voids[view.partner] and TRUMP not in view.voids[view.partner] \
                and not any(led in view.voids[s] for s in after if not view.ours(s)):
            value += PARTNER_RUFF
    return value - 0.01 * rules.power[card]


# ------------------------------------------------------------------------------------------------ redeals


def strength(hand: Iterable[str], rules: _Rules) -> float:
    """A rough measure of a hand for the team games: trumps by their rank, then plain aces and tens."""
    value = 0.0
    for card in hand:
        if rules.eff[card] == TRUMP:
            value += 0.5 + 1.5 * rules.trump_level(card)
        elif card[:-1] == "A":
            value += 0.8
        elif card[:-1] == "10":
            value += 0.3
    return value


def _redeal(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """KH-8: ask for new cards with a hand below the average. KN-15: the same with a higher bar (the team has
    none of the three big queens); and when a demand would be the third (KN-16), demand exactly when the dealer
    is an opponent, whose team then takes the penalty."""
    demand, keep = _by_kind(legal, "demand_redeal"), _by_kind(legal, "pass")
    value = strength(view.hand, view.rules)
    if view.game == "kozel-hvaleny":
        return demand if value < KH_REDEAL_BELOW else keep
    if obs.get("redeals", 0) >= 2:
        return demand if obs["dealer"] % 2 != view.seat % 2 else keep
    return demand if value < KN_REDEAL_BELOW else keep


def _reboast(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """KN-24: keep the boasting tricks when they gave our team at least as many points as the opponents'."""
    points = obs["points"]  # so far only the boasting stacks
    ours = points[obs["team"]]
    theirs = sum(points.values()) - ours
    return _by_kind(legal, "keep") if ours >= theirs else _by_kind(legal, "reboast")


# ------------------------------------------------------------------------------------------------ boasting


def _lay(legal: Sequence[Action], view: _View, obs: dict[str, Any]) -> Action:
    """KN-20. The boaster lays his strongest non-trump, and the second too when it is a ten or an ace. A follower
    on the boaster's team lays the most points (the boaster likely wins the stack); an opponent the fewest."""
    rules = view.rules
    boasting = obs["boasting"]
    if obs["phase"] == "boast_lay":  # the boaster: his cards start the stacks

        def boast_key(action: Action) -> tuple[int, ...]:
            cards = [str(c) for c in action.args]
            weakest = min(rules.power[c] for c in cards)
            both = len(cards) == 2 and weakest >= BOAST_BOTH_FROM
            return (both, len(cards) == 1, rules.power[cards[0]])

        return max(legal, key=boast_key)
    sign = 1 if view.ours(boasting["boaster"]) else -1

    def follow_key(action: Action) -> tuple[int, ...]:
        cards = [str(c) for c in action.args]
        points = sum(rules.points[c] for c in cards)
        power = sum(rules.power[c] for c in cards)
        first = rules.points[cards[0]]  # stack 1 decides a tie for the first lead (KN-22)
        return (sign * points, sign * power, sign * first)

    return max(legal, key=follow_key)
