"""The typed game result (referee/results.py, RULES.md C-10): ``to_dict`` is byte for byte the result object the
runner has always written, and ``from_dict`` reads it back or refuses it in one line."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from bots.random import RandomBot
from protocol.actions import Action
from protocol.bot import BotBase, Decision
from protocol.faults import Fault, FaultKind
from referee.engine import Game, State, places_from_order
from referee.errors import RecordError
from referee.match import apply_policy, play_game
from referee.plugins import load_registry
from referee.results import GameResult

REGISTRY = load_registry()
GAMES = sorted(REGISTRY.games)


class Crasher(BotBase):
    name = "crasher"

    def act(self, decision: Decision) -> Action:
        raise RuntimeError("boom")


def old_result_dict(game: Game, state: State, faults: list[Fault], policy: str) -> dict[str, Any]:
    """The result object exactly as referee/match.py:result_record built it before the result was typed."""
    rules = state.result()
    order = apply_policy(rules.finishing_order, faults, policy, game.teams(state.seats))
    record = rules.to_dict()
    return {
        "game": game.id,
        "n": state.seats,
        "places": list(places_from_order(order, state.seats)),
        "rule_places": record.pop("places"),
        "finishing_order": order,
        "rule_finishing_order": record.pop("finishing_order"),
        "scores": record.pop("scores"),
        "faults": [f.to_dict() for f in faults],
        "aborted": record.pop("aborted"),
        **record,
    }


def play(game_id: str, seats: int, seed: int, *, crash: bool, policy: str = "forfeit") -> tuple[Any, State]:
    game = REGISTRY.game(game_id)
    states: list[State] = []
    bots: list[Any] = [Crasher() if crash and s == 1 else RandomBot() for s in range(seats)]
    record = play_game(game, bots, seed=seed, policy=policy, listener=lambda state, _: states.append(state))
    return record, states[-1]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize(("crash", "policy"), [(False, "forfeit"), (True, "forfeit"), (True, "continue")])
def test_to_dict_is_the_old_result_object_byte_for_byte(game_id: str, crash: bool, policy: str) -> None:
    game = REGISTRY.game(game_id)
    for seats in sorted({game.min_seats, game.max_seats}):
        record, state = play(game_id, seats, seed=11 + seats, crash=crash, policy=policy)
        assert bool(record.faults) is crash
        old = old_result_dict(game, state, list(record.faults), policy)
        assert json.dumps(record.result.to_dict()) == json.dumps(old)  # same keys, same order, same values
        assert GameResult.from_dict(json.loads(json.dumps(old))) == record.result


def _result() -> GameResult:
    record, _ = play("durak", 3, seed=5, crash=True)
    return record.result


def test_the_places_and_faults_are_typed() -> None:
    result = _result()
    assert result.seats == result.n == 3 and result.game == "durak"
    assert isinstance(result.places, tuple) and all(isinstance(g, tuple) for g in result.finishing_order)
    assert result.faults and result.faults[0].kind is FaultKind.CRASH
    assert set(result.extra) == {"loser", "draw"}


def test_a_result_that_leaves_out_the_optional_fields_reads_and_writes_without_them() -> None:
    data = _result().to_dict()
    for name in ("game", "n", "rule_places", "rule_finishing_order"):
        del data[name]
    result = GameResult.from_dict(data)
    assert result.rule_places is None and result.game is None
    assert json.dumps(result.to_dict()) == json.dumps(data)


def _damaged(change: Any) -> dict[str, Any]:
    data = _result().to_dict()
    change(data)
    return data


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda d: d.pop("places"), "has no 'places' field"),
    (lambda d: d.pop("aborted"), "has no 'aborted' field"),
    (lambda d: d.update(places="1 2 3"), "field 'places' must be a list of whole numbers"),
    (lambda d: d.update(places=[1, 2, "3"]), "field 'places' must be a list of whole numbers"),
    (lambda d: d.update(n=4), "field 'n' must be the number of seats (3"),
    (lambda d: d.update(rule_places=[1, 2]), "field 'rule_places' must be a list of 3 whole numbers"),
    (lambda d: d.update(finishing_order=[0, 1, 2]), "field 'finishing_order' must be a list of lists of seats"),
    (lambda d: d.update(rule_finishing_order=[[0], ["x"]]), "field 'rule_finishing_order' must be a list of lists"),
    (lambda d: d.update(scores=[0, 0]), "field 'scores' must be a list of 3 scores"),
    (lambda d: d.update(aborted=0), "field 'aborted' must be true or false"),
    (lambda d: d.update(game=7), "field 'game' must be a game id"),
    (lambda d: d.update(faults=[{"seat": 1, "kind": "sulk", "decision": 0}]), "'sulk' is not a fault kind"),
    (lambda d: d.update(faults={"seat": 1}), "field 'faults' must be a list"),
])
def test_a_damaged_result_is_one_record_error_line(change: Any, fragment: str) -> None:
    with pytest.raises(RecordError) as exc:
        GameResult.from_dict(_damaged(change), "the record's result")
    text = str(exc.value)
    assert "\n" not in text and text.startswith("the record's result ") and fragment in text, text


def test_not_an_object_is_one_record_error_line() -> None:
    with pytest.raises(RecordError, match="^the result must be an object$"):
        GameResult.from_dict([1, 2])


def test_a_result_is_a_value() -> None:
    result = _result()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.aborted = True  # type: ignore[misc]
    assert dataclasses.replace(result, aborted=not result.aborted) != result
