"""Actions as values: text form (docs/WIRE.md, tests/golden/README.md), equality and hashing by text."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from protocol.actions import Action
from protocol.cards import Card
from protocol.errors import ParseError

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

# Every action kind listed in tests/golden/README.md, with its expected (kind, args).
EXAMPLES = [
    ("attack(7K,7T)", "attack", (Card(7, "K"), Card(7, "T"))),
    ("attack(7K)", "attack", (Card(7, "K"),)),
    ("attack(10C,10D,10S)", "attack", (Card(10, "C"), Card(10, "D"), Card(10, "S"))),
    ("transfer(7H,7S)", "transfer", (Card(7, "H"), Card(7, "S"))),
    ("defend(7T,9T)", "defend", (Card(7, "T"), Card(9, "T"))),
    ("defend(QS,AS)", "defend", (Card(12, "S"), Card(14, "S"))),
    ("throw_in(9R)", "throw_in", (Card(9, "R"),)),
    ("withdraw(8T)", "withdraw", (Card(8, "T"),)),
    ("take", "take", ()),
    ("pass", "pass", ()),
    ("demand_redeal", "demand_redeal", ()),
    ("play(QC)", "play", (Card(12, "C"),)),
    ("lay(KH,9D)", "lay", (Card(13, "H"), Card(9, "D"))),
    ("reboast", "reboast", ()),
    ("keep", "keep", ()),
    ("take_card(AS)", "take_card", (Card(14, "S"),)),
    ("give(7D)", "give", (Card(7, "D"),)),
    ("exchange(2)", "exchange", (2,)),
    ("exchange(0)", "exchange", (0,)),
    ("bargain(2)", "bargain", (2,)),
    ("bargain(13)", "bargain", (13,)),
    ("accept", "accept", ()),
    ("refuse", "refuse", ()),
    ("name_trump(S)", "name_trump", ("S",)),
    ("name_trump(C)", "name_trump", ("C",)),
    ("name_trump(none)", "name_trump", ("none",)),
]


@pytest.mark.parametrize(("text", "kind", "args"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_parse_and_text_round_trip(text: str, kind: str, args: tuple[object, ...]) -> None:
    action = Action.parse(text)
    assert action.kind == kind
    assert action.args == args
    assert action.text == text
    assert str(action) == text
    assert Action(kind, args).text == text
    assert Action.parse(action.text) == action


def test_lay_keeps_the_given_order() -> None:
    """``lay`` is an ordered list (by stack): the text keeps the order it was given."""
    assert Action.parse("lay(9D,KH)").text == "lay(9D,KH)"
    assert Action.parse("lay(9D,KH)") != Action.parse("lay(KH,9D)")


def test_cards_property() -> None:
    assert Action.parse("defend(7T,9T)").cards == (Card(7, "T"), Card(9, "T"))
    assert Action.parse("exchange(2)").cards == ()
    assert Action.parse("take").cards == ()


def _golden_action_texts() -> list[str]:
    texts: set[str] = set()
    for path in sorted(GOLDEN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if "legal" in row:
                    texts.update(row["legal"])
                    texts.add(row["action"])
    return sorted(texts)


def test_every_golden_action_text_round_trips() -> None:
    """Every legal action of every golden file, of every game, parses and prints back to the same text."""
    texts = _golden_action_texts()
    assert texts, f"no golden files in {GOLDEN}: they are part of the repository"
    bad = [t for t in texts if Action.parse(t).text != t]
    assert not bad, bad[:20]


# ------------------------------------------------------------------------------------------ equality


def test_equality_and_hash_are_by_text() -> None:
    a = Action("attack", (Card(7, "K"), Card(7, "T")))
    b = Action.parse("attack(7K,7T)")
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    assert {a: 1}[b] == 1
    assert a in (Action("take"), b)


def test_different_texts_are_different_actions() -> None:
    assert Action("take") != Action("pass")
    assert Action.parse("attack(7K,7T)") != Action.parse("attack(7T,7K)")
    assert Action.parse("attack(7K)") != Action.parse("throw_in(7K)")
    assert Action.parse("exchange(2)") != Action.parse("bargain(2)")
    assert len({Action("take"), Action("pass"), Action("take")}) == 2


def test_an_action_is_not_equal_to_its_text() -> None:
    assert Action("take") != "take"
    assert "take" != Action("take")


def test_actions_are_frozen() -> None:
    action = Action("take")
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.kind = "pass"  # type: ignore[misc]
    assert repr(Action.parse("attack(7K)")) == "Action(attack(7K))"


# -------------------------------------------------------------------------------------------- errors


BAD_ACTIONS = [
    "",
    "(7K)",
    "7K",
    "Take",
    "TAKE",
    "take ",
    " take",
    "take()",
    "take(",
    "attack(",
    "attack()",
    "attack(7K",
    "attack(7K))",
    "attack((7K))",
    "attack(7K)x",
    "attack(7K,)",
    "attack(,7K)",
    "attack(7K,,7T)",
    "attack(7X)",
    "attack(1D)",
    "attack(11C)",
    "attack(10T)",
    "defend(7T;9T)",
    "name_trump(K)",
    "name_trump(s)",
    "name_trump(None)",
    "exchange(-1)",
    "exchange(2.5)",
    "throw in(9R)",
    "throw-in(9R)",
    "attack 7K",
    "_",
    "__",
    "a1(7K)",
]


@pytest.mark.parametrize("text", BAD_ACTIONS)
def test_bad_action_texts_are_parse_errors(text: str) -> None:
    with pytest.raises(ParseError, match="invalid action"):
        Action.parse(text)


@pytest.mark.parametrize("text", ["exchange(²)", "attack(٣K)", "defend(7T,۹T)"])
def test_bad_action_texts_with_non_ascii_digits_are_parse_errors(text: str) -> None:
    """Arguments are ASCII (C-3 cards, decimal seats); str.isdigit() accepts other digits too."""
    with pytest.raises(ParseError):
        Action.parse(text)


@pytest.mark.parametrize("value", [None, 7, b"take", ["take"]])
def test_non_string_actions_are_parse_errors(value: object) -> None:
    with pytest.raises(ParseError):
        Action.parse(value)  # type: ignore[arg-type]
