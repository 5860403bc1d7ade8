"""``__all__`` stays honest (like httpx's tests/test_exported_members.py).

- every module of ``protocol``, ``referee``, ``bots`` and ``tournaments`` that declares ``__all__`` defines
  every name in it, once;
- the top-level package ``__init__``s export what they import: every public name an ``__init__.py`` imports
  from the project is in its ``__all__`` (a package with no ``__all__`` imports nothing public from it).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

PACKAGES = ("protocol", "referee", "bots", "tournaments")
ROOT = Path(__file__).resolve().parents[2]


def modules() -> list[str]:
    """Every module of the four packages, from the source tree (``__main__`` modules run a program: skipped)."""
    names = []
    for package in PACKAGES:
        names.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if info.name.rsplit(".", 1)[-1] != "__main__":
                names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", modules())
def test_every_name_in_all_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        return
    assert all(isinstance(item, str) for item in exported), exported
    assert len(set(exported)) == len(exported), f"{name}.__all__ names something twice"
    missing = [item for item in exported if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what the module does not define: {missing}"


def imported_names(path: Path) -> set[str]:
    """The names that the module-level imports of ``path`` from the project itself bind (relative imports and
    imports from the four packages, under ``if`` and ``try`` too; helpers such as ``typing.Any`` are not
    exports). ``import a.b`` binds ``a``."""
    names = set()
    pending = list(ast.parse(path.read_text()).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ImportFrom):
            if node.level > 0 or (node.module or "").split(".")[0] in PACKAGES:
                names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] in PACKAGES}
        elif isinstance(node, (ast.If, ast.Try)):
            pending += node.body + node.orelse + getattr(node, "finalbody", [])
            pending += [stmt for handler in getattr(node, "handlers", []) for stmt in handler.body]
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_a_top_level_package_exports_what_it_imports(package: str) -> None:
    public = {name for name in imported_names(ROOT / package / "__init__.py") if not name.startswith("_")}
    exported = set(getattr(importlib.import_module(package), "__all__", ()))
    assert public <= exported, f"{package}/__init__.py imports {sorted(public - exported)}, not in its __all__"


def test_the_checks_see_the_packages() -> None:
    """The walk finds the modules (a wrong root would make every test above pass vacuously)."""
    found = modules()
    assert {"protocol.bot", "referee.match", "bots.heuristic.koroli", "tournaments.ratings"} <= set(found)
    assert imported_names(ROOT / "protocol" / "__init__.py") >= {"Action", "Card"}
    assert "hookimpl" in imported_names(ROOT / "referee" / "__init__.py")
