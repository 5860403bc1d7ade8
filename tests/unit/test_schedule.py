"""The round-robin schedule (tournaments/schedule.py): a pure, deterministic function of its configuration.

Checked on small fields by brute force: the size, every table, balanced seats, duplicate deals under every
rotation of their table, distinct deals without duplicate, stable keys, and the partnerships of team games.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import combinations
from math import comb

import pytest

from tournaments.schedule import (
    Scheduled,
    deal_seed,
    gauntlet,
    joining,
    round_robin,
    schedule,
    schedule_size,
    tables_of,
)

TEAMS = ((0, 2), (1, 3))  # four seats, partners opposite each other

# (entrants B, seats K, deals N, teams)
CASES = [
    (2, 2, 1, None),
    (2, 2, 5, None),
    (3, 2, 4, None),
    (3, 3, 2, None),
    (4, 3, 3, None),
    (5, 3, 1, None),
    (6, 4, 2, None),
    (6, 6, 1, None),
    (4, 4, 1, TEAMS),
    (4, 4, 3, TEAMS),
    (5, 4, 2, TEAMS),
    (6, 4, 1, TEAMS),
]
IDS = [f"B{b}-K{k}-N{n}{'-teams' if t else ''}" for b, k, n, t in CASES]


def games(b: int, k: int, n: int, teams=None, *, seed: int = 1, duplicate: bool = True) -> list[Scheduled]:
    return list(schedule(b, k, n, seed=seed, duplicate=duplicate, teams=teams))


def table_of(job: Scheduled) -> str:
    return job.key.split(".")[0]


def rotations(seating: tuple[int, ...]) -> set[tuple[int, ...]]:
    k = len(seating)
    return {tuple(seating[(i + r) % k] for i in range(k)) for r in range(k)}


def split_of(seating: tuple[int, ...], teams=TEAMS) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(seating[s] for s in team) for team in teams)


# ------------------------------------------------------------------------------------------ determinism


def test_schedule_is_deterministic_for_a_seed() -> None:
    assert games(4, 3, 5, seed=7) == games(4, 3, 5, seed=7)
    assert games(5, 4, 2, TEAMS, seed=7) == games(5, 4, 2, TEAMS, seed=7)
    assert games(4, 3, 5, seed=7, duplicate=False) == games(4, 3, 5, seed=7, duplicate=False)


@pytest.mark.parametrize("duplicate", [True, False])
def test_schedule_differs_across_seeds_only_in_the_deals(duplicate: bool) -> None:
    a = games(4, 3, 5, seed=7, duplicate=duplicate)
    b = games(4, 3, 5, seed=8, duplicate=duplicate)
    assert [(j.key, j.seq, j.seating) for j in a] == [(j.key, j.seq, j.seating) for j in b]
    assert {j.seed for j in a}.isdisjoint({j.seed for j in b})


def test_deal_seed_is_a_64_bit_hash_of_each_argument() -> None:
    base = deal_seed(1, 2, 3)
    assert 0 <= base < 2**64
    assert deal_seed(1, 2, 3) == base
    assert len({base, deal_seed(2, 2, 3), deal_seed(1, 3, 3), deal_seed(1, 2, 4)}) == 4
    assert deal_seed(12, 3, 4) != deal_seed(1, 23, 4)  # the parts are separated, not just concatenated


# ----------------------------------------------------------------------------------------- size, tables


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_size_matches_schedule_size(b: int, k: int, n: int, teams) -> None:
    per_table = 3 * 4 if teams else k  # 4 seats: 3 ways to split into two pairs, 4 rotations of each
    expected = comb(b, k) * per_table * n
    assert schedule_size(b, k, n, teams) == expected
    assert len(games(b, k, n, teams)) == expected
    assert len(games(b, k, n, teams, duplicate=False)) == expected


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_every_subset_of_the_field_is_a_table(b: int, k: int, n: int, teams) -> None:
    jobs = games(b, k, n, teams)
    by_table: dict[str, set[frozenset[int]]] = defaultdict(set)
    for job in jobs:
        assert len(job.seating) == k and len(set(job.seating)) == k
        assert all(0 <= e < b for e in job.seating)
        by_table[table_of(job)].add(frozenset(job.seating))
    assert all(len(members) == 1 for members in by_table.values())  # one K-subset per table
    tables = [next(iter(members)) for members in by_table.values()]
    assert sorted(map(sorted, tables)) == sorted(map(list, combinations(range(b), k)))


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_every_entrant_sits_in_every_seat_equally_often_per_table(b: int, k: int, n: int, teams) -> None:
    per_table: dict[str, Counter] = defaultdict(Counter)
    for job in games(b, k, n, teams):
        for seat, entrant in enumerate(job.seating):
            per_table[table_of(job)][(entrant, seat)] += 1
    expected = n * (3 if teams else 1)
    for table, counts in per_table.items():
        entrants = {e for e, _ in counts}
        assert len(entrants) == k
        assert {(e, s) for e in entrants for s in range(k)} == set(counts), table
        assert set(counts.values()) == {expected}, (table, counts)


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_seq_numbers_the_games_table_by_table(b: int, k: int, n: int, teams) -> None:
    """seq is the stored rows' order, as in databases written when games were played table by table."""
    jobs = sorted(games(b, k, n, teams), key=lambda j: j.seq)
    assert [job.seq for job in jobs] == list(range(schedule_size(b, k, n, teams)))
    assert [(int(t[1:]), int(d[1:]), int(r[1:])) for t, d, r in (job.key.split(".") for job in jobs)] == sorted(
        (int(t[1:]), int(d[1:]), int(r[1:])) for t, d, r in (job.key.split(".") for job in jobs))


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_games_are_played_round_by_round(b: int, k: int, n: int, teams) -> None:
    """Issue 14: deal 0 of every table and rotation, then deal 1, …; so after every whole round each entrant has
    played as many games as every other, in every seat, and any prefix is a fair sample."""
    jobs = games(b, k, n, teams)
    deals = [int(job.key.split(".")[1][1:]) for job in jobs]
    assert deals == sorted(deals)
    per_round = len(jobs) // n
    for end in range(per_round, len(jobs) + 1, per_round):
        played: dict[int, int] = {}
        for job in jobs[:end]:
            for entrant in job.seating:
                played[entrant] = played.get(entrant, 0) + 1
        assert len(set(played.values())) == 1 and len(played) == b, (end, played)


# -------------------------------------------------------------------------------------------- the deals


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_duplicate_plays_every_deal_under_every_seating_of_its_table(b: int, k: int, n: int, teams) -> None:
    jobs = games(b, k, n, teams)
    by_seed: dict[int, list[Scheduled]] = defaultdict(list)
    for job in jobs:
        by_seed[job.seed].append(job)
    assert len(by_seed) == comb(b, k) * n  # one deal per table and deal number
    for seed, group in by_seed.items():
        assert len({table_of(j) for j in group}) == 1, seed
        assert len({j.key.split(".")[1] for j in group}) == 1, seed
        seatings = [j.seating for j in group]
        assert len(set(seatings)) == len(seatings)
        if teams:
            splits = Counter(split_of(s) for s in seatings)
            assert len(splits) == 3 and set(splits.values()) == {4}
            for split in splits:
                same = [s for s in seatings if split_of(s) == split]
                assert set(same) == rotations(same[0])
        else:
            assert set(seatings) == rotations(seatings[0])  # all K rotations of the table, each once


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_no_duplicate_gives_every_game_a_deal_of_its_own(b: int, k: int, n: int, teams) -> None:
    jobs = games(b, k, n, teams, duplicate=False)
    assert len({job.seed for job in jobs}) == len(jobs)
    # the same games as with duplicate deals, only the deals differ
    assert [(j.key, j.seating) for j in jobs] == [(j.key, j.seating) for j in games(b, k, n, teams)]


# --------------------------------------------------------------------------------------------- the keys


@pytest.mark.parametrize(("b", "k", "n", "teams"), CASES, ids=IDS)
def test_keys_are_unique(b: int, k: int, n: int, teams) -> None:
    for duplicate in (True, False):
        keys = [job.key for job in games(b, k, n, teams, duplicate=duplicate)]
        assert len(set(keys)) == len(keys)


def test_keys_are_stable() -> None:
    # resume finds stored games by key: a key names the same game in every run, whatever the seed
    jobs = sorted(games(3, 2, 2, seed=5), key=lambda j: j.seq)
    assert [(j.key, j.seating) for j in jobs] == [
        ("t0.d0.r0", (0, 1)), ("t0.d0.r1", (1, 0)), ("t0.d1.r0", (0, 1)), ("t0.d1.r1", (1, 0)),
        ("t1.d0.r0", (0, 2)), ("t1.d0.r1", (2, 0)), ("t1.d1.r0", (0, 2)), ("t1.d1.r1", (2, 0)),
        ("t2.d0.r0", (1, 2)), ("t2.d0.r1", (2, 1)), ("t2.d1.r0", (1, 2)), ("t2.d1.r1", (2, 1)),
    ]
    assert [j.seed for j in jobs] == [deal_seed(5, t, d) for t in range(3) for d in range(2) for _ in range(2)]
    for seed in (0, 5, 2**64 - 1):
        for duplicate in (True, False):
            again = sorted(games(3, 2, 2, seed=seed, duplicate=duplicate), key=lambda j: j.seq)
            assert [(j.key, j.seq, j.seating) for j in again] == [(j.key, j.seq, j.seating) for j in jobs]


def test_keys_map_to_the_same_game_on_every_call() -> None:
    first = {j.key: j for j in games(5, 4, 2, TEAMS, seed=3, duplicate=False)}
    second = {j.key: j for j in games(5, 4, 2, TEAMS, seed=3, duplicate=False)}
    assert first == second


# ------------------------------------------------------------------------------------------- team games


@pytest.mark.parametrize("b", [4, 5, 6])
def test_team_schedule_pairs_every_two_players_of_a_table_exactly_once(b: int) -> None:
    jobs = games(b, 4, 2, TEAMS)
    by_table_deal: dict[tuple[str, str], list[tuple[int, ...]]] = defaultdict(list)
    for job in jobs:
        table, deal, _ = job.key.split(".")
        by_table_deal[(table, deal)].append(job.seating)
    assert len(by_table_deal) == comb(b, 4) * 2
    for where, seatings in by_table_deal.items():
        members = set(seatings[0])
        splits = {split_of(s) for s in seatings}
        assert len(splits) == 3, where
        partners = Counter(pair for split in splits for pair in split)
        assert set(partners) == {frozenset(p) for p in combinations(sorted(members), 2)}, where
        assert set(partners.values()) == {1}, where
        for seating in seatings:  # partners really sit in the partner seats
            assert {seating[0], seating[2]} in [set(p) for p in split_of(seating)]


# ------------------------------------------------------------------------------- gauntlets and ladders (issue 14)


def test_a_gauntlet_plays_each_candidate_with_the_field_only() -> None:
    tables = gauntlet(4, [4, 5], 3)  # a field of 4 (entrants 0-3), candidates 4 and 5, three seats
    assert len(tables) == 2 * math.comb(4, 2)
    for table in tables:
        assert len({4, 5} & set(table)) == 1  # one candidate, never two
    assert {t for t in tables if 4 in t} == {(*pair, 4) for pair in combinations(range(4), 2)}
    jobs = list(schedule(6, 3, 2, seed=1, tables=tables))
    assert len(jobs) == schedule_size(6, 3, 2, tables=tables) == len(tables) * 3 * 2
    assert all(set(job.seating) in [set(t) for t in tables] for job in jobs)


def test_a_ladder_appends_the_tables_of_the_new_entrant_and_keeps_every_stored_game() -> None:
    before = round_robin(4, 3)
    added = joining(5, [4], 3)
    assert added == [t for t in combinations(range(5), 3) if 4 in t]
    old = {job.key: job for job in schedule(4, 3, 2, seed=11)}
    new = {job.key: job for job in schedule(5, 3, 2, seed=11, tables=before + added)}
    assert old.items() <= new.items()  # the same keys name the same games: same seats, same deals, same seq
    assert len(new) - len(old) == len(added) * 3 * 2
    assert all(4 in job.seating for key, job in new.items() if key not in old)


def test_the_stored_stages_give_the_tables() -> None:
    assert tables_of(5, 3, None) is None  # no stages: the round robin of every entrant
    assert tables_of(4, 3, [["round_robin", 4]]) == round_robin(4, 3)
    assert tables_of(5, 3, [["round_robin", 4], ["join", 4, 5]]) == round_robin(4, 3) + joining(5, [4], 3)
    # a gauntlet's joiners are candidates too: they play with the field only
    assert tables_of(6, 3, [["gauntlet", 4, 1], ["join", 5, 6]]) == gauntlet(4, [4], 3) + gauntlet(4, [5], 3)
    for damaged in ([["round_robin", 4]], [["swiss", 5]], [["round_robin", 4], ["join", 3, 5]],
                    [["round_robin", 4], ["join", 4, 4]], [["gauntlet", 4]]):
        with pytest.raises(ValueError):
            tables_of(5, 3, damaged)
