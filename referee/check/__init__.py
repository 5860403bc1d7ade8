"""``referee check``: the protocol-compliance suite for bot programs (docs/CHECK.md).

:mod:`.verdicts` is the verdict model, :mod:`.cases` the catalogue of named cases (one module per group),
:mod:`.harness` runs the bot and records every frame, :mod:`.report` prints the tree and writes the JSON report.
"""

from .cases import CATALOGUE, run_cases, select
from .harness import Session
from .verdicts import Case, CaseResult, Finding, Level, Verdict, exit_code

__all__ = ["CATALOGUE", "Case", "CaseResult", "Level", "Finding", "Verdict", "Session", "exit_code", "run_cases",
           "select"]
