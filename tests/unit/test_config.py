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
