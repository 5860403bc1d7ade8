"""The process table from /proc, and who is below a process or still alive: for the tests that check no bot or
worker process survives."""

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


def descendants(root: int) -> set[tuple[int, int]]:
    """The processes below ``root`` now (identified with their start time, so a reused pid is not them)."""
    table = proc_table()
    found: set[tuple[int, int]] = set()
    parents = {root}
    while True:
        more = {key for key, (ppid, _, _) in table.items() if ppid in parents and key not in found}
        if not more:
            return found
        found |= more
        parents = {pid for pid, _ in more}


def living(processes: set[tuple[int, int]] | None = None, *, group: int | None = None) -> set[tuple[int, int]]:
    """Which of ``processes`` (or of process group ``group``) still run; zombies are dead."""
    return {key for key, (_, pgid, state) in proc_table().items()
            if state != "Z" and (processes is None or key in processes) and (group is None or pgid == group)}
