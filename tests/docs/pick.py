"""Print parts of a JSON document (stdin), one compact line each: for doc examples that show a few fields of a long
``--json`` output (tests/docs/README.md).

    referee games --json | python3 tests/docs/pick.py games.id=durak.options.name=transfer 'seats.*'

A path is dot-separated steps: a key, a list index, ``*`` (every item of a list), or ``KEY=VALUE`` (the items of a
list whose KEY is VALUE, compared as text). A last step of several keys, ``a,b``, prints those members of an object
as lines of it, ``"a": VALUE,`` (a fragment of the object, as a doc shows one).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def select(values: list[Any], step: str) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if step == "*":
            out.extend(value)
        elif "=" in step:
            key, _, wanted = step.partition("=")
            out.extend(item for item in value if isinstance(item, dict) and str(item.get(key)) == wanted)
        elif isinstance(value, list):
            out.append(value[int(step)])
        else:
            out.append(value[step])
    return out


def main(argv: list[str]) -> int:
    document = json.load(sys.stdin)
    for path in argv:
        values = [document]
        steps = path.split(".")
        members = steps.pop().split(",") if "," in steps[-1] else None
        for step in steps:
            values = select(values, step)
        if members is not None:
            for value in values:
                for key in members:
                    print(f"{json.dumps(key)}: {json.dumps(value[key], ensure_ascii=False)},")
            continue
        if not values:
            print(f"pick.py: nothing at {path!r}", file=sys.stderr)
            return 1
        for value in values:
            print(json.dumps(value, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
