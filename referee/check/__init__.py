"""``referee check``: the protocol-compliance suite for bot programs (docs/CHECK.md).

:mod:`.cases` is the catalogue of named cases and their verdicts, :mod:`.harness` runs the bot and records every
frame, :mod:`.report` prints the tree and writes the JSON report.
"""

from .cases import CATALOGUE, Case, CaseResult, Level, Outcome, Verdict, exit_code, run_cases, select
from .harness import Session

__all__ = ["CATALOGUE", "Case", "CaseResult", "Level", "Outcome", "Verdict", "Session", "exit_code", "run_cases",
           "select"]
