"""Doc examples that cannot drift: find the fenced examples of the Markdown docs, run them, compare the output.

The convention (tests/docs/README.md) in short:

- a fenced block whose first line starts with ``$ `` is a shell session: every ``$ COMMAND`` line is run, the lines
  up to the next ``$ `` line are its expected output (stdout and stderr together);
- ``<!-- doctest: COMMAND -->`` above a block: the block is COMMAND's stdout (``<!-- doctest-stderr: COMMAND -->``:
  its stderr);
- ``<!-- doctest: skip REASON -->``: deliberately not run; ``<!-- doctest: python -->``: Python code that must exit
  0; ``<!-- doctest: run-each -->``: every line is a command that must exit 0 (in order, in one folder);
- ``<!-- exit: N -->`` above a block: every command of the block must exit with N;
- ``<!-- doctest-plugins: PACKAGE … -->`` above a block: the fixture packages of tests/fixtures/plugins are
  installed (on PYTHONPATH) for its commands;
- in an expected line ``[…]`` matches any text; a line that is only ``[…]`` matches any number of lines.

This module only parses and compares; ``test_doc_examples.py`` runs the examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Block", "Example", "collect", "examples_of", "matches", "mismatch", "ELLIPSIS"]

ELLIPSIS = "[…]"
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_COMMENT = re.compile(r"^\s*<!--\s*(?P<body>.*?)\s*-->\s*$")
_DIRECTIVE = re.compile(r"^(?P<key>doctest|doctest-stderr|doctest-plugins|exit)\s*:\s*(?P<value>.*)$")


@dataclass
class Block:
    """One fenced block of a Markdown file: its lines (de-indented), the line of its opening fence, and the
    directives (``<!-- key: value -->`` comments) right above it."""

    path: Path
    line: int  # 1-based line of the opening fence
    info: str
    lines: list[str]
    directives: dict[str, str] = field(default_factory=dict)
    first_line: int = 0  # 1-based line of the block's first content line


@dataclass
class Step:
    """One command of an example and what it must print (``stream``: ``both``, ``stdout`` or ``stderr``)."""

    command: str
    expected: list[str] | None  # None: not compared (run-each)
    stream: str
    line: int


@dataclass
class Example:
    """A runnable example: ``kind`` is ``session``, ``stdout``, ``stderr``, ``python``, ``run-each`` or ``skip``."""

    block: Block
    kind: str
    steps: list[Step] = field(default_factory=list)
    exit_code: int | None = None
    reason: str = ""
    code: str = ""
    plugins: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.block.path.as_posix()}:{self.block.line}"


def blocks(text: str, path: Path) -> list[Block]:
    """Every fenced block of a Markdown text, with the HTML-comment directives just above it (blank lines and
    several comments in a row allowed)."""
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if close and close["fence"].startswith(fence) and not close["info"].strip():
                break
            raw = lines[i]
            body.append(raw[indent:] if raw[:indent].strip() == "" else raw.lstrip())
            i += 1
        i += 1
        directives: dict[str, str] = {}
        j = start - 1
        while j >= 0:
            if not lines[j].strip():
                j -= 1
                continue
            c = _COMMENT.match(lines[j])
            if not c:
                break
            d = _DIRECTIVE.match(c["body"])
            if d and d["key"] not in directives:
                directives[d["key"]] = d["value"].strip()
            j -= 1
        found.append(Block(path, start + 1, m["info"].strip(), body, directives, start + 2))
    return found


def _session(block: Block) -> list[Step]:
    steps: list[Step] = []
    for n, line in enumerate(block.lines):
        if line.startswith("$ "):
            steps.append(Step(line[2:].strip(), [], "both", block.first_line + n))
        elif steps:
            assert steps[-1].expected is not None
            steps[-1].expected.append(line)
    return steps


def _run_each(block: Block) -> list[Step]:
    return [Step(line.strip(), None, "both", block.first_line + n) for n, line in enumerate(block.lines)
            if line.strip() and not line.lstrip().startswith("#")]


def examples_of(block: Block) -> Example | None:
    """The example a block is, or None for a block that shows no command's output (a schema, a list of
    commands, a code sample)."""
    d = block.directives
    exit_code = int(d["exit"]) if "exit" in d and d["exit"].strip().lstrip("-").isdigit() else None
    if "exit" in d and exit_code is None:
        raise ValueError(f"{block.path}:{block.line}: <!-- exit: N --> needs an integer, got {d['exit']!r}")
    doctest = d.get("doctest")
    if doctest is not None:
        word, _, rest = doctest.partition(" ")
        if word == "skip":
            if not rest.strip():
                raise ValueError(f"{block.path}:{block.line}: <!-- doctest: skip REASON --> needs a reason")
            return Example(block, "skip", reason=rest.strip())
        if doctest == "python":
            return Example(block, "python", code="\n".join(block.lines) + "\n", exit_code=0)
        if doctest == "output":
            return Example(block, "output")
        if doctest == "run-each":
            return Example(block, "run-each", _run_each(block), exit_code=0 if exit_code is None else exit_code)
        return Example(block, "stdout", [Step(doctest, list(block.lines), "stdout", block.line)], exit_code)
    if "doctest-stderr" in d:
        return Example(block, "stderr", [Step(d["doctest-stderr"], list(block.lines), "stderr", block.line)],
                       exit_code)
    first = next((line for line in block.lines if line.strip()), "")
    if first.startswith("$ "):
        return Example(block, "session", _session(block), exit_code)
    return None


def _with_plugins(example: Example | None) -> Example | None:
    if example is not None:
        example.plugins = example.block.directives.get("doctest-plugins", "").split()
    return example


def collect(root: Path, files: list[Path]) -> list[Example]:
    """The examples of ``files`` (paths relative to ``root``), in file and line order."""
    found: list[Example] = []
    for rel in files:
        text = (root / rel).read_text(encoding="utf-8")
        for block in blocks(text, rel):
            example = _with_plugins(examples_of(block))
            if example is None:
                continue
            if example.kind == "output":  # the stdout of the Python example just before it
                if not found or found[-1].kind != "python" or found[-1].block.path != rel or found[-1].steps:
                    raise ValueError(f"{rel}:{block.line}: <!-- doctest: output --> follows no Python example")
                found[-1].steps.append(Step("", list(block.lines), "stdout", block.line))
                continue
            found.append(example)
    return found


def _line_pattern(expected: str) -> re.Pattern[str] | None:
    if ELLIPSIS not in expected:
        return None
    return re.compile(".*".join(re.escape(part) for part in expected.split(ELLIPSIS)), re.DOTALL)


def _trim(lines: list[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines match ``expected`` lines (trailing whitespace and blank lines at either end
    ignored; ``[…]`` inside a line matches any text, a line that is only ``[…]`` any number of lines)."""
    exp, act = _trim(expected), _trim(actual)
    patterns = [_line_pattern(e) for e in exp]
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(exp):
            result = j == len(act)
        elif exp[i].strip() == ELLIPSIS:
            result = any(match(i + 1, k) for k in range(j, len(act) + 1))
        elif j == len(act):
            result = False
        else:
            p = patterns[i]
            same = p.fullmatch(act[j]) is not None if p is not None else exp[i] == act[j]
            result = same and match(i + 1, j + 1)
        memo[key] = result
        return result

    return match(0, 0)


def mismatch(expected: list[str], actual: list[str]) -> str:
    """A readable account of the difference, for the assertion message."""
    import difflib

    diff = difflib.unified_diff(_trim(expected), _trim(actual), "documented", "printed now", lineterm="", n=2)
    return "\n".join(diff)
