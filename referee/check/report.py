"""How ``referee check`` shows its results: a tree of cases by group, a summary line, the failures again with
expected and actual, and a JSON report with every run's transcript (docs/CHECK.md, "The JSON report")."""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..terminal import printable
from .cases import CATALOGUE
from .harness import RECEIVED_KEPT, REFEREE, Session, jsonable
from .verdicts import GROUPS, Case, CaseResult, Verdict, exit_code, tally

__all__ = ["SYMBOLS", "Header", "Tree", "summary_line", "failures", "report_json", "list_cases", "REPORT_FORMAT"]

#: Version of the JSON report's layout (fields may be added without a change).
REPORT_FORMAT = 1

SYMBOLS = {Verdict.OK: "✔", Verdict.FAILED: "✗", Verdict.NON_STRICT: "!", Verdict.INFORMATIONAL: "·",
           Verdict.UNIMPLEMENTED: "○"}
_TITLE_WIDTH = max(len(f"{c.id} {c.title}") for c in CATALOGUE)


@dataclass
class Header:
    """What was checked: the SPEC, the command, the hello, the games and the seed; and how to run it again."""

    spec: str
    argv: list[str]
    seed: int
    games: list[str]
    hello: dict[str, Any] | None
    requested_games: list[str] = field(default_factory=list)
    strict: bool = False
    protections: str = ""  # what the bot's process got here: the sandbox, cgroups (referee/cgroups.py)
    scope: list[str] = field(default_factory=list)  # the seats and options played where not every one is
    seats: int | None = None  # --seats
    options: list[str] = field(default_factory=list)  # -o, as given

    def command(self, case_id: str | None = None) -> str:
        """The command line that repeats the check (of one case)."""
        parts = ["referee", "check", shlex.quote(self.spec)]
        for game in self.requested_games:
            parts += ["--game", shlex.quote(game)]
        for pair in self.options:
            parts += ["-o", shlex.quote(pair)]
        if self.seats is not None:
            parts += ["--seats", str(self.seats)]
        if case_id:
            parts += ["--cases", case_id]
        parts += ["--seed", str(self.seed)]
        return " ".join(parts)

    def lines(self) -> list[str]:
        hello = self.hello
        bot = (f"{hello.get('name')!r}, protocol {hello.get('version')}" if hello else "no hello")
        return [f"referee check {self.spec}",
                f"  program: {' '.join(shlex.quote(a) for a in self.argv)}",
                f"  bot: {bot}; games checked: {', '.join(self.games)}; seed {self.seed}",
                *([f"  played only: {'; '.join(self.scope)} (--seats, -o and the bot's hello)"] if self.scope else []),
                *([f"  protections: {self.protections}"] if self.protections else [])]


def _case_line(result: CaseResult) -> list[str]:
    case, verdict = result.case, result.verdict
    title = f"{case.id} {case.title}"
    line = f"  {SYMBOLS[verdict]} {title:<{_TITLE_WIDTH}} {verdict.value}"
    out = [line.rstrip()]
    if verdict is not Verdict.OK or result.outcome.data:
        out.append(f"      {result.outcome.detail}")
    return out


class Tree:
    """Prints results as they come, a group heading before the first case of each group."""

    def __init__(self, echo: Callable[[str], None]) -> None:
        self.echo = echo
        self.group: str | None = None

    def __call__(self, result: CaseResult) -> None:
        if result.case.group != self.group:
            self.group = result.case.group
            number = result.case.id.split(".")[0]
            self.echo(f"{number} {self.group}")
        for line in _case_line(result):
            self.echo(line)


def summary_line(results: Sequence[CaseResult], seconds: float, *, strict: bool = False) -> str:
    counts = tally(results)
    parts = [f"{counts[v]} {v.value}" for v in Verdict if counts[v]]
    code = exit_code(results, strict=strict)
    if code == 0:
        verdict = "passed" + (" (strict)" if strict else "")
    else:
        bad = counts[Verdict.FAILED] + (counts[Verdict.NON_STRICT] if strict else 0)
        verdict = f"FAILED: {bad} case{'s' if bad != 1 else ''}" + (" (strict)" if strict else "")
    cases = f"{len(results)} case{'s' if len(results) != 1 else ''}"
    return f"{cases} in {seconds:.1f} s: {', '.join(parts) or 'none'}; {verdict}"


def failures(results: Sequence[CaseResult], header: Header, session: Session | None = None) -> list[str]:
    """Every case that is not OK or INFORMATIONAL, with its rule, expected and actual, the last line the bot wrote
    on stderr in the runs the case looked at, and how to repeat it."""
    bad = [r for r in results if r.verdict not in (Verdict.OK, Verdict.INFORMATIONAL)]
    if not bad:
        return []
    out = ["", "failures and warnings:"]
    cause, where, grouped = root_cause(bad, session)
    if grouped:
        first = grouped[0]
        out.append(f"✗ one root cause, for {len(grouped)} of the {len(bad)} cases listed here: {cause}")
        if where:
            out.append(f"    first seen: case {first.case.id}, {where}")
        out.extend(_stderr_line(first, session))
        out.append(f"    again:    {header.command(first.case.id)}")
        out.append("  the cases it fails (each in one line; the case's own failure is its consequence):")
        for r in grouped:
            out.append(f"  {SYMBOLS[r.verdict]} {r.case.id} {r.case.title}: {r.outcome.detail}")
        if len(grouped) < len(bad):
            out.append("  other failures:")
    for r in bad:
        if r in grouped:
            continue
        level = (r.outcome.breach or r.case.level).value
        out.append(f"{SYMBOLS[r.verdict]} {r.case.id} {r.case.title}  [{r.verdict.value}: breaks a {level}, "
                   f"PROTOCOL.md section {r.case.section}]")
        out.append(f"    {r.outcome.detail}")
        if r.outcome.expected:
            out.append(f"    expected: {r.outcome.expected}")
        if r.outcome.actual:
            out.append(f"    actual:   {r.outcome.actual}")
        out.extend(_stderr_line(r, session))
        shortened = sum(session.runs[name].shortened for name in r.runs if session and name in session.runs)
        if shortened:
            out.append(f"    transcript: {shortened} frames kept shortened (only the first "
                       f"{RECEIVED_KEPT // 1024} KiB of the bot's frames are kept whole per run)")
        out.append(f"    again:    {header.command(r.case.id)}")
    return out


#: A cause shared by this many failed cases is shown once, as their root cause.
ROOT_CAUSE_MIN = 3


def root_cause(bad: Sequence[CaseResult], session: Session | None) -> tuple[str, str, list[CaseResult]]:
    """The cause most of the failed cases share (one fault of the bot, say), where it was first seen, and the cases
    it explains; ``("", "", [])`` when fewer than :data:`ROOT_CAUSE_MIN` cases share one."""
    causes = {r.case.id: _cause(r, session) for r in bad}
    counts = Counter(_same(c[0]) for c in causes.values() if c[0])
    if not counts or counts.most_common(1)[0][1] < ROOT_CAUSE_MIN:
        return "", "", []
    root = counts.most_common(1)[0][0]
    grouped = [r for r in bad if causes[r.case.id][0] and _same(causes[r.case.id][0]) == root]
    return (*causes[grouped[0].case.id], grouped)


def _cause(result: CaseResult, session: Session | None) -> tuple[str, str]:
    """Why a case failed, at the bottom: the first fault of the bot in the games it looked at (kind: message, and
    where), else what it saw instead of what was expected."""
    for name in result.runs:
        run = session.runs.get(name) if session else None
        for game in run.games if run else ():
            for fault in game.get("faults", ()):
                where = (f"{game['game']}, {game['seats']} seats, seat {game['seat']}, seed {game['seed']}, decision "
                         f"{fault['decision']}")
                return printable(f"{fault['kind']}: {fault['message']}", one_line=True), where
    return result.outcome.actual, ""


def _same(cause: str) -> str:
    """Causes that differ only in numbers (request ids, sizes, times) are the same cause."""
    return re.sub(r"\d+", "N", cause)


def _stderr_line(result: CaseResult, session: Session | None) -> list[str]:
    stderr = [line for name in result.runs if session and name in session.runs
              for line in printable(session.runs[name].stderr).split("\n") if line.strip()]
    return [f"    stderr:   {stderr[-1][:200]}"] if stderr else []


def report_json(results: Sequence[CaseResult], header: Header, session: Session, seconds: float) -> dict[str, Any]:
    """The JSON report: the cases with their verdicts and the runs they used, each with its full transcript."""
    counts = tally(results)
    used = list(dict.fromkeys(name for r in results for name in r.runs))
    cause, where, grouped = root_cause([r for r in results if r.verdict not in (Verdict.OK, Verdict.INFORMATIONAL)],
                                       session)
    return {
        "format": REPORT_FORMAT,
        "referee": REFEREE,
        "spec": header.spec,
        "argv": header.argv,
        "seed": header.seed,
        "strict": header.strict,
        "games": header.games,
        "played_only": header.scope,
        "hello": jsonable(header.hello),
        "protections": header.protections,
        "command": header.command(),
        "summary": {"cases": len(results), **{v.value: counts[v] for v in Verdict},
                    "exit_code": exit_code(results, strict=header.strict), "seconds": round(seconds, 3)},
        "root_cause": {"cause": cause, "where": where, "cases": [r.case.id for r in grouped]} if grouped else None,
        "cases": [
            {**r.case.describe(), "verdict": r.verdict.value, "breach": r.outcome.breach.value
             if r.outcome.breach else None, "detail": r.outcome.detail, "expected": r.outcome.expected,
             "actual": r.outcome.actual, "data": jsonable(dict(r.outcome.data)), "seconds": round(r.seconds, 3),
             "runs": r.runs, "reproduce": header.command(r.case.id)}
            for r in results
        ],
        "runs": {name: session.runs[name].to_json() for name in used if name in session.runs},
        "received_kept_per_run": RECEIVED_KEPT,  # bytes of the bot's frames kept whole; later ones shortened
    }


def list_cases(cases: Sequence[Case]) -> list[str]:
    """``--list``: the catalogue, by group."""
    out = []
    group = None
    for case in cases:
        if case.group != group:
            group = case.group
            number = case.id.split(".")[0]
            out.append(f"{number} {GROUPS.get(number, group)}")
        out.append(f"  {case.id:<4} {case.level.value:<6} §{case.section:<8} {case.title}")
    return out
