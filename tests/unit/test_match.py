"""Playing one game between in-process bots (referee/match.py; RULES.md C-6, C-7, C-8, C-10).

The bots here are small fakes that misbehave on purpose. The game is a pure function of (seed, actions), so
every check of "which seat acted at decision i, with which legal actions" re-derives it by replaying the
record's actions (:func:`trace`) instead of trusting the code under test.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from protocol.actions import Action
from protocol.bot import BotBase, Decision, GameInfo
from protocol.errors import BotStalled, BotTimeout, ProtocolViolation
from referee.botspec import parse_spec
from referee.clock import Clocked, TimeControl
from referee.engine import Game, State
from referee.errors import ConfigError
from referee.games.durak import Durak, Kazaki
from referee.match import Fault, GameRecord, apply_policy, bot_seed, default_action, play_game
from referee.plugins import load_registry
from referee.record import replay

DURAK = Durak()
KAZAKI = Kazaki()
GAMES: dict[str, Game] = {"durak": DURAK, "kazaki": KAZAKI}

# ------------------------------------------------------------------------------------------------ fake bots


class FirstLegal(BotBase):
    """Plays the first legal action and remembers what it was asked (``asked``: the legal lists)."""

    name = "first-legal"

    def __init__(self) -> None:
        self.asked: list[list[Action]] = []
        self.info: GameInfo | None = None
        self.results: list[Mapping[str, Any]] = []

    def new_game(self, info: GameInfo) -> None:
        self.info = info

    def act(self, decision: Decision) -> Action:
        self.asked.append(list(decision.legal))
        return self.choose(decision)

    def choose(self, decision: Decision) -> Action:
        return decision.legal[0]

    def game_over(self, result: Mapping[str, Any]) -> None:
        self.results.append(result)


class Raising(FirstLegal):
    """Raises ``exc`` on its first ``times`` decisions (every decision when ``times`` is None)."""

    name = "raising"

    def __init__(self, exc: BaseException, times: int | None = None) -> None:
        super().__init__()
        self.exc = exc
        self.times = times

    def choose(self, decision: Decision) -> Action:
        if self.times is None or len(self.asked) <= self.times:
            raise self.exc
        return decision.legal[0]


class TakeWhenIllegal(FirstLegal):
    """Answers ``take`` whenever ``take`` is not legal; otherwise the first legal action."""

    name = "take-when-illegal"

    def choose(self, decision: Decision) -> Action:
        take = Action("take")
        return decision.legal[0] if take in decision.legal else take


class AnswersText(FirstLegal):
    """Answers with the *text* of the first legal action: a string, not an :class:`Action`."""

    name = "answers-text"

    def choose(self, decision: Decision) -> Any:
        return decision.legal[0].text


class CrashInNewGame(FirstLegal):
    name = "crash-in-new-game"

    def new_game(self, info: GameInfo) -> None:
        raise RuntimeError("cannot start")


class CrashInGameOver(FirstLegal):
    name = "crash-in-game-over"

    def game_over(self, result: Mapping[str, Any]) -> None:
        raise RuntimeError("too late to fail")


class Watcher(FirstLegal):
    """A reproducible random player that keeps every observation's events, and the seat's view of the whole
    log at that moment (read from the live state, which the listener hands over before the first decision)."""

    name = "watcher"

    def __init__(self, holder: dict[str, State]) -> None:
        super().__init__()
        self.holder = holder
        self.batches: list[list[dict[str, Any]]] = []
        self.views: list[list[dict[str, Any]]] = []
        self.rng = random.Random(0)

    def new_game(self, info: GameInfo) -> None:
        self.info = info
        self.rng = random.Random(info.bot_seed)

    def choose(self, decision: Decision) -> Action:
        assert self.info is not None
        self.batches.append(decision.observation["events"])
        self.views.append(self.holder["state"].events(0, self.info.seat))
        return decision.legal[self.rng.randrange(len(decision.legal))]


# ------------------------------------------------------------------------------------------------ helpers


def trace(record: GameRecord) -> list[tuple[int, list[Action]]]:
    """(seat to act, legal actions) at every decision of a record, re-derived by replaying its actions."""
    game = GAMES[record.game]
    state = game.new_state(record.seats, record.seed, record.options, dealer=record.dealer)
    steps = []
    for text in record.actions:
        seat = state.to_act
        assert seat is not None, "the record goes on after the game ended"
        legal = list(state.legal_actions())
        steps.append((seat, legal))
        state.apply(state.parse_action(text))
    assert state.to_act is None, "the record stops before the game ended"
    return steps


def decisions_of(steps: list[tuple[int, list[Action]]], seat: int) -> list[int]:
    return [i for i, (s, _) in enumerate(steps) if s == seat]


def assert_default_played(record: GameRecord, steps: list[tuple[int, list[Action]]], indices: list[int]) -> None:
    for i in indices:
        legal = steps[i][1]
        assert record.actions[i] == default_action(legal).text, f"decision {i}"


# ------------------------------------------------------------------------------------------------ default action


def test_default_action_is_pass_when_legal() -> None:
    legal = [Action.parse("throw_in(7C)"), Action.parse("throw_in(7D)"), Action("pass")]
    assert default_action(legal) == Action("pass")


def test_default_action_is_first_when_pass_is_not_legal() -> None:
    legal = [Action.parse("defend(6C,7C)"), Action("take")]
    assert default_action(legal) == Action.parse("defend(6C,7C)")


# ------------------------------------------------------------------------------------------------ faults (C-7)


def test_a_clean_game_has_no_faults_and_equal_places() -> None:
    record = play_game(DURAK, [FirstLegal(), FirstLegal()], seed=7)
    trace(record)  # the game completes and every action is legal
    assert record.faults == ()
    assert record.result.to_dict()["faults"] == []
    assert record.result.places == record.result.rule_places
    assert record.result.finishing_order == record.result.rule_finishing_order
    assert record.bots == ["first-legal", "first-legal"]


def test_crash_in_act_is_recorded_and_the_seat_is_then_played_by_default() -> None:
    crasher = Raising(RuntimeError("boom\nsecond line of a traceback"))
    record = play_game(DURAK, [FirstLegal(), crasher], seed=7)
    steps = trace(record)  # completes: every recorded action is legal and the game ended
    mine = decisions_of(steps, 1)
    assert len(mine) > 1, "pick a seed where seat 1 decides more than once"
    assert record.faults == (Fault(1, "crash", mine[0], "boom"),)
    assert len(crasher.asked) == 1  # never asked again after the crash
    assert_default_played(record, steps, mine)
    assert record.result.to_dict()["faults"] == [{"seat": 1, "kind": "crash", "decision": mine[0], "message": "boom"}]


def test_an_answer_given_as_a_legal_actions_text_is_accepted() -> None:
    # The Bot interface takes one of decision.legal or its text (protocol/bot.py).
    texts = play_game(DURAK, [AnswersText(), FirstLegal()], seed=7)
    objects = play_game(DURAK, [FirstLegal(), FirstLegal()], seed=7)
    assert texts.faults == ()
    assert texts.actions == objects.actions


@pytest.mark.parametrize("bot_class", [TakeWhenIllegal])
def test_illegal_answer_is_a_fault_and_the_bot_is_asked_again(bot_class: type[FirstLegal]) -> None:
    bad = bot_class()
    record = play_game(DURAK, [bad, FirstLegal()], seed=7)
    steps = trace(record)
    mine = decisions_of(steps, 0)
    assert len(bad.asked) == len(mine)  # asked at every one of its decisions
    expected_faults = [i for i in mine if Action("take") not in steps[i][1]]
    assert expected_faults, "the fake must have answered illegally at least once"
    assert [f.decision for f in record.faults] == expected_faults
    assert {f.kind for f in record.faults} == {"illegal"}
    assert {f.seat for f in record.faults} == {0}
    assert_default_played(record, steps, expected_faults)


class AnswersJunk(FirstLegal):
    """Answers a long multi-line string."""

    name = "answers-junk"

    def choose(self, decision: Decision) -> Any:
        return "take\nsecond line " + "x" * 1000


def test_fault_messages_are_one_short_line_even_for_junk_answers() -> None:
    # Fault's contract: "a one-line message"; crash messages are cut to their first line and 300 characters.
    record = play_game(DURAK, [AnswersJunk(), FirstLegal()], seed=7)
    assert record.faults and {f.kind for f in record.faults} == {"illegal"}
    for fault in record.faults:
        assert "\n" not in fault.message, fault.message[:80]
        assert len(fault.message) <= 300


def test_crash_messages_are_one_short_line() -> None:
    record = play_game(DURAK, [Raising(RuntimeError("y" * 1000 + "\nmore")), FirstLegal()], seed=7)
    assert record.faults[0].message == "y" * 300


def test_crash_without_a_message_is_named_by_its_type() -> None:
    record = play_game(DURAK, [Raising(ZeroDivisionError()), FirstLegal()], seed=7)
    assert record.faults[0].message == "ZeroDivisionError"


def test_wrong_number_of_bots_or_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="2-6"):
        play_game(DURAK, [FirstLegal()], seed=1)
    with pytest.raises(ConfigError, match="colour"):
        play_game(DURAK, [FirstLegal(), FirstLegal()], seed=1, options={"colour": "red"})
    with pytest.raises(ConfigError, match="seed"):
        play_game(DURAK, [FirstLegal(), FirstLegal()], seed=-1)


def test_timeout_is_a_fault_and_the_bot_is_asked_again() -> None:
    slow = Raising(BotTimeout("no answer within 1.0 s"), times=1)
    record = play_game(DURAK, [slow, FirstLegal()], seed=7)
    steps = trace(record)
    mine = decisions_of(steps, 0)
    assert record.faults == (Fault(0, "timeout", mine[0], "no answer within 1.0 s"),)
    assert len(slow.asked) == len(mine) > 1
    assert_default_played(record, steps, mine[:1])


def test_stall_is_a_fault_and_the_bot_is_not_asked_again() -> None:
    stuck = Raising(BotStalled("stopped answering"), times=1)
    record = play_game(DURAK, [stuck, FirstLegal()], seed=7)
    steps = trace(record)
    mine = decisions_of(steps, 0)
    assert len(mine) > 1
    assert record.faults == (Fault(0, "stall", mine[0], "stopped answering"),)
    assert len(stuck.asked) == 1
    assert_default_played(record, steps, mine)


class Sleepy(FirstLegal):
    """Thinks ``seconds`` about each of the decisions numbered in ``slow`` (0-based, its own), none about the others.

    The seconds are those of its own clock (``clocked`` puts it under that clock): it moves the clock instead of
    sleeping, so the other answers take no time at all however loaded the machine is (with real sleeps, a 10 ms
    limit could be missed by an answer that thinks not at all)."""

    name = "sleepy"

    def __init__(self, seconds: float, slow: set[int] | None = None) -> None:
        super().__init__()
        self.seconds, self.slow = seconds, slow
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def clocked(self, move_time: float, time_bank: float = 0.0) -> Clocked:
        return Clocked(self, time=TimeControl(move_time=move_time, time_bank=time_bank), now=self.clock)

    def choose(self, decision: Decision) -> Action:
        if self.slow is None or len(self.asked) - 1 in self.slow:
            self.now += self.seconds
        return decision.legal[-1]  # not the default action: a timeout shows in the record


def test_an_in_process_answer_after_the_deadline_is_a_timeout_and_the_default_is_played() -> None:
    slow = Sleepy(0.12, slow={0})
    record = play_game(DURAK, [slow.clocked(move_time=0.02), FirstLegal()], seed=7)
    steps = trace(record)
    mine = decisions_of(steps, 0)
    assert [(f.seat, f.kind, f.decision) for f in record.faults] == [(0, "timeout", mine[0])]
    assert "limit is 20 ms" in record.faults[0].message
    assert len(slow.asked) == len(mine) > 1  # asked again, as a program bot is after a timeout
    assert_default_played(record, steps, mine[:1])
    assert record.bots[0] == "sleepy"


def test_three_late_in_process_answers_in_a_row_are_a_stall() -> None:
    slow = Sleepy(0.08)
    record = play_game(DURAK, [slow.clocked(move_time=0.01), FirstLegal()], seed=7)
    mine = decisions_of(trace(record), 0)
    assert [f.kind for f in record.faults] == ["timeout", "timeout", "stall"]
    assert [f.decision for f in record.faults] == mine[:3] and len(slow.asked) == 3


def test_the_time_bank_covers_a_slow_in_process_answer_once() -> None:
    slow = Sleepy(0.15, slow={0, 1})  # the first answer leaves 60 ms of the 200 ms bank: too little for the second
    record = play_game(DURAK, [slow.clocked(move_time=0.01, time_bank=0.2), FirstLegal()], seed=7)
    mine = decisions_of(trace(record), 0)
    assert [(f.kind, f.decision) for f in record.faults] == [("timeout", mine[1])]  # the first used the bank up


def test_registered_bots_are_made_under_the_clock() -> None:
    registry = load_registry()
    bot = parse_spec("random", registry).make(registry, time=TimeControl.from_ms(100, 200))
    assert isinstance(bot, Clocked) and bot.time == TimeControl(move_time=0.1, time_bank=0.2) and bot.name == "random"
    record = play_game(DURAK, [bot, FirstLegal()], seed=7)
    assert record.faults == ()


@pytest.mark.parametrize("kind", ["malformed", "oversized"])
def test_protocol_violation_keeps_its_kind(kind: str) -> None:
    bad = Raising(ProtocolViolation("bad message", kind=kind), times=1)
    record = play_game(DURAK, [bad, FirstLegal()], seed=7)
    steps = trace(record)
    assert [(f.seat, f.kind, f.decision) for f in record.faults] == [(0, kind, decisions_of(steps, 0)[0])]
    # match.py treats malformed and oversized data as final, like a crash: the bot's stream cannot be trusted
    assert len(bad.asked) == 1
    assert_default_played(record, steps, decisions_of(steps, 0))


def test_crash_in_new_game_is_a_fault_at_decision_zero_and_the_bot_is_never_asked() -> None:
    broken = CrashInNewGame()
    record = play_game(DURAK, [FirstLegal(), broken], seed=7)
    steps = trace(record)
    assert record.faults == (Fault(1, "crash", 0, "cannot start"),)
    assert broken.asked == []
    assert_default_played(record, steps, decisions_of(steps, 1))


def test_a_bot_failing_in_game_over_changes_nothing() -> None:
    first = FirstLegal()
    record = play_game(DURAK, [first, CrashInGameOver()], seed=7)
    assert record.faults == ()
    assert first.results == [record.result.to_dict()]


def test_a_bot_exiting_in_game_over_changes_nothing() -> None:
    class ExitInGameOver(FirstLegal):
        def game_over(self, result: Mapping[str, Any]) -> None:
            sys.exit(3)

    first = FirstLegal()
    record = play_game(DURAK, [ExitInGameOver(), first], seed=7)
    assert record.faults == ()
    assert first.results == [record.result.to_dict()]  # the seats after it still hear the result


def test_faults_never_change_the_rules_result_when_the_default_is_what_the_bot_would_play() -> None:
    # The crash happens at the bot's first decision, and the default action is the first legal one or pass:
    # the rules' result must be that of the same game with the faulted seat replaced by the referee's default.
    class DefaultPlayer(FirstLegal):
        def choose(self, decision: Decision) -> Action:
            return default_action(decision.legal)

    faulty = play_game(DURAK, [FirstLegal(), Raising(RuntimeError("boom"))], seed=11)
    clean = play_game(DURAK, [FirstLegal(), DefaultPlayer()], seed=11)
    assert faulty.actions == clean.actions
    assert faulty.result.rule_places == clean.result.rule_places
    assert faulty.result.scores == clean.result.scores


# ------------------------------------------------------------------------------------------------ policy


def _seed_where_seat_wins(game: Game, seats: int, seat: int) -> int:
    """A seed where ``seat``, timing out once and then playing first-legal, is placed 1st by the rules."""
    for seed in range(200):
        bots = [FirstLegal() for _ in range(seats)]
        bots[seat] = Raising(BotTimeout("late"), times=1)
        record = play_game(game, bots, seed=seed, policy="continue")
        if record.result.rule_places[seat] == 1 and record.faults:
            return seed
    raise AssertionError("no such seed in range(200)")


def test_forfeit_moves_a_faulted_seat_below_every_other_and_keeps_rule_places() -> None:
    seed = _seed_where_seat_wins(DURAK, 3, 0)
    bots = [Raising(BotTimeout("late"), times=1), FirstLegal(), FirstLegal()]
    record = play_game(DURAK, bots, seed=seed)  # forfeit is the default
    result = record.result.to_dict()
    assert record.policy == "forfeit"
    assert result["rule_places"][0] == 1
    assert result["places"][0] == 3
    assert result["finishing_order"][-1] == [0]
    assert all(0 not in group for group in result["finishing_order"][:-1])
    # the others keep their relative order: the rules' order without seat 0
    kept = [[s for s in g if s != 0] for g in result["rule_finishing_order"]]
    assert result["finishing_order"][:-1] == [g for g in kept if g]
    assert sorted(s for g in result["finishing_order"] for s in g) == [0, 1, 2]
    assert result["places"][1] < 3 and result["places"][2] < 3


def test_continue_keeps_the_rules_places_but_reports_the_faults() -> None:
    seed = _seed_where_seat_wins(DURAK, 3, 0)
    bots = [Raising(BotTimeout("late"), times=1), FirstLegal(), FirstLegal()]
    record = play_game(DURAK, bots, seed=seed, policy="continue")
    result = record.result.to_dict()
    assert record.policy == "continue"
    assert result["places"] == result["rule_places"]
    assert result["places"][0] == 1
    assert result["finishing_order"] == result["rule_finishing_order"]
    assert [f["kind"] for f in result["faults"]] == ["timeout"]


def test_policy_does_not_change_the_play() -> None:
    seed = _seed_where_seat_wins(DURAK, 3, 0)
    records = [play_game(DURAK, [Raising(BotTimeout("late"), times=1), FirstLegal(), FirstLegal()], seed=seed,
                         policy=policy) for policy in ("forfeit", "continue")]
    assert records[0].actions == records[1].actions
    assert records[0].faults == records[1].faults
    assert records[0].result.rule_places == records[1].result.rule_places


def test_forfeit_faulted_seats_share_the_last_place() -> None:
    bots = [Raising(BotTimeout("late"), times=1), FirstLegal(), Raising(BotStalled("gone"), times=1), FirstLegal()]
    record = play_game(DURAK, bots, seed=3)
    result = record.result.to_dict()
    assert {f.seat for f in record.faults} == {0, 2}
    assert result["finishing_order"][-1] == [0, 2]
    assert result["places"][0] == result["places"][2] == 3
    assert sorted(result["places"][s] for s in (1, 3)) in ([1, 2], [1, 1])


def test_apply_policy_forfeit_without_teams() -> None:
    order = [[1], [0, 2], [3]]
    faults = [Fault(0, "crash", 4), Fault(3, "illegal", 9), Fault(0, "illegal", 2)]
    assert apply_policy(order, faults, "forfeit") == [[1], [2], [0, 3]]
    assert apply_policy(order, faults, "continue") == [[1], [0, 2], [3]]
    assert apply_policy(order, [], "forfeit") == [[1], [0, 2], [3]]


def test_apply_policy_forfeit_moves_the_whole_team() -> None:
    teams = ((0, 2), (1, 3))
    assert apply_policy([[0, 2], [1, 3]], [Fault(2, "timeout", 5)], "forfeit", teams) == [[1, 3], [0, 2]]
    assert apply_policy([[0, 2], [1, 3]], [Fault(3, "timeout", 5)], "forfeit", teams) == [[0, 2], [1, 3]]
    assert apply_policy([[0, 2], [1, 3]], [Fault(2, "crash", 1)], "continue", teams) == [[0, 2], [1, 3]]
    # both teams faulted: everybody shares the last (and only) group
    assert apply_policy([[0, 2], [1, 3]], [Fault(0, "crash", 1), Fault(1, "crash", 2)], "forfeit",
                        teams) == [[0, 1, 2, 3]]


def test_apply_policy_does_not_modify_its_input() -> None:
    order = [[1], [0, 2]]
    apply_policy(order, [Fault(0, "crash", 0)], "forfeit")
    assert order == [[1], [0, 2]]


def test_unknown_policy_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="bogus"):
        apply_policy([[0], [1]], [], "bogus")
    with pytest.raises(ConfigError, match="forfeit"):
        play_game(DURAK, [FirstLegal(), FirstLegal()], seed=1, policy="bogus")


# ------------------------------------------------------------------------------------------------ bot seeds


def test_bot_seed_is_deterministic_and_differs_per_seat_and_per_seed() -> None:
    assert bot_seed(7, 0) == bot_seed(7, 0)
    seeds = {bot_seed(seed, seat) for seed in range(50) for seat in range(6)}
    assert len(seeds) == 50 * 6
    assert all(0 <= s < 2**64 for s in seeds)
    assert bot_seed(7, 0) != 7  # not the deal seed itself


def test_bots_get_their_game_info() -> None:
    bots = [FirstLegal(), FirstLegal(), FirstLegal()]
    play_game(KAZAKI, bots, seed=42, options={"transfer": "true"})
    for seat, bot in enumerate(bots):
        info = bot.info
        assert info is not None
        assert (info.game, info.seat, info.seats, info.teams) == ("kazaki", seat, 3, None)
        assert info.bot_seed == bot_seed(42, seat)
        assert info.options["transfer"] is True
        assert info.options["redeal_five"] is True  # defaults filled in


# ------------------------------------------------------------------------------------------------ information (C-8)


@pytest.mark.parametrize(("game_id", "seats"), [("kazaki", 2), ("kazaki", 4), ("durak", 3), ("durak", 6)])
@pytest.mark.parametrize("seed", [0, 1, 5])
def test_observation_events_are_exactly_those_since_the_seats_previous_decision(
        game_id: str, seats: int, seed: int) -> None:
    holder: dict[str, State] = {}

    def listener(state: State, events: list[dict[str, Any]]) -> None:
        holder.setdefault("state", state)

    bots = [Watcher(holder) for _ in range(seats)]
    play_game(GAMES[game_id], bots, seed=seed, listener=listener)
    for seat, bot in enumerate(bots):
        assert bot.batches, f"seat {seat} was never asked"
        seen: list[dict[str, Any]] = []
        for k, (batch, view) in enumerate(zip(bot.batches, bot.views, strict=True)):
            seen += batch
            assert seen == view, f"seat {seat}, decision {k}: gap or repeat in the observed events"


def test_listener_receives_every_event_in_order_before_and_after_each_step() -> None:
    calls: list[list[dict[str, Any]]] = []
    holder: dict[str, State] = {}
    asked_before_first_call: list[bool] = []
    bots = [FirstLegal(), FirstLegal(), FirstLegal()]

    def listener(state: State, events: list[dict[str, Any]]) -> None:
        holder["state"] = state
        if not calls:
            asked_before_first_call.append(any(b.asked for b in bots))
        calls.append(events)

    record = play_game(KAZAKI, bots, seed=9, listener=listener)
    assert asked_before_first_call == [False]  # the deal is narrated before anybody acts
    assert len(calls) == record.decisions + 1
    state = holder["state"]
    assert state.to_act is None
    everything = [e for batch in calls for e in batch]
    assert everything == state.events(0, None)
    assert everything[-1]["type"] == "end"


# ------------------------------------------------------------------------------------------------ the record


@pytest.mark.parametrize("bots", [
    lambda: [FirstLegal(), FirstLegal()],
    lambda: [Raising(RuntimeError("boom")), FirstLegal(), TakeWhenIllegal()],
    lambda: [Raising(BotTimeout("late"), times=2), FirstLegal(), FirstLegal(), CrashInNewGame()],
])
@pytest.mark.parametrize("game_id", ["durak", "kazaki"])
def test_the_records_actions_replay_to_the_same_result(game_id: str, bots: Any) -> None:
    record = play_game(GAMES[game_id], bots(), seed=21)
    assert record.decisions == len(record.actions)
    assert record.game == game_id
    assert record.seed == 21
    assert record.options == GAMES[game_id].configure()
    again = replay(record, GAMES.__getitem__)
    assert again.result == record.result
    assert again.actions == record.actions


def test_same_seed_and_bots_give_the_same_record() -> None:
    first = play_game(DURAK, [FirstLegal(), TakeWhenIllegal(), FirstLegal()], seed=99)
    second = play_game(DURAK, [FirstLegal(), TakeWhenIllegal(), FirstLegal()], seed=99)
    assert first.actions == second.actions
    assert first.faults == second.faults
    assert first.result == second.result


def test_a_game_of_timed_bots_asks_no_protocol_isinstance(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a bot keeps a clock or has a stderr is found by attribute (``kept_clock``, ``stderr_taker``): an
    ``isinstance`` against a runtime-checkable protocol costs about 17 µs, and once per decision (a timed in-process
    bot's stderr) it doubled the cost of a tournament of built-in bots."""
    import typing

    from bots.random import RandomBot
    from protocol.bot import HasStderr

    meta = type(HasStderr)
    checked: list[type] = []
    original = meta.__instancecheck__

    def counting(cls: type, instance: object) -> bool:
        checked.append(cls)
        return original(cls, instance)

    assert meta is typing._ProtocolMeta  # type: ignore[attr-defined]
    monkeypatch.setattr(meta, "__instancecheck__", counting)
    assert isinstance(RandomBot(), HasStderr) is False and checked == [HasStderr]  # the counter counts
    checked.clear()
    timed = [Clocked(RandomBot(), time=TimeControl.from_ms(1000)) for _ in range(2)]
    record = play_game(Durak(), timed, seed=3)
    assert record.decisions > 20 and not record.faults
    assert checked == []


def test_a_timed_in_process_bot_keeps_its_own_stderr() -> None:
    """Clocked hands on the bot's own stderr accessor (HasStderr): what it says is kept as a program bot's is."""
    from bots.random import RandomBot

    class Talker(RandomBot):
        def __init__(self) -> None:
            super().__init__()
            self.said = 0

        def take_stderr(self) -> str:
            self.said += 1
            return "thinking\n" if self.said == 1 else ""

    talker = Talker()
    record = play_game(Durak(), [Clocked(talker, time=TimeControl.from_ms(1000)), RandomBot()], seed=3)
    assert record.stderr == {0: "thinking\n"} and talker.said > 1
    assert [s.stderr for s in record.said.values()] == ["thinking\n"]  # with the decision it was said at
