"""Game records (referee/record.py): the JSON file, reading it back, and replaying it (RULES.md C-5, C-10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bots.first import FirstBot
from bots.random import RandomBot
from protocol.actions import Action
from protocol.bot import BotBase, Decision
from referee.engine import Game
from referee.errors import ConfigError, RecordError
from referee.games.durak import Durak, Kazaki
from referee.match import GameRecord, play_game
from referee.record import FORMAT, VERSION, read_record, record_from_dict, record_to_dict, replay, write_record

GAMES: dict[str, Game] = {"durak": Durak(), "kazaki": Kazaki()}


def find_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ConfigError(f"unknown game {game_id!r}") from None


class Crasher(BotBase):
    name = "crasher"

    def act(self, decision: Decision) -> Action:
        raise RuntimeError("boom")


def played(game_id: str = "durak", seed: int = 7, seats: int = 3, **kwargs: Any) -> GameRecord:
    bots: list[Any] = [RandomBot() if s % 2 else FirstBot() for s in range(seats)]
    return play_game(GAMES[game_id], bots, seed=seed, **kwargs)


def record_dict(**kwargs: Any) -> dict[str, Any]:
    return record_to_dict(played(**kwargs))


def write_json(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize(("game_id", "seats", "options"), [
    ("durak", 2, {}), ("durak", 4, {"transfer": True}), ("kazaki", 3, {}), ("kazaki", 6, {"max_bouts": 5}),
])
def test_write_read_replay_round_trip(tmp_path: Path, game_id: str, seats: int, options: dict[str, Any]) -> None:
    record = played(game_id, seed=13, seats=seats, options=options)
    path = tmp_path / "game.json"
    write_record(record, path)
    loaded = read_record(path)
    assert loaded == record
    again = replay(loaded, find_game)
    assert again.result == record.result
    assert again.actions == record.actions
    assert again.options == record.options


def test_round_trip_keeps_faults_and_policy(tmp_path: Path) -> None:
    record = play_game(GAMES["durak"], [FirstBot(), Crasher(), RandomBot()], seed=5, policy="forfeit")
    assert record.faults and record.faults[0].kind == "crash"
    path = tmp_path / "game.json"
    write_record(record, path)
    loaded = read_record(path)
    assert loaded.faults == record.faults
    assert loaded.policy == "forfeit"
    assert replay(loaded, find_game).result == record.result


def test_record_file_format(tmp_path: Path) -> None:
    record = played()
    path = tmp_path / "game.json"
    write_record(record, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT == "referee-record"
    assert data["version"] == VERSION == 1
    required = {"format", "version", "game", "seats", "seed", "dealer", "options", "policy", "bots", "actions",
                "faults", "result"}
    assert required <= set(data) <= required | {"stderr", "times", "said"}
    assert all(isinstance(a, str) for a in data["actions"])
    assert record_from_dict(data) == record


def test_write_to_an_unwritable_place_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot write the record"):
        write_record(played(), tmp_path / "no-such-dir" / "game.json")


def test_replay_passes_every_event_to_the_listener() -> None:
    record = played("kazaki", seats=3)
    events: list[dict[str, Any]] = []
    replay(record, find_game, listener=lambda state, new: events.extend(new))
    assert events[0]["type"] == "deal"
    assert events[-1]["type"] == "end"


# ------------------------------------------------------------------------------------------------ tampering


def _legal_texts_at(record: GameRecord, index: int) -> list[str]:
    state = GAMES[record.game].new_state(record.seats, record.seed, record.options, dealer=record.dealer)
    for text in record.actions[:index]:
        state.apply(state.parse_action(text))
    return [a.text for a in state.legal_actions()]


@pytest.mark.parametrize("where", [0, 0.5, -1])
def test_an_illegal_action_is_named_by_its_index(where: float) -> None:
    record = played()
    index = int(where * len(record.actions)) if where >= 0 else len(record.actions) - 1
    legal = _legal_texts_at(record, index)
    bad = next(t for t in ("take", "pass", "attack(6C)", "throw_in(AS)") if t not in legal)
    record.actions[index] = bad
    with pytest.raises(RecordError, match=rf"\baction {index}\b"):
        replay(record, find_game)


def test_a_truncated_record_says_the_game_is_not_over() -> None:
    record = played()
    record.actions = record.actions[:-3]
    with pytest.raises(RecordError, match=rf"stops after {len(record.actions)} actions; seat \d+ is to act"):
        replay(record, find_game)


def test_an_empty_action_list_is_not_a_finished_game() -> None:
    record = played()
    record.actions = []
    with pytest.raises(RecordError, match="stops after 0 actions"):
        replay(record, find_game)


def test_an_action_after_the_end_is_an_error() -> None:
    record = played()
    n = len(record.actions)
    record.actions.append("pass")
    with pytest.raises(RecordError, match=rf"action {n} \(pass\): the game was already over"):
        replay(record, find_game)


@pytest.mark.parametrize(("field", "change"), [
    ("places", lambda r: list(reversed(r))),
    ("rule_places", lambda r: list(reversed(r))),
    ("scores", lambda r: [s + 1 for s in r]),
    ("loser", lambda r: (r + 1) % 3 if r is not None else 0),
    ("aborted", lambda r: not r),
    ("finishing_order", lambda r: list(reversed(r))),
])
def test_a_changed_result_field_is_named(field: str, change: Any) -> None:
    data = record_dict()
    data["result"][field] = change(data["result"][field])
    with pytest.raises(RecordError, match=rf"result field '{field}' differs"):
        replay(record_from_dict(data), find_game)


def test_a_changed_seed_does_not_replay() -> None:
    record = played()
    record.seed += 1
    with pytest.raises(RecordError):
        replay(record, find_game)


def test_a_record_whose_game_cannot_start_is_a_record_error() -> None:
    record = played()
    record.seats = 9
    with pytest.raises(RecordError, match="cannot start"):
        replay(record, find_game)


def test_a_record_with_a_bad_option_is_a_record_error() -> None:
    record = played()
    record.options = {**record.options, "no_such_option": True}
    with pytest.raises(RecordError, match="no_such_option"):
        replay(record, find_game)


# ------------------------------------------------------------------------------------------------ malformed files


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read record"):
        read_record(tmp_path / "absent.json")


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("{this is not json", encoding="utf-8")
    with pytest.raises(RecordError, match=r"not valid JSON \(line 1"):
        read_record(path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="UTF-8"):
        read_record(path)


@pytest.mark.parametrize("data", [[1, 2, 3], "a string", 42, None])
def test_not_an_object(tmp_path: Path, data: Any) -> None:
    with pytest.raises(RecordError, match="JSON object"):
        read_record(write_json(tmp_path, data))


def test_wrong_format(tmp_path: Path) -> None:
    data = record_dict()
    data["format"] = "something-else"
    with pytest.raises(RecordError, match="not a referee record.*something-else"):
        read_record(write_json(tmp_path, data))


def test_missing_format(tmp_path: Path) -> None:
    data = record_dict()
    del data["format"]
    with pytest.raises(RecordError, match="not a referee record"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize("version", [2, 0, "1", None])
def test_wrong_version(tmp_path: Path, version: Any) -> None:
    data = record_dict()
    data["version"] = version
    with pytest.raises(RecordError, match="version .* not supported"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize("field", ["game", "seats", "seed", "dealer", "options", "bots", "actions", "faults",
                                   "policy", "result"])
def test_missing_field_is_named(tmp_path: Path, field: str) -> None:
    data = record_dict()
    del data[field]
    with pytest.raises(RecordError, match=f"'{field}'"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize(("field", "value"), [
    ("seats", "3"), ("seats", True), ("seed", 7.5), ("dealer", None), ("game", 1), ("options", []),
    ("actions", "take"), ("result", []), ("policy", 0),
])
def test_mistyped_field_is_named(tmp_path: Path, field: str, value: Any) -> None:
    data = record_dict()
    data[field] = value
    with pytest.raises(RecordError, match=f"'{field}'"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize("bots", [["a"], ["a", "b", "c", "d"], [1, 2, 3], ["a", "b", None], []])
def test_bots_must_name_one_bot_per_seat(tmp_path: Path, bots: list[Any]) -> None:
    """A record whose bots do not match its seats was a traceback in ``replay`` (an IndexError), or a name made up."""
    data = record_dict()
    assert data["seats"] == 3
    data["bots"] = bots
    with pytest.raises(RecordError, match="'bots' must name the bot of each of the 3 seats"):
        read_record(write_json(tmp_path, data))


def test_times_of_another_length_than_the_actions_name_both_counts(tmp_path: Path) -> None:
    """With actions cut and times not, the error said what times must hold, not that the two disagreed."""
    data = record_dict()
    data["times"] = [5] * len(data["actions"])
    data["actions"] = data["actions"][:-3]
    times, actions = len(data["times"]), len(data["actions"])
    with pytest.raises(RecordError, match=rf"^record fields 'times' and 'actions' disagree: {times} times for "
                                          rf"{actions} actions \(one time per action, or none\)$"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize("actions", [[1, 2], ["take", None], [["attack(6C)"]]])
def test_actions_must_be_strings(tmp_path: Path, actions: list[Any]) -> None:
    data = record_dict()
    data["actions"] = actions
    with pytest.raises(RecordError, match="'actions' must be a list of action texts"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize("faults", [[{"kind": "crash"}], ["crash"], [{"seat": "x", "kind": "crash", "decision": 1}]])
def test_malformed_faults(tmp_path: Path, faults: list[Any]) -> None:
    data = record_dict()
    data["faults"] = faults
    with pytest.raises(RecordError, match="'faults'"):
        read_record(write_json(tmp_path, data))


@pytest.mark.parametrize(("game_id", "seats"), [("durak", 2), ("durak", 4), ("kazaki", 3)])
def test_choices_index_each_action_in_its_legal_list(game_id: str, seats: int) -> None:
    """The choices a game records name its actions (C-7 canonical order), and a replay re-derives the same ones."""
    record = play_game(GAMES[game_id], [Crasher()] + [RandomBot() for _ in range(seats - 1)], seed=11)
    assert len(record.choices) == len(record.actions) and record.faults
    state = GAMES[game_id].new_state(seats, 11, record.options)
    for choice, text in zip(record.choices, record.actions, strict=True):
        legal = state.legal_actions()
        assert legal[choice].text == text
        state.apply(legal[choice])
    assert state.to_act is None
    assert replay(read_back(record), find_game).choices == record.choices


def read_back(record: GameRecord) -> GameRecord:
    loaded = record_from_dict(record_to_dict(record))
    assert loaded.choices == []  # a file holds the texts only
    return loaded
