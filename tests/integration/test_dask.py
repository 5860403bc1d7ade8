"""The Dask executor (tournaments/dask_executor.py, issue 15 part 1) on a real local cluster.

The cluster of this module runs in a process of its own (a scheduler and two worker processes, one thread each, on
free ports), so this test process starts no thread; the commands under test connect to it by its address, as they
would to a cluster of many machines. One test starts its own ``--scheduler local:2``. Each compares what the dask
executor stores with what the local executor stores for the same tournament and seed, row by row.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import ROOT, run_referee
from stored import untimed_row

pytest.importorskip("distributed")

from tournaments.dask_executor import MAX_BATCH  # noqa: E402 - only where distributed is installed

ON_WORKER = "REFEREE_TEST_ON_DASK_WORKER"  # set in the worker processes of the module's cluster only

CLUSTER = textwrap.dedent(f"""
    import json, logging, os, sys
    from distributed import Client, LocalCluster

    if __name__ == "__main__":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR, env={{{ON_WORKER!r}: "1"}})
        client = Client(cluster)
        print(json.dumps({{"address": cluster.scheduler_address}}), flush=True)
        sys.stdin.read()  # until the test closes it
        client.close()
        cluster.close()
""")

#: A program bot (bots.random over the protocol) that notes each start in --log, refuses to start on the module's
#: workers with --refuse-on-worker (anywhere else with --only-on-worker), and with --kill-worker-at N MARKER SIGKILLs
#: the process that started it (a Dask worker) at its N-th game, once (the marker file says it was done).
BOT = textwrap.dedent(f"""
    import os, signal, sys
    sys.path.insert(0, {str(ROOT)!r})
    from bots.random import RandomBot
    from protocol.sdk import run_bot

    args = sys.argv[1:]
    if "--log" in args:
        with open(args[args.index("--log") + 1], "a") as log:
            log.write(f"{{os.getpid()}}\\n")
    if "--refuse-on-worker" in args and os.environ.get({ON_WORKER!r}):
        sys.stderr.write("not on a worker\\n")
        sys.exit(3)
    if "--only-on-worker" in args and not os.environ.get({ON_WORKER!r}):
        sys.stderr.write("only on a worker\\n")
        sys.exit(3)

    class Bot(RandomBot):
        games = 0

        def new_game(self, info):
            super().new_game(info)
            Bot.games += 1
            if "--kill-worker-at" in args:
                i = args.index("--kill-worker-at")
                at, marker = int(args[i + 1]), args[i + 2]
                if Bot.games == at and not os.path.exists(marker):
                    open(marker, "w").close()
                    os.kill(os.getppid(), signal.SIGKILL)

    raise SystemExit(run_bot(Bot()))
""")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a running cluster of two workers, for the whole module."""
    script = tmp_path_factory.mktemp("cluster") / "cluster.py"
    script.write_text(CLUSTER)
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=ROOT)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = proc.stdout.readline()
        assert line, "the cluster did not start"
        yield json.loads(line)["address"]
    finally:
        proc.stdin.close()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bot") / "dask_bot.py"
    path.write_text(BOT)
    return path


def rows(db: Path) -> list[dict[str, object]]:
    """Every stored game, every column but when it finished, by key (without its measured times)."""
    with sqlite3.connect(db) as conn:
        columns = [c[1] for c in conn.execute("PRAGMA table_info(games)") if c[1] != "finished_at"]
        found = conn.execute(f"SELECT {', '.join(columns)} FROM games ORDER BY key").fetchall()
    conn.close()
    return [untimed_row(dict(zip(columns, row, strict=True))) for row in found]


def tournament(db: Path, *options: str, bots: tuple[str, ...] = ("random", "first"), games: int = 20,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    args = ["tournament", "run", "durak", *[a for b in bots for a in ("-b", b)], "--games", str(games), "--seed", "5",
            "--db", str(db), "--sandbox", "off", *options]
    return run_referee(*args, env=env, timeout=300)


def test_a_local_cluster_stores_the_rows_the_local_executor_stores(tmp_path: Path) -> None:
    local = tournament(tmp_path / "local.db", "--workers", "2")
    dask = tournament(tmp_path / "dask.db", "--executor", "dask", "--scheduler", "local:2")
    assert local.returncode == 0, local.stderr
    assert dask.returncode == 0, dask.stderr
    assert local.stdout == dask.stdout  # the same table
    stored = rows(tmp_path / "dask.db")
    assert len(stored) == 2 * 20
    assert stored == rows(tmp_path / "local.db")  # key, seq, seed, seating, places, result, record...


def test_a_cluster_by_its_address_stores_the_same_rows(tmp_path: Path, cluster: str) -> None:
    assert tournament(tmp_path / "local.db", "--workers", "1", bots=("heuristic", "random", "first")).returncode == 0
    dask = tournament(tmp_path / "dask.db", "--executor", "dask", "--scheduler", cluster,
                      bots=("heuristic", "random", "first"))
    assert dask.returncode == 0, dask.stderr
    assert rows(tmp_path / "dask.db") == rows(tmp_path / "local.db")


def test_a_worker_killed_mid_run_loses_nothing_and_doubles_nothing(tmp_path: Path, cluster: str, bot: Path) -> None:
    marker = tmp_path / "killed"
    plain = f"[name=rnd] cmd:{sys.executable} {bot}"
    local = tournament(tmp_path / "local.db", "--workers", "2", bots=(plain, "random"), games=40)
    dask = tournament(tmp_path / "dask.db", "--executor", "dask", "--scheduler", cluster,
                      bots=(f"{plain} --kill-worker-at 15 {marker}", "random"), games=40)
    assert local.returncode == 0, local.stderr
    assert dask.returncode == 0, dask.stderr
    assert marker.exists()  # a worker was SIGKILLed at its bot's 15th game, of 80
    stored = rows(tmp_path / "dask.db")
    assert len(stored) == len({row["key"] for row in stored}) == 80  # every game once
    assert stored == rows(tmp_path / "local.db")
    assert local.stdout == dask.stdout


def test_workers_lost_too_often_stop_the_run_with_one_line(tmp_path: Path, bot: Path) -> None:
    """A batch whose worker dies more often than distributed.scheduler.allowed-failures (0 here): one line, exit 2,
    the games stored so far kept."""
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    killer = f"cmd:{sys.executable} {bot} --kill-worker-at 3 {tmp_path / 'killed'}"
    done = tournament(tmp_path / "t.db", "--executor", "dask", "--scheduler", "local:2", bots=(killer, "random"),
                      games=40, env=env)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("referee: error: the batch of game "), done.stderr
    assert "lost its Dask worker 1 time (distributed.scheduler.allowed-failures: 0)" in last
    assert "Continue with: referee tournament resume" in last
    assert "Traceback" not in done.stderr
    assert len(rows(tmp_path / "t.db")) < 80


def test_a_worker_that_cannot_start_a_bot_is_one_line_and_exit_2(tmp_path: Path, cluster: str, bot: Path) -> None:
    done = tournament(tmp_path / "t.db", "--executor", "dask", "--scheduler", cluster,
                      bots=(f"cmd:{sys.executable} {bot} --refuse-on-worker", "random"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("referee: error: Dask worker "), done.stderr
    assert "cannot start bot" in lines[-1] and "not on a worker" in lines[-1]
    assert "Traceback" not in done.stderr


def test_an_sprt_decides_as_with_the_local_executor(tmp_path: Path, cluster: str) -> None:
    def sprt(db: str, *options: str) -> dict[str, object]:
        done = run_referee("tournament", "sprt", "durak", "--candidate", "heuristic", "--baseline", "random",
                           "--elo0", "0", "--elo1", "100", "--max-games", "400", "--seed", "9", "--db",
                           str(tmp_path / db), "--json", *options, timeout=300)
        assert done.returncode == 0, done.stderr
        result: dict[str, object] = json.loads(done.stdout)
        return result

    local = sprt("local.db", "--workers", "2")
    dask = sprt("dask.db", "--executor", "dask", "--scheduler", cluster)
    assert dask["decision"] == local["decision"] == "H1"
    # The deals in flight when it decided are played too, and how many there were depends on the executor: the
    # same deals in the same order, each game as the local executor played it, and at most two batches a worker more.
    short, long = sorted([rows(tmp_path / "dask.db"), rows(tmp_path / "local.db")], key=len)
    assert [row for row in long if row["key"] in {r["key"] for r in short}] == short
    assert isinstance(dask["games"], int) and isinstance(local["games"], int)
    assert dask["games"] <= local["games"] + 2 * 2 * MAX_BATCH  # at most two tasks a worker taken ahead


def test_a_program_bot_starts_once_per_entrant_per_worker(tmp_path: Path, cluster: str, bot: Path) -> None:
    log = tmp_path / "starts.txt"
    done = tournament(tmp_path / "t.db", "--executor", "dask", "--scheduler", cluster,
                      bots=(f"cmd:{sys.executable} {bot} --log {log}", "random"), games=30)
    assert done.returncode == 0, done.stderr
    assert len(rows(tmp_path / "t.db")) == 60
    starts = log.read_text().split()
    assert len(starts) == 1 + 2, starts  # the main process's check, then one on each of the two workers


@pytest.mark.parametrize("options, message", [
    (["--scheduler", "tcp://localhost:8786"], "--scheduler names a Dask cluster: it needs --executor dask (not local)"),
    (["--executor", "dask", "--scheduler", "localhost:8786"], "--scheduler 'localhost:8786' is not tcp://HOST:PORT"),
    (["--executor", "dask", "--scheduler", "local:0"], "--scheduler 'local:0' is not tcp://HOST:PORT"),
])
def test_a_bad_scheduler_is_one_line_and_exit_2(tmp_path: Path, options: list[str], message: str) -> None:
    done = tournament(tmp_path / "t.db", *options)
    assert done.returncode == 2
    assert done.stderr.startswith(f"referee: error: {message}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t.db").exists()


def test_without_distributed_the_dask_executor_says_how_to_install_it(tmp_path: Path) -> None:
    blocker = tmp_path / "blocked"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['distributed'] = None\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])}
    done = tournament(tmp_path / "t.db", "--executor", "dask", env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == ("referee: error: --executor dask needs dask.distributed, which is not installed: "
                                   "pip install 'referee[dask]' (or pip install '.[dask]' in a checkout)")


def test_a_league_plays_on_the_cluster_and_every_game_verifies(tmp_path: Path, cluster: str, bot: Path) -> None:
    """``league serve --executor dask`` (docs/LEAGUE.md): the pool and a candidate's evaluation are played on the
    cluster's workers (the candidate starts nowhere else), each game stored once, each the game its key names by the
    league's rules (verify)."""
    from league_server import LeagueServer, init_league

    folder = tmp_path / "lg"
    init_league(folder, "--bot", "random", "--bot", "first", "--max-deals", "30", "--elo0", "0", "--elo1", "150")
    added = run_referee("league", "add", "cand", f"cmd:{sys.executable} {bot} --only-on-worker", "--league",
                        str(folder), env={**os.environ, ON_WORKER: "1"})  # add's probe may start it here
    assert added.returncode == 0, added.stderr
    server = LeagueServer(folder, "--executor", "dask", "--scheduler", cluster)
    try:
        state = server.wait(lambda s: int(s["stored"]) >= 100 and s["evaluations"].get("cand", {}).get("games", 0) >= 8)
        assert not state["errors"], state["errors"]
        assert state["bots"]["cand"]["faulted"] == 0, state["bots"]["cand"]
    finally:
        server.stop()
    with sqlite3.connect(folder / "league.db") as con:
        keys = [key for (key,) in con.execute("SELECT key FROM games")]
    assert len(keys) == len(set(keys)) >= 100 and any(k.startswith("e") for k in keys)
    done = run_referee("tournament", "verify", str(folder / "league.db"), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["games"] == len(keys), done.stdout
    assert "Traceback" not in (folder / "serve.log").read_text()
