"""The table of executors (tournaments/executor.py): ``--executor NAME`` chooses from it, and the module that holds
it starts nothing (the local executor, with its processes and pipes, and the Dask one are imported only when
chosen)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from referee.errors import ConfigError
from tournaments.config import TournamentConfig
from tournaments.executor import DEFAULT_EXECUTOR, EXECUTORS, Placement, executor_factory


def config() -> TournamentConfig:
    return TournamentConfig(game="durak", options={}, entrants=["random", "first"], specs=["random", "first"],
                            seats=2, games=1, duplicate=True, seed=1)


def test_local_is_the_default_and_makes_a_local_executor() -> None:
    from tournaments.local import LocalExecutor

    assert DEFAULT_EXECUTOR == "local" and set(EXECUTORS) == {"local", "dask"}
    executor = executor_factory("local")(config(), Placement(3))
    assert isinstance(executor, LocalExecutor) and executor.workers == 3 and executor.sandbox is None


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"^unknown executor 'ray' \(choices: dask, local\)$"):
        executor_factory("ray")


def test_a_scheduler_is_for_the_dask_executor_only_and_well_formed() -> None:
    with pytest.raises(ConfigError, match=r"^--scheduler names a Dask cluster: it needs --executor dask"):
        executor_factory("local", "tcp://localhost:8786")
    for bad in ("localhost:8786", "tcp://localhost", "tcp://localhost:0", "local:0", "local:two", "udp://h:1"):
        with pytest.raises(ConfigError, match=r"is not tcp://HOST:PORT"):
            executor_factory("dask", bad)
    pytest.importorskip("distributed")
    for good in (None, "tcp://10.0.0.7:8786", "tcp://sched-1.lan:8786", "tcp://[::1]:8786", "local:3"):
        assert executor_factory("dask", good) is EXECUTORS["dask"]


def test_the_executor_module_imports_neither_processes_nor_pipes() -> None:
    code = ("import sys, tournaments.executor; "
            "print(sorted(m for m in ('multiprocessing', 'tournaments.local', 'tournaments.dask_executor', "
            "'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
