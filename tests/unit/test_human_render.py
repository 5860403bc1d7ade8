"""The human seat's screen (bots/human.py) drawn from real observations: every game at its fewest and most seats
(and an option that adds phases), a few games of random play each, every decision rendered. The hand shown is the
seat's hand, every legal action is listed with its number and text, and every action kind has its explanation."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

import pytest

from bots.human import KIND_HELP, HumanBot, Style, explain, render, shown_card
from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo
from referee.match import play_game
from referee.plugins import load_registry

REGISTRY = load_registry()
CASES = [(game, seats, {}) for game, entry in sorted(REGISTRY.games.items())
         for seats in sorted({entry.game.min_seats, entry.game.max_seats})]
CASES += [("durak", 3, {"transfer": True, "redeal_five": True}), ("kozel-nn", 4, {"boasting": True})]


def section(screen: str, title: str) -> list[str]:
    """The lines under the heading that starts with ``title``, up to the next line that is not indented."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        body.append(line)
    return body


def hand_shown(screen: str) -> list[str]:
    cards = []
    for line in section(screen, "Your hand"):
        if line.strip() != "(no cards)":
            cards += [shown_card(token) for token in line.split(": ", 1)[1].split()]
    return cards


class Renders(BotBase):
    """Plays randomly (its own stream) and renders each decision, as the human seat would, in three styles."""

    name = "renders"

    def __init__(self, game: Any, checked: list[int], kinds: set[tuple[str, str | None]]) -> None:
        self.game, self.checked, self.kinds = game, checked, kinds
        self.count = 0

    def act(self, decision: Decision) -> Action:
        self.count += 1
        obs = decision.observation
        for style in (Style(True, False), Style(False, False), Style(True, True)):
            screen = render(obs, decision.legal, info=self.info, narrate=self.game.narrate, style=style)
            assert hand_shown(screen) == list(obs["hand"]), screen
            listed = section(screen, "Your options")
            assert [re.split(r"\s{3,}", line.strip())[-1] for line in listed] == [a.text for a in decision.legal]
            assert [int(line.split()[0]) for line in listed] == list(range(1, len(decision.legal) + 1))
            assert f"you are seat {decision.seat} of {self.info.seats}" in screen
        self.checked.append(1)
        self.kinds.update((a.kind, obs.get("phase")) for a in decision.legal)
        return decision.legal[(self.count * 7 + self.info.seat) % len(decision.legal)]


@pytest.mark.parametrize(("game_id", "seats", "options"), CASES, ids=[f"{g}-{n}p{'-opt' if o else ''}"
                                                                      for g, n, o in CASES])
def test_every_decision_renders_with_the_seats_hand(game_id: str, seats: int, options: Mapping[str, Any]) -> None:
    game = REGISTRY.game(game_id)
    checked: list[int] = []
    kinds: set[tuple[str, str | None]] = set()
    for seed in (1, 2):
        play_game(game, [Renders(game, checked, kinds) for _ in range(seats)], seed=seed, options=dict(options))
    assert len(checked) > 10
    for kind, phase in kinds:  # every kind of the built-in games is explained, none by the fallback words
        assert kind in KIND_HELP or (kind, phase) in KIND_HELP
        assert "docs/RULES.md" not in "".join(explain([Action(kind)], phase))


def test_no_narration_shows_the_events_fields() -> None:
    obs = {"game": "g", "seat": 0, "seats": 2, "hand": ["7C"], "events": [{"type": "play", "seat": 1, "card": "QH"}]}
    screen = render(obs, [Action.parse("play(7C)")], style=Style(True, False))
    assert "play: seat 1, card Q♥" in screen
    assert hand_shown(screen) == ["7C"]


def human(answers: str) -> tuple[HumanBot, io.StringIO]:
    out = io.StringIO()
    bot = HumanBot(io.StringIO(answers), out)
    bot.new_game(GameInfo("kozel", {}, 0, 2))
    return bot, out


LEGAL = [Action.parse("play(7C)"), Action.parse("play(QH)")]


def test_an_answer_is_a_number_or_the_text_and_anything_else_is_asked_again() -> None:
    bot, out = human("3\n\nplay(8C)\n?\nPLAY(qh)\n")
    decision = Decision(0, LEGAL, lambda: {"seat": 0, "seats": 2, "hand": ["7C", "QH"], "phase": "play"})
    assert bot.act(decision) == LEGAL[1]
    text = out.getvalue()
    assert text.count("is not one of your options") == 2  # "3" and "play(8C)"; an empty line is asked again quietly
    assert "play: play this card to the trick" in text  # the ? explanation


def test_odd_input_is_asked_again_never_a_fault() -> None:
    class Typed(io.RawIOBase):  # a terminal: one line per read
        lines = [b"\xff\xfe\n", "²\n".encode(), b"1\n"]  # bytes that are not UTF-8, a digit that is not 0-9

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            line = self.lines.pop(0) if self.lines else b""
            buffer[:len(line)] = line
            return len(line)

    raw = io.TextIOWrapper(io.BufferedReader(Typed()), encoding="utf-8")
    out = io.StringIO()
    bot = HumanBot(raw, out)
    bot.new_game(GameInfo("kozel", {}, 0, 2))
    assert bot.act(Decision(0, LEGAL, lambda: {"seat": 0, "seats": 2, "hand": ["7C", "QH"]})) == LEGAL[0]
    assert out.getvalue().count("is not one of your options") == 2


def test_one_option_is_taken_by_enter_and_a_number_by_its_place() -> None:
    bot, _ = human("\n2\n")
    one = Decision(0, LEGAL[:1], lambda: {"seat": 0, "seats": 2, "hand": ["7C"]})
    two = Decision(0, LEGAL, lambda: {"seat": 0, "seats": 2, "hand": ["7C", "QH"]})
    assert bot.act(one) == LEGAL[0]
    assert bot.act(two) == LEGAL[1]


def test_end_of_input_leaves_the_game_with_one_line() -> None:
    bot, out = human("")
    with pytest.raises(Exception, match="the human left the game") as raised:
        bot.act(Decision(0, LEGAL, lambda: {"seat": 0, "seats": 2, "hand": ["7C", "QH"]}))
    assert type(raised.value).__name__ == "BotCrashed"
    assert out.getvalue().rstrip().splitlines()[-1] == ("seat 0 leaves the game: the referee plays its default "
                                                       "actions to the end, recorded as a crash fault")


def test_the_human_is_not_under_the_clock() -> None:
    from referee.botspec import parse_spec
    from referee.clock import Clocked, TimeControl

    made = parse_spec("human", REGISTRY).make(REGISTRY, time=TimeControl(move_time=0.001))
    assert isinstance(made, HumanBot) and not isinstance(made, Clocked)
    assert isinstance(parse_spec("random", REGISTRY).make(REGISTRY, time=TimeControl()), Clocked)


def test_an_output_that_cannot_write_the_symbols_gets_the_suit_letters() -> None:
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    plain = Style.for_stream(ascii_out)
    assert (plain.symbols, plain.colour) == (False, False)  # not a terminal: no colour either
    assert plain.card("10H") == "10H" and Style().card("10H") == "10♥" and Style().card("7T") == "7■"
    assert Style(True, True).card("QD") == "Q\x1b[31m♦\x1b[0m" and Style(True, True).card("QS") == "Q♠"
    obs = {"seat": 0, "seats": 2, "hand": ["7C", "10H"], "trump": "H"}
    screen = render(obs, [Action.parse("play(10H)")], style=plain)
    assert "H hearts (trump): 10H" in screen and "play 10H" in screen
    screen.encode("ascii")  # every character of the screen, separators included
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    bot = HumanBot(io.StringIO("1\n"), out)
    bot.new_game(GameInfo("kozel", {}, 0, 2))
    bot.act(Decision(0, [Action.parse("play(10H)")], lambda: {**obs, "events": [{"type": "note", "text": "ё"}]}))
    out.flush()
    assert "note: text ?" in out.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]


def test_the_games_with_fixed_trumps_say_which_cards_are_trumps() -> None:
    obs = {"game": "kozel-nn", "seat": 0, "seats": 4, "hand": ["7C"], "team": "A", "teams": {"A": [0, 2], "B": [1, 3]}}
    screen = render(obs, [Action.parse("play(7C)")], style=Style(True, False))
    assert "Trumps: every club, every jack and every queen (RULES.md KN-3)" in screen
    assert "Your team: A, with seat 2" in screen and "seat 2, partner" in screen
    assert "KH-3" in render({**obs, "game": "kozel-hvaleny"}, [Action.parse("play(7C)")])  # a rule id is no card
