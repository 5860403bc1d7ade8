"""The catalogue of ``referee check`` (referee/check/): selection, verdicts, exit codes, the report, and the pieces of
the harness that need no process (the non-minimal encoder, the twists, reading a transcript).

The suite against real bot programs is tests/integration/test_check.py.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol.errors import BotCrashed, ConfigError, RefereeError
from protocol.hooks import hookimpl
from protocol.wire import pack
from referee.check import cases as C
from referee.check.cases import CATALOGUE, MODULES, select
from referee.check.cases.play import _unasked
from referee.check.cases.timing import _stats
from referee.check.harness import (
    ExtraKeys,
    Joined,
    NonMinimal,
    RemapIds,
    Run,
    Session,
    Split,
    UnknownTypes,
    jsonable,
)
from referee.check.report import Header, Tree, failures, list_cases, report_json, summary_line
from referee.check.verdicts import GROUPS, Case, CaseResult, Finding, Level, Verdict, exit_code, tally
from referee.cli.check import program_for
from referee.plugins import load_registry

ROOT = Path(__file__).resolve().parents[2]
IDS = [c.id for c in CATALOGUE]


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry(entry_points=False)


def session(registry: Any, seed: int = 1) -> Session:
    return Session(["false"], registry=registry, seed=seed)


def result(case_id: str, verdict: Verdict, **outcome: Any) -> CaseResult:
    case = next(c for c in CATALOGUE if c.id == case_id)
    passed = {Verdict.OK: True, Verdict.INFORMATIONAL: None}.get(verdict, False)
    out = Finding(passed, outcome.pop("detail", "detail"), **outcome)
    return CaseResult(case, out, verdict, 0.1, [])


# ------------------------------------------------------------------------------------------------ the catalogue


def test_ids_are_unique_and_in_order() -> None:
    assert len(set(IDS)) == len(IDS)
    keys = [tuple(int(p) for p in i.split(".")) for i in IDS]
    assert keys == sorted(keys)


def test_every_case_is_in_the_group_its_id_names() -> None:
    for case in CATALOGUE:
        assert GROUPS[case.id.split(".")[0]] == case.group, case.id
    assert set(GROUPS.values()) == {c.group for c in CATALOGUE}


def test_each_case_is_declared_in_the_module_of_its_group() -> None:
    # the catalogue is gathered from the @case functions of referee/check/cases/<group>.py: a case declared in
    # the wrong module, or a module left out of MODULES, shows here
    assert [m.__name__.rsplit(".", 1)[1] for m in MODULES] == list(GROUPS.values())
    for case in CATALOGUE:
        assert case.run.__module__ == f"referee.check.cases.{case.group}", case.id
        assert vars(case.run)["case"] is case, case.id


def test_the_groups_of_the_issue_are_all_there() -> None:
    assert set(GROUPS.values()) >= {"process", "handshake", "play", "timing", "messages", "robustness", "shutdown",
                                    "determinism"}


def test_every_section_exists_in_protocol_md() -> None:
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", (ROOT / "docs" / "PROTOCOL.md").read_text(), re.M))
    for case in CATALOGUE:
        for section in case.section.split(", "):
            assert section in headings, f"case {case.id} cites section {section}, which PROTOCOL.md does not have"


def test_check_md_lists_every_case_with_its_level() -> None:
    text = (ROOT / "docs" / "CHECK.md").read_text()
    for case in CATALOGUE:
        row = re.search(rf"^\| `{re.escape(case.id)}` \|(.*)$", text, re.M)
        assert row, f"docs/CHECK.md has no row for case {case.id}"
        assert case.level.value in row.group(1), f"docs/CHECK.md gives case {case.id} another level"


def test_titles_are_one_short_line() -> None:
    for case in CATALOGUE:
        assert "\n" not in case.title and len(case.title) <= 72, case.id


# ------------------------------------------------------------------------------------------------ selection


@pytest.mark.parametrize(("patterns", "expected"), [
    ([], IDS),
    (["2.1"], ["2.1"]),
    (["2"], [i for i in IDS if i.startswith("2.")]),
    (["2."], [i for i in IDS if i.startswith("2.")]),
    (["3.*"], [i for i in IDS if i.startswith("3.")]),
    (["*.1"], [i for i in IDS if i.endswith(".1")]),
    (["timing"], ["4.1", "4.2"]),
    (["7.2,2.1"], ["2.1", "7.2"]),
    (["7", "1.1", "7.1"], ["1.1", *[i for i in IDS if i.startswith("7.")]]),
    (["5.[45]"], ["5.4", "5.5"]),
])
def test_select(patterns: list[str], expected: list[str]) -> None:
    assert [c.id for c in select(patterns)] == expected


def test_a_prefix_does_not_match_a_longer_number() -> None:
    catalogue = [Case("1.1", "a", "t", "1", Level.MUST, lambda s: C.ok("")),
                 Case("12.1", "b", "t", "1", Level.MUST, lambda s: C.ok(""))]
    assert [c.id for c in select(["1"], catalogue)] == ["1.1"]


@pytest.mark.parametrize("pattern", ["9", "9.9", "nothing", "2.1.1"])
def test_a_pattern_that_matches_nothing_is_a_usage_error(pattern: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(repr(pattern))):
        select([pattern])


# ------------------------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize(("level", "passed", "breach", "verdict"), [
    (Level.MUST, True, None, Verdict.OK),
    (Level.MUST, False, None, Verdict.FAILED),
    (Level.SHOULD, False, None, Verdict.NON_STRICT),
    (Level.MAY, False, None, Verdict.UNIMPLEMENTED),
    (Level.MAY, None, None, Verdict.INFORMATIONAL),
    (Level.MUST, None, None, Verdict.INFORMATIONAL),
    (Level.MUST, False, Level.SHOULD, Verdict.NON_STRICT),  # a late answer within the grace in a MUST case
    (Level.SHOULD, False, Level.MUST, Verdict.FAILED),  # no answer at all in a SHOULD case
    (Level.MAY, True, None, Verdict.OK),
])
def test_verdict_follows_level_and_breach(level: Level, passed: bool | None, breach: Level | None,
                                          verdict: Verdict) -> None:
    case = Case("9.9", "x", "t", "1", level, lambda s: C.ok(""))
    assert case.verdict(Finding(passed, "d", breach=breach)) is verdict


@pytest.mark.parametrize(("verdicts", "plain", "strict"), [
    ([], 0, 0),
    ([Verdict.OK, Verdict.INFORMATIONAL], 0, 0),
    ([Verdict.OK, Verdict.UNIMPLEMENTED], 0, 0),
    ([Verdict.OK, Verdict.NON_STRICT], 0, 1),
    ([Verdict.OK, Verdict.FAILED], 1, 1),
    ([Verdict.NON_STRICT, Verdict.FAILED, Verdict.UNIMPLEMENTED], 1, 1),
])
def test_exit_codes(verdicts: list[Verdict], plain: int, strict: int) -> None:
    results = [result("2.1", v) for v in verdicts]
    assert exit_code(results) == plain
    assert exit_code(results, strict=True) == strict


def test_tally_counts_every_verdict() -> None:
    counts = tally([result("2.1", Verdict.OK), result("2.2", Verdict.OK), result("2.3", Verdict.NON_STRICT)])
    assert counts[Verdict.OK] == 2 and counts[Verdict.NON_STRICT] == 1 and counts[Verdict.FAILED] == 0
    assert set(counts) == set(Verdict)


# ------------------------------------------------------------------------------------------------ running a case


def fake(run: Any, needs_hello: bool = True, level: Level = Level.MUST) -> Case:
    return Case("9.1", "fake", "a fake case", "6", level, run, needs_hello)


def test_a_bot_error_inside_a_case_is_a_verdict(registry: Any) -> None:
    def run(s: Session) -> Finding:
        raise BotCrashed("bot closed its stdout (exit code 3)")

    s = session(registry)
    s.hello = {"type": "hello"}
    r = C.run_case(s, fake(run))
    assert r.verdict is Verdict.FAILED
    assert "exit code 3" in r.outcome.actual


def test_a_bug_of_the_suite_is_a_harness_error(registry: Any) -> None:
    def run(s: Session) -> Finding:
        raise KeyError("oops")

    s = session(registry)
    s.hello = {"type": "hello"}
    with pytest.raises(RefereeError, match=r"internal error in case 9\.1: KeyError"):
        C.run_case(s, fake(run))


def test_cases_that_need_a_handshake_are_not_run_without_one(registry: Any) -> None:
    ran = []
    s = session(registry)
    s.hello_error = "no answer within 5 s"
    r = C.run_case(s, fake(lambda s: ran.append(1) or C.ok(""), level=Level.MAY))
    assert ran == [] and r.verdict is Verdict.FAILED and "not run" in r.outcome.detail
    assert r.outcome.actual == "no answer within 5 s"
    r = C.run_case(s, fake(lambda s: ran.append(1) or C.ok("fine"), needs_hello=False))
    assert ran == [1] and r.verdict is Verdict.OK


def test_run_cases_reports_each_result(registry: Any) -> None:
    s = session(registry)
    s.hello = {"type": "hello"}
    seen: list[str] = []
    results = C.run_cases(s, [fake(lambda s: C.ok("a")), fake(lambda s: C.info("b"))],
                          lambda r: seen.append(r.verdict.value))
    assert seen == ["OK", "INFORMATIONAL"] and len(results) == 2


def test_seeds_depend_on_the_session_seed_and_the_case_only(registry: Any) -> None:
    a, b, c = session(registry, 5), session(registry, 5), session(registry, 6)
    assert a.seed_for("play", "durak", 2) == b.seed_for("play", "durak", 2)
    assert a.seed_for("play", "durak", 2) != c.seed_for("play", "durak", 2)
    assert a.seed_for("play", "durak", 2) != a.seed_for("play", "durak", 3)


def test_seeds_keep_the_values_of_the_checks_own_formula(registry: Any) -> None:
    """seed_for is rng.derive_seed with ':' and 4 bytes: the same seeds as the 4-byte BLAKE2b it replaced, so a
    printed 'referee check --cases ID --seed N' repeats what it repeated before."""
    import hashlib

    def old(seed: int, *parts: object) -> int:
        text = ":".join(str(p) for p in (seed, *parts))
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")

    for seed, parts in [(1, ("play", "durak", 2)), (0, ("determinism",)), (2**64 - 1, ("forced", 3)),
                        (7, ("two-games", 1)), (123456789, ("unknown-types",)), (5, ())]:
        assert session(registry, seed).seed_for(*parts) == old(seed, *parts)


def test_shared_runs_are_made_once_and_credited_to_every_case(registry: Any) -> None:
    s = session(registry)
    calls = []

    def build() -> str:
        calls.append(1)
        s.run("shared-run")
        return "value"

    s.begin()
    assert s.shared("x", build) == "value" and s.used() == ["shared-run"]
    s.begin()
    assert s.shared("x", build) == "value" and s.used() == ["shared-run"]
    assert calls == [1]


# ------------------------------------------------------------------------------------------------ hello


# ------------------------------------------------------------------------------------------------ transcripts


def transcript(registry: Any, *events: tuple[str, Any, float]) -> Run:
    run = Run("t", session(registry))
    for kind, value, t in events:
        run.add(1, kind, pack(value), value).t = t
    return run


def test_exchanges_pair_each_request_with_its_answer(registry: Any) -> None:
    run = transcript(
        registry,
        ("sent", {"type": "hello", "versions": [1]}, 0.0),
        ("received", {"type": "hello", "version": 1}, 0.01),
        ("sent", {"type": "request", "id": 1, "legal": ["a"]}, 0.1),
        ("received", {"type": "action", "id": 1, "action": "a"}, 0.102),
        ("sent", {"type": "request", "id": 2, "legal": ["a"]}, 0.2),
        ("received", {"type": "action", "id": 7, "action": "a"}, 0.25),  # a wrong id answers nothing
        ("sent", {"type": "request", "id": 3, "legal": ["a"]}, 0.3),
        ("received", {"type": "action", "id": 3, "action": "a"}, 0.31),
    )
    pairs = [(q.value["id"], a.value["id"] if a else None) for q, a in run.exchanges()]
    assert pairs == [(1, 1), (2, None), (3, 3)]
    assert run.latencies() == pytest.approx([0.002, 0.01])


def test_unasked_frames(registry: Any) -> None:
    run = transcript(
        registry,
        ("sent", {"type": "hello", "versions": [1]}, 0.0),
        ("received", {"type": "hello", "version": 1}, 0.01),
        ("sent", {"type": "new_game"}, 0.02),
        ("received", {"type": "ack"}, 0.03),
        ("sent", {"type": "request", "id": 1, "legal": ["a"]}, 0.1),
        ("received", {"type": "action", "id": 1, "action": "a"}, 0.102),
        ("received", {"type": "action", "id": 1, "action": "a"}, 0.103),
    )
    extra = _unasked(run)
    assert [(e.value["type"], after) for e, after in extra] == [("ack", "new_game"), ("action", "request")]


def test_stats() -> None:
    stats = _stats([0.001 * k for k in range(1, 101)])
    assert stats["replies"] == 100 and stats["p50_ms"] == pytest.approx(50.5) and stats["max_ms"] == 100
    assert 95 <= stats["p95_ms"] <= 96
    assert _stats([]) == {}


def test_jsonable_keeps_every_msgpack_type_readable() -> None:
    value = {"b": b"\x00\x01", "e": msgpack.ExtType(3, b"\xff"), "t": msgpack.Timestamp(1, 0), "n": [1, None, 0.5]}
    assert jsonable(value) == {"b": {"$bin": "0001"}, "e": {"$ext": 3, "data": "ff"}, "t": {"$timestamp": 1.0},
                               "n": [1, None, 0.5]}


# ------------------------------------------------------------------------------------------------ encodings, twists

MESSAGE = {"type": "request", "id": 300, "deadline_ms": 1000, "legal": ["take", "defend(6C,10C)"],
           "observation": {"seat": 1, "stock": -5, "big": 2**64 - 1, "events": [{"type": "deal", "n": 0}] * 20,
                           "flag": True, "none": None, "text": "x" * 40, "f": 0.5, "b": b"\x00"}}


@pytest.mark.parametrize("kind", ["int", "str", "container"])
def test_non_minimal_encodings_decode_to_the_same_message(kind: str) -> None:
    encoder = NonMinimal(kind)
    for _ in range(5):  # the forms cycle; every one must decode
        data = encoder.encode(MESSAGE)
        assert msgpack.unpackb(data, raw=False) == MESSAGE
        assert data != pack(MESSAGE)


def test_wide_ints_use_every_integer_form() -> None:
    encoder = NonMinimal("int")
    markers = set()
    for _ in range(30):
        data = encoder.encode({"n": 5})
        markers.add(data[3])
    assert markers == {0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3}
    assert encoder.encode({"n": 2**64 - 1})[3] == 0xCF  # only one form holds it: unchanged


def test_wide_strings_and_containers() -> None:
    strs = NonMinimal("str")
    assert {strs.encode("ab")[0] for _ in range(6)} == {0xD9, 0xDA, 0xDB}
    containers = NonMinimal("container")
    assert {containers.encode({"a": [1]})[0] for _ in range(4)} == {0xDE, 0xDF}


class FakeProbe:
    """Stands in for a Probe: collects what a twist writes."""

    def __init__(self, registry: Any) -> None:
        self.run = Run("fake", session(registry))
        self.number = 1
        self.writes: list[bytes] = []

    def write(self, frames: list[tuple[bytes, Any]], deadline: float, note: str = "") -> None:
        self.writes.append(b"".join(d for d, _ in frames))
        for data, value in frames:
            self.run.add(1, "sent", data, value, note)

    def send_raw(self, data: bytes, deadline: float) -> None:
        self.writes.append(bytes(data))


def sent(probe: FakeProbe) -> list[Any]:
    return [e.value for e in probe.run.sent()]


def test_remap_ids_round_trip(registry: Any) -> None:
    twist, probe = RemapIds(), FakeProbe(registry)
    twist.send(probe, {"type": "request", "id": 1, "legal": ["a"]}, 0)
    twist.send(probe, {"type": "request", "id": 2, "legal": ["a"]}, 0)
    ids = [m["id"] for m in sent(probe)]
    assert ids[0] > 2**32 and ids[1] > ids[0]
    assert twist.receive({"type": "action", "id": ids[1], "action": "a"})["id"] == 2
    assert twist.receive({"type": "action", "id": 1, "action": "a"})["id"] not in (1, 2)  # the bot's own count
    assert twist.receive({"type": "hello", "version": 1}) == {"type": "hello", "version": 1}


def test_joined_holds_messages_without_answer(registry: Any) -> None:
    twist, probe = Joined(), FakeProbe(registry)
    for m in ({"type": "new_game"}, {"type": "request", "id": 1}, {"type": "game_over"}, {"type": "bye"}):
        twist.send(probe, m, 0)
    assert probe.writes == [pack({"type": "new_game"}) + pack({"type": "request", "id": 1}),
                            pack({"type": "game_over"}) + pack({"type": "bye"})]


def test_extra_keys_reach_nested_maps(registry: Any) -> None:
    twist, probe = ExtraKeys({"x_k": 1}), FakeProbe(registry)
    twist.send(probe, {"type": "request", "observation": {"events": [{"type": "deal"}], "table": []}}, 0)
    twist.send(probe, {"type": "game_over", "result": {"places": [1, 2]}}, 0)
    request, over = sent(probe)
    assert request["x_k"] == request["observation"]["x_k"] == request["observation"]["events"][0]["x_k"] == 1
    assert over["result"]["x_k"] == 1 and over["x_k"] == 1


def test_unknown_types_come_before_every_message_but_hello(registry: Any) -> None:
    twist, probe = UnknownTypes(), FakeProbe(registry)
    for m in ({"type": "hello"}, {"type": "new_game"}, {"type": "bye"}):
        twist.send(probe, m, 0)
    kinds = [m["type"] for m in sent(probe)]
    assert kinds[0] == "hello" and kinds[2] == "new_game" and kinds[4] == "bye"
    assert kinds[1] not in ("hello", "new_game", "request", "game_over", "bye")


def test_split_writes_one_byte_at_a_time(registry: Any) -> None:
    twist, probe = Split(pause=0), FakeProbe(registry)
    twist.send(probe, {"type": "bye"}, 0)
    assert all(len(w) == 1 for w in probe.writes) and b"".join(probe.writes) == pack({"type": "bye"})
    assert sent(probe) == [{"type": "bye"}]


# ------------------------------------------------------------------------------------------------ report


def test_summary_line() -> None:
    results = [result("1.1", Verdict.OK), result("1.3", Verdict.INFORMATIONAL), result("2.3", Verdict.NON_STRICT)]
    line = summary_line(results, 1.25)
    assert line == "3 cases in 1.2 s: 1 OK, 1 NON-STRICT, 1 INFORMATIONAL; passed"
    assert summary_line(results, 1.25, strict=True).endswith("FAILED: 1 case (strict)")
    assert summary_line([result("1.1", Verdict.FAILED)], 0).startswith("1 case in")


def test_header_command_repeats_a_case() -> None:
    header = Header("cmd:node my bot.js", ["node", "my", "bot.js"], 42, ["durak"], None, ["durak"])
    assert header.command("3.4") == "referee check 'cmd:node my bot.js' --game durak --cases 3.4 --seed 42"


def test_failures_repeat_expected_and_actual() -> None:
    header = Header("cmd:x", ["x"], 7, ["durak"], None)
    lines = failures([result("3.4", Verdict.FAILED, detail="wrong id", expected="id 5", actual="id 1"),
                      result("1.3", Verdict.INFORMATIONAL), result("2.1", Verdict.OK)], header)
    text = "\n".join(lines)
    assert "3.4" in text and "expected: id 5" in text and "actual:   id 1" in text
    assert "--cases 3.4 --seed 7" in text and "1.3" not in text and "2.1" not in text
    assert failures([result("2.1", Verdict.OK)], header) == []


def test_failures_show_the_last_line_of_stderr(registry: Any) -> None:
    s = session(registry)
    s.run("r").add_stderr("starting\nTraceback (most recent call last):\nKeyError: 'legal'\n\n")
    r = result("3.1", Verdict.FAILED, detail="crash", expected="e", actual="a")
    r.runs = ["r"]
    lines = failures([r], Header("cmd:x", ["x"], 7, ["durak"], None), s)
    assert "    stderr:   KeyError: 'legal'" in lines


def test_tree_prints_group_headings_once() -> None:
    lines: list[str] = []
    tree = Tree(lines.append)
    for r in (result("2.1", Verdict.OK), result("2.2", Verdict.FAILED, detail="bad"), result("3.1", Verdict.OK)):
        tree(r)
    assert lines[0] == "2 handshake" and lines[1].startswith("  ✔ 2.1") and lines[1].endswith("OK")
    assert lines[2].startswith("  ✗ 2.2") and lines[3].strip() == "bad" and lines[4] == "3 play"


def test_list_cases_shows_ids_levels_and_sections() -> None:
    lines = list_cases(CATALOGUE)
    assert lines[0] == "1 process"
    assert any(line.split()[:2] == ["2.3", "SHOULD"] for line in lines)


def test_report_json(registry: Any) -> None:
    s = session(registry, 9)
    run = s.run("r")
    run.add(1, "sent", pack({"type": "bye"}), {"type": "bye"})
    r = result("7.2", Verdict.FAILED, detail="d", expected="e", actual="a")
    r.runs = ["r"]
    header = Header("cmd:x", ["x"], 9, ["durak"], {"type": "hello", "version": 1, "name": "x", "games": None})
    data = report_json([r], header, s, 1.5)
    assert data["summary"]["FAILED"] == 1 and data["summary"]["exit_code"] == 1 and data["seed"] == 9
    case = data["cases"][0]
    assert case["id"] == "7.2" and case["verdict"] == "FAILED" and case["runs"] == ["r"]
    assert case["reproduce"] == "referee check cmd:x --cases 7.2 --seed 9"
    event = data["runs"]["r"]["transcript"][0]
    assert event["hex"] == pack({"type": "bye"}).hex() and event["frame"] == {"type": "bye"}


# ------------------------------------------------------------------------------------------------ SPECs


def test_a_command_spec_is_run_as_given(registry: Any) -> None:
    assert program_for("cmd:node bot.js", registry) == (["node", "bot.js"], "bot")


@pytest.mark.parametrize("name", ["random", "first", "heuristic"])
def test_a_built_in_bot_runs_as_its_module(registry: Any, name: str) -> None:
    assert program_for(name, registry) == ([sys.executable, "-m", f"bots.{name}"], f"bots.{name}")


def test_another_registered_bot_is_refused_with_a_hint() -> None:
    plugin = types.ModuleType("inproc_plugin")

    class Inproc:
        name = "inproc"

    @hookimpl
    def register_bots(register: Any) -> None:
        register("inproc", Inproc)

    plugin.register_bots = register_bots  # type: ignore[attr-defined]
    registry = load_registry(entry_points=False, extra=[plugin])
    with pytest.raises(ConfigError, match="runs inside the referee.*cmd:"):
        program_for("inproc", registry)
