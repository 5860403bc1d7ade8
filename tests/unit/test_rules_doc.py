"""docs/RULES.md, the rule book, against the repository: every rule id cited anywhere has its anchor, every anchor
names the rule after it, and every option of every registered game is listed with its type, default and range.

Each check is a function of the document's text (and the cited ids), so the tests below also feed it broken
documents: the checks must be able to fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from referee.engine import Game, Option
from referee.plugins import load_registry

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "RULES.md"

#: A rule id: C-1 … C-11, KZ-, KO-, KH-, KN-, KR-, K52-. Not part of a longer word or code ("ABC-5", "x-C-5"), nor
#: followed by more digits, letters or a hyphenated continuation ("C-5a", "KZ-1-2").
RULE_ID = re.compile(r"(?<![\w-])(?:C|KZ|KO|KH|KN|KR|K52)-\d+(?![\w-]|\.\d)")
#: An anchor, and what follows it on the line.
ANCHOR = re.compile(r'<a id="(?P<id>[^"]*)"></a>(?P<after>.*)$', re.MULTILINE)
#: The bold heading that starts a rule: ``**KZ-14 Title.**``.
HEADING = re.compile(r"^\*\*(?P<rule>(?:C|KZ|KO|KH|KN|KR|K52)-\d+) [^*]+\*\*")
#: A line that starts a rule without an anchor in front of it.
BARE_HEADING = re.compile(r"^\*\*(?:C|KZ|KO|KH|KN|KR|K52)-\d+ ", re.MULTILINE)
#: A row of an options table: | `game` | `option` | type | `default` | range | meaning |
OPTION_ROW = re.compile(
    r"^\|\s*`(?P<game>[^`]+)`\s*\|\s*`(?P<option>[^`]+)`\s*\|\s*(?P<type>\w+)\s*\|\s*`(?P<default>[^`]*)`\s*\|"
    r"(?P<range>[^|]*)\|", re.MULTILINE)

#: Where rule ids are cited: the sources, tests and docs. The golden playthroughs are data, not citations.
SCANNED_SUFFIXES = (".py", ".md", ".js", ".mjs", ".toml", ".ini", ".cfg", ".txt")
SKIPPED_DIRS = {".git", ".tox", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache",
                ".pytest_cache", "build", "dist"}
SKIPPED_PATHS = (ROOT / "tests" / "golden",)


def source_files(root: Path = ROOT) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in SKIPPED_DIRS or part.endswith(".egg-info") for part in rel.parts):
            continue
        if any(path.is_relative_to(skipped) for skipped in SKIPPED_PATHS):
            continue
        if path.is_file() and path.suffix in SCANNED_SUFFIXES:
            yield path


def cited_ids(files: Iterable[Path]) -> dict[str, list[str]]:
    """Rule id → the files (relative to the root) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for rule in sorted(set(RULE_ID.findall(text))):
            cited.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    return cited


def anchors(text: str) -> list[str]:
    return [m["id"] for m in ANCHOR.finditer(text)]


def missing_anchors(text: str, cited: Iterable[str]) -> list[str]:
    """The cited ids without an anchor (lower-case id) in ``text``."""
    present = set(anchors(text))
    return sorted({rule for rule in cited if rule.lower() not in present})


def anchor_problems(text: str) -> list[str]:
    """Anchors that are duplicated, or not followed at once by the bold heading of their own rule; rule headings
    without an anchor."""
    problems = []
    seen: set[str] = set()
    for m in ANCHOR.finditer(text):
        anchor, after = m["id"], m["after"]
        if anchor in seen:
            problems.append(f"duplicate anchor {anchor!r}")
        seen.add(anchor)
        heading = HEADING.match(after)
        if heading is None:
            problems.append(f"anchor {anchor!r} is not followed by a rule heading: {after[:40]!r}")
        elif heading["rule"].lower() != anchor:
            problems.append(f"anchor {anchor!r} stands before the heading of {heading['rule']}")
    for m in BARE_HEADING.finditer(text):
        problems.append(f"rule heading without an anchor: {text[m.start():m.start() + 40]!r}")
    return problems


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_problems(text: str, games: Iterable[Game]) -> list[str]:
    """Each option of each game must have exactly one row ``| `game` | `option` | type | `default` | range |``
    with the type, default and range (or choices) of the game's :class:`Option`; no row may name an option that
    does not exist; a game without options must say so."""
    rows: dict[tuple[str, str], list[re.Match[str]]] = {}
    for m in OPTION_ROW.finditer(text):
        rows.setdefault((m["game"], m["option"]), []).append(m)
    problems = []
    known: set[tuple[str, str]] = set()
    for game in games:
        if not game.options and f"`{game.id}` has no options" not in text:
            problems.append(f"{game.id}: no options, and the document does not say so")
        for option in game.options:
            key = (game.id, option.name)
            known.add(key)
            found = rows.get(key, [])
            if len(found) != 1:
                problems.append(f"{game.id}: option {option.name!r} has {len(found)} rows in an options table")
                continue
            problems += _row_problems(game.id, option, found[0])
    problems += [f"{g}: the options table lists {o!r}, which the game does not have" for g, o in rows
                 if (g, o) not in known]
    return problems


def _row_problems(game: str, option: Option, row: re.Match[str]) -> list[str]:
    described = option.describe()
    problems = []
    if row["type"] != described["type"]:
        problems.append(f"{game}: {option.name} has type {described['type']}, the table says {row['type']}")
    if row["default"] != _text(option.default):
        problems.append(f"{game}: {option.name} defaults to {_text(option.default)}, the table says "
                        f"{row['default']}")
    span = row["range"]
    if option.choices:
        wanted = ", ".join(f"`{c}`" for c in option.choices)
        if wanted not in span:
            problems.append(f"{game}: {option.name} takes {wanted}, the table says {span.strip()!r}")
    elif isinstance(option.default, bool):
        if "true or false" not in span:
            problems.append(f"{game}: {option.name} is true or false, the table says {span.strip()!r}")
    elif f"{option.min} to {option.max}" not in span:
        problems.append(f"{game}: {option.name} runs {option.min} to {option.max}, the table says {span.strip()!r}")
    return problems


@pytest.fixture(scope="module")
def rules_text() -> str:
    return RULES.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def games() -> list[Game]:
    return [entry.game for entry in load_registry(entry_points=False).games.values()]


# ------------------------------------------------------------------------------------------- the document


def test_every_cited_rule_id_has_an_anchor(rules_text: str) -> None:
    cited = cited_ids(source_files())
    assert len(cited) > 100, "the scan found almost no rule ids: is the pattern or the file walk broken?"
    missing = missing_anchors(rules_text, cited)
    assert not missing, {rule: cited[rule] for rule in missing}


def test_every_anchor_is_unique_and_names_the_rule_after_it(rules_text: str) -> None:
    assert len(anchors(rules_text)) >= 133  # 11 C, 26 KZ, 16 KO, 18 KH, 24 KN, 19 KR, 19 K52
    assert anchor_problems(rules_text) == []


def test_every_option_is_listed_with_its_type_default_and_range(rules_text: str, games: list[Game]) -> None:
    assert {g.id for g in games} >= {"kazaki", "durak", "kozel", "kozel-hvaleny", "kozel-nn", "koroli", "koroli52"}
    assert option_problems(rules_text, games) == []


def test_the_rules_never_point_outside_the_repository(rules_text: str) -> None:
    assert "../" not in rules_text
    assert "shared/" not in rules_text


# --------------------------------------------------------------------------------- the checks can fail


def test_the_id_pattern_finds_ids_and_ignores_look_alikes() -> None:
    text = "KZ-14, (C-5) and K52-8: ABC-5 x-C-7 C-5a KZ-1-2 MC-10 C-11."
    assert RULE_ID.findall(text) == ["KZ-14", "C-5", "K52-8", "C-11"]


def test_a_cited_id_without_an_anchor_is_reported() -> None:
    text = '<a id="kz-14"></a>**KZ-14 Defence.** …\n'
    assert missing_anchors(text, ["KZ-14"]) == []
    assert missing_anchors(text, ["KZ-14", "KZ-15", "C-1"]) == ["C-1", "KZ-15"]


@pytest.mark.parametrize(("text", "problem"), [
    ('<a id="kz-1"></a>**KZ-1 A.** x\n<a id="kz-1"></a>**KZ-1 A.** y\n', "duplicate anchor"),
    ('<a id="kz-2"></a>**KZ-1 A.** x\n', "stands before the heading of KZ-1"),
    ('<a id="kz-1"></a> **KZ-1 A.** x\n', "is not followed by a rule heading"),
    ('<a id="KZ-1"></a>**KZ-1 A.** x\n', "stands before the heading of KZ-1"),
    ('**KZ-3 Beating.** x\n', "without an anchor"),
])
def test_a_bad_anchor_is_reported(text: str, problem: str) -> None:
    problems = anchor_problems(text)
    assert any(problem in p for p in problems), problems


def test_a_good_anchor_passes() -> None:
    assert anchor_problems('<a id="k52-8"></a>**K52-8 Trump.** x\nsee **K52-8** above\n') == []


def _game(*options: Option) -> Game:
    class Fake(Game):
        id = "fake"
        title = "Fake"
        min_seats = 2
        max_seats = 2

        def _new_state(self, *args: object) -> None:  # type: ignore[override]
            raise NotImplementedError

    Fake.options = options
    return Fake()


ROWS = ("| `fake` | `flag` | bool | `true` | true or false | x |\n"
        "| `fake` | `count` | int | `6` | 0 to 1000 | x |\n"
        "| `fake` | `word` | str | `lose` | one of `lose`, `zero`, `off` | x |\n")
OPTIONS = (Option("flag", True, ""), Option("count", 6, "", 0, 1000),
           Option("word", "lose", "", choices=("lose", "zero", "off")))


def test_a_complete_options_table_passes() -> None:
    assert option_problems(ROWS, [_game(*OPTIONS)]) == []
    assert option_problems("`fake` has no options.", [_game()]) == []


@pytest.mark.parametrize(("text", "problem"), [
    (ROWS.replace("`true`", "`false`"), "defaults to true"),
    (ROWS.replace("`6`", "`60`"), "defaults to 6"),
    (ROWS.replace("0 to 1000", "1 to 1000"), "runs 0 to 1000"),
    (ROWS.replace("| int |", "| bool |"), "has type int"),
    (ROWS.replace("`zero`, ", ""), "takes `lose`, `zero`, `off`"),
    (ROWS.replace("true or false", "yes"), "is true or false"),
    ("".join(ROWS.splitlines(keepends=True)[1:]), "'flag' has 0 rows"),
    (ROWS + ROWS.splitlines(keepends=True)[0], "'flag' has 2 rows"),
    (ROWS + "| `fake` | `gone` | int | `1` | 1 to 2 | x |\n", "'gone', which the game does not have"),
])
def test_a_wrong_or_missing_option_row_is_reported(text: str, problem: str) -> None:
    problems = option_problems(text, [_game(*OPTIONS)])
    assert any(problem in p for p in problems), problems


def test_a_game_without_options_must_say_so() -> None:
    assert option_problems("", [_game()]) == ["fake: no options, and the document does not say so"]


# ------------------------------------------------------------------------------------- links to the rules

def _link_tool():
    """tools/link_rule_ids.py, which links the ids in the docs' prose and checks that they are linked."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("link_rule_ids", ROOT / "tools" / "link_rule_ids.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_rule_id_in_the_docs_prose_links_to_its_rule() -> None:
    tool = _link_tool()
    unlinked = [f"{path.relative_to(ROOT)}:{line}: {rule}" for path in tool.documents()
                for line, rule in tool.unlinked(path.read_text(encoding="utf-8"))]
    assert not unlinked, "run 'python tools/link_rule_ids.py' to link them:\n" + "\n".join(unlinked)


def test_linking_leaves_code_fences_and_links_alone_and_links_the_rest() -> None:
    tool = _link_tool()
    text = ("Trumps beat plain cards (KZ-14), see [KZ-15](RULES.md#kz-15) and `KZ-16`.\n"
            "```\nreferee: error: … (KZ-17)\n```\n")
    assert tool.unlinked(text) == [(1, "KZ-14")]
    linked = tool.link(text, "RULES.md")
    assert linked == text.replace("(KZ-14)", "([KZ-14](RULES.md#kz-14))")
    assert tool.unlinked(linked) == []


def test_every_link_into_the_rules_names_an_anchor_there() -> None:
    present = set(anchors(RULES.read_text(encoding="utf-8")))
    target = re.compile(r"\]\((?:[./]*docs/|\.\./\.\./docs/)?RULES\.md#([^)]+)\)")
    broken = [f"{path.relative_to(ROOT)}: #{name}" for path in _link_tool().documents()
              for name in target.findall(path.read_text(encoding="utf-8")) if name not in present]
    assert not broken, broken
