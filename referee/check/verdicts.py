"""The verdict model of ``referee check`` (docs/CHECK.md): what a case found, and the verdict that follows.

A :class:`Case` has an id (``2.1``), a group, a one-line title, the PROTOCOL.md section it checks, the level of
that rule (MUST, SHOULD or MAY) and a run function that returns an :class:`Finding`. The verdict follows from both:

- the case passed: ``OK``; the case only records something: ``INFORMATIONAL``;
- it found a breach: ``FAILED`` for a MUST, ``NON-STRICT`` for a SHOULD, ``UNIMPLEMENTED`` for a MAY (an optional
  feature that is absent). A case may find a breach of another level than its own (a late answer within the grace
  breaks only a SHOULD of a MUST case).

A case is declared on its own function, with :func:`case`; :mod:`.cases` gathers them into the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .harness import Session

__all__ = ["Level", "Verdict", "Finding", "Case", "CaseResult", "GROUPS", "case", "ok", "info", "broken", "tally",
           "exit_code"]


class Level(StrEnum):
    """How strong the rule a case checks is (docs/PROTOCOL.md: *must*, *should*; optional features: *may*)."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"


class Verdict(StrEnum):
    OK = "OK"
    NON_STRICT = "NON-STRICT"
    FAILED = "FAILED"
    INFORMATIONAL = "INFORMATIONAL"
    UNIMPLEMENTED = "UNIMPLEMENTED"


_BREACH = {Level.MUST: Verdict.FAILED, Level.SHOULD: Verdict.NON_STRICT, Level.MAY: Verdict.UNIMPLEMENTED}


@dataclass(frozen=True)
class Finding:
    """What a case found. ``passed``: True, False (a breach, of ``breach`` or else the case's level) or None
    (recorded only). ``expected``/``actual`` explain a breach; ``data`` holds measurements for the report."""

    passed: bool | None
    detail: str
    expected: str = ""
    actual: str = ""
    breach: Level | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


def ok(detail: str, **data: Any) -> Finding:
    return Finding(True, detail, data=data)


def info(detail: str, **data: Any) -> Finding:
    return Finding(None, detail, data=data)


def broken(detail: str, *, expected: str, actual: str, breach: Level | None = None, **data: Any) -> Finding:
    return Finding(False, detail, expected, actual, breach, data)


@dataclass(frozen=True)
class Case:
    """One named check. ``needs_hello``: the case needs a bot that completes the handshake."""

    id: str
    group: str
    title: str
    section: str
    level: Level
    run: Callable[[Session], Finding] = field(repr=False, compare=False)
    needs_hello: bool = True

    def verdict(self, outcome: Finding) -> Verdict:
        if outcome.passed is None:
            return Verdict.INFORMATIONAL
        if outcome.passed:
            return Verdict.OK
        return _BREACH[outcome.breach or self.level]

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "group": self.group, "title": self.title, "section": self.section,
                "level": self.level.value}


@dataclass
class CaseResult:
    case: Case
    outcome: Finding
    verdict: Verdict
    seconds: float
    runs: list[str]


#: The groups of cases, by the first part of a case's id.
GROUPS = {"1": "process", "2": "handshake", "3": "play", "4": "timing", "5": "messages", "6": "robustness",
          "7": "shutdown", "8": "determinism"}

CaseRun = Callable[["Session"], Finding]


@runtime_checkable
class Declared(Protocol):
    """A case's run declared with :func:`case`: the function, carrying its :class:`Case` as ``case``."""

    case: Case

    def __call__(self, s: Session) -> Finding: ...


def case(id: str, title: str, *, section: str, level: Level,
         needs_hello: bool = True) -> Callable[[CaseRun], CaseRun]:
    """Declare the decorated function as the run of case ``id`` (its group follows from the id's first part); the
    :class:`Case` is kept on the function as ``case``."""

    def declare(run: CaseRun) -> CaseRun:
        run.case = Case(id, GROUPS[id.split(".")[0]], title, section, level, run,  # type: ignore[attr-defined]
                        needs_hello)
        return run

    return declare


def tally(results: Iterable[CaseResult]) -> dict[Verdict, int]:
    counts = {v: 0 for v in Verdict}
    for r in results:
        counts[r.verdict] += 1
    return counts


def exit_code(results: Iterable[CaseResult], *, strict: bool = False) -> int:
    """0 when nothing failed; 1 when a case FAILED, or (``strict``) was NON-STRICT."""
    bad = {Verdict.FAILED, Verdict.NON_STRICT} if strict else {Verdict.FAILED}
    return 1 if any(r.verdict in bad for r in results) else 0
