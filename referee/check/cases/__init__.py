"""The catalogue of ``referee check``: named cases, each checking one rule of docs/PROTOCOL.md (docs/CHECK.md).

One module per group of cases (:data:`GROUPS`), each case declared on its own function with
:func:`~referee.check.verdicts.case`; :mod:`.helpers` holds what several groups share. The verdict model is
:mod:`referee.check.verdicts`.

Every case starts the bot afresh (or uses a shared run of the same session, like the complete games that cases
1.2, 1.3, 3.1 and 4.1 all look at), and derives its deals from the session seed and its own id, so
``referee check SPEC --cases ID --seed N`` plays the same games again.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Sequence
from types import ModuleType

from protocol.errors import BotError, ConfigError, RefereeError

from ..harness import Session
from ..verdicts import GROUPS, Case, CaseResult, Declared, Finding, Level, Verdict, broken, exit_code, info, ok, tally
from . import determinism, handshake, messages, play, process, robustness, shutdown, timing

__all__ = ["Level", "Verdict", "Finding", "Case", "CaseResult", "CATALOGUE", "GROUPS", "select", "run_case",
           "run_cases", "tally", "exit_code", "ok", "info", "broken"]

MODULES: tuple[ModuleType, ...] = (process, handshake, play, timing, messages, robustness, shutdown, determinism)


def _declared(module: ModuleType) -> list[Case]:
    return [f.case for f in vars(module).values()
            if isinstance(f, Declared) and isinstance(f.case, Case) and f.__module__ == module.__name__]


def _order(c: Case) -> tuple[int, ...]:
    return tuple(int(part) for part in c.id.split("."))


#: Every case, in id order.
CATALOGUE: tuple[Case, ...] = tuple(sorted((c for m in MODULES for c in _declared(m)), key=_order))


# ------------------------------------------------------------------------------------------------ running


def select(patterns: Sequence[str], catalogue: Sequence[Case] = CATALOGUE) -> list[Case]:
    """The cases matching any pattern, in catalogue order. A pattern is an id (``2.1``), a prefix (``2``, which
    selects ``2.*``), a glob (``3.*``, ``*.1``) or a group name (``timing``); commas separate several.
    :class:`ConfigError` for a pattern that matches nothing."""
    wanted = [p.strip() for pattern in patterns for p in pattern.split(",") if p.strip()]
    if not wanted:
        return list(catalogue)
    chosen: set[str] = set()
    for pattern in wanted:
        hits = [c.id for c in catalogue
                if c.id == pattern or c.id.startswith(pattern.rstrip(".") + ".") or c.group == pattern
                or fnmatch.fnmatchcase(c.id, pattern)]
        if not hits:
            raise ConfigError(f"no case matches {pattern!r} (ids {catalogue[0].id} … {catalogue[-1].id}, groups "
                              f"{', '.join(dict.fromkeys(c.group for c in catalogue))}; see --list)")
        chosen.update(hits)
    return [c for c in catalogue if c.id in chosen]


def run_case(session: Session, case: Case) -> CaseResult:
    """Run one case. A bot's misbehaviour is a verdict; a failure of the suite itself raises RefereeError."""
    session.begin()
    start = time.monotonic()
    if case.needs_hello and session.hello is None:
        outcome = broken("not run: the bot did not complete the handshake (see 2.1)",
                         expected="a hello", actual=session.hello_error or "no hello", breach=Level.MUST)
    else:
        try:
            outcome = case.run(session)
        except BotError as exc:  # a bot error no step of the case expected
            outcome = broken(f"the bot failed: {exc}", expected="a bot that keeps to the protocol",
                             actual=f"{exc.kind}: {exc}")
        except RefereeError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug of the suite: reported as a harness error (exit code 2)
            raise RefereeError(f"internal error in case {case.id}: {type(exc).__name__}: {exc}") from exc
    return CaseResult(case, outcome, case.verdict(outcome), time.monotonic() - start, session.used())


def run_cases(session: Session, cases: Sequence[Case],
              on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    results = []
    for case in cases:
        result = run_case(session, case)
        results.append(result)
        if on_result:
            on_result(result)
    return results

