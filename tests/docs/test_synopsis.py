"""The synopses of docs/CLI.md, docs/TOURNAMENTS.md, docs/CHECK.md and docs/LEAGUE.md (the blocks of ``referee
COMMAND [--option VALUE] …`` lines) name exactly the options each command declares, with the same value names, so
they cannot drift from the program.

A synopsis block is a fenced block without a marker in which every line is ``referee …`` or the continuation of one
(indented), and some line has an ``[--option``. Each command line names its command (``referee play``, ``referee
tournament run``) and every ``--option`` it takes, each followed by its metavar unless it is a flag; short forms
(``-b``) and ``--help`` are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer

from referee.cli import app
from referee.cli.common import command_tree

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["docs/CLI.md", "docs/TOURNAMENTS.md", "docs/CHECK.md", "docs/LEAGUE.md"]


def fenced_blocks(text: str) -> list[str]:
    """The text of every fenced block without a language (```` ``` ````, ```` ```json ```` left out)."""
    blocks: list[str] = []
    opened: str | None = None  # the opening fence's info string while inside a block
    body: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if opened is None:
            if stripped.startswith("```"):
                opened, body = stripped[3:], []
        elif stripped == "```":
            if opened == "":
                blocks.append("\n".join(body))
            opened = None
        else:
            body.append(line)
    return blocks


def synopsis_lines(text: str) -> list[str]:
    """Every command of every synopsis block, its continuation lines joined to it."""
    commands: list[str] = []
    for block in fenced_blocks(text):
        lines = block.splitlines()
        if not lines or not all(line.startswith(("referee ", " ")) for line in lines):
            continue
        if "[--" not in block:
            continue
        joined: list[str] = []
        for line in lines:
            if line.startswith(" ") and joined:
                joined[-1] += " " + line.strip()
            else:
                joined.append(line)
        commands += joined
    return commands


def _strip(token: str) -> str:
    """A token without the brackets around it (``[--seed`` → ``--seed``, ``N]`` → ``N``, ``NAME[=VALUE]`` stays)."""
    token = token.lstrip("[")
    while token.endswith("]") and token.count("]") > token.count("["):
        token = token[:-1]
    return token


def documented(line: str) -> tuple[list[str], dict[str, str | None]]:
    """(the command path, {option: its metavar or None}) of one synopsis line."""
    tokens = line.split()
    assert tokens[0] == "referee"
    path = []
    for token in tokens[1:]:
        if token.startswith(("-", "[")) or token.isupper():
            break
        path.append(token)
    options: dict[str, str | None] = {}
    words = [_strip(t) for t in tokens]
    for i, word in enumerate(words):
        for name in word.split("|") if word.startswith("--") else []:
            if not name.startswith("--"):
                continue  # --on-fault forfeit|continue: the metavar's own bar
            after = words[i + 1] if i + 1 < len(words) and "|--" not in word else None
            value = after if after and not after.startswith(("-", "|")) and after != "…" else None
            options[name] = value
    return path, options


def declared(path: list[str]) -> dict[str, str | None]:
    """{option: metavar or None} of a command, as typer declares it (every long name, --help aside)."""
    tree = command_tree(typer.main.get_command(app))  # typer's own (vendored) click commands, plugins' too
    assert tuple(path) in tree, f"no command {' '.join(path)}"
    command: Any = tree[tuple(path)]
    options: dict[str, str | None] = {}
    for param in command.params:
        if param.param_type_name != "option":
            continue
        flag = param.is_flag or param.count
        for name in [*param.opts, *param.secondary_opts]:
            if name.startswith("--") and name != "--help":
                options[name] = None if flag else param.metavar
    return options


CASES = [(doc, line) for doc in DOCS for line in synopsis_lines((ROOT / doc).read_text(encoding="utf-8"))]


def test_the_docs_have_synopses() -> None:
    commands = {" ".join(documented(line)[0]) for doc, line in CASES if doc == "docs/CLI.md"}
    assert commands >= {"games", "bots", "play", "replay", "check", "tournament run", "tournament resume",
                        "tournament table", "tournament games", "tournament record", "tournament verify", ""}


@pytest.mark.parametrize(("doc", "line"), CASES, ids=[f"{doc}:{line.split(' [')[0]}" for doc, line in CASES])
def test_a_synopsis_names_the_options_the_command_declares(doc: str, line: str) -> None:
    path, options = documented(line)
    assert options == declared(path), f"{doc}: {line}"
