"""referee/ismcts: the ``ismcts`` bot (issue 17 item 2). It plays legally within its budget on every game, is the same
at a fixed iteration budget and seed, answers a lone legal action at once, plays for its team, refuses bad settings
in one line, and beats ``random`` clearly in durak. The search sees worlds only through ``Game.worlds``."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

import pytest

from bots.random import RandomBot
from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from protocol.errors import ConfigError
from referee.botspec import parse_spec
from referee.clock import Clocked, TimeControl
from referee.engine import Game, State, Worlds
from referee.games.durak import Durak
from referee.games.plugin import builtin_games
from referee.ismcts.bot import IsmctsBot
from referee.ismcts.search import rewards_of, search
from referee.ismcts.settings import Settings
from referee.match import play_game
from referee.plugins import load_registry

GAMES = sorted(builtin_games())


def durak() -> Game:
    return Durak()


def ismcts(game: Game, **settings: object) -> IsmctsBot:
    return IsmctsBot(find_game=lambda _id: game, **settings)


def tuned(iterations: int, **given: Any) -> Settings:
    """The search's settings of these tests: ``iterations`` a search, UCB1's 0.7, a pool of 16, no pairs unless
    ``given``, and what ``given`` says."""
    return Settings(**{"ms": 0, "iterations": iterations, "c": 0.7, "pool": 16, "pair": 0.0, **given})


def test_settings_are_checked_in_one_line() -> None:
    assert Settings.parse({"ms": "50", "iterations": "0", "c": "1.5", "pool": "8", "epsilon": "1", "first": "0.25",
                           "guide": "2.5", "deal": "1", "policy": "0.5", "flat": "1"}) == Settings(
        ms=50, iterations=0, c=1.5, pool=8, epsilon=1.0, first=0.25, guide=2.5, deal=1, policy=0.5, flat=1)
    for given, message in [({"ms": "fast"}, "ms= takes a whole number from 0 to 600000, got 'fast'"),
                           ({"iterations": "-3"}, "iterations= takes a whole number"),
                           ({"c": "x"}, "c= takes a number from 0 to 100"),
                           ({"first": "2"}, "first= takes a number from 0 to 1"),
                           ({"guide": "-1"}, "guide= takes a number from 0 to 100"),
                           ({"deal": "2"}, "deal= takes a whole number from 0 to 1"),
                           ({"policy": "1.5"}, "policy= takes a number from 0 to 1"),
                           ({"flat": "yes"}, "flat= takes a whole number from 0 to 1"),
                           ({"depth": "3"}, "ismcts has no setting 'depth'"),
                           ({"ms": "0"}, "without a budget")]:
        with pytest.raises(ConfigError, match=message):
            Settings.parse(given)


def test_the_settings_table_of_the_docs_is_every_setting_with_its_default() -> None:
    import re
    from dataclasses import fields
    from pathlib import Path

    from referee.ismcts.bot import BY_GAME, GAME_DEFAULTS, SETTINGS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "ISMCTS.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", doc, flags=re.MULTILINE))
    defaults = {f.name: f.default for f in fields(Settings)}
    assert set(rows) == set(SETTINGS) == set(defaults)
    defaults.update(GAME_DEFAULTS)  # None: the game's own default, else this one
    assert {k: float(value.split(";")[0]) for k, value in rows.items()} == {k: float(v) for k, v in defaults.items()}
    for key in GAME_DEFAULTS:  # "1; in durak and kazaki 0.5": the games whose default differs, in the docs and --help
        by_game = {m: float(v) for m, v in re.findall(r"in ([\w -]+?) ([\d.]+)", rows[key])}
        expected = {game: own[key] for game, own in BY_GAME.items() if key in own}
        assert {game: v for games, v in by_game.items() for game in games.split(" and ")} == expected
        help_by_game = re.findall(r"in ([\w -]+?) ([\d.]+)", SETTINGS[key].rsplit("default ", 1)[1])
        assert {game: float(v) for games, v in help_by_game for game in games.split(" and ")} == expected


def test_the_game_dependent_settings_are_the_ones_given_else_the_games_own() -> None:
    assert Settings().for_game("durak").guide == 0.5 and Settings().for_game("kazaki").guide == 0.5
    assert Settings().for_game("kozel").guide == 1.0 and Settings().for_game("koroli").guide == 1.0
    assert Settings.parse({"guide": "2"}).for_game("durak").guide == 2.0
    assert Settings().for_game("koroli52").deal == 1 and Settings().for_game("kozel").deal == 0
    assert Settings().for_game("kozel").deal == 0 and Settings.parse({"deal": "0"}).for_game("koroli52").deal == 0
    assert Settings().for_game("koroli52").first == 0.0 and Settings().for_game("durak").first == 0.9
    assert Settings().for_game("kozel-nn") == Settings(first=0.0, guide=1.0, deal=1, policy=0.0, flat=0)
    assert Settings().for_game("koroli").policy == 1.0 == Settings().for_game("koroli52").policy
    assert Settings.parse({"policy": "0.25"}).for_game("koroli").policy == 0.25
    assert Settings().for_game("koroli").flat == 1 == Settings().for_game("koroli52").flat
    assert Settings().for_game("durak").flat == 0 and Settings.parse({"flat": "0"}).for_game("koroli").flat == 0
    assert Settings().for_game("a-plugin-game") == Settings(first=0.9, guide=1.0, deal=0, policy=0.0, flat=0)
    assert IsmctsBot(guide=0).guide is None and IsmctsBot().guide is not None


def test_a_spec_carries_the_settings_and_refuses_bad_ones() -> None:
    registry = load_registry()
    parsed = parse_spec("ismcts:ms=20,iterations=7", registry)
    assert parsed.name == "ismcts" and parsed.settings == (("ms", "20"), ("iterations", "7"))
    assert parse_spec("ismcts", registry).identity != parsed.identity  # other settings: another entrant
    bot = parsed.make(registry, time=TimeControl())
    assert isinstance(bot, Clocked) and bot.bot.config == Settings(ms=20, iterations=7)
    named = parse_spec("[name=fast] ismcts:ms=5", registry)
    assert named.display_name == "fast" and named.settings == (("ms", "5"),)
    for spec, message in [("ismcts:ms=x", "bot 'ismcts:ms=x': ismcts: ms= takes a whole number"),
                          ("ismcts:depth=3", "'ismcts' has no setting 'depth' \\(its settings: ms, iterations"),
                          ("ismcts:ms", "the setting 'ms' is not KEY=VALUE"),
                          ("ismcts:ms=1,ms=2", "ms= is given twice"),
                          ("random:ms=5", "'random' takes no settings")]:
        with pytest.raises(ConfigError, match=message):
            parse_spec(spec, registry)


def test_rewards_come_from_places_and_partners_share_theirs() -> None:
    assert rewards_of((1, 2, 3), None) == [1.0, 0.5, 0.0]
    assert rewards_of((2, 1), None) == [0.0, 1.0]
    assert rewards_of((3, 1, 3, 1), ((0, 2), (1, 3))) == pytest.approx([1 / 3, 1, 1 / 3, 1])
    assert rewards_of((1, 3, 2, 4), ((0, 2), (1, 3))) == pytest.approx([5 / 6, 1 / 6, 5 / 6, 1 / 6])  # team means


class _NoWorlds(Durak):
    def worlds(self, seats: int, seat: int, view: Any, options: Any = None) -> Worlds:
        raise AssertionError("a lone legal action needs no search")


def test_a_lone_legal_action_is_answered_at_once() -> None:
    bot = ismcts(_NoWorlds(), ms=0, iterations=10**6)
    bot.new_game(GameInfo(game="durak", options={}, seat=0, seats=2))
    take = Action("take")
    started = time.perf_counter()
    assert bot.act(Decision(0, (take,), lambda: {"events": []})) is take
    assert time.perf_counter() - started < 0.5 and bot.searched == 0


def test_the_same_seed_and_iteration_budget_give_the_same_game() -> None:
    game = durak()
    records = [play_game(game, [ismcts(game, ms=0, iterations=25), RandomBot()], seed=11) for _ in range(2)]
    assert records[0].actions == records[1].actions and not records[0].result.faults
    other = play_game(game, [ismcts(game, ms=0, iterations=25), RandomBot()], seed=12)
    assert other.actions != records[0].actions


def test_a_time_budget_is_kept() -> None:
    """Not a test of speed: a 20 ms budget must not take 500 ms (generous, for a busy machine)."""
    game = durak()
    bot = ismcts(game, ms=20)
    state = game.new_state(2, 5)
    bot.new_game(GameInfo(game="durak", options=dict(state.options), seat=0, seats=2, bot_seed=3))
    while state.to_act != 0 or len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    started = time.perf_counter()
    choice = bot.act(Decision(0, state.legal_actions(), lambda: state.observe(0)))
    assert time.perf_counter() - started < 0.5
    assert choice in state.legal_actions() and bot.iterations >= 1


def test_it_beats_random_clearly_in_durak() -> None:
    """A seeded, deterministic assertion at a fixed iteration budget: first place in nearly every game of 16 (an equal
    bot would win 8; 14 or more has a chance below 0.3 %)."""
    game = durak()
    wins = 0
    for i in range(16):
        me = i % 2
        bots: list[Any] = [RandomBot(), RandomBot()]
        bots[me] = ismcts(game, ms=0, iterations=20, guide=0)  # the search alone, without heuristic's moves
        record = play_game(game, bots, seed=100 + i)
        assert not record.result.faults
        wins += record.result.places[me] == 1
    assert wins >= 14, wins


@pytest.mark.parametrize("game_id", GAMES)
def test_it_plays_every_game_legally_within_its_budget(game_id: str) -> None:
    """A few short games of every game id and seat count, at a small budget and under the referee's clock: no
    faults (an illegal action, a timeout or an exception would be one)."""
    registry = load_registry()
    game = registry.game(game_id)
    seat_counts = range(game.min_seats, game.max_seats + 1)
    time_control = TimeControl.from_ms(1000)
    for k, seats in enumerate(seat_counts):
        bots: list[Any] = [Clocked(registry.bot("heuristic").factory(), time=time_control) for _ in range(seats)]
        mine = [k % seats] if game.teams(seats) is None else list(game.teams(seats)[k % 2])  # type: ignore[index]
        searchers = []
        for seat in mine:
            searcher = parse_spec("ismcts:ms=3", registry)
            bots[seat] = searcher.make(registry, time=time_control)
            searchers.append(bots[seat].bot)
        record = play_game(game, bots, seed=40 + k)
        assert not record.result.faults, record.result.faults
        assert all(s.searched > 0 for s in searchers)


def _position(seed: int = 5) -> tuple[Game, State]:
    """A 2-seat durak position where seat 0 chooses among several actions."""
    game = Durak()
    state = game.new_state(2, seed)
    while state.to_act != 0 or len(state.legal_actions()) < 3:
        state.apply(state.legal_actions()[0])
    return game, state


def _search(state: State, game: Game, keep: str | None, margin: float, iterations: int = 300,
            pair: float = 0.0) -> Any:
    worlds = game.worlds(2, 0, [state.observe(0)], state.options)
    settings = tuned(iterations, first=0.9, guide=margin, pair=pair)
    return search(worlds, state.legal_actions(), random.Random(4), settings, seconds=0, teams=None, keep=keep)


def test_the_guides_move_is_kept_unless_the_search_beats_it_by_the_margin() -> None:
    game, state = _position()
    alone = _search(state, game, None, 0.0)
    other = next(t for t in alone.visits if t != alone.text)  # a move the search tried and did not choose
    assert alone.means[alone.text] != alone.means[other]
    assert _search(state, game, other, 100.0).text == other  # no search result is 100 standard errors better
    chosen = _search(state, game, other, 0.0)  # at no margin the search's choice wins where its mean is higher
    assert chosen.text == (alone.text if alone.means[alone.text] > alone.means[other] else other)
    assert chosen.visits == alone.visits  # the guide changes the choice, not the search


def test_a_guides_move_the_search_never_tried_is_played() -> None:
    game, state = _position()
    once = _search(state, game, None, 0.0, iterations=1)
    untried = next(a.text for a in state.legal_actions() if a.text not in once.visits)
    assert _search(state, game, untried, 0.0, iterations=1).text == untried


def test_the_paired_check_spends_its_share_of_the_budget_and_overrides_the_guide_only_by_the_margin() -> None:
    game, state = _position()
    tree = _search(state, game, None, 0.0, iterations=150)  # the tree alone, on the tree's half of 300 iterations
    other = next(t for t in tree.visits if t != tree.text)
    kept = _search(state, game, other, 100.0, pair=0.5)
    pairs, mean, spread = kept.check
    assert kept.visits == tree.visits  # the tree had its share, the same iterations
    assert pairs == 75 and kept.iterations == 150 + 2 * pairs  # two playouts a pair, within the budget
    assert kept.text == other  # no paired difference is 100 standard errors
    assert mean != 0.0 and spread > 0.0
    chosen = _search(state, game, other, 0.0, pair=0.5)
    assert chosen.check == kept.check  # the same worlds and numbers: the margin decides, nothing else
    assert chosen.text == (tree.text if mean > 0 else other)
    agreed = _search(state, game, tree.text, 0.0, pair=0.5)
    assert agreed.check is None and agreed.text == tree.text and agreed.iterations == 150  # nothing to check


def test_a_game_without_a_clone_of_its_own_is_searched_on_the_engines_copies() -> None:
    """nim21 (tests/fixtures/plugins) writes no ``clone``: ``State.clone``'s default copies its worlds, so the tree
    has its pool and pairs and the flat variant its copies, and the bot plays it legally."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "referee-nim" / "referee_nim.py"
    spec = importlib.util.spec_from_file_location("referee_nim", path)
    assert spec is not None and spec.loader is not None
    nim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nim)
    game = nim.Nim()
    assert "clone" not in vars(nim.NimState)
    state = game.new_state(2, 3)
    worlds = game.worlds(2, state.to_act, [state.observe(state.to_act)], state.options)
    legal = state.legal_actions()
    tree = search(worlds, legal, random.Random(4), tuned(100), seconds=0, teams=None)
    other = next(t for t in tree.visits if t != tree.text)
    kept = search(worlds, legal, random.Random(4), tuned(200, guide=100.0, pair=0.5), seconds=0, teams=None, keep=other)
    assert kept.check is not None and kept.iterations == 200 and kept.text == other  # pairs on copies
    flat = search(worlds, legal, random.Random(4), tuned(30, flat=1), seconds=0, teams=None)
    assert flat.visits == {a.text: 10 for a in legal}  # every action on every world, each on its own copy
    for seed in range(2):
        record = play_game(game, [ismcts(game, ms=0, iterations=40, guide=0), RandomBot()], seed=seed)
        assert not record.result.faults


def test_the_guide_is_heuristic_told_every_decision_and_guide_0_is_the_search_alone() -> None:
    from bots.heuristic import HeuristicBot

    game = durak()
    assert ismcts(game, guide=0).guide is None
    guided = ismcts(game, ms=0, iterations=30)
    assert isinstance(guided.guide, HeuristicBot)
    told: list[int] = []
    act = guided.guide.act
    guided.guide.act = lambda decision: told.append(decision.seat) or act(decision)  # type: ignore[method-assign]
    record = play_game(game, [guided, RandomBot()], seed=3)
    assert not record.result.faults
    assert len(told) >= guided.searched > 0 and set(told) == {0}  # every decision, a lone action's too


def test_with_deal_playouts_end_with_the_deal_in_play_and_its_places_are_the_reward(monkeypatch: Any) -> None:
    """docs/ENGINE.md "Deals": from the first tour of koroli52 (K52-3: ten tours), ``deal`` playouts stop when the
    tour ends and are scored by deal_places(), never by the result of a game they do not finish; without it they
    play the ten tours out."""
    from referee.games.koroli.koroli52 import Koroli52State

    game = builtin_games()["koroli52"]
    state = game.new_state(3, seed=4)
    seat = state.to_act
    assert seat is not None and len(state.legal_actions()) > 1 and state.deals_done == 0
    worlds = game.worlds(3, seat, [state.observe(seat)], state.options)
    ends: list[int] = []
    deal_places = Koroli52State.deal_places

    def tour_end(world: Koroli52State) -> tuple[int, ...]:
        ends.append(world.deals_done)
        return deal_places(world)

    def no_result(world: Koroli52State) -> Any:
        raise AssertionError(f"a playout reached the end of the game, at tour {world.tour}")

    monkeypatch.setattr(Koroli52State, "deal_places", tour_end)
    monkeypatch.setattr(Koroli52State, "result", no_result)

    def run(deal: bool) -> Any:
        return search(worlds, state.legal_actions(), random.Random(4), tuned(120, first=0.9, pair=0.5, deal=deal),
                      seconds=0, teams=None, keep=state.legal_actions()[-1].text)

    outcome = run(True)
    assert outcome.iterations == 120 and ends and set(ends) == {1}  # every playout stopped when tour 1 ended
    assert len(ends) == outcome.iterations  # one reward an iteration, the pairs' included
    with pytest.raises(AssertionError, match="end of the game, at tour 10"):
        run(False)


def test_deal_changes_nothing_in_a_game_of_one_deal() -> None:
    game, state = _position()
    worlds = game.worlds(2, 0, [state.observe(0)], state.options)
    legal = state.legal_actions()
    outcomes = [search(worlds, legal, random.Random(4), tuned(200, first=0.9, pair=0.5, deal=deal), seconds=0,
                       teams=None, keep=legal[-1].text) for deal in (0, 1)]
    assert outcomes[0] == replace(outcomes[1], seconds=outcomes[0].seconds)


def test_policy_is_the_share_of_playout_moves_the_game_chooses(monkeypatch: Any) -> None:
    """docs/ENGINE.md "Playouts": with ``policy=1`` every playout move of a card play (the pairs' too) is the game's
    ``playout_action``; with ``policy=0`` none is; in between, about that share."""
    from referee.games.kozel.kozel import KozelState

    game = builtin_games()["kozel"]
    state = game.new_state(3, seed=5)
    seat = state.to_act
    assert seat is not None and len(state.legal_actions()) > 1
    worlds = game.worlds(3, seat, [state.observe(seat)], state.options)
    chosen = KozelState.playout_action
    asked: list[int] = []
    moves: list[int] = []

    def counted(world: KozelState, actions: Any, rand: Any) -> Action:
        asked.append(1)
        return chosen(world, actions, rand)

    apply = KozelState.apply

    def counted_apply(world: KozelState, action: Action) -> None:
        moves.append(1)
        apply(world, action)

    monkeypatch.setattr(KozelState, "playout_action", counted)
    monkeypatch.setattr(KozelState, "apply", counted_apply)

    def share(policy: float) -> float:
        asked.clear()
        moves.clear()
        search(worlds, state.legal_actions(), random.Random(2), tuned(150, first=0.0, pair=0.5, deal=1, policy=policy),
               seconds=0, teams=None, keep=state.legal_actions()[-1].text)
        return len(asked) / len(moves)

    assert share(0.0) == 0.0
    assert 0.35 < share(0.5) < 0.6
    assert 0.9 < share(1.0) < 1.0  # every playout move: only the tree's own moves are not the game's


def _flat(state: State, game: Game, keep: str | None, margin: float, iterations: int = 120, seed: int = 4) -> Any:
    worlds = game.worlds(2, 0, [state.observe(0)], state.options)
    return search(worlds, state.legal_actions(), random.Random(seed),
                  tuned(iterations, first=0.9, guide=margin, pair=0.5, flat=1), seconds=0, teams=None, keep=keep)


def test_flat_plays_every_legal_action_out_on_every_world_drawn(monkeypatch: Any) -> None:
    """``flat``: each world drawn is copied once per legal action, that action played on the copy, and every action's
    mean is over the same worlds; the budget is whole worlds (a world costs one playout per legal action)."""
    game, state = _position()
    DurakState = type(state)  # noqa: N806 - the class patched
    legal = state.legal_actions()
    k = len(legal)
    started: dict[int, list[str]] = {}  # per world drawn: the first action played on each of its copies
    clone, apply = DurakState.clone, DurakState.apply

    bases: list[DurakState] = []  # the worlds copied, kept alive so that no two share an id

    def counted_clone(world: DurakState) -> DurakState:
        copy = clone(world)
        if not bases or bases[-1] is not world:
            bases.append(world)
        copy.parent = len(bases) - 1  # type: ignore[attr-defined]
        return copy

    def counted_apply(world: DurakState, action: Action) -> None:
        parent = world.__dict__.pop("parent", None)
        if parent is not None:
            started.setdefault(parent, []).append(action.text)
        apply(world, action)

    monkeypatch.setattr(DurakState, "clone", counted_clone)
    monkeypatch.setattr(DurakState, "apply", counted_apply)
    outcome = _flat(state, game, None, 0.0, iterations=10 * k + k - 1)
    assert len(started) == 10 and outcome.iterations == 10 * k  # whole worlds within the budget
    assert outcome.visits == {a.text: 10 for a in legal}
    assert all(first == [a.text for a in legal] for first in started.values())  # every action once on every world
    best = max(outcome.means.values())
    assert outcome.text in {t for t, m in outcome.means.items() if m == best}  # no guide: the best mean


def test_flat_keeps_the_guides_move_unless_the_best_beats_it_by_the_margin_on_the_same_worlds() -> None:
    game, state = _position()
    alone = _flat(state, game, None, 0.0)
    assert alone == replace(_flat(state, game, None, 0.0), seconds=alone.seconds)  # the same seed, the same search
    worse = min(alone.means, key=lambda t: alone.means[t])
    assert alone.means[worse] < alone.means[alone.text]
    kept = _flat(state, game, worse, 100.0)
    assert kept.text == worse and kept.visits == alone.visits and kept.means == alone.means
    pairs, mean, spread = kept.check
    # the paired difference is the difference of the two means: both are over the same worlds
    assert pairs == alone.visits[worse] and mean == pytest.approx(alone.means[alone.text] - alone.means[worse])
    assert spread > 0.0
    assert _flat(state, game, worse, 0.0).text == alone.text  # no margin: a better mean wins
    assert _flat(state, game, worse, mean / spread * 0.99).text == alone.text
    assert _flat(state, game, worse, mean / spread * 1.01).text == worse
    agreed = _flat(state, game, alone.text, 0.0)
    assert agreed.check is None and agreed.text == alone.text
