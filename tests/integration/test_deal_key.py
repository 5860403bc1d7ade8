"""Keyed deals (referee/dealkey.py, docs/SECURITY.md): a program bot that knows how the deals and its ``bot_seed``
are derived, and searches the first million seeds the way an attacker would (tests/fixtures/attack/predict_deal.py),
finds the deal of a small ``--seed`` under the old, public derivation and nothing under the keyed one; the same
``--seed`` still deals the same games on this account, records replay anywhere, and a database stored before deals
were keyed resumes with the deals it began with."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from cli_process import run_referee
from stored import untimed_record

from referee.match import bot_seed
from referee.plugins import load_registry
from tournaments.schedule import deal_seed

ROOT = Path(__file__).resolve().parents[2]
ATTACK = ROOT / "tests" / "fixtures" / "attack"
PREDICT = f"cmd:{sys.executable} {ATTACK / 'predict_deal.py'}"
RANDOM = f"cmd:{sys.executable} -m bots.random"
SLOW = ["--move-time", "120000"]  # the search takes seconds at its first request

sys.path.insert(0, str(ATTACK))
import predict_deal  # noqa: E402


def referee(*args: str, env: dict[str, str] | None = None) -> Any:
    done = run_referee(*args, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def attack_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("ATTACK predict_deal:")]
    assert len(lines) == 1, stderr
    return lines[0]


def stored(db: Path) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        return dict(json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0]))


def test_the_public_derivation_gives_a_small_seed_away() -> None:
    """What the issue found: under the old derivation the search finds the seed from bot_seed alone, and the seed
    deals the hand the bot holds, so the bot knows every hand."""
    durak = load_registry().game("durak")
    assert predict_deal.search(bot_seed(11, 1), 1, 1_000_000) == ("play", 11)
    assert predict_deal.search(bot_seed(deal_seed(7, 0, 0), 1), 1, 1_000_000) == ("tournament", 7)
    assert predict_deal.search(bot_seed(999_999, 0), 0, 1_000_000) == ("play", 999_999)
    # the hand alone gives it away too (slower: a deal per seed), which is why the deal itself is keyed
    hand = durak.new_state(2, 11).observe(1)["hand"]
    assert [s for s in range(2_000) if durak.new_state(2, s).observe(1)["hand"] == hand] == [11]


def test_play_seed_with_a_program_bot_is_not_found() -> None:
    done = referee("play", "durak", "-b", PREDICT, "-b", "random", "--seed", "11", "--sandbox", "auto", *SLOW,
                   "--json")
    line = attack_line(json.loads(done.stdout)["seats"][0]["stderr"])
    assert line.startswith("ATTACK predict_deal: FAILED no seed below 1000000 yields bot_seed"), line
    assert json.loads(done.stdout)["seed"] == 11  # play shows the --seed that repeats the game


def test_play_seed_repeats_and_its_record_replays(tmp_path: Path) -> None:
    """The same --seed deals the same game again on this account (random bots' moves included), the record holds
    the keyed deal seed and replays with no key; another secret deals another game; in-process bots keep the public
    deal of --seed."""
    args = ["play", "durak", "-b", RANDOM, "-b", "random", "-b", "random", "--seed", "11",
            "--json"]
    one = referee(*args, "--record", str(tmp_path / "one.json"))
    two = referee(*args, "--record", str(tmp_path / "two.json"))
    assert untimed_record(one.stdout) == untimed_record(two.stdout)  # the times are measured: they differ
    first = json.loads((tmp_path / "one.json").read_text())
    assert untimed_record(json.dumps(first)) == untimed_record((tmp_path / "two.json").read_text())
    assert first["seed"] != 11 and "key" not in json.dumps(first)  # the deal's own seed, and no key or secret
    replayed = referee("replay", str(tmp_path / "one.json"), "--json")
    assert json.loads(replayed.stdout)["result"] == first["result"]
    other_secret = tmp_path / "secret"
    other_secret.write_text("ab" * 32)
    other = referee(*args, "--record", str(tmp_path / "other.json"),
                    env={**os.environ, "REFEREE_SECRET_FILE": str(other_secret)})
    assert json.loads((tmp_path / "other.json").read_text())["seed"] != first["seed"]
    assert json.loads(other.stdout)["seed"] == 11
    public = referee("play", "durak", "-b", "random", "-b", "random", "--seed", "11", "--record",
                     str(tmp_path / "public.json"))
    assert public.stdout.startswith("durak with 2 seats, seed 11,")
    assert json.loads((tmp_path / "public.json").read_text())["seed"] == 11


def test_the_secret_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_SECRET_FILE"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    args = ["play", "durak", "-b", RANDOM, "-b", "random", "--seed", "3", "--json"]
    one = referee(*args, env=env)
    secret = tmp_path / "data" / "referee" / "secret"
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_text().strip()) == 64
    text = secret.read_text()
    assert untimed_record(referee(*args, env=env).stdout) == untimed_record(one.stdout)
    assert secret.read_text() == text
    secret.write_text("not hex\n")
    bad = run_referee(*args, env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("referee: error: the secret that keys the deals")


def test_a_tournament_seed_is_not_found_and_an_old_database_keeps_its_deals(tmp_path: Path) -> None:
    """A tournament with a program bot stores its deal key; the attack finds nothing; the same command into a
    fresh database plays the same games. A database stored before deals were keyed (no deal_key) resumes with
    the public deals, where the same search finds the seed and every hand: the attack was real."""
    db = tmp_path / "t.db"
    args = ["tournament", "run", "durak", "-b", PREDICT + " --fault", "-b", "first", "--games", "1", "--seed", "7",
            "--workers", "1", "--sandbox", "auto", *SLOW]
    referee(*args, "--db", str(db))
    key = stored(db)["extra"]["deal_key"]
    assert len(key) == 32
    records = [json.loads(referee("tournament", "record", str(db), k).stdout) for k in ("t0.d0.r0", "t0.d0.r1")]
    for record in records:
        seat = record["bots"].index("predict_deal")
        line = attack_line(record["stderr"][str(seat)])
        assert line.startswith("ATTACK predict_deal: FAILED no seed below 1000000"), line
        assert record["seed"] != deal_seed(7, 0, 0)
    table = referee("tournament", "table", str(db), "--json").stdout
    assert key not in table and key not in referee("tournament", "games", str(db), "--json").stdout
    again = tmp_path / "again.db"
    referee(*args, "--db", str(again))
    assert stored(again) == stored(db)
    games = [referee("tournament", "games", str(d), "--json").stdout for d in (db, again)]
    assert games[0] == games[1]
    referee(*args, "--db", str(db))  # the same command on the same database: complete, nothing changes
    assert referee("tournament", "verify", str(db)).returncode == 0

    old = tmp_path / "old.db"  # as stored before keys: no deal_key, and one game to play
    with sqlite3.connect(db) as src, sqlite3.connect(old) as dst:
        src.backup(dst)
    with sqlite3.connect(old) as conn:
        config = stored(db)
        del config["extra"]["deal_key"]
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config, sort_keys=True),))
        conn.execute("DELETE FROM games")
    referee(*args, "--db", str(old))  # the same command continues it, unkeyed, as before
    assert "deal_key" not in stored(old)["extra"]
    for key_ in ("t0.d0.r0", "t0.d0.r1"):
        record = json.loads(referee("tournament", "record", str(old), key_).stdout)
        assert record["seed"] == deal_seed(7, 0, 0)
        line = attack_line(record["stderr"][str(record["bots"].index("predict_deal"))])
        assert line.startswith("ATTACK predict_deal: OK tournament seed 7 in"), line
    assert referee("tournament", "verify", str(old)).returncode == 0


def test_the_sandbox_hides_the_secret(tmp_path: Path) -> None:
    """A secret inside a folder the bot sees (here its own) reads as empty in the sandbox."""
    from referee.sandbox import Sandbox

    secret = tmp_path / "secret"
    secret.write_text("5eed" * 16)
    (tmp_path / "bot.py").write_text("")
    old = os.environ.get("REFEREE_SECRET_FILE")
    os.environ["REFEREE_SECRET_FILE"] = str(secret)
    try:
        opts = Sandbox().options([sys.executable, str(tmp_path / "bot.py")], str(tmp_path), os.environ["PATH"])
    finally:
        if old is not None:
            os.environ["REFEREE_SECRET_FILE"] = old
    assert ["--ro-bind", "/dev/null", str(secret)] == opts[opts.index(str(secret)) - 2:opts.index(str(secret)) + 1]
