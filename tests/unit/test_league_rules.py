"""The league's rules without a process (tournaments/league/, docs/LEAGUE.md): the matchmaker's choices, resuming
after a crash, the verdict, suspension, the roster's changes and the token."""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from protocol.faults import Fault
from referee.errors import AccessError, ConfigError
from tournaments.config import Extra, TournamentConfig
from tournaments.league.matchmaker import Matchmaker
from tournaments.league.roster import (
    BENCHMARK,
    CANDIDATE,
    LeagueBot,
    LeagueSettings,
    Roster,
    add_bot,
    check_token,
    make_token,
    promote_bot,
    read_token,
    retire_bot,
    roster_of,
    with_roster,
)
from tournaments.league.web import counters
from tournaments.sprt import SprtSettings
from tournaments.sprt_plan import SprtPlan


def league(benchmarks: list[str], candidates: list[str] = (), seats: int = 2, **settings: Any) -> TournamentConfig:
    names = [*benchmarks, *candidates]
    roster = Roster(LeagueSettings(SprtPlan.settings_dict(SprtSettings(0, 200, 0.05, 0.05)), **settings),
                    {n: LeagueBot(n, BENCHMARK if n in benchmarks else CANDIDATE) for n in names})
    return TournamentConfig(game="durak", options={}, entrants=names, specs=["random"] * len(names), seats=seats,
                            games=1, duplicate=True, seed=5, extra=Extra(league=roster.to_dict()))


class Harness:
    """A matchmaker whose roster changes are kept as the server keeps them (stored, then read back)."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.mm = Matchmaker(config, None, self.persist, lambda names: names[0])

    def persist(self, mutate: Any) -> None:
        roster = roster_of(self.config)
        mutate(roster)
        self.config = with_roster(self.config, roster)
        self.mm.update(self.config)

    def play(self, n: int, result: Any = None) -> list[Any]:
        """Hand out ``n`` games and finish each at once: ``result(seating names)`` → (places, faulted seats)."""
        jobs = []
        for _ in range(n):
            job = self.mm.next_job()
            if job is None:
                break
            names = [self.mm.config.entrants[e] for e in job.seating]
            places, faulted = result(names) if result else ([1, 2], [])
            self.mm.finished(job.key, names, places, [Fault(s, "crash", 0, "cannot start") for s in faulted])
            jobs.append(job)
        return jobs


def test_the_pool_plays_level_rounds_and_a_new_benchmark_first() -> None:
    h = Harness(league(["a", "b", "c"]))
    jobs = h.play(60)
    assert len({j.key for j in jobs}) == 60 and all(j.key.startswith("p") for j in jobs)
    assert len({j.seq for j in jobs}) == 60
    rounds: dict[str, list[Any]] = {}
    for j in jobs:
        rounds.setdefault(j.key.rsplit(".", 1)[0], []).append(j)
    assert all(len(r) == 2 and r[0].seed == r[1].seed and r[0].seating == r[1].seating[::-1] for r in rounds.values())
    games = h.mm.games
    assert max(games.values()) - min(games.values()) <= 2
    h.config = add_bot("d", "first", BENCHMARK)(h.config, roster_of(h.config))
    h.mm.update(h.config)
    assert all("d" in [h.mm.config.entrants[e] for e in j.seating] for j in h.play(6))  # it gets games first


def test_a_candidate_plays_only_benchmarks_on_its_deals_and_the_pool_keeps_its_share() -> None:
    h = Harness(league(["a", "b", "c"], ["cand"], pool_share=0.25))
    jobs = h.play(200, lambda names: ([1, 2] if names[0] in ("cand", "a") else [2, 1], []))
    evaluation = [j for j in jobs if j.key.startswith("e")]
    pool = [j for j in jobs if j.key.startswith("p")]
    assert evaluation and pool
    assert all(j.key.startswith("p") for j in jobs[:30])  # the warm-up: 20 games of every benchmark first
    cand = h.mm.config.entrants.index("cand")
    assert all(set(j.seating) <= {cand, 0, 1, 2} for j in evaluation)
    assert all(cand not in j.seating for j in pool)
    ev = h.mm.evaluations["cand"]
    assert ev.baseline == "a" and ev.field == ["b", "c"]  # the best (here: the first named), then the others
    assert roster_of(h.config).bots["cand"].evaluation == {"baseline": "a", "field": ["b", "c"]}  # stored first
    status = h.mm.status("cand")
    if status["verdict"] == "evaluating":
        share = len(pool) / len(jobs)
        assert 0.2 <= share <= 0.35, share


def test_the_sprt_decides_and_no_deal_starts_after() -> None:
    h = Harness(league(["a", "b"], ["cand"], max_deals=200))
    # the candidate wins every game, the baseline loses each: H1 quickly
    h.play(400, lambda names: ([1, 2] if names[0] == "cand" or names[1] == "a" and "cand" not in names
                               else [2, 1], []))
    status = h.mm.status("cand")
    assert status["verdict"] == "accepted", status
    deals = status["deals"]
    more = h.play(50)
    assert not any(j.key.startswith("e") for j in more) and h.mm.status("cand")["deals"] == deals


def test_a_budget_spent_undecided_is_open() -> None:
    h = Harness(league(["a", "b"], ["cand"], max_deals=3))
    h.play(60, lambda names: ([1, 1], []))
    assert h.mm.status("cand")["verdict"] == "open"
    assert h.mm.status("cand")["deals"] == 3


def test_a_bot_faulting_every_game_is_suspended_with_its_reason() -> None:
    h = Harness(league(["a", "b", "bad"], suspend_after=3))
    h.play(40, lambda names: ([2, 1] if names[0] == "bad" else [1, 2],
                              [s for s, n in enumerate(names) if n == "bad"]))
    bot = roster_of(h.config).bots["bad"]
    assert bot.state == "suspended" and bot.reason.startswith("faulted in 3 games in a row; the last: crash")
    played = h.mm.games["bad"]
    h.play(20)
    assert h.mm.games["bad"] == played


def test_a_restart_plays_the_missing_games_of_begun_units_first_and_no_stored_one() -> None:
    config = league(["a", "b", "c"], ["cand"])
    first = Harness(config)
    jobs = first.play(0) or [first.mm.next_job() for _ in range(40)]
    rng = random.Random(3)
    stored = [j for j in jobs if rng.random() < 0.7]  # the rest were in flight at the kill
    second = Harness(first.config)  # its roster as stored: the evaluation's baseline and field
    for j in sorted(stored, key=lambda j: j.seq):
        names = [config.entrants[e] for e in j.seating]
        second.mm.stored_game(j.seq, j.key, names, [1, 2], [])
    second.mm.resume()
    stored_keys = {j.key for j in stored}
    begun = {j.key.rsplit(".", 1)[0] for j in stored}
    last_deal = max(int(k.split(".")[1][1:]) for k in stored_keys if k.startswith("e"))
    missing = {j.key for j in jobs if j.key not in stored_keys and (  # a pool round begun, a deal up to the last
        j.key.rsplit(".", 1)[0] in begun if j.key.startswith("p") else int(j.key.split(".")[1][1:]) <= last_deal)}
    again = [second.mm.next_job() for _ in range(len(missing))]
    assert {j.key for j in again} == missing  # first, and only those
    later = [second.mm.next_job() for _ in range(30)]
    keys = [j.key for j in (*stored, *again, *later)]
    assert len(keys) == len(set(keys))
    seqs = [j.seq for j in (*stored, *again, *later)]
    assert len(seqs) == len(set(seqs))
    by_key = {j.key: j for j in jobs}
    assert all(j.seed == by_key[j.key].seed and j.seating == by_key[j.key].seating for j in again)


def test_roster_changes() -> None:
    config = league(["a", "b"], ["cand"])
    with pytest.raises(ConfigError, match="bad bot name"):
        add_bot("x y", "random", CANDIDATE)
    with pytest.raises(ConfigError, match="already"):
        add_bot("a", "random", CANDIDATE)(config, roster_of(config))
    with pytest.raises(ConfigError, match="not a benchmark"):
        add_bot("v2", "random", CANDIDATE, baseline="cand")(config, roster_of(config))
    with pytest.raises(ConfigError, match="no bot"):
        retire_bot("nobody")(config, roster_of(config))
    promoted = promote_bot("cand")(config, roster_of(config))
    assert promoted is not None and roster_of(promoted).bots["cand"].role == BENCHMARK
    with pytest.raises(ConfigError, match="benchmark already"):
        promote_bot("cand")(promoted, roster_of(promoted))
    retired = retire_bot("a")(config, roster_of(config))
    assert retired is not None and roster_of(retired).bots["a"].state == "retired"
    assert TournamentConfig.from_dict(retired.to_dict()) == retired  # stored and read back as it was


def test_the_token(tmp_path: Path) -> None:
    token = make_token(tmp_path)
    assert os.stat(tmp_path / "token").st_mode & 0o777 == 0o600 and read_token(tmp_path) == token
    check_token(token, token)
    for given in (None, "", "wrong", token + "x"):
        with pytest.raises(AccessError):
            check_token(given, token)
    with pytest.raises(AccessError):
        check_token(token, None)  # no token kept: nothing may change
    with pytest.raises(ConfigError):
        make_token(tmp_path)  # never overwritten


def test_counters_are_the_name_number_pairs_of_a_note() -> None:
    assert counters("nodes=1200 depth=7 eval=-0.35; 3 of 5 draws") == {"nodes": 1200, "depth": 7, "eval": -0.35}
    assert counters("x==3 a=b url=http://h/?q=1") == {}
    assert Counter(counters("n=1 n=2")) == Counter({"n": 2})


def test_games_lost_with_a_failed_executor_are_handed_out_again_first() -> None:
    h = Harness(league(["a", "b", "c"]))
    h.play(10)
    lost = [h.mm.next_job() for _ in range(3)]
    games = Counter(h.mm.games)
    h.mm.lost()
    assert Counter(h.mm.games) == games - Counter(n for j in lost for n in {h.mm.config.entrants[e] for e in j.seating})
    again = [h.mm.next_job() for _ in range(3)]
    assert [j.key for j in again] == [j.key for j in lost] and again[0].seed == lost[0].seed


def test_the_leaderboard_from_the_running_tally_is_the_table_of_the_rows() -> None:
    """The page fits the league's tally of outcomes (report_of on its Tallies): the same table as the rows give."""
    from tournaments.report import build_report, report_of
    from tournaments.storage import GameRow
    from tournaments.tally import Tallies

    rng = random.Random(5)
    names = ["a", "b", "c"]
    rows, tally, faults = [], Counter(), Counter()
    for seq in range(300):
        seating = tuple(rng.sample(names, 2))
        places = (1, 2) if rng.random() < 0.3 + 0.2 * names.index(seating[1]) else (2, 1)
        faulted = (Fault(0, "timeout", 3),) if rng.random() < 0.05 else ()
        rows.append(GameRow(seq, f"k{seq}", seq // 2, seating, places, faulted, 20))
        tally[seating, places] += 1
        faults.update(seating[f.seat] for f in faulted)
    whole = build_report(names, rows)
    counted = report_of(names, Tallies(dict(tally), [faults[name] for name in names]))
    assert counted.rows == whole.rows and counted.games == whole.games == 300


def test_every_game_handed_out_is_the_one_its_key_names_by_the_rules() -> None:
    """What ``tournament verify`` holds a stored league game to (Matchmaker.scheduled): each game handed out, pool or
    evaluation, is the one its key names in a matchmaker that saw nothing of the run but the stored configuration;
    keys the rules never make name nothing."""
    h = Harness(league(["a", "b", "c"], ["cand"]))
    jobs = h.play(300)
    assert {j.key[0] for j in jobs} == {"p", "e"}
    fresh = Matchmaker.reading(h.config, None)
    named = {j.key: fresh.scheduled(j.key) for j in jobs}
    assert all((n.seed, n.seating) == (j.seed, j.seating) for j in jobs if (n := named[j.key]) is not None)
    assert None not in named.values()
    past = fresh.evaluations["cand"].plan.max_deals
    for key in ("x1", "p0.t0-1", "p0.t0-1-2.r0", "p0.t0-0.r0", "p0.t1-0.r0", "p0.t0-7.r0", "p0.t0-1.r9", "e9.d0.c0",
                "e0.d0.c0", f"e3.d{past}.c0", "e3.d0.c5"):
        assert fresh.scheduled(key) is None, key
    stored = [j.key for j in jobs]
    assert fresh.named(stored) == named  # every stored key names its game …
    round0 = [k for k in stored if k.startswith("p0.")]
    other_table = round0[0].replace(round0[0].split(".")[1], "t0-2" if ".t0-1." in round0[0] else "t0-1")
    assert not set(fresh.named([*stored, other_table])) & {*round0, other_table}  # … but a round at two tables
