"""The process table from /proc, for the tests that check no bot or worker process survives."""

from __future__ import annotations

import os
from pathlib import Path


def proc_table() -> dict[tuple[int, int], tuple[int, int, str]]:
    """Every process as (pid, start time) → (parent pid, process group, state)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[(int(entry), int(fields[19]))] = (int(fields[1]), int(fields[2]), fields[0])
    return table


def group_members(pgid: int) -> list[tuple[int, str]]:
    """Live (non-zombie) processes whose process group is ``pgid``, as (pid, state)."""
    return [(pid, state) for (pid, _), (_, pgrp, state) in proc_table().items()
            if pgrp == pgid and state not in ("Z", "X")]
