"""The sandbox's command line, environment and settings (referee/sandbox.py), without running bwrap: what a bot
would see. tests/integration/test_sandbox.py runs the attacks for real."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import protocol
from referee import sandbox as sb
from referee.errors import ConfigError
from referee.sandbox import Sandbox, resolve


def binds(options: list[str]) -> dict[str, str]:
    """where → source of every --ro-bind."""
    return {options[i + 2]: options[i + 1] for i, o in enumerate(options) if o == "--ro-bind"}


def test_the_options_isolate_the_bot(tmp_path: Path) -> None:
    script = tmp_path / "bot" / "bot.py"
    script.parent.mkdir()
    script.write_text("")
    options = Sandbox().options([sys.executable, str(script)], str(tmp_path), os.environ["PATH"])
    for flag in ("--unshare-all", "--die-with-parent"):
        assert flag in options
    # The referee starts bwrap in a session of its own (no terminal); bwrap's --new-session would take the bot out
    # of the process group the referee stops and kills (referee/cgroups.py's freezing by signals)
    assert "--new-session" not in options
    assert options[options.index("--cap-drop") + 1] == "ALL"
    assert options[-2:] == ["--remount-ro", "/"] and "--share-net" not in options
    size = ["--size", str(64 << 20)]
    assert options[options.index("/tmp") - 3:options.index("/tmp") + 1] == [*size, "--tmpfs", "/tmp"]
    # /proc and /dev read-only (a uid-0 bot and /proc/sys; bwrap's unbounded /dev tmpfs), /dev/shm bounded
    assert options[options.index("--proc"):options.index("--proc") + 4] == ["--proc", "/proc", "--remount-ro", "/proc"]
    assert options[options.index("--dev"):options.index("--dev") + 8] == ["--dev", "/dev", *size, "--tmpfs",
                                                                           "/dev/shm", "--remount-ro", "/dev"]
    seen = binds(options)
    assert str(script.parent) in seen  # the bot's folder
    assert str(tmp_path) not in seen  # not the working folder around it
    assert all(not where.startswith(("/home", "/var", "/run")) for where in seen)
    assert seen["/etc/shadow"] == "/dev/null" or not os.path.exists("/etc/shadow")
    assert options[options.index("--chdir") + 1] == str(tmp_path)  # the referee's working folder, as without


def test_the_database_reads_as_empty_in_the_bots_folder(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    db = tmp_path / "t.db"
    for name in ("t.db", "t.db-wal", "t.db-shm"):
        (tmp_path / name).write_text("secret")
    hidden = Sandbox().with_hidden([db, f"{db}-wal", f"{db}-shm", f"{db}-journal"])
    seen = binds(hidden.options([sys.executable, "bot.py"], str(tmp_path), os.environ["PATH"]))
    assert seen[str(tmp_path)] == str(tmp_path)
    assert [seen.get(f"{db}{end}") for end in ("", "-wal", "-shm", "-journal")] == ["/dev/null"] * 3 + [None]


def test_a_module_bot_has_the_working_folder(tmp_path: Path) -> None:
    seen = binds(Sandbox().options([sys.executable, "-m", "bots.random"], str(tmp_path), os.environ["PATH"]))
    assert str(tmp_path) in seen
    sdk = os.path.dirname(os.path.realpath(protocol.__file__ or ""))  # installed, or this checkout (editable)
    assert sdk in seen or any(sdk.startswith(w + "/") for w in seen)


def test_the_environment_is_an_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LC_TIME", "C")
    env = Sandbox().environment()
    assert "REFEREE_TEST_SECRET" not in env and env["LC_TIME"] == "C"
    assert env["HOME"] == env["TMPDIR"] == "/tmp"
    assert set(env) <= {*sb.ENV_ALLOWED, "HOME", "TMPDIR"} | {k for k in env if k.startswith("LC_")}
    given = Sandbox(env=("REFEREE_TEST_SECRET", "OTHER=x=y")).environment()
    assert given["REFEREE_TEST_SECRET"] == "hunter2" and given["OTHER"] == "x=y"


def test_settings_round_trip_and_damaged_settings_are_one_error() -> None:
    sandbox = Sandbox(True, 512, 32, 8, ("A=1",))
    assert sandbox.settings() == {"mode": "on", "memory_mb": 512, "processes": 32, "file_size_mb": 8, "env": ["A=1"]}
    assert Sandbox.from_settings(sandbox.settings()) == sandbox
    with pytest.raises(ConfigError, match="stored sandbox settings are damaged"):
        Sandbox.from_settings({"mode": "on"})


def test_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    monkeypatch.setattr(sb, "probe", lambda: "bwrap (bubblewrap) is not installed")
    assert resolve("off", warn=warnings.append).enabled is False and warnings == []
    assert resolve("auto", warn=warnings.append).enabled is False and len(warnings) == 1
    with pytest.raises(ConfigError, match="--sandbox on: bwrap"):
        resolve("on", warn=warnings.append)
    with pytest.raises(ConfigError, match="--bot-env takes NAME=VALUE or NAME"):
        resolve("off", warn=warnings.append, env=["1BAD=x"])
    monkeypatch.setattr(sb, "probe", lambda: None)
    assert resolve("auto", warn=warnings.append).enabled is True and len(warnings) == 1


def test_the_secrets_of_etc_read_as_empty_where_they_exist() -> None:
    """A bot of a root referee is uid 0 inside: root-only files of /etc are hidden (those of this machine)."""
    from referee.sandbox import _ETC_SECRETS

    for secret in ("/etc/shadow", "/etc/ssh", "/etc/NetworkManager/system-connections", "/etc/wireguard",
                   "/etc/krb5.keytab", "/etc/letsencrypt", "/etc/ipsec.secrets"):
        assert secret in _ETC_SECRETS
    options = Sandbox().options(["true"], "/", os.environ["PATH"])
    seen = binds(options)
    tmpfs = {options[i + 1] for i, o in enumerate(options) if o == "--tmpfs"}
    for secret in _ETC_SECRETS:
        if os.path.isfile(secret):
            assert seen.get(secret) == "/dev/null", secret
        elif os.path.isdir(secret):
            assert secret in tmpfs, secret
