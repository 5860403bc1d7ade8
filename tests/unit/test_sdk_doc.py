"""docs/SDK.md shows the example bots that its commands run: the files under bots/examples/python/ are the page's
code blocks, character for character, and the nine-line bot is the one of protocol/sdk.py's docstring."""

from __future__ import annotations

import textwrap
from pathlib import Path

import protocol.sdk

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "SDK.md"
EXAMPLES = ROOT / "bots" / "examples" / "python"


def python_blocks(text: str) -> list[str]:
    blocks, body = [], None
    for line in text.splitlines():
        if body is None and line.strip() == "```python":
            body = []
        elif body is not None and line.strip() == "```":
            blocks.append("\n".join(body) + "\n")
            body = None
        elif body is not None:
            body.append(line)
    return blocks


def test_every_example_bot_is_a_code_block_of_the_page():
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    files = sorted(EXAMPLES.glob("*.py"))
    assert [f.name for f in files] == ["lowest.py", "mybot.py", "thinker.py"]
    for path in files:
        assert path.read_text(encoding="utf-8") in blocks, f"{path.name} differs from its code block in docs/SDK.md"
        assert f"bots/examples/python/{path.name}" in PAGE.read_text(encoding="utf-8")


def test_the_nine_line_bot_is_the_sdk_docstrings():
    doc = protocol.sdk.__doc__ or ""
    start = doc.index("A complete bot::") + len("A complete bot::")
    end = doc.index(":func:`run`")
    code = textwrap.dedent(doc[start:end]).strip("\n") + "\n"
    assert code == (EXAMPLES / "mybot.py").read_text(encoding="utf-8")
    assert len(code.splitlines()) == 9
