"""Sampling worlds from a seat's view (``Game.worlds``, docs/ENGINE.md "Sampling worlds"; issue 17 item 1): the
contract, on random games of every built-in game id at every seat count and of every option that changes what a
seat sees (perevodnoy's transfers among them), through ``referee.testing.check_sampling``.

Every world gives the seat exactly the observation it had (C-8), keeps the seat to act, its legal actions, its hand
and every place's count, conserves the cards, plays on legally to the end; at the start the worlds differ; the same
rng state gives the same world; and the real world is among those the sampler draws: a card some world puts
elsewhere than it really is is, in most (point, seat) pairs, also put where it really is by another of the twelve.
What each family's seat may infer (a void shown by not following suit, a card picked up, a card given) is tested in
the family's own tests of its sampler.

The default run plays one game per case; ``pytest -m deep`` plays four per case, every seat count of every option
set, and checks the worlds at every fifth decision instead of every twenty-eighth.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_testing import _nim

from referee.plugins import load_registry
from referee.testing import check_sampling

REGISTRY = load_registry()
BUILT_IN = ("durak", "kazaki", "kozel", "kozel-hvaleny", "kozel-nn", "koroli", "koroli52")
CASES = [(gid, n) for gid in BUILT_IN for n in range(REGISTRY.game(gid).min_seats, REGISTRY.game(gid).max_seats + 1)]
#: The options that change what is played or seen, away from their defaults.
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("durak", {"transfer": True}),
    ("durak", {"transfer": True, "withdraw": True, "throw_after_take": False}),
    ("durak", {"redeal_five": True}),
    ("kazaki", {"transfer": True}),
    ("kazaki", {"withdraw": False, "redeal_five": False, "throw_after_take": True}),
    ("kozel-hvaleny", {"lyusya": "zero"}),
    ("kozel-hvaleny", {"lyusya": "off"}),
    ("kozel-nn", {"boasting": True}),
]
OPTION_CASES = [(gid, n, opts) for gid, opts in OPTIONS
                for n in range(REGISTRY.game(gid).min_seats, REGISTRY.game(gid).max_seats + 1)]


def _ids(gid: str, n: int, opts: dict[str, Any] | None = None) -> str:
    return "-".join([gid, str(n), *(f"{k}={v}" for k, v in (opts or {}).items())])


def _check(game_id: str, seats: int, options: dict[str, Any] | None, games: int, every: int) -> None:
    report = check_sampling(REGISTRY.game(game_id), seats, games=games, seed=11, samples=12, every=every,
                            options=options)
    assert report.points >= games * seats * 2  # at least the start and the end of each game, for every seat
    assert report.worlds == report.points * 12
    assert report.differing >= games * seats  # every seat's start at least (check_sampling fails otherwise)
    assert report.truth_checked > 0
    # the real world fits the view: twelve draws put a hidden card where it really is, in most pairs
    assert report.truth_rate >= 0.75, report


@pytest.mark.parametrize(("game_id", "seats"), CASES, ids=[_ids(g, n) for g, n in CASES])
def test_worlds_fit_the_view_and_spread_the_hidden_cards(game_id: str, seats: int) -> None:
    _check(game_id, seats, None, games=1, every=28)


@pytest.mark.parametrize(("game_id", "options"), OPTIONS,
                         ids=[_ids(g, REGISTRY.game(g).min_seats, o) for g, o in OPTIONS])
def test_worlds_fit_the_view_under_every_option(game_id: str, options: dict[str, Any]) -> None:
    """One game of each option set, at the fewest seats (two-seat perevodnoy: where a sampler once failed)."""
    game = REGISTRY.game(game_id)
    _check(game_id, game.min_seats, options, games=1, every=28)


@pytest.mark.deep
@pytest.mark.parametrize(("game_id", "seats", "options"), [(g, n, None) for g, n in CASES] + OPTION_CASES,
                         ids=[_ids(g, n) for g, n in CASES] + [_ids(g, n, o) for g, n, o in OPTION_CASES])
def test_worlds_fit_the_view_in_a_deep_sweep(game_id: str, seats: int, options: dict[str, Any] | None) -> None:
    _check(game_id, seats, options, games=4, every=5)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_example_plugin_game_has_one_world_its_replay(seats: int) -> None:
    """nim21 (docs/PLUGINS.md) hides nothing: every world is the game as played, and the check passes on it."""
    report = check_sampling(_nim().Nim(), seats, games=3, seed=1, samples=3, every=1)
    assert report.points > 3 * seats * 5 and report.differing == 0
