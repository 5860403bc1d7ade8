"""The doc-example collector itself (doc_examples.py): which blocks are examples, and how output is matched."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples import blocks, collect, examples_of, matches

DOC = """# A page

```
$ referee games --json
{"games": []}
$ referee bots
bot  games
```

<!-- exit: 2 -->

```
$ referee play
referee: error: Missing argument 'game'.
```

<!-- doctest: referee play durak -b random -b first --seed 7 -->
```
durak with 2 seats[…]
[…]
59 decisions; loser by the rules: seat 0
```

<!-- doctest: skip needs a terminal -->
```
$ referee tournament run kazaki
```

```
{"games": [GAME, …]}
```

```sh
referee games
referee bots
```

- a list item:

  <!-- doctest: python -->
  ```python
  print("hi")
  ```
  <!-- doctest: output -->
  ```
  hi
  ```

<!-- doctest-stderr: referee play durak -b random -b random -->
```
seed […] (repeat this game with --seed […])
```

<!-- doctest: run-each -->
```sh
referee games      # the games
# a comment line
referee bots
```
"""


@pytest.fixture
def examples(tmp_path: Path) -> list:
    (tmp_path / "page.md").write_text(DOC, encoding="utf-8")
    return collect(tmp_path, [Path("page.md")])


def test_kinds_and_ids(examples: list) -> None:
    assert [(e.kind, e.id) for e in examples] == [
        ("session", "page.md:3"), ("session", "page.md:12"), ("stdout", "page.md:18"), ("skip", "page.md:25"),
        ("python", "page.md:41"), ("stderr", "page.md:50"), ("run-each", "page.md:55")]


def test_session_steps_and_their_output(examples: list) -> None:
    first, second = examples[0], examples[1]
    assert [(s.command, s.expected, s.stream, s.line) for s in first.steps] == [
        ("referee games --json", ['{"games": []}'], "both", 4), ("referee bots", ["bot  games"], "both", 6)]
    assert first.exit_code is None and second.exit_code == 2


def test_directives(examples: list) -> None:
    stdout, skip, python, stderr, each = examples[2:]
    assert stdout.steps[0].command == "referee play durak -b random -b first --seed 7"
    assert stdout.steps[0].stream == "stdout" and len(stdout.steps[0].expected) == 3
    assert skip.reason == "needs a terminal"
    assert python.code == 'print("hi")\n' and python.steps[0].expected == ["hi"]
    assert stderr.steps[0].stream == "stderr"
    assert [s.command for s in each.steps] == ["referee games      # the games", "referee bots"]
    assert all(s.expected is None for s in each.steps) and each.exit_code == 0


def test_a_directive_must_be_right_above_its_block() -> None:
    text = "<!-- doctest: skip x -->\n\nsome text\n\n```\n$ referee games\n```\n"
    (block,) = blocks(text, Path("p.md"))
    assert block.directives == {}
    assert examples_of(block).kind == "session"


def test_plugins_and_exit_stand_together() -> None:
    text = "<!-- exit: 2 -->\n<!-- doctest-plugins: referee-nim referee-lowcard -->\n\n```\n$ referee games\n```\n"
    (block,) = blocks(text, Path("p.md"))
    example = examples_of(block)
    assert example.exit_code == 2
    assert block.directives["doctest-plugins"] == "referee-nim referee-lowcard"


def test_skip_needs_a_reason() -> None:
    (block,) = blocks("<!-- doctest: skip -->\n```\nx\n```\n", Path("p.md"))
    with pytest.raises(ValueError, match="needs a reason"):
        examples_of(block)


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    (["a", "b"], ["a", "b"], True),
    (["a", "b"], ["a", "c"], False),
    (["a", "b"], ["a"], False),
    (["a"], ["a", "b"], False),
    (["a  ", ""], ["a", "", ""], True),  # trailing whitespace and blank lines
    (["x […] z"], ["x yyy z"], True),
    (["x […] z"], ["x yyy"], False),
    (["x […]"], ["x y"], True),
    (["x […]"], ["xy"], False),
    (["a", "[…]", "d"], ["a", "b", "c", "d"], True),
    (["a", "[…]", "d"], ["a", "d"], True),
    (["a", "  […]", "d"], ["a", "b", "d"], True),
    (["a", "[…]", "d"], ["a", "b", "c"], False),
    (["[…]", "b", "[…]"], ["a", "b", "c"], True),
    (["[…]", "b", "[…]"], ["a", "c"], False),
    (["a.c"], ["abc"], False),  # the rest of a line is literal, not a pattern
])
def test_matches(expected: list[str], actual: list[str], ok: bool) -> None:
    assert matches(expected, actual) is ok
