"""Imports flow one way: protocol ← bots, referee ← tournaments (DEVELOPERS.md; issue 13, move 2), and the
command modules (referee/cli/, tournaments/cli/) sit on top: no other module imports them, and no two files import
each other, even through others (issue 36).

Every import statement of every module is read, those inside functions too (a lazy import is still a dependency).
The command line of ``tournaments`` reaches ``referee`` through the ``register_commands`` plugin hook, so the core
package never imports it.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("protocol", "bots", "referee", "tournaments")

#: what each package may import of the project (besides itself)
ALLOWED = {
    "protocol": set(),
    "bots": {"protocol"},
    # referee.sandbox finds the folders of the SDK and the built-in bots to let Python bots import them;
    # referee.ismcts plays heuristic's move where its search is not sure of a better one (docs/ISMCTS.md)
    "referee": {"protocol", "bots"},
    "tournaments": {"protocol", "referee"},
}


def project_imports(path: Path, package: str) -> set[str]:
    """The project packages a module imports (relative imports resolve into its own package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [package] if node.level else [node.module or ""]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & set(PACKAGES)
    return found - {package}


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_the_layers_below_it(package: str) -> None:
    wrong = {str(path.relative_to(ROOT)): sorted(bad)
             for path in sorted((ROOT / package).rglob("*.py"))
             if (bad := project_imports(path, package) - ALLOWED[package])}
    assert wrong == {}


def test_the_scan_sees_a_lazy_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from tournaments.cli import app\n    from . import x\n    import protocol.wire\n")
    assert project_imports(module, "referee") == {"tournaments", "protocol"}


#: the command modules: the command line's folders
COMMANDS = ("referee.cli", "tournaments.cli")
#: modules outside them that may import a command module: the console script and the plugin that mounts the
#: tournament commands (inside its hook)
ENTRY_POINTS = {"referee.main", "referee.__main__", "tournaments.plugin"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, name: str | None = None, modules: Collection[str] | None = None) -> set[str]:
    """Every module the file of module ``name`` (default: its path's) imports, by its full name (relative imports
    resolved; ``from a import b`` gives both ``a`` and ``a.b``, as ``b`` may be a module, or, knowing the project's
    ``modules``, the one that is)."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found |= {base, sub} if modules is None else {sub if sub in modules else base}
    return found


def is_command(module: str) -> bool:
    return any(module == c or module.startswith(c + ".") for c in COMMANDS)


@pytest.mark.parametrize("package", PACKAGES)
def test_domain_code_imports_no_command_module(package: str) -> None:
    wrong = {str(path.relative_to(ROOT)): sorted(filter(is_command, imported_modules(path)))
             for path in sorted((ROOT / package).rglob("*.py"))
             if not is_command(module_name(path)) and module_name(path) not in ENTRY_POINTS}
    assert {path: bad for path, bad in wrong.items() if bad} == {}


def test_the_scan_sees_a_command_module_imported_relatively(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from .cli.common import x\nfrom .config import y\ndef f():\n    import referee.cli\n")
    found = {m for m in imported_modules(module, "tournaments.report_html") if is_command(m)}
    assert found == {"tournaments.cli.common", "tournaments.cli.common.x", "referee.cli"}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_files_import_each_other() -> None:
    """No import circle between files, lazy and type-checking imports included (a package's ``__init__.py`` is a
    file): each module can be read knowing only the ones below it."""
    files = {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}
    graph = {name: imported_modules(path, name, files) & files.keys() - {name} for name, path in files.items()}
    assert circles(graph) == []


def test_the_circle_finder_sees_a_circle_through_a_lazy_import(tmp_path: Path) -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    module = tmp_path / "played.py"
    module.write_text("from .config import C\ndef f():\n    from . import sprt_run\n")
    files = {"t.config", "t.sprt_run", "t"}
    assert imported_modules(module, "t.played", files) == {"t.config", "t.sprt_run"}


def test_no_two_public_classes_share_a_name() -> None:
    """One concept, one type: a public class name names one class in the whole project (issue 36)."""
    homes: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    homes.setdefault(node.name, []).append(module_name(path))
    assert {name: where for name, where in homes.items() if len(where) > 1} == {}
