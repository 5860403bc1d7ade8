"""Stored games compared across runs: the time of each decision (a stored body's ``t``) is measured, so it differs
from run to run of the same game; everything else a row holds must be equal."""

from __future__ import annotations

import json
from typing import Any

from tournaments.storage import FinishedGame, decode_body, pack_body


def untimed_body(body: bytes) -> bytes:
    """A row's body without its decisions' times (which must be there: one per choice)."""
    choices, rest = decode_body(body)
    assert len(rest.pop("t")) == len(choices)
    return pack_body(choices, rest)


def untimed(game: FinishedGame) -> FinishedGame:
    return game._replace(body=untimed_body(game.body))


def untimed_row(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "body": untimed_body(row["body"])}


def untimed_record(text: str) -> dict[str, Any]:
    """A record or a ``play --json`` answer (JSON text) without its decisions' times: none (stored before times
    were) or one per decision."""
    data = json.loads(text)
    decisions = len(data["actions"]) if "actions" in data else data["decisions"]
    assert len(data.pop("times", [])) in (0, decisions)
    return data
