"""The engine API (RULES.md C-1, C-6, C-7, C-10): options, configuration, new_state, ranking, apply."""

from __future__ import annotations

import random
from typing import Any

import pytest

from protocol.actions import Action
from referee.engine import CardPlaces, Option, Result, State, places_from_order
from referee.errors import ConfigError, IllegalActionError, RefereeError, RulesError
from referee.games.durak import Durak, Kazaki

# ------------------------------------------------------------------------------------------ Option

FLAG = Option("flag", False, "a boolean option")
COUNT = Option("count", 5, "a bounded whole number", 1, 10)
FREE = Option("free", 0, "an unbounded whole number")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), ("false", False), ("TRUE", True), ("False", False),
     ("1", True), ("0", False), ("yes", True), ("no", False), ("on", True), ("Off", False)],
)
def test_bool_option_accepts_bools_and_their_strings(value: object, expected: bool) -> None:
    result = FLAG.validate(value)
    assert result is expected


@pytest.mark.parametrize("value", ["maybe", "", "2", "t", 1, 0, 1.0, None, [True]])
def test_bool_option_rejects_everything_else(value: object) -> None:
    with pytest.raises(ConfigError, match="flag"):
        FLAG.validate(value)


@pytest.mark.parametrize(("value", "expected"), [(1, 1), (5, 5), (10, 10), ("7", 7), ("10", 10)])
def test_int_option_accepts_ints_and_decimal_strings(value: object, expected: int) -> None:
    result = COUNT.validate(value)
    assert result == expected
    assert type(result) is int


@pytest.mark.parametrize("value", ["x", "", "1.5", "0x5", 2.0, 2.5, None, True, False, [3]])
def test_int_option_rejects_non_integers(value: object) -> None:
    with pytest.raises(ConfigError, match="count"):
        COUNT.validate(value)


@pytest.mark.parametrize("value", [0, 11, -1, "0", "11", 10**9])
def test_int_option_checks_its_range(value: object) -> None:
    with pytest.raises(ConfigError, match="between 1 and 10"):
        COUNT.validate(value)


def test_unbounded_int_option() -> None:
    assert FREE.validate(-(10**12)) == -(10**12)
    assert FREE.validate("123456789") == 123456789


def test_config_error_is_a_referee_value_error() -> None:
    assert issubclass(ConfigError, RefereeError)
    assert issubclass(ConfigError, ValueError)
    assert issubclass(IllegalActionError, RulesError)


def test_option_describe() -> None:
    assert COUNT.describe() == {"name": "count", "default": 5, "type": "int", "min": 1, "max": 10,
                                "help": "a bounded whole number"}
    assert FLAG.describe()["type"] == "bool"


# ------------------------------------------------------------------------------------ configure (C-1)

KAZAKI_DEFAULTS = {"transfer": False, "throw_after_take": False, "withdraw": True, "redeal_five": True,
                   "max_bouts": 1000}
DURAK_DEFAULTS = {"transfer": False, "throw_after_take": True, "withdraw": False, "redeal_five": False,
                  "max_bouts": 1000}


@pytest.mark.parametrize(("game", "defaults"), [(Kazaki(), KAZAKI_DEFAULTS), (Durak(), DURAK_DEFAULTS)],
                         ids=["kazaki", "durak"])
def test_configure_fills_in_the_kz_1_defaults(game: Any, defaults: dict[str, Any]) -> None:
    assert game.configure() == defaults
    assert game.configure(None) == defaults
    assert game.configure({}) == defaults


def test_configure_overrides_and_validates() -> None:
    given = {"transfer": "true", "max_bouts": "20"}
    config = Durak().configure(given)
    assert config == {**DURAK_DEFAULTS, "transfer": True, "max_bouts": 20}
    assert given == {"transfer": "true", "max_bouts": "20"}  # the caller's mapping is not touched


def test_configure_unknown_option_names_it() -> None:
    with pytest.raises(ConfigError, match="no option 'tranfser'") as info:
        Durak().configure({"tranfser": True})
    assert "transfer" in str(info.value)  # the message lists the real options as the fix


@pytest.mark.parametrize(("options", "name"), [({"transfer": "perhaps"}, "transfer"), ({"max_bouts": 0}, "max_bouts"),
                                               ({"max_bouts": "many"}, "max_bouts")])
def test_configure_bad_value_names_the_option(options: dict[str, Any], name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Kazaki().configure(options)


def test_describe_lists_the_options() -> None:
    description = Kazaki().describe()
    assert description["id"] == "kazaki"
    assert (description["min_seats"], description["max_seats"]) == (2, 6)
    assert [o["name"] for o in description["options"]] == list(KAZAKI_DEFAULTS)
    assert description["teams"] is False


# ------------------------------------------------------------------------------------ new_state (C-1)


@pytest.mark.parametrize("seats", [-1, 0, 1, 7, 10])
def test_new_state_rejects_seat_counts_outside_2_6(seats: int) -> None:
    with pytest.raises(ConfigError, match="2-6 players"):
        Durak().new_state(seats, 0)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**65])
def test_new_state_rejects_seeds_outside_64_bits(seed: int) -> None:
    with pytest.raises(ConfigError, match="seed"):
        Kazaki().new_state(3, seed)


@pytest.mark.parametrize("seed", [0, 1, 2**63, 2**64 - 1])
def test_new_state_accepts_every_unsigned_64_bit_seed(seed: int) -> None:
    state = Kazaki().new_state(3, seed)
    assert state.seed == seed
    assert state.to_act in range(3)


@pytest.mark.parametrize(("seats", "dealer"), [(2, -1), (2, 2), (4, 4), (6, 6), (3, 100)])
def test_new_state_rejects_dealers_that_are_not_seats(seats: int, dealer: int) -> None:
    with pytest.raises(ConfigError, match="dealer"):
        Durak().new_state(seats, 0, dealer=dealer)


@pytest.mark.parametrize("seats", range(2, 7))
def test_new_state_accepts_every_dealer_seat(seats: int) -> None:
    for dealer in range(seats):
        state = Durak().new_state(seats, 5, dealer=dealer)
        assert state.dealer == dealer
        assert state.seats == seats


def test_new_state_validates_options() -> None:
    with pytest.raises(ConfigError, match="bogus"):
        Durak().new_state(2, 0, {"bogus": 1})
    state = Durak().new_state(2, 0, {"transfer": "yes"})
    assert state.options["transfer"] is True
    assert state.options["max_bouts"] == 1000


def test_same_configuration_gives_the_same_state() -> None:
    a = Kazaki().new_state(4, 99, {"transfer": True}, dealer=2)
    b = Kazaki().new_state(4, 99, {"transfer": True}, dealer=2)
    assert a.events(0, None) == b.events(0, None)
    assert [x.text for x in a.legal_actions()] == [x.text for x in b.legal_actions()]
    assert a.to_act == b.to_act


# --------------------------------------------------------------------------------------- C-10 ranking


@pytest.mark.parametrize(
    ("order", "seats", "places"),
    [
        ([[0], [1, 2], [3]], 4, (1, 2, 2, 4)),  # the "1224" example
        ([[2], [0], [1]], 3, (2, 3, 1)),
        ([[0, 1, 2]], 3, (1, 1, 1)),
        ([[1], [0, 2]], 3, (2, 1, 2)),
        ([[1, 3], [5], [0], [2], [4]], 6, (4, 1, 5, 1, 6, 3)),
        ([[0, 2], [1, 3]], 4, (1, 3, 1, 3)),
        ([[3], [0, 1, 2]], 4, (2, 2, 2, 1)),
    ],
)
def test_c10_places_from_order_is_competition_ranking(order: list[list[int]], seats: int,
                                                      places: tuple[int, ...]) -> None:
    assert places_from_order(order, seats) == places


def test_result_places_and_dict() -> None:
    result = Result(((0,), (1, 2), (3,)), (3, 1, 1, 0), False, {"loser": 3, "draw": False})
    assert result.places == (1, 2, 2, 4)
    assert result.to_dict() == {"places": [1, 2, 2, 4], "finishing_order": [[0], [1, 2], [3]],
                                "scores": [3, 1, 1, 0], "aborted": False, "loser": 3, "draw": False}


# ------------------------------------------------------------------------------------- apply (C-6, C-7)


def _snapshot(state: State) -> dict[str, Any]:
    return {
        "to_act": state.to_act,
        "legal": [a.text for a in state.legal_actions()],
        "log_size": state.log_size,
        "events": state.events(0, None),
        "observations": [state.observe(s) for s in range(state.seats)],
        "places": state.card_places(),  # type: ignore[attr-defined]
    }


def _midgame(game: Any, seats: int, seed: int, steps: int) -> State:
    state = game.new_state(seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def _illegal_candidates(state: State) -> list[Action]:
    legal = set(state.legal_actions())
    candidates = [Action("take"), Action("pass"), Action("demand_redeal"), Action.parse("play(QC)"),
                  Action.parse("exchange(2)"), Action("attack"), Action.parse("attack(AS,AS)")]
    candidates += [Action("throw_in", a.args) for a in legal if a.kind == "attack"]
    candidates += [Action("attack", a.args[:1]) for a in legal if a.kind == "throw_in"]
    # a card the seat to act does not hold
    seat = state.to_act
    hand = set(state.observe(seat)["hand"]) if seat is not None else set()
    deck_texts = state.game.deck.texts  # type: ignore[attr-defined]
    foreign = next(t for t in deck_texts if t not in hand)
    candidates += [Action.parse(f"attack({foreign})"), Action.parse(f"throw_in({foreign})")]
    return [a for a in candidates if a not in legal]


@pytest.mark.parametrize("game", [Kazaki(), Durak()], ids=["kazaki", "durak"])
@pytest.mark.parametrize("steps", [0, 1, 2, 5, 11, 40])
def test_apply_rejects_illegal_actions_and_leaves_the_state_unchanged(game: Any, steps: int) -> None:
    state = _midgame(game, 3, 17 + steps, steps)
    assert not state.is_terminal
    before = _snapshot(state)
    illegal = _illegal_candidates(state)
    assert illegal
    for action in illegal:
        with pytest.raises(IllegalActionError, match="not legal"):
            state.apply(action)
        assert _snapshot(state) == before, action


def test_apply_after_the_end_is_illegal() -> None:
    state = _midgame(Durak(), 2, 3, 100_000)
    assert state.is_terminal
    assert state.to_act is None
    assert list(state.legal_actions()) == []
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match="after the game ended"):
        state.apply(Action("take"))
    with pytest.raises(IllegalActionError):
        state.parse_action("take")
    assert _snapshot(state) == before


def test_apply_a_legal_action_advances() -> None:
    state = Kazaki().new_state(2, 8)
    size = state.log_size
    state.apply(state.legal_actions()[0])
    assert state.log_size > size


# ------------------------------------------------------------------------------------------ parse_action


@pytest.mark.parametrize("steps", [0, 3, 9, 30])
def test_parse_action_returns_the_legal_action_with_that_text(steps: int) -> None:
    state = _midgame(Durak(), 4, 5 + steps, steps)
    legal = state.legal_actions()
    for action in legal:
        parsed = state.parse_action(action.text)
        assert parsed == action
        assert any(parsed is a for a in legal)


@pytest.mark.parametrize("text", ["", "garbage((", "Take", "attack(7X)", "play(QC)", "attack(AS,AS,AS,AS,AS)"])
def test_parse_action_rejects_texts_that_are_not_legal(text: str) -> None:
    state = Durak().new_state(3, 4)
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match="not legal"):
        state.parse_action(text)
    assert _snapshot(state) == before


def test_parse_action_matches_exact_text_only() -> None:
    """Sets of cards are written in canonical order (C-7); another order is a different, illegal text."""
    state = Durak().new_state(2, 1)  # golden durak-2p-seed1: seat 1 may attack(AD,AH)
    assert state.parse_action("attack(AD,AH)").text == "attack(AD,AH)"
    with pytest.raises(IllegalActionError):
        state.parse_action("attack(AH,AD)")
    with pytest.raises(IllegalActionError):
        state.parse_action(" attack(AD,AH)")


def test_score_text_is_the_games_headline_of_a_score() -> None:
    from referee.games.koroli import Koroli, Koroli52

    assert Durak().score_text(1) == "1"
    assert Durak().score_text({"a": 1}) == '{"a": 1}'  # a structured score the game does not summarise
    assert Koroli().score_text({"role": "Prince", "tricks": [0, 1, None]}) == "Prince"
    assert Koroli52().score_text({"total": 23, "tricks": [3, 1], "bargain_net": -3}) == "23"


# ------------------------------------------------------------------------------------ clone, CardPlaces


def test_every_built_in_state_is_a_card_places_and_every_built_in_game_has_a_deck() -> None:
    from referee.games.plugin import builtin_games

    for game in builtin_games().values():
        state = game.new_state(game.min_seats, 3)
        assert game.deck is not None and isinstance(state, CardPlaces), game.id
        assert sorted(c for cards in state.card_places().values() for c in cards) == sorted(state.deck_cards)
