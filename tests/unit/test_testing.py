"""referee.testing, the random-simulation checks a plugin author runs in one line: over every registered game
(built-ins, installed plugins, and the example plugin game of tests/fixtures/plugins/referee-nim), and against
planted bugs, which the checks must catch."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from referee.engine import CardPlaces
from referee.games.cards import CardState, bits
from referee.games.durak import Durak, DurakState
from referee.games.kozel import Kozel
from referee.games.kozel.kozel import KozelState
from referee.plugins import load_registry
from referee.testing import CheckFailed, check_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plugins"


def _nim() -> ModuleType:
    """The example plugin game, loaded from its file (it is not installed in the test environment)."""
    spec = importlib.util.spec_from_file_location("referee_nim", FIXTURES / "referee-nim" / "referee_nim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Every game of the registry the CLI loads (built-ins and installed entry points), plus the example plugin.
REGISTRY = load_registry(entry_points=True, extra=[_nim()])
GAMES = sorted(REGISTRY.games)


def test_the_example_plugin_game_is_among_them() -> None:
    assert "nim21" in GAMES and {"durak", "kazaki", "kozel", "kozel-hvaleny", "kozel-nn", "koroli",
                                 "koroli52"} <= set(GAMES)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_registered_game_passes_the_simulation_checks(game_id: str) -> None:
    """One call per game, at every seat count it allows, with its default options."""
    game = REGISTRY.game(game_id)
    reports = check_game(game, games=3, leak_games=1, seed=11)
    assert [r.games for r in reports] == [3] * (game.max_seats - game.min_seats + 1)
    for report in reports:
        assert report.decisions > 0 and report.resamples > 0
        if game_id != "nim21":  # cards are hidden at the start of every card game: the resample must move some
            assert report.moved, f"{game_id}: resample_hidden never moved a hidden card"
    nim = [r for r in reports if r.moved is None]
    assert (game_id == "nim21") == bool(nim)  # nim21 has no cards, only counts


def test_a_plugin_game_gets_the_engines_clone_and_no_deck() -> None:
    """nim21 writes no ``clone`` and no ``deck``: ``State.clone``'s default copies it (a search may play on the copy
    and leave the original alone), and the checks count its cards instead of following them (no ``CardPlaces``)."""
    game = REGISTRY.game("nim21")
    state = game.new_state(3, 5)
    state.apply(state.legal_actions()[1])
    copy = state.clone()
    assert copy is not state and copy.game is game and copy.observe(0) == state.observe(0)
    while not copy.is_terminal:
        copy.apply(copy.legal_actions()[0])
    assert state.pile == 19 and state.log_size == 1 and copy.pile == 0  # type: ignore[attr-defined]
    assert game.deck is None and not isinstance(state, CardPlaces)


# ------------------------------------------------------------------------------------------- planted bugs


class _LeakyState(DurakState):
    """Its observation shows the next seat's hand."""

    def observe(self, seat: int, since: int = 0) -> dict[str, Any]:
        obs = super().observe(seat, since)
        obs["peek"] = bits(self.hands[(seat + 1) % self.seats])
        return obs


class _LeakyObservation(Durak):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _LeakyState(self, seats, seed, options, dealer)


class _StockNotRelabelled(KozelState):
    """Its resample re-deals the hands but forgets the stock: a card may end up in two places."""

    def _relabel(self, seat: int, move: Any) -> None:
        CardState._relabel(self, seat, move)


class _ForgetfulKozel(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _StockNotRelabelled(self, seats, seed, options, dealer)


class _NoLegalState(KozelState):
    """No legal action once a trick has been played."""

    def _generate(self) -> Any:
        return () if self.tricks else super()._generate()


class _NoLegalAfterTrick(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _NoLegalState(self, seats, seed, options, dealer)


class _ChanceInReplay(Durak):
    """A game whose deal depends on something besides its seed: replay gives another game."""

    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return super()._new_state(seats, random.randrange(2**32), options, dealer)


class _DealsCountedTwice(KozelState):
    """Counts every finished deal twice."""

    @property
    def deals_done(self) -> int:
        return 2 * self.deal_no


class _DoubleCountingKozel(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _DealsCountedTwice(self, seats, seed, options, dealer)


class _DealPlacesNotARanking(KozelState):
    """Ranks a deal by the raw points, higher is worse: places like (45, 30, 0) are no ranking."""

    def deal_places(self) -> tuple[int, ...]:
        return self.last_won


class _PointsAsPlacesKozel(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _DealPlacesNotARanking(self, seats, seed, options, dealer)


class _PlayoutPlaysItself(KozelState):
    """Its playout action plays the card it chooses: asking for a playout move changes the game."""

    def playout_action(self, actions: Any, rand: Any) -> Any:
        chosen = super().playout_action(actions, rand)
        self.apply(chosen)
        return chosen


class _SelfPlayingKozel(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _PlayoutPlaysItself(self, seats, seed, options, dealer)


class _PlayoutOfAnotherDeck(KozelState):
    """Its playout action is a card the seat does not hold."""

    def playout_action(self, actions: Any, rand: Any) -> Any:
        held = {a.text for a in actions}
        return next(a for a in self.t.by_card["play"] if a.text not in held)


class _IllegalPlayoutKozel(Kozel):
    def _new_state(self, seats: int, seed: int, options: dict[str, Any], dealer: int) -> Any:
        return _PlayoutOfAnotherDeck(self, seats, seed, options, dealer)


@pytest.mark.parametrize(("game", "found"), [
    (_LeakyObservation(), "the observation depends on cards the seat cannot see"),
    (_ForgetfulKozel(), "a card is in two places|cards lost or invented"),
    (_NoLegalAfterTrick(), "no legal action"),
    (_ChanceInReplay(), "replay"),
    (_DoubleCountingKozel(), "deals_done went from 0 to 2 in one action"),
    (_PointsAsPlacesKozel(), r"deal_places\(\) .* is not a ranking of 3 seats"),
    (_SelfPlayingKozel(), "playout_action changed the state"),
    (_IllegalPlayoutKozel(), r"playout_action gave Action\(play\(\w+\)\), not one of the \d+ legal actions"),
], ids=["leaky-observation", "stock-not-relabelled", "no-legal-action", "replay", "deals-counted-twice",
        "deal-places-not-a-ranking", "playout-changes-the-state", "playout-not-legal"])
def test_planted_bugs_are_caught(game: Any, found: str) -> None:
    with pytest.raises(CheckFailed, match=found) as caught:
        check_game(game, seats=3, games=3, leak_games=3)
    assert f"{game.id}, 3 seats, seed " in str(caught.value)  # says where, to reproduce it
