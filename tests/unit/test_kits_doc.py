"""The starter kits' docs show the kits' own files: each kit's ``stubborn`` bot (the nine-line bot of docs/SDK.md in its
language) is a code block of docs/SDK.md, which links it, and each C, C++ and Rust kit's ``lowest`` and ``thinker``
bots are code blocks of its README, character for character; the README's commands build what its kit.json builds and
check a bot its kit.json names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "bots" / "kits"
FENCE = re.compile(r"^```[a-z+]*\n(.*?)^```$", re.S | re.M)

#: per kit: the file of its nine-line bot, of its lowest bot and of its thinker (the clock)
SOURCES = {"cpp": ("bots/stubborn.cpp", "bots/lowest.cpp", "bots/thinker.cpp"),
           "c": ("bots/stubborn.c", "bots/lowest.c", "bots/thinker.c"),
           "rust": ("src/bin/stubborn.rs", "src/bin/lowest.rs", "src/bin/thinker.rs")}
#: every kit's nine-line bot, which docs/SDK.md shows and links
STUBBORN = {**{kit: files[0] for kit, files in SOURCES.items()}, "typescript": "stubborn.ts",
            "go": "cmd/stubborn/main.go", "java": "src/main/java/bots/Stubborn.java"}


def blocks(path: Path) -> list[str]:
    return FENCE.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("kit", sorted(STUBBORN))
def test_each_kits_nine_line_bot_is_a_code_block_of_the_sdk_page_and_linked(kit: str) -> None:
    path = f"bots/kits/{kit}/{STUBBORN[kit]}"
    assert (ROOT / path).read_text(encoding="utf-8") in blocks(ROOT / "docs" / "SDK.md"), \
        f"{path} differs from its code block in docs/SDK.md"
    assert f"../{path}" in (ROOT / "docs" / "SDK.md").read_text(encoding="utf-8"), f"docs/SDK.md does not link {path}"


@pytest.mark.parametrize("kit", sorted(SOURCES))
def test_a_kits_readme_examples_are_its_files(kit: str) -> None:
    for example in SOURCES[kit][1:]:
        assert (KITS / kit / example).read_text(encoding="utf-8") in blocks(KITS / kit / "README.md"), example


@pytest.mark.parametrize("kit", sorted(SOURCES))
def test_a_kits_readme_builds_and_checks_what_its_kit_json_says(kit: str) -> None:
    described = json.loads((KITS / kit / "kit.json").read_text(encoding="utf-8"))
    readme = (KITS / kit / "README.md").read_text(encoding="utf-8")
    assert {"random", "lowest", "stubborn"} <= described["bots"].keys()
    assert f"cp -r bots/kits/{kit} mybot && cd mybot" in readme
    assert f"referee check 'cmd:{described['bots']['lowest'][0]}'" in readme
    installs = re.findall(r"^sudo apt install (.*)$", readme, re.M)
    assert [set(line.split()) for line in installs] == [set(described["apt"])]
    # the same build (the kits' CMakeLists.txt default to a Release build, as kit.json asks)
    build = " && ".join(" ".join(c for c in command if c != "-DCMAKE_BUILD_TYPE=Release")
                        for command in described["build"])
    assert f"\n{build}  " in readme, build
