"""``State.playout_action`` (docs/ENGINE.md, "Playouts"): the cheap move a search's playouts may take. The default is
a uniformly random legal action; the trick games (C-9) play the lowest card that takes the trick for good (no
opponent still to play could beat it), else, following, the lowest card, also when the partner's card holds the
trick; else a random lead. Checked at every decision of random games of every trick game against the engine's own
trick winner, and on a hand-made trick."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from referee.games.durak import Durak
from referee.games.koroli.koroli import DECK36, Koroli
from referee.games.plugin import builtin_games

TRICK_GAMES = [("kozel", 2), ("kozel", 3), ("kozel", 4), ("kozel-hvaleny", 4), ("kozel-nn", 4), ("koroli", 4),
               ("koroli52", 3), ("koroli52", 4)]


def fixed(value: float) -> Callable[[], float]:
    return lambda: value


def test_the_default_is_a_uniformly_random_legal_action() -> None:
    state = Durak().new_state(2, seed=3)
    actions = state.legal_actions()
    assert len(actions) > 2
    assert state.playout_action(actions, fixed(0.0)) is actions[0]
    assert state.playout_action(actions, fixed(0.999)) is actions[-1]
    rand = random.Random(1).random
    seen = {state.playout_action(actions, rand).text for _ in range(400)}
    assert seen == {a.text for a in actions}


def above(state: Any, low: int, high: int) -> bool:
    """Whether card ``high`` beats card ``low`` (``low`` led), by the engine's own trick winner."""
    return bool(state.rules.winner([low, high]) == 1)


def takes(state: Any, cards: list[int]) -> bool:
    """Whether the last of ``cards`` (the trick in play, then one more) wins them, by the engine's trick winner."""
    return bool(state.rules.winner(cards) == len(cards) - 1)


def options(state: Any, hand: int, led: int, follow: bool) -> list[int]:
    """The cards of ``hand`` a player may play to a trick led with card ``led``, as the playouts assume: a card of
    the led effective suit when he holds one and must follow, else any."""
    rules = state.rules
    suit = hand & rules.eff_mask[rules.eff[led]] if follow else 0
    mask = suit or hand
    return [c for c in range(state.t.size) if mask >> c & 1]


def sure(state: Any, trick: list[int], card: int, rivals: list[int], follow: bool) -> bool:
    """Whether ``card`` takes ``trick`` and no rival still to play could beat it."""
    if trick and not takes(state, trick + [card]):
        return False
    led = trick[0] if trick else card
    return not any(takes(state, trick + [card, r]) for hand in rivals for r in options(state, hand, led, follow))


def lowest(state: Any, ours: int, mine: list[int]) -> bool:
    """Whether ``ours`` is the weakest of ``mine``: no trump while a plain card is left, and every other card of its
    effective suit beats it."""
    trumps, eff = state.rules.trumps, state.rules.eff
    if (1 << ours) & trumps and not all((1 << c) & trumps for c in mine):
        return False
    return all(above(state, ours, c) for c in mine if c != ours and eff[c] == eff[ours])


@pytest.mark.parametrize(("game_id", "seats"), TRICK_GAMES)
def test_trick_games_play_the_cheapest_card_no_opponent_can_beat_else_low(game_id: str, seats: int) -> None:
    game = builtin_games()[game_id]
    teams = game.teams(seats)
    follow = game_id != "kozel"  # KO-8: any card may be played
    rng = random.Random(7)
    checked = {"random": 0, "sure": 0, "partner": 0, "low": 0}
    for seed in range(12):
        state: Any = game.new_state(seats, seed=seed)
        while (actions := state.legal_actions()):
            chosen = state.playout_action(actions, rng.random)
            assert chosen in actions
            if actions[0].kind != "play":  # a levy, an exchange, a bid: any legal action, by rand
                assert state.playout_action(actions, fixed(0.0)) is actions[0]
                assert state.playout_action(actions, fixed(0.999)) is actions[-1]
                checked["random"] += 1
                state.apply(chosen)
                continue
            trick = list(state.trick)
            mover = state.to_act
            team = next((t for t in teams if mover in t), ()) if teams else ()
            order = [(mover + k) % seats for k in range(1, seats - len(trick))] if game_id.startswith("kozel") \
                else list(state.order[state.turn + 1:])
            rivals = [state.hands[s] for s in order if s not in team]
            mine = [state.t.card_of[a] for a in actions]
            ours = state.t.card_of[chosen]
            certain = [c for c in mine if sure(state, trick, c, rivals, follow)]
            winner = state._seat_at(state.rules.winner(trick)) if trick else None
            if winner in team and not any(takes(state, trick + [r]) for hand in rivals
                                          for r in options(state, hand, trick[0], follow)):
                assert lowest(state, ours, mine), (game_id, seed)  # the partner's trick holds: nothing wasted
                checked["partner"] += 1
            elif certain:  # the cheapest card that takes the trick for good
                assert ours in certain and lowest(state, ours, certain), (game_id, seed)
                checked["sure"] += 1
            elif trick:
                assert lowest(state, ours, mine), (game_id, seed)
                checked["low"] += 1
            else:
                assert state.playout_action(actions, fixed(0.0)) is actions[0]
                checked["random"] += 1
            state.apply(chosen)
    assert checked["random"] and checked["sure"] and checked["low"], checked
    assert bool(checked["partner"]) == bool(teams), checked


def test_a_hand_made_trick_second_hand_takes_it_only_for_good() -> None:
    """KR-8, KR-9 (spades trump): the second to play holds 7H QH KH over the led JH. With AH still to come he ducks
    with the 7; with AH in the leader's hand the queen takes the trick for good; a player still to come who has no
    heart and a trump could ruff, so he ducks again."""
    state: Any = Koroli().new_state(4, seed=1)
    state.apply(state.legal_actions()[0])  # the first lead: the trick in play has its leader's card
    card = {text: i for i, text in enumerate(DECK36.texts)}

    def mask(cards: str) -> int:
        return sum(1 << card[c] for c in cards.split())

    state._set_trump(card["6S"] // 9)
    leader, me, third, fourth = state.order
    state.trick = [card["JH"]]
    hands = {leader: "6C", me: "7H QH KH", third: "6H 8H", fourth: "AH 7C"}
    state.hands = [mask(hands[s]) for s in range(4)]
    actions = state.t.select("play", state.hands[me])

    def chosen() -> str:
        return str(state.playout_action(actions, fixed(0.5)).text)

    assert chosen() == "play(7H)"
    state.hands[leader], state.hands[fourth] = mask("AH"), mask("7C 8C")
    assert chosen() == "play(QH)"
    state.hands[fourth] = mask("7C 6S")
    assert chosen() == "play(7H)"
