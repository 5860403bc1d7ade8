"""The common rules the three Kozel games rely on (RULES.md: C-1, C-5, C-7, C-11), on hand-made deals
(kozel_rules_helpers.py says how they are written).
"""

from __future__ import annotations

from typing import Any

import pytest
from kozel_rules_helpers import (
    BOAST_KEEP,
    BOAST_MISDEAL,
    KH,
    KH_61_59,
    KH_WEAK,
    KN,
    KN_BASE,
    KO,
    act,
    finish_deal,
    kh,
    kn,
    legal,
    order36,
)

from protocol.actions import Action
from referee.engine import Game
from referee.errors import ConfigError, IllegalActionError


def test_c_1_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="lyusya"):
        KH.new_state(4, 1, {"lyusya": "sometimes"})
    with pytest.raises(ConfigError, match="no option"):
        KN.new_state(4, 1, {"lyusya": "zero"})
    with pytest.raises(ConfigError):
        KO.new_state(4, 1, dealer=4)
    assert KO.new_state(3, 1, dealer=2).dealer == 2


@pytest.mark.parametrize(("game", "seats", "options"), [
    (KO, 3, {}), (KH, 4, {"lyusya": "zero"}), (KN, 4, {"boasting": True})])
def test_c_5_the_same_seed_and_actions_replay_the_same_game(game: Game, seats: int, options: dict[str, Any]) -> None:
    first = game.new_state(seats, 77, options, dealer=1)
    actions = []
    while not first.is_terminal:
        action = first.legal_actions()[len(actions) % len(first.legal_actions())]
        actions.append(action.text)
        first.apply(action)
    again = game.new_state(seats, 77, options, dealer=1)
    for text in actions:
        again.apply(again.parse_action(text))
    assert again.events() == first.events() and again.result() == first.result()


def test_c_7_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = kn(KN_BASE)
    with pytest.raises(IllegalActionError):
        state.apply(Action.parse("play(QS)"))
    assert legal(state) == ["play(AD)"] and state.log_size == len(state.events())


def test_c_11_redeals_reboasts_and_misdeals_are_not_deals() -> None:
    state = kh(KH_WEAK, then=[order36(KH, KH_61_59.hands)], max_deals=1)
    act(state, "1:demand_redeal")
    assert not state.is_terminal
    KH_61_59.run(state)
    assert state.is_terminal and state.result().aborted
    state = kn(KN_BASE, then=[BOAST_MISDEAL, BOAST_KEEP, BOAST_KEEP], boasting=True, max_deals=2)
    finish_deal(state)
    act(state, "2:lay(6H)", "3:lay(7H)", "0:lay(9H)", "1:lay(KH)")  # a misdeal
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal", "0:reboast")
    act(state, "2:lay(KH)", "3:lay(9D)", "0:lay(AH)", "1:lay(10H)", "2:demand_redeal", "0:keep")
    assert not state.is_terminal and state.deal_no == 1
    finish_deal(state)
    assert state.is_terminal and state.result().aborted
