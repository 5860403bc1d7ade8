"""Start-up (issue 36): a command imports what it uses. ``referee --version`` imports no command line; ``referee
games``, ``bots`` and ``play`` import neither the tournament commands (numpy) nor the check suite nor the HTML
templates. benchmarks/startup.py times them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: runs ``python -m referee ARGS`` and prints the names of the modules it imported, one line, on stderr
PROBE = """
import runpy, sys
sys.argv = ["referee", *sys.argv[1:]]
try:
    runpy.run_module("referee", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n")
"""

HEAVY = ("numpy", "tournaments.cli.common", "tournaments.report", "referee.check", "referee.cli.check", "jinja2")


def imported(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return set(line.split()[1:])


def test_version_imports_no_command_line() -> None:
    modules = imported("--version")
    assert "typer" not in modules and "referee.cli" not in modules and "referee.plugins" not in modules


@pytest.mark.parametrize("args", [["games"], ["bots"],
                                  ["play", "durak", "-b", "random", "-b", "random", "--seed", "1"]])
def test_a_command_imports_no_other_command_nor_what_it_does_not_use(args: list[str]) -> None:
    modules = imported(*args)
    assert "tournaments.plugin" in modules  # the plugins were loaded: their commands were not
    assert {m for m in modules if m.startswith(HEAVY)} == set()


@pytest.mark.parametrize("args", [["games"], ["play", "durak", "-b", "random", "-b", "random", "--seed", "1"]])
def test_plain_values_need_no_pydantic(args: list[str]) -> None:
    assert "pydantic" not in imported(*args)  # typer checks values with it: referee.cli.common._PlainValues


def test_a_play_imports_its_game_alone_and_no_sampler_nor_search() -> None:
    """The games are registered by id and place (referee.hookspecs.LateGame); samplers, the search and the human
    seat load when used."""
    modules = imported("play", "durak", "-b", "random", "-b", "random", "--seed", "1")
    assert "referee.games.durak.durak" in modules
    late = ("referee.games.koroli", "referee.games.kozel", "referee.games.durak.worlds", "referee.ismcts.search",
            "referee.ismcts.bot", "bots.human", "bots.heuristic.", "referee.transport", "referee.cgroups")
    assert {m for m in modules if m.startswith(late)} == set()


#: What reading stored games does not need: the fit and the live ratings (numpy), the migrations (an old database is
#: read as it is, and migrated before a write), the rules of play (a run's claims), the commands that play; and for
#: --json, tabulate
NOT_FOR_READING = ("numpy", "tournaments.migrations", "tournaments.played", "tournaments.config",
                   "tournaments.cli.common")


@pytest.fixture(scope="module")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("played") / "rr.db"
    done = subprocess.run([sys.executable, "-m", "referee", "tournament", "run", "durak", "-b", "random", "-b",
                           "first", "--games", "2", "--seed", "1", "-w", "1", "--db", str(db)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize("schema", [1, 2])
@pytest.mark.parametrize("args", [["--faults"], ["--json"]])
def test_listing_stored_games_imports_nothing_it_does_not_use(schema: int, args: list[str], tmp_path: Path,
                                                               played_db: Path) -> None:
    db = tmp_path / "rr.db"
    old = Path(__file__).resolve().parents[1] / "fixtures" / "schema1" / "rr.db"
    shutil.copy(old if schema == 1 else played_db, db)
    modules = imported("tournament", "games", str(db), *args)
    assert "tournaments.storage" in modules
    unused = NOT_FOR_READING + (("tabulate",) if "--json" in args else ())
    assert {m for m in modules if m.startswith(unused)} == set()


def test_printing_a_stored_record_imports_nothing_it_does_not_use(played_db: Path) -> None:
    modules = imported("tournament", "record", str(played_db), "t0.d0.r0")
    assert "tournaments.storage" in modules
    assert {m for m in modules if m.startswith((*NOT_FOR_READING, "tabulate", "tournaments.verify"))} == set()


def test_a_value_typer_refuses_is_refused_as_before() -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "play", "durak", "-b", "random", "-b", "random",
                           "--move-time", "0"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "Invalid value for '--move-time': Input should be greater than or equal to 1" in done.stderr


@pytest.mark.parametrize(("args", "said"), [(["plya"], "Did you mean 'play', 'replay'?"),
                                            (["tournament", "rn"], "Did you mean 'run'?")])
def test_a_mistyped_command_is_still_matched_with_those_not_imported(args: list[str], said: str) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2 and said in done.stderr, done.stderr
