"""The process tree as /proc shows it: a process's children and all its descendants (Linux).

One home for what the sandbox's freezing by signals (:mod:`referee.cgroups`) and the transport's look at who holds a
bot's stdout (:mod:`referee.transport`) read of it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["LISTED", "children", "descendants"]

#: Does this kernel list each thread's children in /proc (CONFIG_PROC_CHILDREN)? Without it, the children of a process
#: are found by reading every process's parent (one pass over /proc).
LISTED = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (of each of its threads); none when it is gone."""
    if not LISTED:
        return _by_parent().get(pid, [])
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(child) for child in f.read().split()]
        except FileNotFoundError:  # that thread ended
            pass
    return found


def descendants(root: int, below: Callable[[int], list[int] | None] | None = None) -> list[int]:
    """``root`` and every process descending from it, parents before children. ``below`` gives a process's children
    (default: :func:`children`, or without CONFIG_PROC_CHILDREN one pass over /proc for the whole tree)."""
    step: Callable[[int], list[int] | None] = below or (children if LISTED else _by_parent().get)
    order, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        order.append(pid)
        todo += step(pid) or []
    return order


def _by_parent(proc: str = "/proc") -> dict[int, list[int]]:
    """Each process's children, from every process's ``stat``."""
    found: dict[int, list[int]] = {}
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            found.setdefault(int(fields[1]), []).append(int(name))
    return found
