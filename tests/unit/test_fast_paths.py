"""The engine's fast paths (issue 17, item 3) against plain definitions.

- ``clone()`` copies only what a move may change in place: a clone played to the end leaves the original exactly as
  it was (every seat's observation, the card places, the legal actions, the log), for every game and seat count;
- the durak family's attack list (one-card attacks with the leaders' sets spliced in) is, for any hand and cap,
  every same-rank set of at most cap cards in C-7 order, built here by brute force from the card texts;
- the durak family's ``to_act``, a field set where the phase changes, is after every move the seat the phase asks
  (KZ-12's state table), with every option on and off, at every seat count;
- :class:`~referee.games.cards.CardIndex` lists the actions of any set of cards in canonical order;
- the runner finds the legal object an in-process bot answered by identity, and an equal action or its text
  through the engine, with the same record either way.

The golden playthroughs (test_golden.py) check the legal lists of whole games line by line.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import BotBase, Decision
from referee.engine import CardPlaces, State
from referee.games.cards import CardIndex, tables
from referee.games.durak import Durak, Kazaki
from referee.games.durak import base as durak_base
from referee.games.durak.tables import tables as durak_tables
from referee.match import play_game
from referee.plugins import load_registry

REGISTRY = load_registry(entry_points=False)
CASES = [pytest.param(game_id, seats, id=f"{game_id}-{seats}")
         for game_id, entry in sorted(REGISTRY.games.items())
         for seats in sorted({entry.game.min_seats, entry.game.max_seats})]


def _snapshot(state: State) -> str:
    """Everything a move could change, as one text."""
    views = [state.observe(seat) for seat in range(state.seats)]
    places = state.card_places() if isinstance(state, CardPlaces) else state.card_locations()  # where, if it says
    return json.dumps([views, places, [a.text for a in state.legal_actions()], state.events(0, None)], sort_keys=True)


def _play_out(state: State, rng: random.Random) -> None:
    while state.to_act is not None:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_a_clone_played_to_the_end_leaves_the_original_as_it_was(game_id: str, seats: int) -> None:
    game = REGISTRY.games[game_id].game
    rng = random.Random(7)
    for seed in range(3):
        state = game.new_state(seats, seed)
        step = 0
        while state.to_act is not None:
            if step % 25 == 0:
                before = _snapshot(state)
                copy = state.clone()
                assert _snapshot(copy) == before
                _play_out(copy, rng)
                assert _snapshot(state) == before, f"seed {seed}, step {step}: playing the clone changed the original"
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1


def _attack_texts(texts: Sequence[str], ranks: int, hand: list[int], cap: int) -> list[str]:
    """KZ-13 and C-7 by brute force: every set of same-rank cards of ``hand`` with at most ``cap`` cards, ordered
    by their canonical indices element by element (a set before the sets it is a prefix of)."""
    by_rank: dict[int, list[int]] = {}
    for c in sorted(hand):
        by_rank.setdefault(c % ranks, []).append(c)
    sets = [chosen for cards in by_rank.values() for k in range(1, min(cap, len(cards)) + 1)
            for chosen in combinations(cards, k)]
    return [f"attack({','.join(texts[c] for c in chosen)})" for chosen in sorted(sets)]


@pytest.mark.parametrize("game", [Durak(), Kazaki()], ids=lambda g: g.id)
def test_the_attack_list_is_every_same_rank_set_within_the_cap_in_canonical_order(game: Any) -> None:
    t = durak_tables(game.deck)
    rng = random.Random(3)
    for _ in range(600):
        hand = rng.sample(range(t.size), rng.choice([1, 2, 4, 6, 8, 12, 20]))
        mask = sum(1 << c for c in hand)
        for cap in range(1, 7):
            got = [a.text for a in t.attacks(mask, cap)]
            assert got == _attack_texts(t.texts, t.ranks, hand, cap), (sorted(hand), cap)


def _asked(state: Any) -> int | None:
    """The seat the durak family's phase asks (KZ-12; KZ-6 for the redeal offers), from the fields it reads."""
    phase = state.phase
    if phase == durak_base.ATTACK:
        return state.attacker
    if phase == durak_base.DEFEND:
        return state.defender
    if phase in (durak_base.OFFER, durak_base.TAKE_THROW):
        return state.priority[state.walk]
    if phase == durak_base.WITHDRAW:
        return state.withdrawals[state.walk][2]
    if phase == durak_base.REDEAL:
        return state.redeal_queue[0]
    return None


@pytest.mark.parametrize("game", [Durak(), Kazaki()], ids=["durak", "kazaki"])
@pytest.mark.parametrize("flags", [{}, {"transfer": True, "withdraw": True, "throw_after_take": True,
                                        "redeal_five": True}, {"throw_after_take": False, "withdraw": False}],
                         ids=["defaults", "all-on", "no-after-take"])
def test_the_durak_seat_to_act_is_the_seat_its_phase_asks(game: Any, flags: dict[str, bool]) -> None:
    rng = random.Random(3)
    phases: set[int] = set()
    for seats in range(game.min_seats, game.max_seats + 1):
        for seed in range(60):  # the first redeal offers: kazaki seed 48 at two seats, durak seed 15 at three
            state = game.new_state(seats, seed, flags)
            while True:
                phases.add(state.phase)
                assert state.to_act == _asked(state), (seats, seed, state.log[-3:])
                if state.to_act is None:
                    break
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
    if flags.get("redeal_five"):  # every phase was reached, the redeal offers and the withdrawals too
        assert phases == set(range(len(durak_base.PHASE_NAMES)))


def test_a_card_index_lists_the_actions_of_a_set_of_cards_in_canonical_order() -> None:
    t = tables(Durak.deck, ("play",))
    index = CardIndex(t.by_card["play"], t.ranks)
    rng = random.Random(5)
    for _ in range(300):
        cards = rng.sample(range(t.size), rng.randrange(t.size + 1))
        assert index.select(sum(1 << c for c in cards)) == tuple(t.by_card["play"][c] for c in sorted(cards))


class Answers(BotBase):
    """Answers with the legal object, an equal copy of it, or its text, by turns; plays its rng's choice."""

    name = "answers"

    def __init__(self) -> None:
        self.rng = random.Random(11)
        self.turn = 0

    def act(self, decision: Decision) -> Action | str:
        action = decision.legal[self.rng.randrange(len(decision.legal))]
        self.turn += 1
        form = self.turn % 3
        return action if form == 0 else Action.parse(action.text) if form == 1 else action.text


class Same(Answers):
    def act(self, decision: Decision) -> Action | str:
        return decision.legal[self.rng.randrange(len(decision.legal))]


def test_an_equal_action_or_its_text_plays_as_the_legal_object_itself() -> None:
    game = Durak()
    forms = play_game(game, [Answers(), Answers()], seed=4)
    objects = play_game(game, [Same(), Same()], seed=4)
    assert not forms.faults
    assert forms.actions == objects.actions and forms.choices == objects.choices
    assert forms.result == objects.result
