"""Behaviour of the built-in bots: random, first and heuristic (bots/)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.first import FirstBot
from bots.heuristic import HeuristicBot
from bots.random import RandomBot
from protocol.actions import Action
from protocol.bot import Bot, Decision, GameInfo
from referee.games.durak import Durak, Kazaki

GAMES = {"durak": Durak(), "kazaki": Kazaki()}
BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"


# ------------------------------------------------------------------------------------------------ helpers


def play(game_id: str, bots: list[Bot], seed: int, options: dict[str, Any] | None = None,
         bot_seeds: list[int] | None = None) -> tuple[Any, list[str]]:
    """One game through the engine loop; returns the result and every action played, as text.

    The engine's ``apply`` raises on an illegal action, so finishing a game proves every action was legal.
    """
    seats = len(bots)
    state = GAMES[game_id].new_state(seats, seed, options)
    for seat, bot in enumerate(bots):
        bot.new_game(GameInfo(game=game_id, options=state.options, seat=seat, seats=seats,
                              bot_seed=bot_seeds[seat] if bot_seeds else seed * 31 + seat))
    played = []
    while state.to_act is not None:
        seat = state.to_act
        decision = Decision(seat, state.legal_actions(), lambda seat=seat: state.observe(seat))
        action = bots[seat].act(decision)
        assert action in decision.legal
        played.append(action.text)
        state.apply(action)
    return state.result(), played


def actions(*texts: str) -> tuple[Action, ...]:
    return tuple(Action.parse(t) for t in texts)


def observation(hand: list[str], trump: str, *, game: str = "durak", stock: int = 20, phase: str = "defend",
                table: list[tuple[str, str | None, bool]] = ()) -> dict[str, Any]:
    """A hand-made wire-form observation of seat 0 (2 players, seat 1 attacking) as observe() builds it."""
    trump_card = ("6" if game == "durak" else "0") + trump
    return {
        "game": game, "seat": 0, "seats": 2, "phase": phase, "hand": hand, "trump": trump,
        "trump_card": trump_card, "trump_card_holder": None, "stock": stock, "discard": 0,
        "hand_sizes": [len(hand), 6], "active": [True, True], "finishing_order": [],
        "attacker": 1, "defender": 0, "cap": 6, "priority": [1],
        "table": [{"card": c, "owner": 1, "cover": cover, "thrown_in": thrown} for c, cover, thrown in table],
        "redeals": 0, "bouts": 3, "events": [],
    }


def heuristic_act(obs: dict[str, Any], legal: tuple[Action, ...]) -> str:
    bot = HeuristicBot()
    bot.new_game(GameInfo(game=obs["game"], options={}, seat=0, seats=2))
    return bot.act(Decision(0, legal, lambda: obs)).text


def no_observation() -> dict[str, Any]:
    raise AssertionError("the bot read the observation")


# ------------------------------------------------------------------------------------------------- layering


@pytest.mark.parametrize("module", sorted(p.relative_to(BOTS_DIR).as_posix() for p in BOTS_DIR.rglob("*.py")))
def test_bots_import_only_protocol_and_the_stdlib(module: str) -> None:
    """bots/ never imports the referee: a bot sees exactly what a remote bot sees (relative imports stay in bots/)."""
    depth = module.count("/")  # bots/heuristic/koroli.py may import from bots/ (level 2), no higher
    roots = set()
    for node in ast.walk(ast.parse((BOTS_DIR / module).read_text())):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            assert node.level <= depth + 1, f"{module} imports from outside bots/"
    assert roots - {"protocol"} <= sys.stdlib_module_names, roots


def test_bots_have_their_names() -> None:
    assert (RandomBot.name, FirstBot.name, HeuristicBot.name) == ("random", "first", "heuristic")
    for bot in (RandomBot(), FirstBot(), HeuristicBot()):
        assert isinstance(bot, Bot)


# --------------------------------------------------------------------------------------------------- random


def test_random_is_reproducible_for_the_same_bot_seed() -> None:
    first = play("durak", [RandomBot(), RandomBot()], seed=7, bot_seeds=[11, 12])
    again = play("durak", [RandomBot(), RandomBot()], seed=7, bot_seeds=[11, 12])
    assert first[1] == again[1]
    assert first[0].to_dict() == again[0].to_dict()


def test_random_is_reseeded_by_new_game() -> None:
    bot = RandomBot()
    _, one = play("kazaki", [bot, RandomBot()], seed=3, bot_seeds=[5, 6])
    _, two = play("kazaki", [bot, RandomBot()], seed=3, bot_seeds=[5, 6])  # same instance, second game
    assert one == two


def test_random_varies_across_seeds() -> None:
    games = {tuple(play("durak", [RandomBot(), RandomBot()], seed=7, bot_seeds=[s, s + 1])[1])
             for s in range(0, 20, 2)}
    assert len(games) >= 8  # the deal is fixed; only the bots' seeds differ


def test_random_always_plays_legal_actions_in_every_variant() -> None:
    for game_id in ("durak", "kazaki"):
        for seats in (2, 3, 6):
            for seed in range(5):
                result, _ = play(game_id, [RandomBot() for _ in range(seats)], seed,
                                 {"transfer": seed % 2 == 1})
                assert len(result.places) == seats


def test_random_does_not_read_the_observation() -> None:
    bot = RandomBot()
    bot.new_game(GameInfo(game="durak", options={}, seat=0, seats=2, bot_seed=1))
    legal = actions("defend(8C,9C)", "defend(8C,7H)", "take")
    for _ in range(20):
        assert bot.act(Decision(0, legal, no_observation)) in legal


def test_random_covers_every_legal_action() -> None:
    bot = RandomBot()
    bot.new_game(GameInfo(game="durak", options={}, seat=0, seats=2, bot_seed=42))
    legal = actions("throw_in(7C)", "throw_in(7D)", "pass")
    assert {bot.act(Decision(0, legal, no_observation)) for _ in range(100)} == set(legal)


# ---------------------------------------------------------------------------------------------------- first


def test_first_plays_the_first_legal_action() -> None:
    bot = FirstBot()
    bot.new_game(GameInfo(game="durak", options={}, seat=0, seats=2))
    for legal in (actions("defend(8C,9C)", "defend(8C,7H)", "take"), actions("pass"),
                  actions("demand_redeal", "pass")):
        assert bot.act(Decision(0, legal, no_observation)) is legal[0]


def test_first_plays_whole_games() -> None:
    result, played = play("kazaki", [FirstBot(), FirstBot(), FirstBot()], seed=9)
    again = play("kazaki", [FirstBot(), FirstBot(), FirstBot()], seed=9)
    assert played == again[1] and len(result.places) == 3


# ------------------------------------------------------------------------------------------------ heuristic


def test_heuristic_defends_with_the_cheapest_beating_card() -> None:
    obs = observation(["9C", "KC", "6D", "7H", "AH"], "H", table=[("8C", None, False)])
    legal = actions("defend(8C,9C)", "defend(8C,KC)", "defend(8C,7H)", "defend(8C,AH)", "take")
    assert heuristic_act(obs, legal) == "defend(8C,9C)"


def test_heuristic_keeps_trumps_when_a_plain_card_beats() -> None:
    obs = observation(["KC", "6D", "6H"], "H", table=[("QC", None, False)])
    legal = actions("defend(QC,KC)", "defend(QC,6H)", "take")
    assert heuristic_act(obs, legal) == "defend(QC,KC)"


def test_heuristic_uses_the_lowest_trump_when_it_must() -> None:
    obs = observation(["6D", "7H", "9H"], "H", table=[("10C", None, False)])
    legal = actions("defend(10C,7H)", "defend(10C,9H)", "take")
    assert heuristic_act(obs, legal) == "defend(10C,7H)"


def test_heuristic_plans_several_covers_without_wasting_trumps() -> None:
    # 9S can only be beaten by JS; the cheapest plan leaves the trump 7H unused.
    obs = observation(["10C", "JS", "7H", "8D"], "H", table=[("9C", None, False), ("9S", None, False)])
    legal = actions("defend(9C,10C)", "defend(9C,7H)", "defend(9S,JS)", "defend(9S,7H)", "take")
    assert heuristic_act(obs, legal) in ("defend(9C,10C)", "defend(9S,JS)")


def test_heuristic_takes_rather_than_spend_a_high_trump_early() -> None:
    table = [("10C", None, False)]
    legal = actions("defend(10C,AH)", "take")
    assert heuristic_act(observation(["6D", "7S", "AH"], "H", stock=20, table=table), legal) == "take"
    # With the stock empty, holding cards is what loses: cover.
    assert heuristic_act(observation(["6D", "7S", "AH"], "H", stock=0, table=table), legal) == "defend(10C,AH)"


def test_heuristic_takes_when_it_cannot_cover_everything() -> None:
    obs = observation(["10C", "6D"], "H", table=[("9C", None, False), ("9S", None, False)])
    legal = actions("defend(9C,10C)", "take")
    assert heuristic_act(obs, legal) == "take"


def test_heuristic_attacks_with_its_lowest_non_trump_card() -> None:
    obs = observation(["6H", "8C", "10S", "AD"], "H", phase="attack")
    legal = actions("attack(8C)", "attack(AD)", "attack(6H)", "attack(10S)")
    assert heuristic_act(obs, legal) == "attack(8C)"


def test_heuristic_attacks_with_a_low_pair_and_keeps_the_trump_of_that_rank() -> None:
    obs = observation(["7C", "7D", "7H", "9S", "KD"], "H", phase="attack")
    legal = actions("attack(7C)", "attack(7C,7D)", "attack(7C,7D,7H)", "attack(7C,7H)", "attack(KD)",
                    "attack(7D)", "attack(7D,7H)", "attack(7H)", "attack(9S)")
    assert heuristic_act(obs, legal) == "attack(7C,7D)"


def test_heuristic_attacks_with_a_trump_only_when_it_has_nothing_else() -> None:
    obs = observation(["6H", "9H"], "H", phase="attack")
    assert heuristic_act(obs, actions("attack(6H)", "attack(9H)")) == "attack(6H)"


def test_heuristic_knows_kazaki_ranks() -> None:
    obs = observation(["5R", "9R", "0T"], "T", game="kazaki", table=[("3R", None, False)])
    legal = actions("defend(3R,5R)", "defend(3R,9R)", "defend(3R,0T)", "take")
    assert heuristic_act(obs, legal) == "defend(3R,5R)"
    obs = observation(["0T", "2K", "8F"], "T", game="kazaki", phase="attack")
    assert heuristic_act(obs, actions("attack(2K)", "attack(0T)", "attack(8F)")) == "attack(2K)"


def test_heuristic_throws_in_low_plain_cards_but_not_trumps_or_high_cards_early() -> None:
    table = [("7C", "9C", False)]
    low = observation(["7D", "7H", "9S"], "H", phase="offer", table=table)
    assert heuristic_act(low, actions("throw_in(7D)", "throw_in(7H)", "throw_in(9S)", "pass")) == "throw_in(7D)"
    trump = observation(["7H", "JD"], "H", phase="offer", table=table)
    assert heuristic_act(trump, actions("throw_in(7H)", "pass")) == "pass"
    high = observation(["AD", "JD"], "H", phase="offer", table=[("QC", "AC", False)])
    assert heuristic_act(high, actions("throw_in(AD)", "pass")) == "pass"
    # With the stock empty, shedding any plain card is worth it.
    late = observation(["AD", "JD"], "H", phase="offer", stock=0, table=[("QC", "AC", False)])
    assert heuristic_act(late, actions("throw_in(AD)", "pass")) == "throw_in(AD)"


def test_heuristic_withdraws_a_thrown_in_trump_after_a_take() -> None:
    table = [("3K", None, False), ("3T", None, True)]
    obs = observation(["5K"], "T", game="kazaki", phase="after_take", table=table)
    assert heuristic_act(obs, actions("withdraw(3T)", "pass")) == "withdraw(3T)"
    table = [("3K", None, False), ("3R", None, True)]
    obs = observation(["5K"], "T", game="kazaki", phase="after_take", table=table)
    assert heuristic_act(obs, actions("withdraw(3R)", "pass")) == "pass"


def test_heuristic_demands_a_redeal_only_for_a_weak_non_trump_suit() -> None:
    legal = actions("demand_redeal", "pass")
    weak = observation(["0K", "1K", "2K", "4K", "5K", "9F"], "T", game="kazaki", phase="redeal_offer")
    assert heuristic_act(weak, legal) == "demand_redeal"
    trumps = observation(["0T", "1T", "2T", "4T", "5T", "9F"], "T", game="kazaki", phase="redeal_offer")
    assert heuristic_act(trumps, legal) == "pass"
    strong = observation(["5K", "6K", "7K", "8K", "9K", "9T"], "T", game="kazaki", phase="redeal_offer")
    assert heuristic_act(strong, legal) == "pass"


def test_heuristic_transfers_with_a_cheap_plain_card() -> None:
    obs = observation(["7S", "9H", "KD"], "H", table=[("7C", None, False)])
    legal = actions("defend(7C,9H)", "transfer(7S)", "take")
    assert heuristic_act(obs, legal) == "transfer(7S)"


def test_heuristic_falls_back_to_the_first_action_in_unknown_games() -> None:
    bot = HeuristicBot()
    bot.new_game(GameInfo(game="nim21", options={}, seat=0, seats=4))
    legal = actions("take(1)", "take(2)")
    assert bot.act(Decision(0, legal, no_observation)) is legal[0]


@pytest.mark.parametrize("game_id", ["durak", "kazaki"])
@pytest.mark.parametrize("seats", [2, 3, 4, 6])
@pytest.mark.parametrize("transfer", [False, True])
def test_heuristic_plays_legal_whole_games(game_id: str, seats: int, transfer: bool) -> None:
    for seed in range(4):
        bots: list[Bot] = [HeuristicBot() if s % 2 == 0 else RandomBot() for s in range(seats)]
        result, _ = play(game_id, bots, seed, {"transfer": transfer})
        assert len(result.places) == seats


def test_heuristic_clearly_beats_random() -> None:
    """300 fixed-seed 2-seat durak games, seats alternated. An equal bot loses half the decided games;
    35% is far outside the binomial noise of 300 games (sd below 3%), and the heuristic loses a few percent."""
    losses = decided = 0
    for seed in range(300):
        me = seed % 2
        bots: list[Bot] = [HeuristicBot() if s == me else RandomBot() for s in range(2)]
        result, _ = play("durak", bots, 1000 + seed)
        loser = result.extra["loser"]
        if loser is not None:
            decided += 1
            losses += loser == me
    assert decided >= 250
    assert losses <= 0.35 * decided


def test_the_heuristic_family_table_says_what_each_family_module_plays() -> None:
    """bots.heuristic imports a family's module when a game of it starts (FAMILY); each module's GAMES agrees."""
    from importlib import import_module

    from bots.heuristic import FAMILY

    for name in set(FAMILY.values()):
        assert import_module(f"bots.heuristic.{name}").GAMES == {g for g, f in FAMILY.items() if f == name}
