"""The contract check of sampled worlds (``referee.testing.check_sampling``) catches samplers that break it.

The test games below are durak with a planted ``worlds``: an oracle that peeks at the real state (test only: a real
sampler is never given it) and re-deals what the seat cannot see with ``resample_hidden`` passes; each planted bug
fails with its own message.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.engine import State, Worlds
from referee.games.durak import Durak
from referee.testing import CheckFailed, check_sampling


class _Peek(Worlds):
    def __init__(self, real: Any, seat: int, bug: str) -> None:
        self.real, self.seat, self.bug = real, seat, bug

    def sample(self, rng: random.Random) -> State:
        if self.bug == "unseeded":
            rng = random.Random()
        world = self.real.resample_hidden(self.seat, rng)
        if self.bug == "the real state":
            return self.real
        if self.bug == "always alike":
            return self.real.clone()
        if self.bug == "the seat's hand":
            other = (self.seat + 1) % world.seats
            world.hands[self.seat], world.hands[other] = world.hands[other], world.hands[self.seat]
            world._legal = None
        return world


class PeekingDurak(Durak):
    """Durak whose worlds are the real state re-dealt: right, except for the planted ``bug``."""

    def __init__(self, bug: str = "") -> None:
        self.bug = bug
        self.real: Any = None

    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        self.real = super()._new_state(seats, seed, options, dealer)
        return self.real

    def worlds(self, seats: int, seat: int, view: Any, options: Any = None) -> Worlds:
        assert view and view[0]["events"][0]["type"] == "deal"  # the view starts at the deal (since=0)
        return _Peek(self.real, seat, self.bug)


def test_a_right_sampler_passes_and_spreads_the_hidden_cards() -> None:
    report = check_sampling(PeekingDurak(), 3, games=1, seed=3, samples=10, every=9)
    assert report.points > 6 and report.worlds == report.points * 10
    assert report.differing >= 3 and report.truth_checked > 0
    assert report.truth_rate > 0.9


@pytest.mark.parametrize(("bug", "message"), [
    ("the real state", "is the real state itself"),
    ("always alike", "deal the hidden cards all alike"),
    ("unseeded", "the same rng state gave two different worlds"),
    ("the seat's hand", "another observation than it had"),
])
def test_a_planted_bug_is_caught(bug: str, message: str) -> None:
    with pytest.raises(CheckFailed, match=message) as caught:
        check_sampling(PeekingDurak(bug), 2, games=1, seed=3, samples=6, every=9)
    assert "durak, 2 seats, seed 3, dealer 1, decision 0" in str(caught.value)
