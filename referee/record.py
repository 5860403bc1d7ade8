"""Game records: the JSON file ``referee play --record`` writes and ``referee replay`` reads.

A record holds (game, seats, seed, dealer, options, actions, faults, policy) and the result. Since a game
is a pure function of the first five and the actions (C-5), replaying re-derives the result and checks it
against the stored one. The format is a public contract: docs/RECORDS.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from protocol.errors import ParseError
from protocol.faults import Fault
from protocol.wire import too_deep

from .engine import Game, State
from .errors import ConfigError, IllegalActionError, RecordError, RefereeError
from .match import GameRecord, choice_index, game_result
from .results import REQUIRED, GameResult
from .said import Said, said_to_dict
from .terminal import counted

__all__ = ["FORMAT", "VERSION", "record_to_dict", "record_from_dict", "record_text", "read_record", "write_record",
           "replay"]

FORMAT = "referee-record"
VERSION = 1
#: Result fields a record must carry; replay compares every field it carries.
REQUIRED_RESULT = REQUIRED
_KIND_NAMES = {int: "a whole number", str: "a string", list: "a list", dict: "an object"}
#: The largest record file read (a record with six 64 KiB stderr tails and a long game is well under 1 MiB).
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: How deeply a record's lists and objects may nest (a record needs 4 levels).
MAX_RECORD_DEPTH = 32
def record_to_dict(record: GameRecord) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": record.game,
        "seats": record.seats,
        "seed": record.seed,
        "dealer": record.dealer,
        "options": record.options,
        "policy": record.policy,
        "bots": record.bots,
        "actions": record.actions,
        "faults": [f.to_dict() for f in record.faults],
        "result": record.result.to_dict(),
        "stderr": {str(seat): text for seat, text in record.stderr.items()},
        "times": record.times,
        "said": said_to_dict(record.said),
    }


def record_from_dict(data: Any) -> GameRecord:
    """Read a record's fields; :class:`RecordError` names the first missing or mistyped one."""
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    if too_deep(data, MAX_RECORD_DEPTH):
        raise RecordError(f"a record's lists and objects nest at most {MAX_RECORD_DEPTH} deep; this one nests deeper")
    if data.get("format") != FORMAT:
        raise RecordError(f"not a referee record (format is {data.get('format')!r}, expected {FORMAT!r})")
    if data.get("version") != VERSION:
        raise RecordError(f"record version {data.get('version')!r} is not supported (this referee reads {VERSION})")

    def get(key: str, kind: type) -> Any:
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise RecordError(f"record field {key!r} is missing or not {_KIND_NAMES.get(kind, 'valid')}")
        return value

    try:
        faults = tuple(Fault.from_dict(f) for f in get("faults", list))
    except ParseError as exc:
        raise RecordError(f"record field 'faults' must be a list of {{seat, kind, decision, message}} objects "
                          f"({exc})") from exc
    actions = get("actions", list)
    if not all(isinstance(a, str) for a in actions):
        raise RecordError("record field 'actions' must be a list of action texts")
    seats = get("seats", int)
    bots = get("bots", list)
    if len(bots) != seats or not all(isinstance(b, str) for b in bots):
        raise RecordError(f"record field 'bots' must name the bot of each of the {seats} seats (a list of {seats} "
                          f"texts)")
    for f in faults:
        if not 0 <= f.seat < seats or not 0 <= f.decision <= len(actions):
            raise RecordError(f"record field 'faults': seat {f.seat} at decision {f.decision} is not a seat and a "
                              f"decision of this game ({seats} seats, {len(actions)} actions)")
    return GameRecord(
        game=get("game", str),
        seats=seats,
        seed=get("seed", int),
        dealer=get("dealer", int),
        options=get("options", dict),
        bots=list(bots),
        actions=actions,
        policy=get("policy", str),
        result=_result(get("result", dict), faults),
        stderr=_stderr(data.get("stderr")),
        times=_times(data.get("times"), len(actions)),
        said=_said(data.get("said"), len(actions)),
    )


def _result(data: dict[str, Any], faults: tuple[Fault, ...]) -> GameResult:
    """The stored result, holding the record's faults: the file writes them twice (``faults`` and
    ``result.faults``), memory holds them once, so two copies that disagree are refused here."""
    result = GameResult.from_dict(data, "the record's result")
    if "faults" in data and result.faults != faults:
        raise RecordError(f"result field 'faults' differs from the record's 'faults': the result says "
                          f"{data['faults']!r:.200}, the record {[f.to_dict() for f in faults]!r:.200}")
    return dataclasses.replace(result, faults=faults)


def _stderr(value: Any) -> dict[int, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(str(k).isdigit() and isinstance(v, str) for k, v in value.items()):
        raise RecordError("record field 'stderr' must map seat numbers to text")
    return {int(k): v for k, v in value.items()}


def _times(value: Any, decisions: int) -> list[int | None]:
    if value is None:
        return []
    if isinstance(value, list) and len(value) not in (0, decisions):
        raise RecordError(f"record fields 'times' and 'actions' disagree: {counted(len(value), 'time')} for "
                          f"{counted(decisions, 'action')} (one time per action, or none)")
    if not isinstance(value, list) or not all(t is None or type(t) is int and t >= 0 for t in value):
        raise RecordError(f"record field 'times' must list, for each of the {decisions} actions, the microseconds "
                          f"its seat took (a whole number) or null, or be empty")
    return value


def _said(value: Any, decisions: int) -> dict[int, Said]:
    if value is None:
        return {}
    said: dict[int, Said] = {}
    if isinstance(value, dict):
        for key, entry in value.items():
            if (not str(key).isdigit() or int(key) >= decisions or not isinstance(entry, dict)
                    or not all(k in ("note", "stderr") and isinstance(v, str) for k, v in entry.items())):
                break
            said[int(key)] = Said(entry.get("note", ""), entry.get("stderr", ""))
        else:
            return said
    raise RecordError("record field 'said' must map decision numbers to {\"note\", \"stderr\"} objects of text")


def record_text(record: GameRecord) -> str:
    """The record file's text (what :func:`write_record` writes)."""
    return json.dumps(record_to_dict(record), indent=1) + "\n"


def write_record(record: GameRecord, path: str | Path) -> None:
    """Write the record file whole or not at all: into a temporary file beside it, renamed over ``path`` once
    complete, so a full disk leaves no empty or cut file (a device or a pipe, like /dev/stdout, is written
    directly)."""
    target = Path(path)
    text = record_text(record)
    if target.exists() and not target.is_file():
        try:
            with open(target, "w", encoding="utf-8") as f:
                _write_text(f, text)
        except OSError as exc:
            raise ConfigError(f"cannot write the record to {path}: {exc.strerror or exc}") from exc
        return
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as f:
            _write_text(f, text)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise ConfigError(f"cannot write the record to {path}: {exc.strerror or exc}") from exc


def _write_text(f: IO[str], text: str) -> None:
    f.write(text)
    f.flush()  # a full disk shows here at the latest, not in a close() after the rename


def read_record(path: str | Path) -> GameRecord:
    """Read a record file: at most MAX_RECORD_BYTES (a huge file, or /dev/zero, is refused, not read whole)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read record {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"record {path} is larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB: not a record")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RecordError(f"record {path} is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise RecordError(f"record {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except RecursionError:
        raise RecordError(f"record {path} nests its lists and objects far too deeply") from None
    return record_from_dict(data)


def replay(
    record: GameRecord,
    find_game: Callable[[str], Game],
    listener: Callable[[State, list[dict[str, Any]]], None] | None = None,
) -> GameRecord:
    """Re-play a record; return it with the re-derived result.

    :class:`RecordError` names the first action that is not legal, a record that stops before the end, or
    the first result field that differs from the stored one.
    """
    game = find_game(record.game)
    try:
        state = game.new_state(record.seats, record.seed, record.options, dealer=record.dealer)
    except RefereeError as exc:
        raise RecordError(f"record cannot start its game: {exc}") from None
    seen = 0
    if listener:
        listener(state, state.events(0, None))
        seen = state.log_size
    choices: list[int] = []
    for i, text in enumerate(record.actions):
        seat = state.to_act
        if seat is None:
            raise RecordError(f"action {i} ({text}): the game was already over")
        try:
            action = state.parse_action(text)
            choices.append(choice_index(state.legal_actions(), action))
            state.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"action {i} differs: {exc}") from None
        if listener:
            listener(state, state.events(seen, None))
            seen = state.log_size
    if state.to_act is not None:
        raise RecordError(f"the record stops after {len(record.actions)} actions; seat {state.to_act} is to act")
    result = game_result(game, state, record.faults, record.policy)
    replayed = result.to_dict()
    for key, stored in record.result.to_dict().items():  # the fields the record left out are not compared
        if key in replayed and replayed[key] != stored:
            raise RecordError(f"result field {key!r} differs: the record says {stored!r}, the replay gives "
                              f"{replayed[key]!r}")
    return GameRecord(record.game, record.seats, record.seed, record.dealer, dict(state.options), record.bots,
                      record.actions, record.policy, result, record.stderr, choices, record.times, record.said)
