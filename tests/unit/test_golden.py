"""Golden playthroughs (tests/golden/*.jsonl) as conformance vectors for the rules engine.

Each file is a header, one line per decision (seat to act, legal actions in canonical order C-7, the action
taken) and a result line. The engine must agree with every line (tests/golden/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.engine import Game
from referee.plugins import load_registry

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

#: Result fields not compared: the runner's (faults and the policy's places are not the engine's business).
RUNNER_FIELDS = {"game", "n", "faults", "rule_places", "rule_finishing_order"}


def game_for(game_id: str) -> Game | None:
    """The built-in game with this id (through the plugin registry), or None."""
    entry = load_registry(entry_points=False).games.get(game_id)
    return entry.game if entry else None


def _golden_files() -> list[Any]:
    files = sorted(GOLDEN.glob("*.jsonl")) if GOLDEN.is_dir() else []
    if not files:
        return [pytest.param(None, id="missing")]
    return [pytest.param(path, id=path.stem) for path in files]


def _read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    assert len(rows) >= 2, f"{path.name}: expected a header, decisions and a result line"
    header, *steps, last = rows
    assert "result" in last, f"{path.name}: the last line must be {{'result': …}}"
    return header, steps, last["result"]


@pytest.mark.parametrize("path", _golden_files())
def test_golden_playthrough(path: Path | None) -> None:
    if path is None:
        pytest.fail(f"golden directory {GOLDEN} is missing or holds no *.jsonl files; "
                    f"the golden playthroughs are part of the repository (tests/golden/)")
    header, steps, expected = _read(path)
    game_id = header["game"]
    game = game_for(game_id)
    assert game is not None, f"{path.name}: game {game_id!r} is not registered"

    state = game.new_state(header["seats"], header["seed"], header.get("options") or {},
                           dealer=header.get("dealer", 0))
    for step in steps:
        where = f"{path.name} line i={step['i']}"
        assert not state.is_terminal, f"{where}: the game ended early"
        assert state.to_act == step["seat"], f"{where}: seat to act"
        assert [a.text for a in state.legal_actions()] == step["legal"], f"{where}: legal actions"
        state.apply(state.parse_action(step["action"]))
    assert state.is_terminal, f"{path.name}: the game did not end after the last line"

    actual = state.result().to_dict()
    assert actual["places"] == expected["places"], f"{path.name}: places"
    assert actual["finishing_order"] == expected["finishing_order"], f"{path.name}: finishing_order"
    for name in expected.keys() & actual.keys() - RUNNER_FIELDS:  # scores and every game field both report
        assert actual[name] == expected[name], f"{path.name}: {name}"
