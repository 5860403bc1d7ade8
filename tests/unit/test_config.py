"""The tournament configuration (tournaments/config.py) as databases store it: a field added later is left out of
the stored form at its default, so the configuration of an old database reads, compares and is written again byte
for byte as before."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.clock import TimeControl
from referee.errors import ConfigError
from tournaments.config import TournamentConfig

#: The ``config`` row of a database stored before the time bank existed (``json.dumps(…, sort_keys=True)``, as
#: Store.save_config writes it): no ``time_bank_ms``.
OLD_ROW = ('{"duplicate": true, "entrants": ["random", "first"], "extra": {"sandbox": {"env": [], "file_size_mb": 64, '
           '"memory_mb": 2048, "mode": "off", "processes": 256}}, "game": "durak", "games": 2, "move_time_ms": 1000, '
           '"options": {"max_bouts": 1000, "redeal_five": false, "throw_after_take": true, "transfer": false, '
           '"withdraw": false}, "policy": "forfeit", "seats": 2, "seed": 1, "specs": ["random", "first"]}')


def old() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(OLD_ROW)
    return data


def test_an_old_stored_configuration_reads_with_no_time_bank_and_is_written_back_byte_for_byte() -> None:
    config = TournamentConfig.from_dict(old())
    assert config.time_bank_ms == 0
    assert config.time_control() == TimeControl(move_time=1.0, time_bank=0.0)
    assert config.to_dict() == old()  # what save_config compares
    assert json.dumps(config.to_dict(), sort_keys=True) == OLD_ROW  # what it stores


def test_a_time_bank_is_stored_and_read_back() -> None:
    config = TournamentConfig(**{**old(), "time_bank_ms": 500})
    stored = config.to_dict()
    assert stored == {**old(), "time_bank_ms": 500}
    assert TournamentConfig.from_dict(json.loads(json.dumps(stored))) == config
    assert config.time_control() == TimeControl(move_time=1.0, time_bank=0.5)


def test_a_time_bank_differs_from_the_old_configuration() -> None:
    # run --time-bank on an old database: save_config sees the difference (and names time_bank_ms)
    assert TournamentConfig(**{**old(), "time_bank_ms": 1}).to_dict() != old()


@pytest.mark.parametrize("value", ["1000", 1.5, True, None])
def test_a_mistyped_time_bank_is_a_damaged_configuration(value: Any) -> None:
    with pytest.raises(ConfigError, match="field 'time_bank_ms'"):
        TournamentConfig.from_dict({**old(), "time_bank_ms": value})


#: a ladder of program bots run without --seed: every setting ``extra`` holds but an SPRT's
LADDER_EXTRA = {"sandbox": {"env": [], "file_size_mb": 64, "memory_mb": 2048, "mode": "off", "processes": 256},
                "stages": [["round_robin", 2], ["join", 2, 3]], "seed": "drawn", "deal_key": "ab" * 32}


def test_the_extra_settings_are_typed_fields_and_written_back_byte_for_byte() -> None:
    row = {**old(), "entrants": ["random", "first", "v8"], "specs": ["random", "first", "cmd:./v8"],
           "extra": LADDER_EXTRA}
    config = TournamentConfig.from_dict(json.loads(json.dumps(row)))
    assert config.extra.stages == [["round_robin", 2], ["join", 2, 3]] and config.extra.seed == "drawn"
    assert config.extra.deal_key == "ab" * 32 and config.extra.sandbox == LADDER_EXTRA["sandbox"]
    assert config.extra.sprt is None
    assert json.dumps(config.to_dict(), sort_keys=True) == json.dumps(row, sort_keys=True)
    assert TournamentConfig(**row) == config  # a dict given for extra is read as its stored form


def test_an_sprt_setting_round_trips() -> None:
    sprt = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "model": "logistic"}
    config = TournamentConfig.from_dict({**old(), "extra": {"sprt": sprt}})
    assert config.extra.sprt == sprt and config.to_dict()["extra"] == {"sprt": sprt}


@pytest.mark.parametrize("extra", [[], {"note": 1}, {"stages": "gauntlet"}, {"deal_key": 7}, {"sandbox": "on"}])
def test_an_unknown_or_mistyped_extra_setting_is_a_damaged_configuration(extra: Any) -> None:
    with pytest.raises(ConfigError, match="extra"):
        TournamentConfig.from_dict({**old(), "extra": extra})
