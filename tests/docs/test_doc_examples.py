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
import tomllib
import warnings
from pathlib import Path

import pytest
from doc_examples import Example, Step, collect, matches, mismatch

REPO = Path(__file__).resolve().parents[2]
PLUGINS = REPO / "tests" / "fixtures" / "plugins"
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


def environment(site: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_", "FORCE_COLOR", "CLICOLOR"))}
    env.update(COLUMNS="120", LINES="40", NO_COLOR="1", TERM="dumb", PYTHONUNBUFFERED="1",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    return env


def install_plugins(packages: list[str], site: Path) -> Path:
    """Install fixture plugin packages into ``site`` as pip would lay them out: the modules, and a ``.dist-info``
    whose METADATA and entry_points.txt come from the package's pyproject.toml (importlib.metadata reads just
    these). tests/integration/test_plugins_installed.py installs the same packages with pip itself."""
    site.mkdir(exist_ok=True)
    for package in packages:
        source = PLUGINS / package
        if not (source / "pyproject.toml").is_file():
            pytest.fail(f"<!-- doctest-plugins: {package} -->: no package tests/fixtures/plugins/{package}")
        with open(source / "pyproject.toml", "rb") as f:
            project = tomllib.load(f)["project"]
        for module in source.glob("*.py"):
            shutil.copy(module, site / module.name)
        info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                       f"Version: {project['version']}\n", encoding="utf-8")
        points = project.get("entry-points", {})
        (info / "entry_points.txt").write_text(
            "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
                    for group, eps in points.items()), encoding="utf-8")
    return site


_IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.egg-info", "*.db")


def _ignored(folder: str, names: list[str]) -> set[str]:
    """What the copies leave out: caches, and bots/kits/, the starter kits with their build outputs (node_modules,
    compiled bots), which no doc example runs (tests/integration/test_kits.py builds and checks them)."""
    left_out = _IGNORED(folder, names)
    return left_out | {"kits"} if Path(folder) == REPO / "bots" else left_out


def workdir(tmp_path: Path) -> Path:
    """Copies of bots/ and tests/, so that an example cannot change the repository's files."""
    for name in ("bots", "tests"):
        shutil.copytree(REPO / name, tmp_path / name, symlinks=True, ignore=_ignored)
    return tmp_path


def run(step: Step, cwd: Path, site: Path | None) -> subprocess.CompletedProcess[str]:
    both = step.stream == "both"
    try:
        return subprocess.run(step.command, shell=True, cwd=cwd, env=environment(site), text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT if both else subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"line {step.line}: {step.command!r} did not finish within {TIMEOUT} s")


def check_step(example: Example, step: Step, cwd: Path, site: Path | None = None) -> None:
    proc = run(step, cwd, site)
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
    cwd = workdir(tmp_path / "work")
    site = install_plugins(example.plugins, tmp_path / "site") if example.plugins else None
    if example.kind == "python":
        script = cwd / "example.py"
        script.write_text(example.code, encoding="utf-8")
        step = Step(f"{sys.executable} example.py", example.steps[0].expected if example.steps else None,
                    "stdout", example.block.line)
        check_step(example, step, cwd, site)
        return
    missing = js_bot_missing()
    skipped = []
    for step in example.steps:
        if JS_BOT in step.command and missing is not None:
            if example.kind != "run-each":
                pytest.skip(missing)
            skipped.append(step.line)
            continue
        check_step(example, step, cwd, site)
    if skipped:  # the rest passed: a warning, not a skip that would hide them
        warnings.warn(f"{example.id}: line(s) {', '.join(map(str, skipped))} not run: {missing}", stacklevel=1)


def test_the_docs_have_examples() -> None:
    """The collector finds the examples at all: a broken parser must not pass by running nothing."""
    kinds = {e.kind for e in EXAMPLES}
    assert {"session", "run-each", "skip"} <= kinds, kinds
    assert sum(e.kind != "skip" for e in EXAMPLES) >= 20
