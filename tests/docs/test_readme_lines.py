"""README.md's "Using it" lines work as written for a newcomer: a line that needs more than the README's own
install (``pip install .``) says so right above it, in a comment line naming the command to run first.

The doc test runs these lines where the tests' environment has both (tox runs ``npm ci``; the ``test`` extra
brings Dask), so it cannot notice a missing note: this test does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples import blocks

README = Path(__file__).resolve().parents[2] / "README.md"

#: what a line holds -> the set-up it needs, as its note must name it
NEEDS = {
    "bots/examples/js": "npm ci --prefix bots/examples/js",
    "--executor dask": "pip install '.[dask]'",
}


def using_it() -> list[str]:
    """The lines of the README's first run-each block (the "Using it" section)."""
    found = [b for b in blocks(README.read_text(encoding="utf-8"), Path("README.md"))
             if b.directives.get("doctest") == "run-each"]
    assert found, "README.md has no <!-- doctest: run-each --> block"
    return found[0].lines


@pytest.mark.parametrize(("needle", "setup"), NEEDS.items(), ids=list(NEEDS))
def test_a_line_that_needs_a_setup_step_says_so(needle: str, setup: str) -> None:
    lines = using_it()
    users = [n for n, line in enumerate(lines) if needle in line and not line.lstrip().startswith("#")]
    assert users, f"no line of README.md's 'Using it' uses {needle!r}: update NEEDS"
    for n in users:
        note = lines[n - 1] if n else ""
        assert note.lstrip().startswith("#") and setup in note, (
            f"README.md: {lines[n]!r} needs {setup!r} first: say so in a comment line right above it")
