"""The row codec (tournaments/rows.py): a body from a GameRecord, or from a record's file form, rebuilds the record
exactly; what the compact form cannot hold is kept whole (``R`` for a result, ``X`` for a record)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import BotBase, Decision
from referee.match import GameRecord, play_game
from referee.plugins import load_registry
from referee.record import record_to_dict
from tournaments.rows import RecordTemplate, decode_body, decode_record, encode_body, encode_record, pack_body

REGISTRY = load_registry()
GAME = REGISTRY.game("durak")
TEMPLATE = RecordTemplate("durak", GAME.configure({}), "forfeit")


class Random(BotBase):
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> Action | str:
        return self.rng.choice(list(decision.legal))


def game(seed: int) -> GameRecord:
    record = play_game(GAME, [Random(seed), Random(seed + 1)], seed=seed, options=TEMPLATE.options, policy="forfeit")
    record.bots = ["a", "b"]
    return record


def file_form(record: GameRecord, stderr: dict[str, str], *, timed: bool = True) -> dict[str, Any]:
    data = record_to_dict(record)
    data["stderr"] = stderr
    if not timed:
        del data["times"], data["said"]
    return data


def rebuilt(body: bytes, record: GameRecord) -> dict[str, Any]:
    return decode_record(record.seed, record.bots, record.result.places, body, TEMPLATE, GAME)


@pytest.mark.parametrize("timed", [True, False])
def test_a_record_and_its_file_form_encode_alike(timed: bool) -> None:
    for seed in range(5):
        record = game(seed)
        stderr = {"1": "a tail ✓"} if seed % 2 else {}
        data = file_form(record, stderr, timed=timed)
        body = encode_record(record.seed, record, stderr, TEMPLATE, timed=timed)
        assert encode_body(record.seed, data, record.choices, TEMPLATE) == body
        assert "X" not in decode_body(body)[1] and ("t" in decode_body(body)[1]) is timed
        assert json.dumps(rebuilt(body, record)) == json.dumps(data)


def test_a_result_the_defaults_do_not_rebuild_is_kept_whole() -> None:
    record = game(1)
    places = record.result.places
    rule_places = tuple(reversed(places))  # ranked otherwise by the rules; the rule order left as the places'
    record.result = dataclasses.replace(record.result, rule_places=rule_places)
    body = encode_record(record.seed, record, {}, TEMPLATE)
    rest = decode_body(body)[1]
    assert "R" in rest and "r" not in rest
    assert json.dumps(rebuilt(body, record)) == json.dumps(file_form(record, {}))


def test_a_record_without_its_choices_or_of_another_form_is_kept_whole() -> None:
    record = game(2)
    unplayed = dataclasses.replace(record, choices=[])
    body = encode_record(record.seed, unplayed, {}, TEMPLATE)
    assert decode_body(body) == ([], {"X": file_form(record, {})})
    other = {**file_form(record, {}), "comment": "written by other code"}
    assert decode_body(encode_body(record.seed, other, record.choices, TEMPLATE)) == ([], {"X": other})


@pytest.mark.parametrize("choices", [[], [0], [127], [128], [5, 300, 7, 127, 128, 16_383, 16_384, 0],
                                     [1] * 70 + [2 ** 20] + [3] * 5, list(range(260))])
def test_a_bodys_choices_read_back_whatever_their_size(choices: list[int]) -> None:
    """A choice is a varint: a byte below 128, more above; decode_body reads runs of one-byte choices at once."""
    body = pack_body(choices, {"k": 1})
    assert decode_body(body) == (choices, {"k": 1})


@pytest.mark.parametrize("body", [b"\x00\x05\x01\x02", b"\x00\x02\x01\x81", b"\x00\x01", b"\x00\x81"])
def test_a_body_whose_choices_are_cut_short_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError, match="the choices are cut short"):
        decode_body(body)
