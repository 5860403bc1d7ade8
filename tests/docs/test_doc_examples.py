"""Every fenced example of README.md and docs/*.md that shows a command and its output is run and compared with
what the command prints now (the convention: tests/docs/README.md; the parser: doc_examples.py).

Each example runs in a fresh temporary folder of its own (so xdist can run them side by side), holding copies of
the repository's ``bots/`` and ``tests/``, with COLUMNS=120, no terminal, and the interpreter running these tests first
on the PATH (so ``referee`` and ``python3`` are this installation's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from doc_examples import Example, Step, collect, matches, mismatch

REPO = Path(__file__).resolve().parents[2]
FILES = [Path("README.md"), *sorted(p.relative_to(REPO) for p in (REPO / "docs").glob("*.md"))]
EXAMPLES = collect(REPO, FILES)
TIMEOUT = 120
JS_BOT = "bots/examples/js"


def js_bot_missing() -> str | None:
    """Why the JavaScript example bot cannot run here (no node, or 'npm ci' not run), or None."""
    if shutil.which("node") is None:
        return "node is not on the PATH"
    if not (REPO / JS_BOT / "node_modules").is_dir():
        return f"the JavaScript bot's dependencies are not installed (npm ci --prefix {JS_BOT})"
    return None


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_", "FORCE_COLOR", "CLICOLOR"))}
    env.update(COLUMNS="120", LINES="40", NO_COLOR="1", TERM="dumb", PYTHONUNBUFFERED="1",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    return env


def workdir(tmp_path: Path) -> Path:
    """Copies, not symbolic links: a sandboxed bot sees its own folder, not a link's target (docs/SECURITY.md)."""
    for name in ("bots", "tests"):
        shutil.copytree(REPO / name, tmp_path / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.egg-info", "*.db"))
    return tmp_path


def run(step: Step, cwd: Path) -> subprocess.CompletedProcess[str]:
    both = step.stream == "both"
    try:
        return subprocess.run(step.command, shell=True, cwd=cwd, env=environment(), text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT if both else subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"line {step.line}: {step.command!r} did not finish within {TIMEOUT} s")


def check_step(example: Example, step: Step, cwd: Path) -> None:
    proc = run(step, cwd)
    where = f"{example.block.path}:{step.line}: $ {step.command}"
    if example.exit_code is not None and proc.returncode != example.exit_code:
        pytest.fail(f"{where}\nexit code {proc.returncode}, documented {example.exit_code}\n"
                    f"{proc.stdout}{proc.stderr or ''}", pytrace=False)
    if step.expected is None:
        return
    printed = proc.stderr if step.stream == "stderr" else proc.stdout
    actual = printed.splitlines()
    if not matches(step.expected, actual):
        pytest.fail(f"{where}\n{mismatch(step.expected, actual)}", pytrace=False)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_doc_example(example: Example, tmp_path: Path) -> None:
    if example.kind == "skip":
        pytest.skip(example.reason)
    cwd = workdir(tmp_path)
    if example.kind == "python":
        script = cwd / "example.py"
        script.write_text(example.code, encoding="utf-8")
        step = Step(f"{sys.executable} example.py", example.steps[0].expected if example.steps else None,
                    "stdout", example.block.line)
        check_step(example, step, cwd)
        return
    missing = js_bot_missing()
    skipped = []
    for step in example.steps:
        if JS_BOT in step.command and missing is not None:
            if example.kind != "run-each":
                pytest.skip(missing)
            skipped.append(step.line)
            continue
        check_step(example, step, cwd)
    if skipped:  # the rest passed: a warning, not a skip that would hide them
        warnings.warn(f"{example.id}: line(s) {', '.join(map(str, skipped))} not run: {missing}", stacklevel=1)


def test_the_docs_have_examples() -> None:
    """The collector finds the examples at all: a broken parser must not pass by running nothing."""
    kinds = {e.kind for e in EXAMPLES}
    assert {"session", "run-each", "skip"} <= kinds, kinds
    assert sum(e.kind != "skip" for e in EXAMPLES) >= 20
