"""A schema-2 row of the games table, and its typed codec: the row a finished game is stored as, and the record
that a row rebuilds.

A row holds what the table and the listings query (key, seed, seating, places, the number of faults, decisions)
in columns, and the rest of the game in one compact ``body``: the index of each action in its decision's legal
list, the result fields the columns do not hold, the faults and the stderr tails (docs/TOURNAMENTS.md, "Storage
and resume"). :func:`encode_record` writes the body of a game this referee played, from its :class:`GameRecord`
and :class:`GameResult`; a record in another form than the one this referee writes is kept whole, as it came.
:func:`rebuild` gives the record back exactly, replaying the choices through the engine to get the action texts.
The worker that played a game encodes its row (:meth:`FinishedGame.encode`), so the process that stores it only
inserts.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from protocol.faults import Fault
from referee.engine import Game, State
from referee.errors import RecordError, RefereeError, StorageError
from referee.match import GameRecord
from referee.record import FORMAT, MAX_RECORD_BYTES, VERSION, record_from_dict, record_to_dict
from referee.results import GameResult
from referee.said import said_to_dict

__all__ = ["COLUMNS", "SCHEMA_VERSION", "TABLES", "FinishedGame", "GameRow", "RecordTemplate", "StoredGame",
           "decode_body", "decode_record", "encode_body", "encode_record", "pack_body", "rebuild", "replay_choices"]

#: The schema the tables below are: what tournaments/migrations.py brings an older database to.
SCHEMA_VERSION = 2

TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    seed TEXT NOT NULL,         -- the deck seed, in decimal: a 64-bit value
    seating TEXT NOT NULL,      -- JSON: entrant name per seat
    places TEXT NOT NULL,       -- JSON: place per seat, after the fault policy
    faults INTEGER NOT NULL,    -- how many faults the game had (their details are in the body)
    decisions INTEGER NOT NULL,
    body BLOB NOT NULL,         -- the rest of the record: docs/TOURNAMENTS.md, "Storage and resume"
    finished_at REAL NOT NULL   -- when it was stored: a Julian day number in UTC
);
"""
#: The columns of a schema-2 row, in table order (``finished_at`` is the time it is inserted).
COLUMNS = ("seq", "key", "seed", "seating", "places", "faults", "decisions", "body")
#: The result object's own fields in their order (referee/results.py); the game's fields follow them.
_RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(GameResult) if f.name != "extra")
_RESULT_FIELD_SET = frozenset(_RESULT_FIELDS)
_STORED, _DEFLATED = 0, 1  # the body's first byte: how the rest of it is written
#: The most a body may inflate to: a record file's limit (a long game with six 64 KiB stderr tails is far below).
MAX_BODY_BYTES = MAX_RECORD_BYTES


class RecordTemplate(NamedTuple):
    """What every record of a tournament shares, from its configuration: a row's body holds only what differs."""

    game: str
    options: Mapping[str, Any]
    policy: str

    @classmethod
    def of(cls, config: Mapping[str, Any], game: Game) -> RecordTemplate:
        """From a configuration (its JSON object) of a tournament of ``game``: the options as a record holds
        them (every option, in the game's order); StorageError when a field is missing or damaged."""
        try:
            return cls(str(config["game"]), game.configure(config["options"]), str(config["policy"]))
        except (KeyError, TypeError, ValueError, RefereeError) as exc:
            raise StorageError(f"the stored tournament configuration is damaged ({type(exc).__name__}: {exc})"
                               ) from exc


def _groups(places: Sequence[int]) -> list[list[int]]:
    """The finishing order that ``places`` give: the seats by place, ties together, best first."""
    return [[s for s, p in enumerate(places) if p == place] for place in sorted(set(places))]


def _result_from(rest: Mapping[str, Any], absent: Sequence[str], places: list[int], faults: list[Any],
                 game: str, seats: int) -> dict[str, Any]:
    """The result object from a body's remainder: each referee field the remainder lacks takes its default (the
    tournament's game, the seats, the row's places, places and order as the rules gave them equal to those after
    the fault policy, no abort), unless ``absent`` says the result did not carry it."""
    out: dict[str, Any] = {}
    for name in _RESULT_FIELDS:
        if name in rest:
            out[name] = rest[name]
        elif name in absent:
            continue
        elif name == "game":
            out[name] = game
        elif name == "n":
            out[name] = seats
        elif name in ("places", "rule_places"):
            out[name] = places
        elif name == "finishing_order":
            out[name] = _groups(places)
        elif name == "rule_finishing_order":
            out[name] = _groups(out.get("rule_places", places))
        elif name == "faults":
            out[name] = faults
        elif name == "aborted":
            out[name] = False
    for name, value in rest.items():
        if name not in out:
            out[name] = value
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, key order and types included (``1 == True`` in Python; not in a record)."""
    return json.dumps(a) == json.dumps(b)


def _varints(values: Sequence[int]) -> bytearray:
    if values and 0 <= min(values) and max(values) < 0x80:  # most choices: one byte each
        return bytearray(values)
    out = bytearray()
    for v in values:
        if v < 0:
            raise ValueError(f"a choice is an index, not {v}")
        while v >= 0x80:
            out.append(v & 0x7F | 0x80)
            v >>= 7
        out.append(v)
    return out


def encode_record(seed: int, record: GameRecord, stderr: Mapping[str, str], template: RecordTemplate, *,
                  timed: bool = True) -> bytes:
    """A row's body for a game this referee played or replayed (``record.choices`` the index of each of its actions
    in its legal list, ``record.bots`` the seating; ``stderr`` the tails kept): the record less what the row's
    columns and the tournament's configuration already say. ``timed``: the record has its decisions' times and
    words (False: one from before them, which rebuilds without). :func:`rebuild` gives its file form back exactly;
    a record without its choices is kept whole."""
    if len(record.choices) != len(record.actions):
        return encode_whole(_file_form(record, stderr, timed))
    seating, result = record.bots, record.result
    rest: dict[str, Any] = {}
    others: dict[str, Any] = {name: value for name, value, default in (
        ("game", record.game, template.game), ("seats", record.seats, len(seating)), ("seed", record.seed, seed),
        ("dealer", record.dealer, 0)) if _differs(value, default)}
    if not _same_options(record.options, template.options):
        others["options"] = record.options
    if _differs(record.policy, template.policy):
        others["policy"] = record.policy
    if others:
        rest["x"] = others
    if record.faults:
        rest["f"] = [f.to_dict() for f in record.faults]
    if stderr:
        rest["e"] = dict(stderr)
    if timed:
        rest["t"] = record.times
        if record.said:
            rest["s"] = said_to_dict(record.said)
    remainder = _remainder(result, template.game, len(seating))
    if remainder is None:  # a result of a form the defaults do not rebuild: kept whole
        rest["R"] = result.to_dict()
    else:
        rest["r"], absent = remainder
        if absent:
            rest["-"] = absent
    return pack_body(record.choices, rest)


def _remainder(result: GameResult, game: str, seats: int) -> tuple[dict[str, Any], list[str]] | None:
    """The result's fields that differ from their defaults (:func:`_result_from`), in its order, and the referee's
    fields it does not carry; None when its defaults would not rebuild it."""
    if not _RESULT_FIELD_SET.isdisjoint(result.extra):  # a game's field under a referee's field's name
        return None
    places = result.places
    order = _order(places)
    remainder: dict[str, Any] = {}
    absent: list[str] = []
    if result.game is None:
        absent.append("game")
    elif _differs(result.game, game):
        remainder["game"] = result.game
    if result.n is None:
        absent.append("n")
    elif _differs(result.n, seats):
        remainder["n"] = result.n
    if result.rule_places is None:
        absent.append("rule_places")
    elif result.rule_places != places:
        remainder["rule_places"] = list(result.rule_places)
    if result.finishing_order != order:
        remainder["finishing_order"] = [list(group) for group in result.finishing_order]
    if result.rule_finishing_order is None:
        absent.append("rule_finishing_order")
    elif result.rule_finishing_order != order:
        remainder["rule_finishing_order"] = [list(group) for group in result.rule_finishing_order]
    elif "rule_places" in remainder and _order(remainder["rule_places"]) != order:
        return None  # its default would follow the rule places, not the places
    remainder["scores"] = list(result.scores)
    if result.aborted is not False:
        remainder["aborted"] = result.aborted
    remainder.update(result.extra)
    return remainder, absent


def _order(places: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(group) for group in _groups(places))


def _differs(a: Any, b: Any) -> bool:
    """Different as JSON: ``1 == True`` in Python, not in a record."""
    return type(a) is not type(b) or a != b


def _same_options(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """:func:`_same` for two games' options, quicker."""
    return a is b or list(a) == list(b) and all(not _differs(x, y) if type(x) in (bool, int, str) else _same(x, y)
                                                for x, y in zip(a.values(), b.values(), strict=True))


def _file_form(record: GameRecord, stderr: Mapping[str, str], timed: bool) -> dict[str, Any]:
    data = record_to_dict(record)
    data["stderr"] = dict(stderr)
    if not timed:
        del data["times"], data["said"]
    return data


def encode_whole(data: Mapping[str, Any]) -> bytes:
    """A row's body that keeps a record whole, as it is given (``X``)."""
    return pack_body((), {"X": dict(data)})


def encode_body(seed: int, data: Mapping[str, Any], choices: Sequence[int], template: RecordTemplate, *,
                whole: bool = False) -> bytes:
    """A row's body from a record's file form (``bots`` the seating, ``stderr`` the tails kept) and the index of each
    of its actions in its legal list: compact (:func:`encode_record`) when ``data`` is a record as this referee
    writes it (read and written back, it is the same JSON, with or without its decisions' times and words), else
    (or ``whole``) kept whole."""
    record = None if whole else _as_written(data)
    if record is None:
        return encode_whole(data)
    record.choices = list(choices)
    return encode_record(seed, record, data["stderr"], template, timed="times" in data)


def _as_written(data: Mapping[str, Any]) -> GameRecord | None:
    """The record ``data`` is the file form of, if this referee writes it so."""
    try:
        record = record_from_dict(data)
    except RecordError:
        return None
    stderr = data["stderr"] if isinstance(data.get("stderr"), dict) else {}
    return record if _same(_file_form(record, stderr, "times" in data), data) else None


def pack_body(choices: Sequence[int], rest: Mapping[str, Any]) -> bytes:
    """A body from its choices and the rest of its fields (what :func:`decode_body` reads back)."""
    payload = _varints([len(choices), *choices])
    payload += json.dumps(rest, ensure_ascii=False, separators=(",", ":")).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(payload) + packer.flush()
    return bytes([_DEFLATED]) + packed if len(packed) < len(payload) else bytes([_STORED]) + payload


def decode_body(body: Any) -> tuple[list[int], dict[str, Any]]:
    """A body's choices and the rest of its fields; ValueError when it is not a body."""
    if not isinstance(body, bytes) or not body:
        raise ValueError("not a body")
    data = body[1:]
    if body[0] == _DEFLATED:
        inflater = zlib.decompressobj(-15)
        try:  # bounded: a damaged or forged body may inflate a thousandfold
            data = inflater.decompress(data, MAX_BODY_BYTES)
        except zlib.error as exc:
            raise ValueError(f"not deflated ({exc})") from exc
        if inflater.unconsumed_tail:
            raise ValueError(f"it inflates to more than {MAX_BODY_BYTES} bytes")
        if not inflater.eof:
            raise ValueError("not deflated (cut short)")
    elif body[0] != _STORED:
        raise ValueError(f"unknown encoding {body[0]}")
    values: list[int] = []
    i, v, shift, count = 0, 0, 0, -1
    while count < 0 or len(values) < count:
        if count >= 0 and not v and not shift:  # at a choice: most are below 128, a byte each, read at once
            run = data[i:i + count - len(values)]
            small = len(run) if not run or max(run) < 0x80 else next(k for k, b in enumerate(run) if b >= 0x80)
            if small:
                values += run[:small]
                i += small
                continue
        if i >= len(data):
            raise ValueError("the choices are cut short")
        byte = data[i]
        i += 1
        v |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            if count < 0:
                count = v
            else:
                values.append(v)
            v, shift = 0, 0
    try:
        rest = json.loads(data[i:].decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("the fields after the choices are not a JSON object") from exc
    if not isinstance(rest, dict):
        raise ValueError("the fields after the choices are not a JSON object")
    return values, rest


def replay_choices(game: Game, seats: int, seed: int, options: Mapping[str, Any], dealer: int,
                   choices: Sequence[int], actors: list[int] | None = None) -> tuple[list[str], State]:
    """The action texts of a game from the index of each action in its legal list, and the state they lead to;
    ValueError names the first choice that is not one. ``actors``, if given, gets the seat to act at each."""
    try:
        state = game.new_state(seats, seed, options, dealer=dealer)
    except RefereeError as exc:
        raise ValueError(f"the game cannot start: {exc}") from None
    texts: list[str] = []
    for i, choice in enumerate(choices):
        legal = state.legal_actions()
        if not 0 <= choice < len(legal):
            raise ValueError(f"choice {i} ({choice}) is not the index of a legal action ({len(legal)} legal)")
        action = legal[choice]
        texts.append(action.text)
        if actors is not None:
            actors.append(state.to_act)  # type: ignore[arg-type]  # a legal action: someone is to act
        state.apply(action)
    return texts, state


def decode_record(seed: int, seating: Sequence[str], places: Sequence[int], body: bytes, template: RecordTemplate,
                  game: Game) -> dict[str, Any]:
    """The record a row holds, as :func:`encode_body` was given it (its ``seed`` is the row's); ValueError when
    the body is damaged."""
    return rebuild(seed, seating, places, body, template, game)[0]


def rebuild(seed: int, seating: Sequence[str], places: Sequence[int], body: bytes, template: RecordTemplate,
            game: Game, actors: list[int] | None = None) -> tuple[dict[str, Any], State | None]:
    """:func:`decode_record`, and the state its choices lead to (None for a record kept whole); ``actors``, if
    given, gets the seat to act at each decision (a record kept whole adds none)."""
    choices, rest = decode_body(body)
    try:
        return _rebuild_fields(seed, seating, places, choices, rest, template, game, actors)
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:  # a field of the wrong shape
        raise ValueError(f"its fields are damaged ({type(exc).__name__})") from None


def _rebuild_fields(seed: int, seating: Sequence[str], places: Sequence[int], choices: list[int],
                    rest: dict[str, Any], template: RecordTemplate, game: Game,
                    actors: list[int] | None) -> tuple[dict[str, Any], State | None]:
    if "X" in rest:
        whole = rest["X"]
        if not isinstance(whole, dict):
            raise ValueError("its whole record is not a JSON object")
        return whole, None
    others = rest.get("x", {})
    faults = rest.get("f", [])
    if not isinstance(others, dict) or not isinstance(faults, list):
        raise ValueError("its record fields are damaged")
    record: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": template.game, "seats": len(seating),
                              "seed": seed, "dealer": 0, "options": template.options, "policy": template.policy,
                              "bots": list(seating), "actions": None, "faults": faults, "result": None,
                              "stderr": rest.get("e", {})}
    if "t" in rest:
        record.update(times=rest["t"], said=rest.get("s", {}))
    record.update((k, v) for k, v in others.items() if k in record)
    seats, options, dealer = record["seats"], record["options"], record["dealer"]
    if not isinstance(options, dict) or type(dealer) is not int or type(seats) is not int:
        raise ValueError("its options, dealer or seats are damaged")
    record["actions"], state = replay_choices(game, seats, seed, options, dealer, choices, actors)
    if "R" in rest:
        record["result"] = rest["R"]
    else:
        remainder, absent = rest.get("r"), rest.get("-", [])
        if not isinstance(remainder, dict) or not isinstance(absent, list):
            raise ValueError("its result fields are damaged")
        record["result"] = _result_from(remainder, absent, list(places), faults, template.game, len(seating))
    return record, state



class GameRow(NamedTuple):
    """A stored game as the table and the listing read it: lean, so that a million of them are cheap to stream
    (:meth:`Store.games`). Its whole record is :meth:`Store.record`."""

    seq: int
    key: str
    seed: int
    seating: tuple[str, ...]  # the entrant name in each seat
    places: tuple[int, ...]  # the place of each seat, after the fault policy
    faults: tuple[Fault, ...]  # () for a game without faults
    decisions: int


class FinishedGame(NamedTuple):
    """A finished game encoded for its row: built where the game was played (a worker process), so that the
    process that stores it only inserts. ``seating`` and ``places`` stay decoded for the live ratings.
    A tuple: it crosses the pipe from a worker cheaply."""

    seq: int
    key: str
    seed: int
    seating: tuple[str, ...]
    places: tuple[int, ...]
    faults: int
    decisions: int
    body: bytes
    seating_json: str
    places_json: str

    @classmethod
    def encode(cls, seq: int, key: str, seed: int, record: GameRecord, stderr: Mapping[str, str],
               template: RecordTemplate) -> FinishedGame:
        """``record``: the game as played (its ``bots`` the entrants by seat), ``stderr`` the tails to keep."""
        seating, places = tuple(record.bots), record.result.places
        return cls(seq, key, seed, seating, places, len(record.faults), len(record.actions),
                   encode_record(seed, record, stderr, template), json.dumps(list(seating)), json.dumps(list(places)))

    @classmethod
    def of(cls, seq: int, key: str, seed: int, data: Mapping[str, Any], choices: Sequence[int],
           template: RecordTemplate) -> FinishedGame:
        """From a record's file form (``bots``: the entrant names by seat; ``stderr``: the tails to keep) and the
        index of each of its actions in its legal list."""
        seating, places = tuple(data["bots"]), tuple(data["result"]["places"])
        return cls(seq, key, seed, seating, places, len(data["faults"]), len(data["actions"]),
                   encode_body(seed, data, choices, template), json.dumps(list(seating)), json.dumps(list(places)))

    def row(self) -> tuple[Any, ...]:
        """The values of its row, in :data:`COLUMNS` order."""
        return (self.seq, self.key, str(self.seed), self.seating_json, self.places_json, self.faults,
                self.decisions, self.body)


class StoredGame(NamedTuple):
    """A stored game for ``verify``: its columns (seating, places, result, faults; schema 2: the result fields and
    the faults its body holds, not those that default to what the columns say), or why they cannot be read, and its
    record in its file form, or why it cannot be read."""

    key: Any
    seed: Any
    columns: dict[str, Any] | str
    decisions: Any
    record: dict[str, Any] | str
    #: schema 2: the state the row's choices lead to, from which its result is derived again (None: replay the
    #: record's action texts)
    state: State | None = None

