"""The starter kits (bots/kits/LANG/, docs/SDK.md): each kit builds with its language's usual tools, each of its bots
passes ``referee check`` (every case) and plays a short tournament against the built-in bots without a fault.

A kit describes itself in ``bots/kits/LANG/kit.json``:

- ``language``: its name (``"C++"``);
- ``needs``: the programs its build needs on the PATH;
- ``apt``: the Debian packages that give them and its msgpack library (.ci/run installs those not installed);
- ``build``: the commands that build it, each an argv list, run in the kit's folder;
- ``bots``: each bot's name and its argv (run in the kit's folder; a first word with a ``/`` is a path in it).

Each kit is built in a copy of its folder (without its build outputs), so that the repository's tree does not change
while other tests copy ``bots/`` (the doc examples do), and a kit built by hand is not reused.

Without a program a kit needs, its test is skipped, except under CI (the environment variable ``CI`` is set), where
it fails: a kit that does not build is a failing test, not a skip (.ci/run installs what the kits need).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import run_referee

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "bots" / "kits"


@dataclass(frozen=True)
class Kit:
    folder: Path
    language: str
    needs: tuple[str, ...]
    build: tuple[tuple[str, ...], ...]
    bots: dict[str, tuple[str, ...]]

    @classmethod
    def read(cls, path: Path) -> Kit:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(path.parent, data["language"], tuple(data["needs"]), tuple(tuple(c) for c in data["build"]),
                   {name: tuple(argv) for name, argv in data["bots"].items()})

    def argv(self, bot: str) -> list[str]:
        first, *rest = self.bots[bot]
        return [str(self.folder / first) if "/" in first else first, *rest]

    def spec(self, bot: str) -> str:
        return f"[name={self.folder.name}-{bot} cwd={self.folder}] cmd:" + " ".join(self.argv(bot))


def kits() -> list[Kit]:
    return [Kit.read(path) for path in sorted(KITS.glob("*/kit.json"))]


def need(kit: Kit) -> None:
    missing = [program for program in kit.needs if shutil.which(program) is None]
    if missing:
        message = f"the {kit.language} kit needs {', '.join(missing)} on the PATH (.ci/run installs them)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


#: what a kit's build writes in its folder (.gitignore); not copied
BUILD_OUTPUTS = ("build", "target")


def copy(kit: Kit, where: Path) -> Kit:
    """The kit, in a copy of its folder under ``where``."""
    folder = where / kit.folder.name
    shutil.copytree(kit.folder, folder, ignore=shutil.ignore_patterns(*BUILD_OUTPUTS))
    return dataclasses.replace(kit, folder=folder)


def build(kit: Kit) -> None:
    for command in kit.build:
        done = subprocess.run(command, cwd=kit.folder, capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, f"{' '.join(command)} in {kit.folder}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.mark.parametrize("kit", kits(), ids=lambda kit: kit.folder.name)
def test_a_kit_builds_and_its_bots_pass_check_and_play_without_a_fault(kit: Kit, tmp_path: Path) -> None:
    need(kit)
    kit = copy(kit, tmp_path)
    build(kit)  # one test per kit: its build is not raced by another worker
    assert {"random", "lowest"} <= kit.bots.keys()
    for bot in kit.bots:
        checked = run_referee("check", kit.spec(bot), "--seed", "1", "--json", timeout=900)
        assert checked.returncode == 0, f"{kit.language} {bot}: {checked.stderr[-3000:]}"
        report = json.loads(checked.stdout)
        assert report["summary"]["FAILED"] == 0 and report["summary"]["UNIMPLEMENTED"] == 0, report["summary"]
    db = tmp_path / "kits.db"
    bots = [f"--bot={kit.spec(bot)}" for bot in kit.bots]
    played = run_referee("tournament", "run", "durak", *bots, "--bot=random", "--bot=heuristic", "--seats", "2",
                         "--games", "2", "--db", str(db), "--json", timeout=900)
    assert played.returncode == 0, played.stderr[-3000:]
    faults = run_referee("tournament", "games", str(db), "--faults", "--json", timeout=300)
    assert faults.returncode == 0 and json.loads(faults.stdout)["games"] == [], faults.stdout[-3000:]


def test_every_kit_folder_describes_itself() -> None:
    folders = sorted(p.name for p in KITS.iterdir() if p.is_dir()) if KITS.is_dir() else []
    assert folders == [kit.folder.name for kit in kits()], "each bots/kits/LANG/ needs a kit.json"


if __name__ == "__main__":  # python tests/integration/test_kits.py: the kits found
    for found in kits():
        print(f"{found.folder.name}: {found.language}, bots {', '.join(found.bots)}")
