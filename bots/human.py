"""``human``: a person plays a seat at the terminal (docs/HUMAN.md).

At each decision the screen shows what happened since the seat's last turn (the observation's events, in words),
the state of the game as the observation holds it (trump, the table or the trick, the others' card counts, scores,
roles), the seat's hand grouped by suit with suit symbols, and the legal actions numbered. The person answers with a
number or with the action's text; ``?`` explains the options. Anything else is asked again: a person never faults
by a typing error. End of input (Ctrl-D) or Ctrl-C at the prompt leaves the game: one line says so and the seat is
recorded as a ``crash`` fault ("the human left the game"), after which the referee plays the seat's default action
(RULES.md C-7) to the end.

Like every bot it sees only its observation. It cannot import the engine, so the words for the events come from the
game's own narration when the command hands it over (:attr:`HumanBot.narrator`, set by ``referee play``), and
otherwise from the event's fields.

``interactive = True`` marks a bot that is a person: ``referee play`` does not put it under the clock (docs/HUMAN.md),
seats at most one, and refuses ``--json`` and ``--verbose`` with it; ``referee tournament`` and ``referee check``
refuse it.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO, TypeGuard

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo
from protocol.cards import KAZAKI_SUITS, STANDARD_SUITS, SUIT_NAMES, SUIT_SYMBOLS, Card
from protocol.errors import BotCrashed, ParseError

__all__ = ["HumanBot", "SUITS", "Style", "describe", "explain", "render", "shown_card"]

#: suit letter → (symbol, name, red?) for the standard deck and the four kinds of the Cossacks-Robbers deck (C-3)
SUITS: dict[str, tuple[str, str, bool]] = {
    letter: (SUIT_SYMBOLS[letter], SUIT_NAMES[letter], letter in "DHRF") for letter in STANDARD_SUITS + KAZAKI_SUITS}

#: what each action kind means, by kind, and by (kind, phase) where a phase gives it another sense
KIND_HELP: dict[str | tuple[str, str], str] = {
    "attack": "lead a bout: put one card, or several of one rank, on the table against the defender",
    "defend": "cover an attack card on the table with a higher card of its suit or a trump: defend(attack,cover)",
    "transfer": "pass the attack on to the next player by adding cards of the attack's rank",
    "take": "give up the defence: you pick up every card on the table",
    "throw_in": "add a card of a rank already on the table to the defender's bout",
    "withdraw": "take back a card you threw in that the defender did not cover (after a take)",
    "pass": "do nothing more now",
    ("pass", "offer"): "throw in nothing: the next player may, or the bout ends",
    ("pass", "after_take"): "add nothing more to what the defender picks up",
    ("pass", "redeal_offer"): "decline the redeal: play this deal",
    ("pass", "bargain"): "offer no buy-off: the hands are swapped",
    ("pass", "exchange"): "keep your hand: ask nobody to exchange",
    "demand_redeal": "your hand lets you demand a new deal: the cards are dealt again",
    "play": "play this card to the trick",
    "give": "give this card of your hand to the Peasant (the levy)",
    "take_card": "take this card from the Peasant's hand (the levy)",
    "exchange": "swap your whole hand with this seat's (blind: neither sees the other's first)",
    "bargain": "offer to buy off the swap: this many of your tricks go to the asker and the hands stay",
    "accept": "accept the buy-off: no swap, the offered tricks move to you",
    "refuse": "refuse the buy-off: the hands are swapped",
    "name_trump": "name the trump suit for this tour (none: no trumps)",
    "lay": "lay these cards for the boasting stacks",
    "reboast": "boast again: the deal is boasted anew",
    "keep": "keep the deal: the hand cards are shuffled and dealt again without a new boasting",
}

#: the trumps of the games whose observation names no trump suit, because the rules fix them (shown as "Trumps:")
FIXED_TRUMPS = {
    "kozel-hvaleny": "every queen, every jack, 6C and every diamond (RULES.md KH-3)",
    "kozel-nn": "every club, every jack and every queen (RULES.md KN-3)",
}

#: observation keys shown in their own place (or not at all); every other key is listed under "also"
_SHOWN = frozenset({
    "game", "seat", "seats", "phase", "hand", "events", "hand_sizes", "trump", "trump_card", "trump_card_holder",
    "trump_card_drawn_by", "stock", "discard", "table", "trick", "tricks", "active", "attacker", "defender", "leader",
    "dealer", "titles", "roles", "teams", "team", "peasant_hand", "priority", "play_order",
})
_CARD = re.compile(r"\b(?:(?:10|[2-9JQKA])[CDHS]|[0-9][KRTF])\b(?!-)")  # not a rule id like KH-3


class Style:
    """How cards are drawn: suit symbols when the output can write them, red ANSI colour for the red suits when the
    output is a terminal and ``NO_COLOR`` is not set."""

    def __init__(self, symbols: bool = True, colour: bool = False) -> None:
        self.symbols = symbols
        self.colour = colour

    @classmethod
    def for_stream(cls, stream: TextIO) -> Style:
        try:
            "".join(SUIT_SYMBOLS.values()).encode(getattr(stream, "encoding", None) or "ascii")
            symbols = True
        except (UnicodeEncodeError, LookupError):
            symbols = False
        colour = bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ
        return cls(symbols, colour)

    def suit(self, letter: str) -> str:
        symbol, _, red = SUITS.get(letter, (letter, letter, False))
        text = symbol if self.symbols else letter
        return f"\x1b[31m{text}\x1b[0m" if self.colour and red else text

    def card(self, text: str) -> str:
        """A card as shown: ``7♣``, ``10♥``, ``7■`` (``7C`` … without symbols)."""
        try:
            card = Card.parse(text)
        except ParseError:
            return text
        return text[:-1] + self.suit(card.suit)

    def cards(self, texts: Sequence[str]) -> str:
        return " ".join(self.card(t) for t in texts)

    def words(self, line: str) -> str:
        """A line of narration with its card texts drawn as cards."""
        return _CARD.sub(lambda m: self.card(m.group(0)), line)


def shown_card(token: str) -> str:
    """The card text of a card as :class:`Style` shows it (``7♣`` → ``7C``): the inverse of :meth:`Style.card`."""
    token = re.sub(r"\x1b\[[0-9;]*m", "", token)
    for letter, (symbol, _, _) in SUITS.items():
        if token.endswith(symbol):
            return token[: -len(symbol)] + letter
    return token


def describe(action: Action, style: Style) -> str:
    """An action in words: ``cover 7♣ with 9♣``, ``exchange hands with seat 2``."""
    cards = [style.card(str(c)) for c in action.cards]
    args = action.args
    match action.kind:
        case "attack":
            return "attack with " + " ".join(cards)
        case "defend" if len(cards) == 2:
            return f"cover {cards[0]} with {cards[1]}"
        case "transfer":
            return "transfer with " + " ".join(cards)
        case "take":
            return "take the cards"
        case "throw_in":
            return "throw in " + " ".join(cards)
        case "withdraw":
            return "take back " + " ".join(cards)
        case "demand_redeal":
            return "demand a redeal"
        case "play":
            return "play " + " ".join(cards)
        case "give":
            return "give " + " ".join(cards) + " to the Peasant"
        case "take_card":
            return "take " + " ".join(cards) + " from the Peasant"
        case "exchange" if args:
            return f"exchange hands with seat {args[0]}"
        case "bargain" if args:
            return f"offer {args[0]} trick{'s' if args[0] != 1 else ''} to keep your hand"
        case "accept":
            return "accept the buy-off"
        case "refuse":
            return "refuse the buy-off (swap)"
        case "name_trump" if args:
            if args[0] == "none":
                return "name no trump"
            return f"name {style.suit(str(args[0]))} {SUITS.get(str(args[0]), ('', str(args[0]), False))[1]} trump"
        case "lay":
            return "lay " + " ".join(cards)
    words = action.kind.replace("_", " ")
    return words + (" " + " ".join(style.card(str(a)) for a in args) if args else "")


def explain(legal: Sequence[Action], phase: str | None) -> list[str]:
    """What the kinds of the legal actions mean in this phase, and how to answer: the text of ``?``."""
    lines = [f"Phase {phase}: your options are numbered." if phase else "Your options are numbered.",
             "Answer with the number, or with the action's text as shown on the right"
             + (f" (like {legal[0].text})." if legal else "."),
             "Ctrl-D or Ctrl-C leaves the game (your seat is then played by the referee's default actions)."]
    seen: list[str] = []
    for action in legal:
        if action.kind not in seen:
            seen.append(action.kind)
    for kind in seen:
        text = KIND_HELP.get((kind, phase or "")) or KIND_HELP.get(kind) or "an action of this game (docs/RULES.md)"
        lines.append(f"  {kind}: {text}")
    return lines


def _seat_list(value: Any, seats: int) -> TypeGuard[list[Any]]:
    return isinstance(value, list) and len(value) == seats


def _value(value: Any, style: Style) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v, style)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(_value(v, style) for v in value) if value else "-"
    if isinstance(value, str):
        return style.card(value)
    return "-" if value is None else str(value)


def _teams(info: GameInfo | None, obs: Mapping[str, Any]) -> tuple[tuple[int, ...], ...] | None:
    if info is not None and info.teams:
        return info.teams
    teams = obs.get("teams")
    if isinstance(teams, dict):
        return tuple(tuple(members) for members in teams.values())
    return None


def render(obs: Mapping[str, Any], legal: Sequence[Action], *, info: GameInfo | None = None,
           narrate: Callable[[Mapping[str, Any]], str] | None = None, style: Style | None = None) -> str:
    """The screen of one decision, from the seat's observation (docs/WIRE.md) and its legal actions."""
    style = style or Style()
    me = int(obs.get("seat", info.seat if info else 0))
    seats = int(obs.get("seats", info.seats if info else 0))
    game = obs.get("game", info.game if info else "?")
    you = re.compile(rf"\bseat {me}\b(?! \()")
    dot = " · " if style.symbols else " - "
    out = [f"==== {game}{dot}you are seat {me} of {seats} ===="]
    events = obs.get("events") or []
    if events:
        out.append("Since your last turn:")
        for event in events:
            try:
                said = narrate(event) if narrate else None
            except Exception:  # noqa: BLE001 - the words are a courtesy: a failing narration shows the fields
                said = None
            if said is None:
                said = event.get("type", "?") + ": " + ", ".join(
                    f"{k} {_value(v, style)}" for k, v in event.items() if k != "type")
            out.append("  " + you.sub(f"seat {me} (you)", style.words(said)))
    trump = obs.get("trump")
    if "trump" in obs:
        line = "Trump: " + ("not named yet" if trump is None else "none (no-trump)" if trump == "none" else
                            f"{style.suit(trump)} {SUITS.get(trump, ('', trump, False))[1]}")
        if obs.get("trump_card"):
            line += f", {style.card(obs['trump_card'])} turned up"
            holder = obs.get("trump_card_holder", obs.get("trump_card_drawn_by"))
            if holder is not None:
                line += f" (with seat {holder})"
        for key in ("stock", "discard"):
            if obs.get(key) is not None:
                line += f"{dot}{key} {obs[key]}"
        out.append(line)
    elif game in FIXED_TRUMPS:
        out.append("Trumps: " + style.words(FIXED_TRUMPS[game]))
    out.append("Players:")
    teams = _teams(info, obs)
    sizes = obs.get("hand_sizes")
    for seat in range(seats):
        words = [f"seat {seat}" + (" (you)" if seat == me else "")]
        if teams:
            for members in teams:
                if seat in members and me in members and seat != me:
                    words.append("partner")
        if _seat_list(sizes, seats):
            words.append(f"{sizes[seat]} card{'s' if sizes[seat] != 1 else ''}")
        for key in ("attacker", "defender", "leader", "dealer"):
            if obs.get(key) == seat:
                words.append(key)
        for key in ("titles", "roles"):
            value = obs.get(key)
            if _seat_list(value, seats) and value[seat] is not None:
                words.append(str(value[seat]))
        active = obs.get("active")
        if _seat_list(active, seats) and not active[seat]:
            words.append("out")
        out.append("  " + ", ".join(words))
    if isinstance(obs.get("team"), str):
        mates = [s for team in teams or () if me in team for s in team if s != me]
        out.append(f"Your team: {obs['team']}" + (f", with seat {' and '.join(map(str, mates))}" if mates else ""))
    table = obs.get("table")
    if isinstance(table, list):
        out.append("Table: " + ("empty" if not table else dot.join(
            f"{style.card(t['card'])}" + (f" beaten by {style.card(t['cover'])}" if t.get("cover") else " open")
            + (" (thrown in)" if t.get("thrown_in") else "") for t in table)))
    trick = obs.get("trick")
    if isinstance(trick, list):
        out.append("Trick: " + ("nothing played yet" if not trick else ", ".join(
            f"seat {t['seat']} {style.card(t['card'])}" for t in trick)))
    tricks = obs.get("tricks")
    if isinstance(tricks, list) and tricks and isinstance(tricks[-1], dict):
        last = tricks[-1]
        out.append(f"Last trick: {style.cards(last.get('cards', []))}, won by seat {last.get('winner')}"
                   + (f" ({last['points']} points)" if "points" in last else ""))
    elif _seat_list(tricks, seats):
        out.append("Tricks: " + ", ".join(f"seat {s} {n}" for s, n in enumerate(tricks)))
    also = [f"{key.replace('_', ' ')}: " + (", ".join(f"seat {s} {_value(v, style)}" for s, v in enumerate(value))
                                            if _seat_list(value, seats) else _value(value, style))
            for key, value in obs.items() if key not in _SHOWN and value is not None]
    if also:
        out += textwrap.wrap("Also: " + dot.join(also), 116, subsequent_indent="  ", break_on_hyphens=False)
    if obs.get("peasant_hand"):
        out.append("The Peasant's hand:")
        out += _hand_lines(obs["peasant_hand"], trump, style)
    hand = obs.get("hand") or []
    out.append(f"Your hand ({len(hand)}):")
    out += _hand_lines(hand, trump, style)
    phase = obs.get("phase")
    out.append(f"Your options{f' ({phase})' if phase else ''}:")
    width = max(len(describe(a, Style(style.symbols))) for a in legal) if legal else 0
    for number, action in enumerate(legal, 1):
        pad = width - len(describe(action, Style(style.symbols)))
        out.append(f"  {number:>2}  {describe(action, style)}{' ' * pad}   {action.text}")
    return "\n".join(out)


def _hand_lines(hand: Sequence[str], trump: Any, style: Style) -> list[str]:
    """The cards grouped by suit, in the observation's (canonical) order: ``  ♣ clubs: 7♣ Q♣``."""
    groups: dict[str, list[str]] = {}
    for text in hand:
        groups.setdefault(text[-1], []).append(text)
    if not groups:
        return ["  (no cards)"]
    return [f"  {style.suit(suit)} {SUITS.get(suit, ('', suit, False))[1]}{' (trump)' if suit == trump else ''}: "
            f"{style.cards(cards)}" for suit, cards in groups.items()]


class HumanBot(BotBase):
    """A person at the terminal: reads answers from ``stdin`` and writes the screen to ``stdout`` (the process's
    own, looked up when the game starts, unless given)."""

    name = "human"
    #: a person, not a program: no clock, one per game, not in tournaments or checks (see the module's doc)
    interactive = True
    #: the game's narration of one event (wire form), handed over by ``referee play``; None: the event's fields
    narrator: Callable[[Mapping[str, Any]], str] | None = None

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self.style = Style()

    @property
    def stdin(self) -> TextIO:
        return self._stdin or sys.stdin

    @property
    def stdout(self) -> TextIO:
        return self._stdout or sys.stdout

    def _say(self, text: str) -> None:
        if not self.style.symbols:  # an output that cannot write every character: what it cannot write as "?"
            encoding = getattr(self.stdout, "encoding", None) or "ascii"
            text = text.encode(encoding, "replace").decode(encoding)
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self.style = Style.for_stream(self.stdout)
        partners = [s for team in info.teams or () if info.seat in team for s in team if s != info.seat]
        with_whom = f", with seat {' and '.join(map(str, partners))} as your partner" if partners else ""
        self._say(f"You play seat {info.seat} of {info.seats} in {info.game}{with_whom}. "
                  f"Answer with a number; ? explains the options; Ctrl-D leaves the game.")

    def act(self, decision: Decision) -> Action:
        legal = decision.legal
        obs = decision.observation
        self._say("\n" + render(obs, legal, info=self.info, narrate=self.narrator, style=self.style))
        while True:
            self.stdout.write(f"Your move [1-{len(legal)}, text or ?]{' (Enter: 1)' if len(legal) == 1 else ''}: ")
            self.stdout.flush()
            try:
                line = self.stdin.readline()
            except KeyboardInterrupt:
                line = ""
            except UnicodeDecodeError:  # bytes the terminal's encoding does not read: a line to type again
                line = "\ufffd\n"
            if not line:
                self._say(f"\nseat {decision.seat} leaves the game: the referee plays its default actions to the "
                          f"end, recorded as a crash fault")
                raise BotCrashed("the human left the game")
            answer = line.strip()
            chosen = self.choose(answer, legal)
            if chosen is not None:
                return chosen
            if answer in ("?", "help"):
                self._say("\n".join(explain(legal, obs.get("phase"))))
            elif answer:
                self._say(f"{answer!r} is not one of your options: type a number from 1 to {len(legal)}, "
                          f"an action's text, or ? for help")

    @staticmethod
    def choose(answer: str, legal: Sequence[Action]) -> Action | None:
        """The legal action an answer names: its number, or its text (case and spaces aside); an empty answer when
        there is one option; None otherwise."""
        if not answer:
            return legal[0] if len(legal) == 1 else None
        if answer.isascii() and answer.isdigit():
            number = int(answer)
            return legal[number - 1] if 1 <= number <= len(legal) else None
        wanted = answer.replace(" ", "").upper()
        return next((a for a in legal if a.text.upper() == wanted), None)

    def game_over(self, result: Mapping[str, Any]) -> None:
        places = result.get("places")
        seat = self.info.seat
        where = f": you (seat {seat}) placed {places[seat]} of {len(places)}" if isinstance(places, list) else ""
        self._say(f"\nThe game is over{where}.")
