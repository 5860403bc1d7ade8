"""Sampling worlds from a seat's view (``Game.worlds``, docs/ENGINE.md "Sampling worlds"; issue 17 item 1): the
contract, on random games of every built-in game id at every seat count, through ``referee.testing.check_sampling``.

Every world gives the seat exactly the observation it had (C-8), keeps the seat to act, its legal actions, its hand
and every place's count, conserves the cards, plays on legally to the end; at the start the worlds differ; the same
rng state gives the same world; and the real world is among those the sampler draws: a card some world puts
elsewhere than it really is is, in most (point, seat) pairs, also put where it really is by another of the twelve.
What each family's seat may infer (a void shown by not following suit, a card picked up, a card given) is tested in
the family's own tests of its sampler.
"""

from __future__ import annotations

import pytest
from test_testing import _nim

from referee.plugins import load_registry
from referee.testing import check_sampling

REGISTRY = load_registry()
BUILT_IN = ("durak", "kazaki", "kozel", "kozel-hvaleny", "kozel-nn", "koroli", "koroli52")
CASES = [(gid, n) for gid in BUILT_IN for n in range(REGISTRY.game(gid).min_seats, REGISTRY.game(gid).max_seats + 1)]


@pytest.mark.parametrize(("game_id", "seats"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_worlds_fit_the_view_and_spread_the_hidden_cards(game_id: str, seats: int) -> None:
    report = check_sampling(REGISTRY.game(game_id), seats, games=2, seed=11, samples=12, every=14)
    assert report.points >= 2 * seats * 2  # at least the start and the end of each game, for every seat
    assert report.worlds == report.points * 12
    assert report.differing >= 2 * seats  # every seat's start at least (check_sampling fails otherwise)
    assert report.truth_checked > 0
    # the real world fits the view: twelve draws put a hidden card where it really is, in most pairs
    assert report.truth_rate >= 0.75, report


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_example_plugin_game_has_one_world_its_replay(seats: int) -> None:
    """nim21 (docs/PLUGINS.md) hides nothing: every world is the game as played, and the check passes on it."""
    report = check_sampling(_nim().Nim(), seats, games=3, seed=1, samples=3, every=1)
    assert report.points > 3 * seats * 5 and report.differing == 0
