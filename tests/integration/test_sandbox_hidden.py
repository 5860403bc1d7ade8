"""A bot script the sandbox cannot see (issue 33): one line that says so and how to fix it, exit code 2, before any
game, in ``play``, ``check`` and ``tournament run``; not the bot's own "No such file or directory"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import run_referee
from test_sandbox import require_bwrap

from referee.sandbox import hidden_paths

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
#: A program bot that plays: the built-in random bot, run as a script from wherever it is copied.
BOT = (f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
       "import runpy\nrunpy.run_module('bots.random', run_name='__main__')\n")



@pytest.fixture
def in_tmp() -> Iterator[Path]:
    """A bot script placed directly in /tmp, as people do."""
    script = Path("/tmp") / f"referee-bot-{uuid.uuid4().hex}.py"
    script.write_text(BOT)
    yield script
    script.unlink()


@pytest.fixture
def in_folder(tmp_path: Path) -> Path:
    """The same script in a folder of its own (which may be inside /tmp: that folder is bound)."""
    script = tmp_path / "bot" / "bot.py"
    script.parent.mkdir()
    script.write_text(BOT)
    return script


def one_line_error(done: subprocess.CompletedProcess[str], fragment: str) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert len(lines) == 1 and lines[0].startswith("referee: error: ") and fragment in lines[0], done.stderr


def commands(spec: str, db: Path) -> list[list[str]]:
    return [["play", "durak", "-b", "random", "-b", spec, "--seed", "1", "--sandbox", "on"],
            ["check", spec, "--sandbox", "on"],
            ["tournament", "run", "durak", "-b", "random", "-b", spec, "--games", "1", "--seed", "1", "--sandbox",
             "on", "--db", str(db)]]


def test_a_script_in_tmp_is_refused_with_why_and_how_to_fix_it(in_tmp: Path, tmp_path: Path) -> None:
    require_bwrap()
    db = tmp_path / "t.db"
    for args in commands(f"cmd:{PY} {in_tmp}", db):
        one_line_error(run_referee(*args), f"the sandbox hides {in_tmp} (a bot's /tmp is its own): move the bot "
                                            "to a folder of its own, or run with --sandbox off")
    assert not db.exists()  # refused before anything is stored


def test_the_same_script_plays_in_a_folder_of_its_own_and_without_the_sandbox(in_tmp: Path, in_folder: Path) -> None:
    require_bwrap()
    assert run_referee("play", "durak", "-b", "random", "-b", f"cmd:{PY} {in_folder}", "--seed", "1",
                       "--sandbox", "on").returncode == 0
    assert run_referee("play", "durak", "-b", "random", "-b", f"cmd:{PY} {in_tmp}", "--seed", "1",
                       "--sandbox", "off").returncode == 0


@pytest.fixture
def outside() -> Iterator[Path]:
    """A file in no folder the sandbox shows, and not under /tmp (whose own message is another): /var/tmp. Not the
    repository's files, which CI may clone under /tmp."""
    folder = Path("/var/tmp") / f"referee-hidden-{uuid.uuid4().hex}"
    folder.mkdir(parents=True)
    (folder / "data.txt").write_text("data\n")
    yield folder / "data.txt"
    shutil.rmtree(folder, ignore_errors=True)


def test_a_file_the_bot_names_outside_its_folder_is_refused(in_folder: Path, outside: Path) -> None:
    require_bwrap()
    data = outside
    done = run_referee("play", "durak", "-b", "random", "-b", f"cmd:{PY} {in_folder} {data}", "--seed", "1",
                       "--sandbox", "on")
    one_line_error(done, f"the sandbox hides {data} (a bot sees only the system folders, its program's installation, "
                         f"its own folder {in_folder.parent} and the SDK): move it into {in_folder.parent}, or run "
                         "with --sandbox off")


def test_what_the_sandbox_shows_is_not_named(in_tmp: Path, in_folder: Path) -> None:
    path = os.environ.get("PATH", os.defpath)
    assert hidden_paths([PY, str(in_tmp)], str(ROOT), path) == [str(in_tmp)]
    assert hidden_paths([PY, str(in_folder), "/dev/null", "/tmp", "--x=/nowhere"], str(ROOT), path) == []
    assert hidden_paths([PY, "-m", "bots.random"], str(ROOT), path) == []  # the SDK and the current folder
    assert hidden_paths([PY, str(in_folder), str(in_folder.parent / "bot.py")], "/", path) == []
