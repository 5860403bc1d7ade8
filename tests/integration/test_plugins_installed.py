"""Third-party plugins installed for real (docs/PLUGINS.md): entry points found through importlib.metadata.

The fixture packages in ``tests/fixtures/plugins/`` are pip-installed into a temporary ``--target`` folder, and
the ``referee`` CLI runs in a subprocess with that folder on ``PYTHONPATH``, so the plugins are discovered
exactly as an installed package's would be: through their ``*.dist-info/entry_points.txt`` (group ``referee``).

- ``referee-lowcard``: a bot (``lowcard``), the first tutorial of docs/PLUGINS.md;
- ``referee-nim``: a game (``nim21``), the second tutorial;
- ``referee-broken``: a plugin whose import raises ImportError; it must be reported by name, and the rest load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "plugins"

Installer = Callable[[Path, str], Path]


def version_of(package: str) -> str:
    """The version a fixture package declares in its pyproject.toml."""
    with open(FIXTURES / package / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Installer:
    """``install(target, *packages)``: pip-install fixture packages (no dependencies) into ``target``.

    The packages are copied first, because building writes ``build/`` and ``*.egg-info`` beside the sources.
    Building without isolation is fast and offline, but needs setuptools (and, for setuptools < 70.1, wheel)
    here; when that fails, pip builds in an isolated environment of its own, once and for all later calls.
    """
    sources = tmp_path_factory.mktemp("sources")
    isolated = [False]

    def run(target: Path, *packages: str) -> Path:
        dirs = []
        for package in packages:
            shutil.copytree(FIXTURES / package, sources / package, dirs_exist_ok=True)
            dirs.append(str(sources / package))
        base = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input",
                "--disable-pip-version-check", "--target", str(target)]
        proc = None
        if not isolated[0]:
            proc = subprocess.run([*base, "--no-build-isolation", *dirs], capture_output=True, text=True,
                                  timeout=300)
            isolated[0] = proc.returncode != 0
        if isolated[0]:
            proc = subprocess.run([*base, *dirs], capture_output=True, text=True, timeout=300)
        assert proc is not None and proc.returncode == 0, proc and proc.stderr
        return target

    return run


@pytest.fixture(scope="module")
def plugins(install: Installer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the installed lowcard and nim packages (modules and dist-info)."""
    return install(tmp_path_factory.mktemp("site"), "referee-lowcard", "referee-nim")


@pytest.fixture(scope="module")
def broken(install: Installer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the broken plugin next to the working nim game."""
    return install(tmp_path_factory.mktemp("site-broken"), "referee-broken", "referee-nim")


def referee(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee ARGS`` with ``site`` and the repository on PYTHONPATH."""
    path = [str(site), str(REPO)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=site)


def referee_json(site: Path, *args: str) -> Any:
    proc = referee(site, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr  # no plugin warnings, no drawn seed
    return json.loads(proc.stdout)


def test_installed_bot_is_listed_with_its_source(plugins: Path) -> None:
    bots = {b["name"]: b for b in referee_json(plugins, "bots")["bots"]}
    assert bots["lowcard"]["source"] == {"package": "referee-lowcard", "version": version_of("referee-lowcard")}
    assert bots["lowcard"]["games"] is None
    assert bots["lowcard"]["description"]
    assert {"random", "first", "heuristic"} <= set(bots)
    assert bots["random"]["source"]["package"] == "referee"


def test_installed_game_is_listed_with_its_source(plugins: Path) -> None:
    games = {g["id"]: g for g in referee_json(plugins, "games")["games"]}
    nim = games["nim21"]
    assert nim["source"] == {"package": "referee-nim", "version": version_of("referee-nim")}
    assert (nim["min_seats"], nim["max_seats"], nim["teams"]) == (2, 4, False)
    assert [(o["name"], o["default"]) for o in nim["options"]] == [("pile", 21)]
    assert {"kazaki", "durak"} <= set(games)
    assert games["durak"]["source"]["package"] == "referee"


def test_installed_bot_plays_a_builtin_game(plugins: Path) -> None:
    summary = referee_json(plugins, "play", "durak", "--bot", "lowcard", "--bot", "random", "--seed", "1")
    assert [s["bot"] for s in summary["seats"]] == ["lowcard", "random"]
    assert all(s["faults"] == [] for s in summary["seats"])
    assert summary["result"]["faults"] == []
    assert not summary["aborted"]
    assert summary["decisions"] > 0
    assert sorted(summary["result"]["places"]) == [1, 2]


def test_installed_game_is_played_by_builtin_bots(plugins: Path) -> None:
    summary = referee_json(plugins, "play", "nim21", "--bot", "random", "--bot", "first", "--seed", "1")
    assert summary["game"] == "nim21"
    assert summary["options"] == {"pile": 21}
    assert summary["result"]["faults"] == [] and not summary["aborted"]
    loser = summary["result"]["loser"]
    assert summary["finishing_order"] == [[1 - loser], [loser]]
    assert 7 <= summary["decisions"] <= 21  # 1-3 counters a turn from 21
    again = referee_json(plugins, "play", "nim21", "--bot", "random", "--bot", "first", "--seed", "1")
    assert len(again.pop("times")) == len(summary.pop("times")) == summary["decisions"]  # measured: they differ
    assert again == summary  # a seed replays the game


def test_installed_game_table_and_options(plugins: Path) -> None:
    proc = referee(plugins, "play", "nim21", "--bot", "lowcard", "--bot", "random", "--bot", "first",
                   "--seed", "7", "--option", "pile=10")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("nim21 with 3 seats, seed 7, dealer 0 (pile=10)\n")
    bad = referee(plugins, "play", "nim21", "--bot", "random", "--bot", "first", "--option", "pile=0")
    assert bad.returncode == 2
    assert bad.stderr == "referee: error: option 'pile' must be between 1 and 99, got 0\n"


def test_broken_plugin_is_reported_by_name_and_the_rest_load(broken: Path) -> None:
    proc = referee(broken, "games", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "referee: warning: plugin 'broken' failed to load: ImportError: "
        "referee-broken needs the library 'nosuchlib', which is not installed"
    ]
    games = {g["id"] for g in json.loads(proc.stdout)["games"]}
    assert {"kazaki", "durak", "nim21"} <= games
    play = referee(broken, "play", "nim21", "--bot", "random", "--bot", "first", "--seed", "3")
    assert play.returncode == 0, play.stderr
    assert "plugin 'broken' failed to load" in play.stderr
    assert play.stdout.startswith("nim21 with 2 seats, seed 3")
