"""``referee check`` against real programs (docs/CHECK.md): the built-in bots and the JavaScript example pass every
case; each bot of the check zoo (tests/fixtures/check/) fails exactly the cases its docstring names and passes the
others that are run with them.

Every check runs ``python -m referee check … --json`` in a subprocess, with a fixed seed. The whole suite runs on
``random`` and on the JavaScript bot; the other built-in bots and the zoo bots run only the cases that concern them,
to keep the time down. The JavaScript test needs ``node`` and ``bots/examples/js/node_modules``: it is skipped
without them, except under CI (``CI`` set), where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.check.cases import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "check"
JS_DIR = ROOT / "bots" / "examples" / "js"
SEED = 20240611
PASSING = {"OK", "INFORMATIONAL"}
ALL_IDS = [c.id for c in CATALOGUE]


class Checked:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.report: dict[str, Any] = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}

    @property
    def verdicts(self) -> dict[str, str]:
        return {c["id"]: c["verdict"] for c in self.report["cases"]}

    def explain(self) -> str:
        bad = [f"{c['id']} {c['verdict']}: {c['detail']} | expected {c['expected']} | actual {c['actual']}"
               for c in self.report.get("cases", []) if c["verdict"] not in PASSING]
        return "\n".join(bad) or self.stderr[-3000:]


def check(spec: str, *args: str, json_out: bool = True, timeout: float = 180) -> Checked:
    argv = [sys.executable, "-m", "referee", "check", spec, "--seed", str(SEED), *args]
    if json_out:
        argv.append("--json")
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return Checked(proc)


def zoo(script: str) -> str:
    return f"cmd:{sys.executable} {ZOO / script}"


def assert_all_pass(result: Checked, ids: list[str]) -> None:
    assert result.code == 0, result.explain()
    assert list(result.verdicts) == ids
    assert set(result.verdicts.values()) <= PASSING, result.explain()
    informational = {i for i, v in result.verdicts.items() if v == "INFORMATIONAL"}
    assert informational <= {"1.3"}, informational  # the stderr tail is recorded, not judged


# ------------------------------------------------------------------------------------------------ good bots


def test_random_passes_every_case() -> None:
    result = check(f"cmd:{sys.executable} -m bots.random")
    assert_all_pass(result, ALL_IDS)
    lines = result.stderr.splitlines()
    assert any(line.startswith("  ✔ 3.1 ") for line in lines)
    assert lines[-1].endswith("; passed") and f"{len(ALL_IDS)} cases in " in lines[-1]
    report = result.report
    assert report["seed"] == SEED and report["summary"]["exit_code"] == 0
    # every case names its runs, every run has a transcript whose frames are the bytes they claim to be
    import msgpack

    for case in report["cases"]:
        assert case["runs"], case["id"]
        assert all(name in report["runs"] for name in case["runs"])
        assert case["reproduce"].endswith(f"--cases {case['id']} --seed {SEED}")
    frames = [e for run in report["runs"].values() for e in run["transcript"] if e["kind"] in ("sent", "received")]
    assert frames
    for event in frames[:500]:
        assert msgpack.unpackb(bytes.fromhex(event["hex"]), raw=False) == event["frame"]
    timing = next(c for c in report["cases"] if c["id"] == "4.1")
    assert {"p50_ms", "p95_ms", "max_ms", "replies"} <= set(timing["data"])


@pytest.mark.parametrize("name", ["first", "heuristic"])
def test_other_built_in_bots_by_name(name: str) -> None:
    result = check(name, "--cases", "2,3.3,5.4,6.2,7")
    ids = [c["id"] for c in result.report["cases"]]
    assert_all_pass(result, ids)
    assert result.report["argv"] == [sys.executable, "-m", f"bots.{name}"]
    assert ids[0] == "2.1" and ids[-1] == "7.3"


def test_js_bot_passes_every_case() -> None:
    missing = []
    if shutil.which("node") is None:
        missing.append("the 'node' program")
    if not (JS_DIR / "node_modules" / "@msgpack" / "msgpack").is_dir():
        missing.append("bots/examples/js/node_modules")
    if missing:
        message = f"the JS bot check needs {' and '.join(missing)}: run 'npm ci --prefix bots/examples/js'"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    result = check("cmd:node bots/examples/js/bot.js")
    assert_all_pass(result, ALL_IDS)
    assert result.report["hello"]["name"] == "js-example"
    assert result.report["games"] == ["durak", "kazaki"]


# ------------------------------------------------------------------------------------------------ the zoo

# script, cases run, the verdicts that are not OK (all other cases run must pass), exit code
ZOO_CASES = [
    ("eager_hello.py", "1.1,2", {"1.1": "FAILED", "2.4": "FAILED"}, 1),
    ("print_debug.py", "1,2", {"1.2": "FAILED"}, 1),
    ("forced_pass.py", "2.1,3.2", {"3.2": "FAILED"}, 1),
    ("own_ids.py", "3.3,3.4,3.5", {"3.4": "FAILED"}, 1),
    ("acks.py", "3.3,3.5,5.1,7", {"3.5": "FAILED", "7.2": "FAILED"}, 1),
    ("one_game.py", "3.2,3.3,7.1", {"3.3": "FAILED"}, 1),
    ("slow.py", "2.1,4.2", {"4.2": "FAILED"}, 1),
    ("late_grace.py", "4.2", {"4.2": "NON-STRICT"}, 0),
    ("strict_keys.py", "5", {"5.2": "FAILED", "5.3": "NON-STRICT"}, 1),
    ("canonical_only.py", "5", {"5.4": "FAILED", "5.5": "FAILED", "5.6": "FAILED"}, 1),
    ("no_ext.py", "5.2,5.3,5.4", {"5.3": "NON-STRICT"}, 0),
    ("fragile_reader.py", "6", {"6.1": "FAILED"}, 1),
    ("one_per_read.py", "2.1,6.2", {"6.2": "FAILED"}, 1),
    ("stays_after_bye.py", "7", {"7.1": "FAILED"}, 1),
    ("bye_chatter.py", "7", {"7.2": "FAILED"}, 1),
    ("eof_spin.py", "7", {"7.3": "FAILED"}, 1),
    ("no_error.py", "2", {"2.4": "FAILED"}, 1),
    ("version_max.py", "2", {"2.3": "NON-STRICT", "2.4": "FAILED"}, 1),
    ("nondeterministic.py", "7.1,8", {"8.1": "UNIMPLEMENTED"}, 0),
    ("mute.py", "2.1,2.2,3.1", {"2.1": "FAILED", "2.2": "FAILED", "3.1": "FAILED"}, 1),
    ("gg.py", "1.2,3.5,7", {"1.2": "FAILED", "3.5": "FAILED", "7.2": "FAILED"}, 1),
    ("move_key.py", "2.1,3.1,3.4,5.1", {"3.1": "FAILED", "3.4": "FAILED", "5.1": "FAILED"}, 1),
    ("slow300.py", "2.1,4.2", {"4.2": "FAILED"}, 1),
    ("bad_declaration.py", "2.1,2.2,3.2", {"2.2": "FAILED"}, 1),
    ("typo_declaration.py", "2.1,2.2", {"2.2": "NON-STRICT"}, 0),
]


@pytest.mark.parametrize(("script", "cases", "expected", "code"), ZOO_CASES, ids=[z[0] for z in ZOO_CASES])
def test_zoo_bot_fails_exactly_its_cases(script: str, cases: str, expected: dict[str, str], code: int) -> None:
    result = check(zoo(script), "--cases", cases)
    verdicts = result.verdicts
    assert set(expected) <= set(verdicts), verdicts
    failing = {i: v for i, v in verdicts.items() if v not in PASSING}
    assert failing == expected, result.explain()
    assert result.code == code, result.explain()
    for case in result.report["cases"]:
        if case["verdict"] not in PASSING:
            assert case["expected"] and case["actual"], case  # a failure says what was expected and what happened
    if script == "mute.py":  # without a handshake the cases that need one are not even run
        case = result.report["cases"][-1]
        assert case["detail"].startswith("not run") and case["seconds"] < 1


def test_one_root_cause_is_shown_once_with_the_keys_the_bot_sent() -> None:
    result = check(zoo("move_key.py"), "--cases", "3.1,3.4,5.1,5.2", json_out=False)
    assert result.code == 1
    tail = result.stdout[result.stdout.index("failures and warnings:"):]
    cause = "malformed: reply 1 has no 'action' key, which must be a string (the reply's keys: id, move, type)"
    assert f"✗ one root cause, for 4 of the 4 cases listed here: {cause}" in tail
    assert tail.count("reply 1 has no 'action' key") == 1  # once, not once per case
    assert "expected:" not in tail  # the cases it explains are one line each
    assert [line.split()[1] for line in tail.splitlines() if line.startswith("  ✗ ")] == ["3.1", "3.4", "5.1", "5.2"]
    report = check(zoo("move_key.py"), "--cases", "3.1,3.4,5.1,5.2").report
    assert report["root_cause"]["cause"] == cause and report["root_cause"]["cases"] == ["3.1", "3.4", "5.1", "5.2"]


def test_a_slow_bots_games_are_cut_so_the_check_stays_near_a_minute() -> None:
    # 0.3 s an answer: the five durak games of 1.2 took about 50 s in full; now a slow bot plays the fewest and the
    # most seats only, and is asked 3 decisions a game (the referee plays the rest of its seat)
    result = check(zoo("slow300.py"), "--cases", "1.2,3.1,8.1", "--game", "durak")
    assert result.code == 0, result.explain()
    # The cut itself, not the seconds it saves (a loaded machine takes longer): two games, 3 requests each
    play = next(case for case in result.report["cases"] if case["id"] == "3.1")
    assert play["detail"].startswith("2 games (durak 2-6 seats), 6 requests"), play["detail"]
    assert play["data"]["requests"] == 6
    games = result.report["runs"]["play"]["games"]
    assert [g["seats"] for g in games] == [2, 6]
    notes = [e["note"] for e in result.report["runs"]["play"]["transcript"] if e["kind"] == "note"]
    assert any(n.startswith("the bot answers slowly: it was asked 3 decisions") for n in notes), notes
    assert result.verdicts["8.1"] == "OK"  # both determinism runs ask the same decisions


def test_a_program_that_cannot_start_is_one_line_not_a_failed_case_each(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "referee", "check", f"cmd:{sys.executable} {tmp_path / 'nope.py'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("referee: error: bot ") and "cannot play" in lines[0]
    assert "it exited before its hello" in lines[0] and "can't open file" in lines[0]


def test_zoo_bots_each_have_a_test() -> None:
    scripts = {p.name for p in ZOO.glob("*.py") if not p.name.startswith("_")}
    assert scripts == {z[0] for z in ZOO_CASES}


HOSTILE = ROOT / "tests" / "fixtures" / "zoo"


def test_deep_nesting_fails_1_2_and_a_nested_hello_fails_without_a_traceback() -> None:
    mid_game = check(f"cmd:{sys.executable} {HOSTILE / 'deep_nesting.py'} action 2", "--cases", "1.2")
    assert mid_game.verdicts == {"1.2": "FAILED"}, mid_game.explain()
    hello = check(f"cmd:{sys.executable} {HOSTILE / 'deep_nesting.py'} name", "--cases", "2.2")
    assert "Traceback" not in hello.stderr and hello.verdicts["2.2"] == "FAILED", hello.stderr[-2000:]


def test_an_id_of_true_is_an_unasked_frame_and_no_answer() -> None:
    result = check(f"cmd:{sys.executable} {HOSTILE / 'odd_ids.py'} true", "--cases", "3.5,4.1")
    assert result.verdicts == {"3.5": "FAILED", "4.1": "FAILED"}, result.explain()


def test_strict_fails_a_non_strict_verdict() -> None:
    result = check(zoo("late_grace.py"), "--cases", "4.2", "--strict")
    assert result.verdicts == {"4.2": "NON-STRICT"} and result.code == 1
    assert result.report["strict"] is True


# ------------------------------------------------------------------------------------------------ the command


def test_tree_and_failures_on_stdout_and_report_file(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    result = check(zoo("own_ids.py"), "--cases", "3.4", "--report", str(path), json_out=False)
    assert result.code == 1
    out = result.stdout
    assert "3 play" in out and "  ✗ 3.4 " in out and "FAILED" in out
    tail = out[out.index("failures and warnings:"):]
    assert "expected: action {id: 4294968305" in tail and '"id": 1' in tail
    assert f"again:    referee check 'cmd:{sys.executable} {ZOO / 'own_ids.py'}' --cases 3.4 --seed {SEED}" in tail
    assert out.rstrip().splitlines()[-1].startswith("1 case in ")
    report = json.loads(path.read_text())
    assert report["cases"][0]["id"] == "3.4" and report["runs"]["ids"]["transcript"]


def test_the_same_seed_repeats_a_case() -> None:
    def sent(result: Checked) -> list[str]:
        return [e["hex"] for e in result.report["runs"]["ids"]["transcript"] if e["kind"] == "sent"]

    first, second = check("random", "--cases", "3.4"), check("random", "--cases", "3.4")
    assert sent(first) and sent(first) == sent(second)


def test_list_needs_no_bot() -> None:
    proc = subprocess.run([sys.executable, "-m", "referee", "check", "--list", "--cases", "7"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0] == "7 shutdown"
    assert [line.split()[0] for line in lines[1:]] == ["7.1", "7.2", "7.3"]


@pytest.mark.parametrize(("args", "fragment"), [
    (["cmd:/nonexistent/bot"], "cannot start bot"),
    (["random", "--cases", "9.9"], "no case matches '9.9'"),
    (["random", "--game", "nope"], "unknown game 'nope'"),
    ([], "needs a bot SPEC"),
    (["nosuchbot"], "unknown bot 'nosuchbot'"),
    (["random", "--report", "/nonexistent/dir/r.json"], "cannot write the report"),
    ([f"cmd:{sys.executable} tests/fixtures/check/_durak_only.py", "--game", "kozel"], "does not play kozel"),
    ([zoo("_declares.py"), "--seats", "3"], "does not play durak at 3 seats (it plays 2 seats only)"),
    ([zoo("_declares.py"), "-o", "transfer=false"],
     "does not play durak with transfer=false (it plays transfer=true only)"),
    ([zoo("_declares.py"), "-o", "lyusya=lose"], "-o lyusya: no game checked (durak) has that option"),
    ([zoo("_declares.py"), "-o", "transfer=maybe"], "transfer"),
    ([zoo("_declares.py"), "-o", "transfer"], "--option takes KEY=VALUE"),
    (["random", "--game", "durak", "--seats", "9"], "game 'durak' is for 2-6 players, got 9 (--seats)"),
])
def test_usage_and_harness_errors_are_one_line_and_exit_2(args: list[str], fragment: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "referee", "check", *args, "--seed", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("referee: error: ")]
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------ what the hello declares, -o, --seats


def played(report: dict[str, Any]) -> set[tuple[str, int, tuple[tuple[str, Any], ...]]]:
    """Every game of every run: (game, seats, the options it was played with)."""
    return {(g["game"], g["seats"], tuple(sorted(g["options"].items())))
            for run in report["runs"].values() for g in run["games"]}


def test_check_plays_only_the_seats_and_options_the_hello_declares() -> None:
    result = check(zoo("_declares.py"), "--cases", "3.1,3.3,5.7,8.1")  # durak, 2 seats, transfer=true only
    assert result.code == 0, result.explain()
    games = played(result.report)
    assert {(game, seats) for game, seats, _ in games} == {("durak", 2)}
    assert all(dict(options)["transfer"] is True for _, _, options in games)
    assert result.report["played_only"] == ["durak at 2 seats, transfer=true"]
    assert "  played only: durak at 2 seats, transfer=true (--seats, -o and the bot's hello)" in result.stderr


def test_seats_and_options_narrow_the_check_of_any_bot() -> None:
    result = check("first", "--game", "durak", "--game", "kazaki", "--seats", "3", "-o", "transfer=true",
                   "--cases", "3.1,5.7")
    assert result.code == 0, result.explain()
    games = played(result.report)
    assert {(game, seats) for game, seats, _ in games} == {("durak", 3), ("kazaki", 3)}
    assert all(dict(options)["transfer"] is True for game, _, options in games if game == "durak")
    assert "-o transfer=true --seats 3" in result.report["command"]
