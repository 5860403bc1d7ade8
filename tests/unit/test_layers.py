"""Imports flow one way: protocol ← bots, referee ← tournaments (DEVELOPERS.md; issue 13, move 2).

Every import statement of every module is read, those inside functions too (a lazy import is still a dependency).
The command line of ``tournaments`` reaches ``referee`` through the ``register_commands`` plugin hook, so the core
package never imports it.
"""

from __future__ import annotations

import ast
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
