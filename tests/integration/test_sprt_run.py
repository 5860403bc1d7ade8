"""The SPRT runner (tournaments/sprt_run.py) on real games with in-process bots: it decides, stops, stores every
game, and resumes to the very state of a run that was not interrupted (issue 14, part 5)."""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.plugins import load_registry
from tournaments.config import TournamentConfig
from tournaments.local import LocalExecutor
from tournaments.schedule import Scheduled, substitution
from tournaments.sprt import SprtDecision, SprtSettings
from tournaments.sprt_plan import SprtPlan
from tournaments.sprt_run import SprtState, run_sprt, sprt_state
from tournaments.storage import FinishedGame, Store


def config(game: str, seats: int, specs: list[str], settings: SprtSettings, max_deals: int = 2000,
           seed: int = 42) -> TournamentConfig:
    names = ["candidate", "baseline", *(f"field{i}" for i in range(len(specs) - 2))]
    return TournamentConfig(game=game, options=load_registry().game(game).configure({}), entrants=names,
                            specs=specs, seats=seats, games=max_deals, duplicate=True, seed=seed,
                            extra={"sprt": SprtPlan.settings_dict(settings)})


def run(path: Path, cfg: TournamentConfig) -> SprtState:
    with Store(path, create=True) as store:
        return run_sprt(store, cfg, lambda c: LocalExecutor(c, 1))


def stored(path: Path) -> dict[str, tuple[tuple[int, ...], tuple[str, ...]]]:
    with Store(path, create=False, readonly=True) as store:
        return {row.key: (row.places, row.seating) for row in store.games()}


def test_a_better_candidate_is_accepted_and_every_game_is_stored(tmp_path: Path) -> None:
    cfg = config("durak", 2, ["heuristic", "random"], SprtSettings(0, 50))
    state = run(tmp_path / "s.db", cfg)
    assert state.decision is SprtDecision.H1 and state.llr >= state.upper
    rows = stored(tmp_path / "s.db")
    assert len(rows) == state.games == 2 * state.deals  # a game pair per deal, none in flight with one worker
    for deal in range(state.deals):
        for job in substitution(2, 0, seed=cfg.seed, deal=deal):
            assert rows[job.key][1] == tuple(cfg.entrants[e] for e in job.seating)
    again = sprt_state(cfg, {key: places for key, (places, _) in rows.items()})
    assert again == state  # the test is a function of the stored games


def test_equal_bots_end_in_h0(tmp_path: Path) -> None:
    state = run(tmp_path / "s.db", config("durak", 2, ["random", "random"], SprtSettings(0, 300)))
    assert state.decision is SprtDecision.H0 and state.llr <= state.lower


def test_the_deal_limit_ends_an_undecided_test(tmp_path: Path) -> None:
    state = run(tmp_path / "s.db", config("durak", 2, ["heuristic", "random"], SprtSettings(0, 5), max_deals=3))
    assert state.decision is SprtDecision.PENDING and state.deals == 3 and state.finished
    assert "the deal limit is reached" in state.line()


def test_four_seats_with_a_field_in_a_team_game(tmp_path: Path) -> None:
    cfg = config("kozel", 4, ["heuristic", "random", "first", "random", "first"], SprtSettings(0, 300), max_deals=60)
    state = run(tmp_path / "s.db", cfg)
    rows = stored(tmp_path / "s.db")
    assert state.games == len(rows) == 8 * state.deals and state.deals > 0
    for key, (_, seating) in rows.items():  # the candidate and the baseline never sit together
        assert {"candidate", "baseline"} & set(seating) and not {"candidate", "baseline"} <= set(seating), key
    assert state.finished


class Stop(Exception):
    pass


class Interrupted:
    """An executor that dies after ``after`` games, like a ^C in the middle of a deal."""

    def __init__(self, inner: LocalExecutor, after: int) -> None:
        self.inner, self.after = inner, after

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        for k, game in enumerate(self.inner.run(jobs)):
            if k == self.after:
                raise Stop
            yield game

    def close(self) -> None:
        self.inner.close()

    def terminate(self) -> None:
        self.inner.terminate()


def test_a_resumed_test_ends_where_an_uninterrupted_one_does(tmp_path: Path) -> None:
    cfg = config("durak", 2, ["heuristic", "random"], SprtSettings(0, 50))
    straight = run(tmp_path / "straight.db", cfg)
    with Store(tmp_path / "cut.db", create=True) as store, pytest.raises(Stop):
        run_sprt(store, cfg, lambda c: Interrupted(LocalExecutor(c, 1), after=7))  # in the middle of deal 3
    assert len(stored(tmp_path / "cut.db")) == 7
    resumed = run(tmp_path / "cut.db", cfg)
    assert resumed == straight
    assert stored(tmp_path / "cut.db") == stored(tmp_path / "straight.db")


def test_a_finished_test_plays_nothing_more(tmp_path: Path) -> None:
    cfg = config("durak", 2, ["heuristic", "random"], SprtSettings(0, 50))
    first = run(tmp_path / "s.db", cfg)
    assert run(tmp_path / "s.db", cfg) == first and len(stored(tmp_path / "s.db")) == first.games



def test_worker_processes_stop_soon_after_the_decision(tmp_path: Path) -> None:
    cfg = config("durak", 2, ["heuristic", "random"], SprtSettings(0, 50))
    with Store(tmp_path / "s.db", create=True) as store:
        state = run_sprt(store, cfg, lambda c: LocalExecutor(c, 2))
    assert state.decision is SprtDecision.H1
    rows = stored(tmp_path / "s.db")
    # the deals in flight at the decision finish and count: at most two batches per worker were taken ahead
    assert state.games == len(rows) and 2 * state.deals <= len(rows) <= 2 * state.deals + 2 * 2 * 32
    assert sprt_state(cfg, {key: places for key, (places, _) in rows.items()}) == state


class Ahead:
    """An executor that takes ``ahead`` jobs before it plays one, as worker processes do (two batches each)."""

    def __init__(self, inner: LocalExecutor, ahead: int) -> None:
        self.inner, self.ahead = inner, ahead

    def run(self, jobs: Iterable[Scheduled]) -> Iterator[FinishedGame]:
        source, held = iter(jobs), deque[Scheduled]()

        def buffered() -> Iterator[Scheduled]:
            while True:
                while len(held) < self.ahead and (job := next(source, None)) is not None:
                    held.append(job)
                if not held:
                    return
                yield held.popleft()

        yield from self.inner.run(buffered())

    def close(self) -> None:
        self.inner.close()

    def terminate(self) -> None:
        self.inner.terminate()


def test_deals_in_flight_that_undo_the_decision_do_not_end_the_run_undecided(tmp_path: Path) -> None:
    # seed 2: the LLR crosses the lower bound at deal 5, and the four deals in flight take it back above it
    cfg = config("durak", 2, ["random", "first"], SprtSettings(-60, -20), seed=2)
    with Store(tmp_path / "s.db", create=True) as store:
        state = run_sprt(store, cfg, lambda c: Ahead(LocalExecutor(c, 1), 8))
    assert state.finished and state.decision is not SprtDecision.PENDING, state.line()
    rows = stored(tmp_path / "s.db")
    assert state.games == len(rows) == 2 * state.deals
    assert sprt_state(cfg, {key: places for key, (places, _) in rows.items()}) == state


# ------------------------------------------------------------------------------------------- the command


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["tournament", "sprt", *args], catch_exceptions=False)


@pytest.mark.parametrize(("args", "fragment"), [
    (["-c", "heuristic", "-B", "heuristic"], "the candidate and the baseline are the same bot (heuristic)"),
    (["-c", "nobody", "-B", "random"], "unknown bot 'nobody'"),
    (["-c", "heuristic", "-B", "nobody"], "unknown bot 'nobody'"),
    (["-c", "heuristic", "-B", "random", "--elo0", "5", "--elo1", "5"], "--elo1 must be above --elo0"),
    (["-c", "heuristic", "-B", "random", "--alpha", "0.5"], "--alpha must be between 0 and 0.5"),
    (["-c", "heuristic", "-B", "random", "--beta", "0"], "--beta must be between 0 and 0.5"),
    (["-c", "heuristic", "-B", "random", "-k", "4"], "4 seats need a field of at least 3 bots"),
    (["-c", "heuristic", "-B", "random", "-f", "first", "-k", "4"], "4 seats need a field of at least 3 bots"),
])
def test_bad_input_is_one_line_and_nothing_is_stored(tmp_path: Path, args: list[str], fragment: str) -> None:
    result = cli("durak", *args, "--db", str(tmp_path / "s.db"))
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: ") and fragment in lines[0], result.stderr
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize(("args", "line"), [
    (["koroli", "-c", "heuristic", "-B", "random"],
     "game 'koroli' is for 4 players, got 2 (without a --field the candidate plays the baseline alone, at 2 seats: "
     "give --seats and a --field of the other bots)"),
    (["durak", "-c", "heuristic", "-B", "random", "-k", "9"], "game 'durak' is for 2-6 players, got 9 (--seats)"),
])
def test_a_seat_count_the_game_does_not_take_names_where_it_came_from(tmp_path: Path, args: list[str],
                                                                      line: str) -> None:
    """Before, 'game 'koroli' is for 4-4 players, got 2' for an SPRT without --field, which never said --seats."""
    result = cli(*args, "--db", str(tmp_path / "s.db"))
    assert result.exit_code == 2 and result.stderr.splitlines() == [f"referee: error: {line}"]
    assert not (tmp_path / "s.db").exists()


def test_the_command_decides_prints_and_resumes(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    args = ["durak", "-c", "heuristic", "-B", "random", "--elo1", "50", "--seed", "3", "--db", db, "-w", "1"]
    out = cli(*args, "--json")
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["candidate"], data["baseline"], data["field"], data["seats"]) == ("heuristic", "random", [], 2)
    assert data["decision"] == "H1" and data["llr"] >= data["bounds"][1] and data["games"] == 2 * data["deals"]
    assert data["elo_interval"][0] < data["elo"] < data["elo_interval"][1]
    text = cli(*args)  # the same command on the same --db: already decided, nothing is played
    assert text.exit_code == 0 and "H1 accepted: heuristic is better" in text.stdout
    assert f"{data['deals']} deals, {data['games']} games" in text.stdout
    for command in (["resume", db, "--json"], ["table", db, "--json"]):
        again = CliRunner().invoke(app, ["tournament", *command], catch_exceptions=False)
        assert again.exit_code == 0 and json.loads(again.stdout) == data
    checked = CliRunner().invoke(app, ["tournament", "verify", db], catch_exceptions=False)
    assert checked.exit_code == 0 and f"{data['games']} stored games (of {data['games']} scheduled)" in checked.stdout


@pytest.mark.parametrize("damage", [
    {"seats": 3},  # a game pair is for two seats
    {"entrants": ["candidate"], "specs": ["heuristic"]},  # no baseline
    {"games": 0},  # no deal to play
])
def test_a_damaged_stored_sprt_is_one_line(tmp_path: Path, damage: dict[str, Any]) -> None:
    cfg = config("durak", 2, ["heuristic", "random"], SprtSettings(0, 50), max_deals=2)
    path = tmp_path / "s.db"
    run(path, cfg)
    with Store(path, create=False) as store:
        store.replace_config(cfg.to_dict(), {**cfg.to_dict(), **damage})
    for command in ("table", "resume", "verify"):
        result = CliRunner().invoke(app, ["tournament", command, str(path)], catch_exceptions=False)
        lines = result.stderr.splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and "damaged" in lines[0], (command, result.stderr)


def test_a_candidate_that_faults_is_charged_and_the_test_still_ends(tmp_path: Path) -> None:
    """An illegal answer to every request: the default action is played for it and it forfeits (C-7), every game;
    the baseline (random) is better, so H0 is accepted."""
    zoo = Path(__file__).resolve().parents[1] / "fixtures" / "zoo" / "illegal.py"
    result = CliRunner().invoke(app, ["tournament", "sprt", "durak", "-c", f"cmd:{sys.executable} {zoo}",
                                      "-B", "random", "--elo1", "100", "-w", "1", "--sandbox", "off",
                                      "--db", str(tmp_path / "s.db"), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["decision"] == "H0" and data["elo"] < 0
    with Store(tmp_path / "s.db", create=False, readonly=True) as store:
        faulted = [row for row in store.games() if row.faults]
    assert faulted and all(f.kind == "illegal" for row in faulted for f in row.faults)


def test_other_hypotheses_on_the_database_of_a_drawn_seed_are_refused(tmp_path: Path) -> None:
    """Without --seed the stored seed is taken, never the stored SPRT settings: --elo1 100 on the database of an
    --elo1 200 test ran (and printed) the --elo1 200 test."""
    db = str(tmp_path / "s.db")
    args = ["durak", "-c", "heuristic", "-B", "random", "--db", db, "-w", "1", "--max-games", "20"]
    assert cli(*args, "--elo1", "200").exit_code == 0
    other = cli(*args, "--elo1", "100")
    assert other.exit_code == 2 and "holds a different tournament" in other.stderr, other.stdout
