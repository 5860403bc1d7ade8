"""Link every rule id in the prose of the docs to its rule in docs/RULES.md.

    python tools/link_rule_ids.py          # rewrite README.md, docs/*.md and tests/golden/README.md in place
    python tools/link_rule_ids.py --check  # list the unlinked ids and exit 1 if there are any

A rule id (``KZ-14``, ``C-7``, ``K52-8``, …) in prose becomes ``[KZ-14](RULES.md#kz-14)`` (the path relative to
the document). Ids inside fenced blocks and inline code stay as they are: those show what a program prints or a
bot receives, and the doc tests compare them character for character. Ids that are already the text of a link
stay too. tests/unit/test_rules_doc.py runs the check.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULES.md"

#: A rule id, not part of a longer word or code (the same pattern as tests/unit/test_rules_doc.py).
RULE_ID = re.compile(r"(?<![\w-])(?:C|KZ|KO|KH|KN|KR|K52)-\d+(?![\w-]|\.\d)")
#: What is left alone in a line: inline code, a link's text and target, an HTML tag.
PROTECTED = re.compile(r"`[^`]*`|\[[^\]]*\]\([^)]*\)|<[^>]*>")
FENCE = re.compile(r"^\s*(```|~~~)")


def documents(root: Path = ROOT) -> list[Path]:
    """The Markdown files whose prose cites rules (RULES.md itself has its anchors instead)."""
    docs = [root / "README.md", root / "tests" / "golden" / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [path for path in docs if path.is_file() and path.resolve() != RULES.resolve()]


def _prose(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for each line outside fenced blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def _unprotected(line: str) -> Iterator[tuple[int, int]]:
    """The (start, end) spans of ``line`` outside inline code, links and tags."""
    at = 0
    for m in PROTECTED.finditer(line):
        yield at, m.start()
        at = m.end()
    yield at, len(line)


def unlinked(text: str) -> list[tuple[int, str]]:
    """(line number, id) of every rule id in the prose of ``text`` that is not a link."""
    found = []
    for number, line in _prose(text):
        for start, end in _unprotected(line):
            found += [(number, m.group()) for m in RULE_ID.finditer(line, start, end)]
    return found


def link(text: str, rules_href: str) -> str:
    """``text`` with every unlinked rule id in its prose made a link to ``rules_href#id``."""
    lines = text.split("\n")
    prose = {number for number, _ in _prose(text)}
    for index, line in enumerate(lines):
        if index + 1 not in prose:
            continue
        pieces, at = [], 0
        for start, end in _unprotected(line):
            pieces.append(line[at:start])
            pieces.append(RULE_ID.sub(lambda m: f"[{m.group()}]({rules_href}#{m.group().lower()})",
                                      line[start:end]))
            at = end
        pieces.append(line[at:])
        lines[index] = "".join(pieces)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    problems = 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        if "--check" in argv:
            for number, rule in unlinked(text):
                print(f"{path.relative_to(ROOT)}:{number}: {rule} is not a link to docs/RULES.md")
                problems += 1
        else:
            href = Path(os.path.relpath(RULES, path.parent)).as_posix()
            linked = link(text, href)
            if linked != text:
                path.write_text(linked, encoding="utf-8")
                print(f"linked the rule ids of {path.relative_to(ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
