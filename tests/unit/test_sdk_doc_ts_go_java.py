"""docs/SDK.md's sections on the TypeScript, Go and Java starter kits show each kit's own small bot (the nine-line
bot's twin): the file is a code block of the page, character for character, so the page shows code that builds
(tests/integration/test_kits.py builds every kit)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "SDK.md"
EXAMPLES = {
    "ts": "bots/kits/typescript/stubborn.ts",
    "go": "bots/kits/go/cmd/stubborn/main.go",
    "java": "bots/kits/java/src/main/java/bots/Stubborn.java",
}


def code_blocks(text: str, language: str) -> list[str]:
    blocks, body = [], None
    for line in text.splitlines():
        if body is None and line.strip() == f"```{language}":
            body = []
        elif body is not None and line.strip() == "```":
            blocks.append("\n".join(body) + "\n")
            body = None
        elif body is not None:
            body.append(line)
    return blocks


@pytest.mark.parametrize(("language", "path"), EXAMPLES.items(), ids=EXAMPLES.keys())
def test_each_kits_example_is_a_code_block_of_the_page(language: str, path: str) -> None:
    page = PAGE.read_text(encoding="utf-8")
    code = (ROOT / path).read_text(encoding="utf-8")
    assert code in code_blocks(page, language), f"{path} differs from its code block in docs/SDK.md"
    assert f"../{path}" in page, f"docs/SDK.md does not link {path}"
