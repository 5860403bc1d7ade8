"""What every test shares: the secret that keys the deals of games with program bots (referee/dealkey.py).

The tests never read or create the real one in the home folder: every test process, and every command it starts
(the doc examples, the CLI tests), uses a file of this run with a fixed secret, so the deals they show are the
same on every machine."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from referee.dealkey import SECRET_ENV

#: The tests' secret (not secret at all: it only makes the keyed deals the same everywhere).
TEST_SECRET = "5eed" * 16

_folder = Path(tempfile.mkdtemp(prefix="referee-secret-"))
(_folder / "secret").write_text(TEST_SECRET + "\n")
os.environ[SECRET_ENV] = str(_folder / "secret")


# ------------------------------------------------------------------------------------------------ deep sweeps

#: Set to run the ``deep`` tests too (like ``-m deep``, which runs only them).
DEEP_ENV = "REFEREE_DEEP_TESTS"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``deep`` tests continue the seeded random sweeps past the games that every run plays: they are skipped
    unless the run asks for them, with ``-m deep`` or the environment variable REFEREE_DEEP_TESTS=1."""
    if os.environ.get(DEEP_ENV, "") not in ("", "0") or "deep" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason=f"a deep sweep: run it with -m deep or {DEEP_ENV}=1")
    for item in items:
        if item.get_closest_marker("deep") is not None:
            item.add_marker(skip)
