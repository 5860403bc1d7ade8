"""The referee command line as a real process, for the integration tests: ``python -m referee ARGS`` with no stdin,
its output captured as text, bounded by a time-out. One helper instead of a copy per test module."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_referee(*args: str, cwd: Path | str | None = ROOT, env: Mapping[str, str] | None = None,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee ARGS`` (from the repository's root unless ``cwd`` says otherwise)."""
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True,
                          cwd=cwd, env=None if env is None else dict(env), timeout=timeout,
                          stdin=subprocess.DEVNULL)
