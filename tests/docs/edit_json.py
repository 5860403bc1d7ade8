"""Write a changed copy of a JSON file: for doc examples that show what a damaged record does (tests/docs/README.md).

    python3 tests/docs/edit_json.py game.json bad.json version=2 -seats 'actions.5="take"' actions:94 'actions+="pass"'

An edit is ``PATH=JSON`` (set), ``-PATH`` (delete), ``PATH+=JSON`` (append to a list) or ``PATH:N`` (keep a list's
first N items); a PATH is dot-separated keys and list indexes.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def parent(document: Any, path: str) -> tuple[Any, Any]:
    *steps, last = path.split(".")
    node = document
    for step in steps:
        node = node[int(step)] if isinstance(node, list) else node[step]
    return node, int(last) if isinstance(node, list) else last


def main(argv: list[str]) -> int:
    source, target, *edits = argv
    with open(source, encoding="utf-8") as f:
        document = json.load(f)
    for edit in edits:
        if edit.startswith("-"):
            node, key = parent(document, edit[1:])
            del node[key]
        elif m := re.fullmatch(r"([^=+:]+)\+=(.*)", edit):
            node, key = parent(document, m[1])
            node[key].append(json.loads(m[2]))
        elif m := re.fullmatch(r"([^=:]+):(\d+)", edit):
            node, key = parent(document, m[1])
            node[key] = node[key][: int(m[2])]
        else:
            path, _, value = edit.partition("=")
            node, key = parent(document, path)
            node[key] = json.loads(value)
    with open(target, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
