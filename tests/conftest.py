"""What every test shares: the secret that keys the deals of games with program bots (referee/dealkey.py).

The tests never read or create the real one in the home folder: every test process, and every command it starts
(the doc examples, the CLI tests), uses a file of this run with a fixed secret, so the deals they show are the
same on every machine."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from referee.dealkey import SECRET_ENV

#: The tests' secret (not secret at all: it only makes the keyed deals the same everywhere).
TEST_SECRET = "5eed" * 16

_folder = Path(tempfile.mkdtemp(prefix="referee-secret-"))
(_folder / "secret").write_text(TEST_SECRET + "\n")
os.environ[SECRET_ENV] = str(_folder / "secret")
