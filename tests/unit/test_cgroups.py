"""referee/cgroups.py on fake cgroup trees (``REFEREE_CGROUP_ROOT``): what it finds on a v1 and on a v2 machine, and
the files it writes for a bot's group. The real kernel's behaviour (freezing, limits) is tried in
tests/integration/test_fair_play.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee import cgroups
from referee.errors import ConfigError
from referee.proctree import descendants


def tree(root: Path, folders: dict[str, dict[str, str]]) -> Path:
    for folder, files in folders.items():
        (root / folder).mkdir(parents=True)
        for name, text in {"cgroup.procs": "", **files}.items():
            (root / folder / name).write_text(text)
    return root


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cgroups.ROOT_ENV, str(tmp_path))
    return tmp_path


def test_v1_gives_every_controller_it_finds(fake: Path) -> None:
    tree(fake, {"freezer": {}, "memory": {}, "pids": {}, "cpuset": {"cpuset.effective_cpus": "0-3",
                                                                     "cpuset.effective_mems": "0"}})
    found = cgroups.detect("auto")
    assert found.version == "v1" and set(found.dirs) == {"freezer", "memory", "pids", "cpuset"} and not found.why
    assert found.describe() == ("cgroup v1: memory (all the bot's processes), process count, CPU set, freezing "
                                "(cgroup freezer)")
    group = cgroups.BotGroup(found=found, memory_mb=100, processes=20, cpus=[1, 2, 9])
    mem, pids, cpus = (Path(group.folders[c]) for c in ("memory", "pids", "cpuset"))
    assert (mem / "memory.limit_in_bytes").read_text() == str(100 * 1024 * 1024)
    assert (pids / "pids.max").read_text() == "20"
    assert (cpus / "cpuset.cpus").read_text() == "1,2"  # only cores the parent has
    assert (cpus / "cpuset.mems").read_text() == "0"
    group.started(os.getpid())
    group.freeze()
    assert (Path(group.folders["freezer"]) / "freezer.state").read_text() == "FROZEN"
    group.thaw()
    assert (Path(group.folders["freezer"]) / "freezer.state").read_text().endswith("THAWED")
    assert not group.out_of_memory()
    (mem / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    assert group.out_of_memory()


def test_v1_with_a_v2_hierarchy_freezes_there(fake: Path) -> None:
    """These machines: the v1 controllers, and a v2 hierarchy without controllers, whose freezer lets a fatal signal
    through (a referee SIGKILLed while its bots are frozen leaves none behind)."""
    tree(fake, {"freezer": {}, "memory": {}, "pids": {}, "cpuset": {"cpuset.effective_cpus": "0-1"},
                "unified": {"cgroup.controllers": "", "cgroup.subtree_control": ""}})
    found = cgroups.detect("auto")
    assert found.version == "v1+v2" and found.kinds == {"memory": "v1", "pids": "v1", "cpuset": "v1",
                                                        "freezer": "v2"}
    assert found.describe() == ("cgroup v1: memory (all the bot's processes), process count, CPU set; cgroup v2: "
                                "freezing (cgroup freezer)")
    group = cgroups.BotGroup(found=found, memory_mb=10)
    group.started(os.getpid())
    group.freeze()
    assert (Path(group.folders["freezer"]) / "cgroup.freeze").read_text() == "1"
    assert Path(group.folders["freezer"]).parent == fake / "unified"


def test_v1_without_a_freezer_freezes_by_signals(fake: Path) -> None:
    tree(fake, {"memory": {}, "pids": {}})
    found = cgroups.detect("auto")
    assert found.version == "v1" and not found.freezer
    assert "not writable or not mounted: freezer, cpuset" in found.why
    assert "freezing (signals)" in found.describe()


def test_v2_enables_the_controllers_it_may(fake: Path) -> None:
    tree(fake, {"unified": {"cgroup.controllers": "cpuset cpu io memory pids", "cgroup.subtree_control": ""}})
    found = cgroups.detect("auto")
    assert found.version == "v2" and set(found.dirs) == {"freezer", "memory", "pids", "cpuset"} and not found.why
    group = cgroups.BotGroup(found=found, memory_mb=64, processes=8, cpus=[0])
    folder = Path(group.folders["memory"])
    assert set(group.folders.values()) == {str(folder)}  # one folder for every controller
    assert (folder / "memory.max").read_text() == str(64 * 1024 * 1024)
    assert (folder / "pids.max").read_text() == "8"
    assert (folder / "cpuset.cpus").read_text() == "0"
    group.started(os.getpid())
    group.freeze()
    assert (folder / "cgroup.freeze").read_text() == "1"
    group.thaw()
    assert (folder / "cgroup.freeze").read_text().endswith("0")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.out_of_memory()


def test_v2_without_controllers_still_freezes(fake: Path) -> None:
    tree(fake, {"unified": {"cgroup.controllers": "", "cgroup.subtree_control": ""}})
    found = cgroups.detect("v2")
    assert found.version == "v2" and set(found.dirs) == {"freezer"}
    assert found.describe() == ("cgroup v2: freezing (cgroup freezer); controllers not delegated to the referee's "
                                "cgroup: memory, pids, cpuset")


def test_nothing_writable_is_none_and_says_why(fake: Path) -> None:
    assert cgroups.detect("auto").describe().startswith("no cgroups: freezing (signals); no cgroup file system")
    tree(fake, {"unified": {"cgroup.controllers": ""}})
    (fake / "unified" / "cgroup.procs").chmod(0o444)
    if os.geteuid() != 0:  # root writes whatever the mode says
        assert cgroups.detect("auto").version == "none"
    assert cgroups.detect("off").describe() == "no cgroups: freezing (signals); REFEREE_CGROUPS=off"


def test_a_bad_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="REFEREE_CGROUPS takes auto, v1, v2, off"):
        cgroups.detect("v3")


def test_a_group_that_cannot_be_made_is_no_group(tmp_path: Path) -> None:
    """A cgroup that cannot be made (its parent is gone, say) leaves no half-made group: the bot is frozen by
    signals, and only the sandbox's own limits hold."""
    found = cgroups.Support({"freezer": str(tmp_path), "memory": str(tmp_path / "gone")},
                            {"freezer": "v1", "memory": "v1"})
    group = cgroups.BotGroup(found=found, memory_mb=10)
    assert group.folders == {} and list(tmp_path.iterdir()) == []


def test_the_cgroups_of_a_dead_referee_are_swept(fake: Path) -> None:
    tree(fake, {"freezer": {}})
    dead = 2**22 + 12345  # above pid_max: no such process
    (fake / "freezer" / f"referee-bot-{dead}-0").mkdir()
    (fake / "freezer" / f"referee-bot-{os.getpid()}-0").mkdir()
    cgroups.detect("v1")
    assert sorted(p.name for p in (fake / "freezer").iterdir() if p.is_dir()) == [f"referee-bot-{os.getpid()}-0"]


def test_the_tree_is_parents_before_children() -> None:
    scan = {1: [2, 3], 2: [4], 3: [], 4: [5]}
    assert descendants(1, scan.get) == [1, 2, 3, 4, 5]
    assert cgroups._cpu_list("0-2,5, 7-7") == {0, 1, 2, 5, 7}
