"""docs/WIRE.md says what the games send; these tests hold the games to it.

- The observation tables (each marked ``<!-- wire-observation: GAMES -->``) are parsed, their type column in the
  notation of WIRE.md ("Observations in every game"), and every observation of many random games of every game is
  checked against them: the keys are exactly the documented ones, every value has its documented type, and every
  alternative a type documents (``seat or null``, ``list of (int or null)``…) really occurs, so a doc that says "or
  null" of a value that is never null, or of the list where the items are null, fails too.
- ``events[0]`` of every request but a seat's first is the seat's own last action, as documented.
- The redeal offer's nulls are the documented ones.
- The options table (``<!-- wire-options -->``) is ``referee games --json``'s list.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from protocol.actions import Action
from protocol.cards import Card
from protocol.errors import ParseError
from referee.plugins import load_registry

WIRE = Path(__file__).resolve().parents[2] / "docs" / "WIRE.md"
SUITS = set("CDHSKRTF")

# (game, seats, options, seeds): random games that between them reach every documented case.
PLAYS = [
    ("durak", (2, 3, 4, 6), ({}, {"transfer": True, "withdraw": True, "redeal_five": True}), range(5)),
    ("kazaki", (2, 3, 6), ({},), range(5)),
    ("kozel", (2, 3, 4), ({},), range(5)),
    ("kozel-hvaleny", (4,), ({}, {"lyusya": "zero"}), range(5)),
    ("kozel-nn", (4,), ({}, {"boasting": True}), range(5)),
    ("koroli", (4,), ({},), range(6)),
    ("koroli52", (3, 4), ({},), range(4)),
    ("durak", (3,), ({"transfer": True, "withdraw": True, "redeal_five": True},), (15, 86)),  # redeal offers
    ("kazaki", (3,), ({},), (76, 227)),
]


# ------------------------------------------------------------------------------------ the type notation


@dataclass
class T:
    """A node of a documented type: kind is atom, literal, list, teammap, record or union."""

    kind: str
    value: Any = None  # atom name, literal text
    items: list[T] = field(default_factory=list)  # list/teammap: [item]; union: alternatives; record: field types
    keys: list[str] = field(default_factory=list)  # record keys
    text: str = ""


ATOMS = {"int", "bool", "string", "seat", "card", "suit", "team", "null", "event"}
_TOKEN = re.compile(r'\s*("[^"]*"|→|[(){},:]|[a-z_]+)')


def parse_type(text: str) -> T:
    tokens = [m.group(1) for m in _TOKEN.finditer(text.replace("`", ""))]
    assert "".join(tokens) == re.sub(r"\s+", "", text.replace("`", "")), f"cannot read the type {text!r}"
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        token = peek()
        assert token is not None and (expected is None or token == expected), (
            f"type {text!r}: expected {expected!r} at token {pos}, got {token!r}")
        pos += 1
        return token

    def union() -> T:
        alternatives = [prim()]
        while peek() == "or":
            take("or")
            alternatives.append(prim())
        return alternatives[0] if len(alternatives) == 1 else T("union", items=alternatives)

    def prim() -> T:
        token = take()
        if token == "(":
            inner = union()
            take(")")
            return inner
        if token == "list":
            take("of")
            return T("list", items=[prim()])
        if token == "map":
            take("team")
            take("→")
            return T("teammap", items=[prim()])
        if token == "{":
            record = T("record")
            while True:
                key = take()
                assert key.startswith('"'), f"type {text!r}: a record key must be quoted, got {key}"
                take(":")
                record.keys.append(key.strip('"'))
                record.items.append(union())
                if take() == "}":
                    return record
        if token.startswith('"'):
            return T("literal", token.strip('"'))
        assert token in ATOMS, f"type {text!r}: unknown type word {token!r}"
        return T("atom", token)

    node = union()
    assert pos == len(tokens), f"type {text!r}: unread tokens {tokens[pos:]}"
    node.text = text
    return node


def check(node: T, value: Any, seats: int) -> list[tuple[int, int]] | None:
    """The (union, alternative) pairs the value matched, or None when it does not have the type."""
    kind = node.kind
    if kind == "atom":
        name = node.value
        ok = {
            "int": lambda v: type(v) is int,
            "bool": lambda v: type(v) is bool,
            "string": lambda v: type(v) is str,
            "seat": lambda v: type(v) is int and 0 <= v < seats,
            "suit": lambda v: type(v) is str and v in SUITS,
            "team": lambda v: v in ("A", "B"),
            "null": lambda v: v is None,
            "event": lambda v: type(v) is dict and type(v.get("type")) is str,
            "card": _is_card,
        }[name](value)
        return [] if ok else None
    if kind == "literal":
        return [] if value == node.value else None
    if kind == "list":
        if type(value) is not list:
            return None
        found: list[tuple[int, int]] = []
        for item in value:
            w = check(node.items[0], item, seats)
            if w is None:
                return None
            found += w
        return found
    if kind in ("teammap", "record"):
        keys = ["A", "B"] if kind == "teammap" else node.keys
        if type(value) is not dict or list(value) != keys:
            return None
        found = []
        for key, sub in zip(keys, node.items if kind == "record" else node.items * 2, strict=True):
            w = check(sub, value[key], seats)
            if w is None:
                return None
            found += w
        return found
    for i, alternative in enumerate(node.items):  # union: the first alternative that fits
        w = check(alternative, value, seats)
        if w is not None:
            return w + [(id(node), i)]
    return None


def _is_card(value: Any) -> bool:
    try:
        return type(value) is str and str(Card.parse(value)) == value
    except ParseError:
        return False


def unions(node: T) -> Iterator[T]:
    if node.kind == "union":
        yield node
    for item in node.items:
        yield from unions(item)


# ------------------------------------------------------------------------------------------- the doc


#: A Markdown link, read as its text: ``[KZ-15](RULES.md#kz-15)`` reads ``KZ-15``.
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _table_after(lines: list[str], start: int) -> list[list[str]]:
    """The rows (cells, as a reader sees them: links as their text) of the markdown table starting at or after
    line ``start``, without its header."""
    i = start
    while not lines[i].startswith("|"):
        i += 1
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append([LINK.sub(r"\1", cell).strip() for cell in lines[i].strip().strip("|").split("|")])
        i += 1
    return rows[2:]


@dataclass
class Row:
    games: tuple[str, ...]
    key: str
    type: T


@cache
def documented() -> tuple[Row, ...]:
    lines = WIRE.read_text(encoding="utf-8").splitlines()
    rows = []
    for n, line in enumerate(lines):
        m = re.fullmatch(r"<!-- wire-observation: (.+) -->", line.strip())
        if m:
            games = tuple(m.group(1).split())
            for cells in _table_after(lines, n + 1):
                key = cells[0].strip("`")
                assert re.fullmatch(r"[a-z_]+", key), f"WIRE.md line {n + 1}: one key per row, got {cells[0]!r}"
                rows.append(Row(games, key, parse_type(cells[1])))
    return tuple(rows)


def keys_of(game: str) -> dict[str, Row]:
    rows = [r for r in documented() if game in r.games]
    keys = [r.key for r in rows]
    assert len(keys) == len(set(keys)), f"{game}: a key documented twice: {keys}"
    return {r.key: r for r in rows}


# ----------------------------------------------------------------------------------------- the games


def games_played(game_id: str) -> Iterator[tuple[Any, int, dict[str, Any], Action | None, Action | None]]:
    """Every observation of the PLAYS games of ``game_id``, as match.play_game builds them (events since the
    seat's previous request), then each seat's observation at the end: (state, seats, observation, the seat's
    previous asked action or None, the action about to be applied or None)."""
    registry = load_registry()
    for name, seat_counts, option_sets, seeds in PLAYS:
        if name != game_id:
            continue
        game = registry.game(name)
        for seats in seat_counts:
            for options in option_sets:
                for seed in seeds:
                    state = game.new_state(seats, seed, options, dealer=seed % seats)
                    rng = random.Random(seed)
                    cursors = [0] * seats
                    last: list[Action | None] = [None] * seats
                    while (seat := state.to_act) is not None:
                        legal = state.legal_actions()
                        action = legal[rng.randrange(len(legal))]
                        if len(legal) == 1 and legal[0].kind == "pass":  # C-6: applied without asking
                            state.apply(action)
                            continue
                        observation = state.observe(seat, cursors[seat])
                        cursors[seat] = state.log_size
                        yield state, seats, observation, last[seat], action
                        last[seat] = action
                        state.apply(action)
                    for seat in range(seats):
                        yield state, seats, state.observe(seat, 0), None, None


GAMES = list(dict.fromkeys(p[0] for p in PLAYS))


def builtin_games() -> list[str]:
    """The games of this package (a third-party plugin's game documents itself)."""
    return sorted(gid for gid, entry in load_registry().games.items() if entry.source.package == "referee")


def test_every_game_is_played_and_documented():
    assert sorted(GAMES) == builtin_games()
    for game in GAMES:
        assert "events" in keys_of(game)


@cache
def witnessed(game: str) -> frozenset[tuple[int, int]]:
    """Check every observation of the game's PLAYS against WIRE.md; return the union alternatives they matched."""
    documented_keys = keys_of(game)
    seen: set[tuple[int, int]] = set()
    count = 0
    for _, seats, observation, _, _ in games_played(game):
        count += 1
        assert set(observation) == set(documented_keys), (
            f"{game}: observation keys {sorted(observation)} differ from WIRE.md's {sorted(documented_keys)}")
        for key, value in observation.items():
            matched = check(documented_keys[key].type, value, seats)
            assert matched is not None, (f"{game} {observation['phase']}: {key} = {json.dumps(value)[:300]} is not "
                                         f"{documented_keys[key].type.text!r} (WIRE.md)")
            seen.update(matched)
    assert count > 100
    return frozenset(seen)


@pytest.mark.parametrize("game", GAMES)
def test_observations_have_the_documented_keys_and_types(game: str):
    witnessed(game)


def test_every_documented_alternative_occurs():
    """A type that says `or null` (or `or "none"`) is witnessed by some observation of the games of its table."""
    missing = []
    for row in documented():
        seen = set().union(*(witnessed(g) for g in row.games))
        for node in unions(row.type):
            for i, alternative in enumerate(node.items):
                if (id(node), i) not in seen:
                    missing.append(f"{'/'.join(row.games)} {row.key}: {_show(alternative)} in {row.type.text!r}")
    assert not missing, "documented in WIRE.md but never observed:\n" + "\n".join(missing)


def _show(node: T) -> str:
    return node.value if node.kind in ("atom", "literal") else node.kind


# The event that carries a seat's own action: its kind, except these (WIRE.md, "Your own last action").
CARRIER = {"take_card": "levy", "name_trump": "trump"}


@pytest.mark.parametrize("game", GAMES)
def test_events_0_is_the_seats_own_last_action(game: str):
    kinds: set[str] = set()
    for _, _, observation, previous, _ in games_played(game):
        if previous is None or observation["phase"] == "over":
            continue
        first = observation["events"][0]
        assert first["type"] == CARRIER.get(previous.kind, previous.kind), (game, previous.text, first)
        if "seat" in first:
            assert first["seat"] == observation["seat"], (game, previous.text, first)
        if previous.kind == "take_card":
            assert first["trump"] is False and first["card"] == str(previous.args[0]), first
        if previous.kind == "name_trump":
            assert first["suit"] == previous.args[0], first
        if previous.kind == "play":
            assert first["card"] == str(previous.args[0]), first
        kinds.add(previous.kind)
    assert kinds >= {"durak": {"attack", "defend", "take", "throw_in", "pass", "transfer", "withdraw"},
                     "kazaki": {"attack", "defend", "take", "throw_in", "pass"},
                     "kozel": {"play"}, "kozel-hvaleny": {"play", "demand_redeal", "pass"},
                     "kozel-nn": {"play", "lay", "demand_redeal", "pass", "reboast", "keep"},
                     "koroli": {"play", "take_card", "give"},
                     "koroli52": {"play", "exchange", "pass", "bargain", "accept", "refuse", "name_trump"}}[game]


NO_BOUT = {"attacker", "defender", "cap"}
REDEAL_NULLS = {"durak": NO_BOUT, "kazaki": NO_BOUT, "kozel-hvaleny": {"leader"}, "kozel-nn": {"leader"}}


@pytest.mark.parametrize("game", sorted(REDEAL_NULLS))
def test_the_redeal_offer_nulls_are_the_documented_ones(game: str):
    offers = 0
    for _, _, observation, _, _ in games_played(game):
        if observation["phase"] != "redeal_offer":
            continue
        offers += 1
        nulls = {k for k, v in observation.items() if v is None} - {"boasting", "first_leader",
                                                                      "trump_card_holder"}
        assert nulls == REDEAL_NULLS[game], (game, nulls)
        if game in ("durak", "kazaki"):
            assert observation["table"] == [] and observation["priority"] == []
        else:
            assert observation["trick"] == [] and observation["tricks"] == []
    assert offers


def test_the_options_table_is_the_registrys():
    lines = WIRE.read_text(encoding="utf-8").splitlines()
    start = lines.index("<!-- wire-options -->")
    table: dict[str, list[dict[str, Any]]] = {}
    for cells in _table_after(lines, start + 1):
        game, name, kind, default, allowed, meaning = cells
        options = table.setdefault(game.strip("`"), [])
        if name == "none":
            continue
        row: dict[str, Any] = {"name": name.strip("`"), "default": json.loads(default.strip("`")), "type": kind,
                               "min": None, "max": None, "help": meaning}
        if allowed.startswith("words: "):
            row["choices"] = [w.strip().strip("`") for w in allowed[len("words: "):].split(",")]
        elif " to " in allowed:
            row["min"], row["max"] = (int(x) for x in allowed.split(" to "))
        else:
            assert allowed == "`true`, `false`" and kind == "bool", cells
        options.append(row)
    registry = load_registry()
    assert table == {gid: registry.game(gid).describe()["options"] for gid in builtin_games()}
    for gid in builtin_games():  # new_game sends every option, defaults filled in, in the table's order
        state = registry.game(gid).new_state(registry.game(gid).min_seats, 1, {}, dealer=0)
        assert list(state.options) == [o["name"] for o in table[gid]]


# ------------------------------------------------------------------------------- the examples of WIRE.md


def _marked_blocks(marker: str) -> list[tuple[dict[str, str], str]]:
    """The JSON blocks right after ``<!-- MARKER: key=value … -->`` comments: (the values, the block's text)."""
    lines = WIRE.read_text(encoding="utf-8").splitlines()
    found = []
    for n, line in enumerate(lines):
        m = re.fullmatch(rf"<!-- {marker}: (.+) -->", line.strip())
        if not m:
            continue
        words = m.group(1).split()
        spec = {"game": words[0]} if "=" not in words[0] else {}
        spec.update(w.split("=", 1) for w in words if "=" in w)
        assert lines[n + 1] == "```json", f"WIRE.md line {n + 1}: {marker} must be right above a json block"
        end = lines.index("```", n + 2)
        found.append((spec, "\n".join(lines[n + 2:end])))
    return found


class _Spy:
    """Plays like ``inner`` and keeps every decision it is asked: (decision index, observation, legal texts)."""

    def __init__(self, inner: Any, asked: list, steps: list[int]) -> None:
        self.inner, self.asked, self.steps, self.name = inner, asked, steps, inner.name

    def new_game(self, info: Any) -> None:
        self.inner.new_game(info)

    def act(self, decision: Any) -> Any:
        self.asked.append((self.steps[0], decision.observation, [a.text for a in decision.legal]))
        return self.inner.act(decision)

    def game_over(self, result: Any) -> None:
        self.inner.game_over(result)

    def close(self) -> None:
        self.inner.close()


def _play(game: str, bots: list[str], seed: int, options: dict[str, Any]) -> tuple[list, dict[str, Any]]:
    from referee.match import play_game

    registry = load_registry()
    asked: list = []
    steps = [-1]  # the listener is called once before the first decision and once after each

    def listener(state: Any, events: Any) -> None:
        steps[0] += 1

    spies = [_Spy(registry.bot(b).factory(), asked, steps) for b in bots]
    record = play_game(registry.game(game), spies, seed=seed, options=options, listener=listener)
    return asked, record.result.to_dict()


EXAMPLES = _marked_blocks("wire-example")


@pytest.mark.parametrize("spec, text", EXAMPLES, ids=[f"{s['game']}-seed{s['seed']}" for s, _ in EXAMPLES])
def test_the_observation_examples_are_what_the_games_send(spec: dict[str, str], text: str):
    shown = json.loads(text)
    asked, _ = _play(spec["game"], spec["bots"].split(","), int(spec["seed"]), json.loads(spec.get("options", "{}")))
    (observation,) = [obs for step, obs, _ in asked if step == int(spec["decision"])]
    events = observation.pop("events")
    shown_events = shown.pop("events")
    assert shown == observation
    assert events[len(events) - len(shown_events):] == shown_events  # the doc shows the last events


def test_the_result_examples_are_what_the_games_give():
    blocks = _marked_blocks("wire-results")
    assert len(blocks) == 2
    for spec, text in blocks:
        for line in text.splitlines():
            shown = json.loads(line)
            _, result = _play(shown["game"], ["random"] * shown["n"], int(spec["seed"]), {})
            assert json.loads(json.dumps(result)) == shown


# The legal lists of "Actions": (the block's first words, line, game, bots, seed, options, decision).
R4 = ["random"] * 4
LEGAL_LISTS = [
    ("Real lists, all from `durak`", 0, "durak", ["heuristic", "random", "first"], 7, {}, 0),
    ("Real lists, all from `durak`", 1, "durak", ["heuristic", "random", "first"], 7, {}, 11),
    ("Real lists, all from `durak`", 2, "durak", ["heuristic", "first", "random"], 7, {"transfer": True}, 13),
    ("Real lists, from games of the registered", 0, "kozel-nn", R4, 1, {"boasting": True}, 36),
    ("Real lists, from games of the registered", 1, "kozel-nn", R4, 1, {"boasting": True}, 39),
    ("Real lists, from games of the registered", 2, "kozel-nn", R4, 1, {"boasting": True}, 0),
    ("Real lists, from games of the registered", 3, "koroli52", R4, 1, {}, 52),
    ("Real lists, from games of the registered", 4, "koroli52", R4, 1, {}, 167),
]


@pytest.mark.parametrize("intro, line, game, bots, seed, options, decision", LEGAL_LISTS)
def test_the_legal_list_examples_are_real(intro, line, game, bots, seed, options, decision):
    text = WIRE.read_text(encoding="utf-8")
    block = text[text.index(intro):]
    block = block[block.index("```\n") + 4:]
    shown = block.splitlines()[line]
    listed = json.loads(shown[:shown.index("]") + 1])
    asked, _ = _play(game, bots, seed, options)
    (legal,) = [legal for step, _, legal in asked if step == decision]
    assert legal == listed
