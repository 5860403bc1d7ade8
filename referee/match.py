"""Playing one game between bots: the decision loop, faults and the fault policy (RULES.md C-6, C-7, C-10).

The loop asks the seat to act for one of the legal actions. Anything else is a fault: it is recorded with its
kind and decision index, and the seat's *default action* is played instead (``pass`` if legal, otherwise the
first legal action). A seat whose fault ends its part (:attr:`FaultKind.ends_process`: crash, stall, malformed,
oversized) is not asked again in this game. When the game ends the
fault policy applies: ``forfeit`` (default) moves every faulted seat below every seat that did not fault;
``continue`` keeps the places the rules gave.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from protocol.actions import Action
from protocol.bot import NOTE_LIMIT, Answer, Bot, Decision, GameInfo, stderr_taker
from protocol.faults import Fault, FaultKind

from .clock import kept_clock
from .engine import Game, State, places_from_order
from .errors import BotError, ConfigError, IllegalActionError
from .idle import freeze_idle, idle_pending
from .results import GameResult
from .rng import derive_seed
from .said import DECISION_STDERR, SAID_CAP, STDERR_CAP, Said, keep_tail, said_within, tail_of

__all__ = ["Fault", "FaultKind", "GameRecord", "GameResult", "POLICIES", "apply_policy", "bot_seed",
           "check_policy", "choice_index", "default_action", "game_result", "is_forced", "play_game"]

POLICIES = ("forfeit", "continue")


def check_policy(policy: str) -> None:
    """:class:`ConfigError` for a fault policy that is not one of :data:`POLICIES`."""
    if policy not in POLICIES:
        raise ConfigError(f"unknown fault policy {policy!r} (choose from {', '.join(POLICIES)})")


@dataclass
class GameRecord:
    """A played game: everything needed to replay it, and its result (the record format, docs/RECORDS.md).

    The faults are held once, in the result; :attr:`faults` reads them there."""

    game: str
    seats: int
    seed: int
    dealer: int
    options: dict[str, bool | int | str]
    bots: list[str]
    actions: list[str]
    policy: str
    result: GameResult
    #: seat → what the bot wrote on stderr during this game, its decisions' parts included (program bots; capped)
    stderr: dict[int, str] = field(default_factory=dict)
    #: the index of each action in its decision's legal list (canonical order, C-7), as played or replayed; empty
    #: for a record read from a file and not replayed. Derived from the actions, so records compare without them.
    #: Compact storage keeps these instead of the texts.
    choices: list[int] = field(default_factory=list, compare=False)
    #: by decision: the microseconds its seat took to answer, as the referee measured them (a program bot: from its
    #: request written to its answer read; an in-process bot: around ``act``), None where the seat was not asked.
    #: Empty when not measured (an old record). Not derived from the actions, so records compare without them.
    times: list[int | None] = field(default_factory=list, compare=False)
    #: decision index → what its seat said there (:class:`Said`), only where it said something
    said: dict[int, Said] = field(default_factory=dict, compare=False)

    @property
    def faults(self) -> tuple[Fault, ...]:
        return self.result.faults

    @property
    def decisions(self) -> int:
        return len(self.actions)


def bot_seed(seed: int, seat: int) -> int:
    """A per-seat seed for a bot's own randomness. One-way, so it does not reveal the deal."""
    return derive_seed(seed, seat, sep=":")


def is_forced(legal: Sequence[Action]) -> bool:
    """C-6: a lone ``pass`` is applied without asking the seat, which therefore is shown nothing for it."""
    return len(legal) == 1 and legal[0].kind == "pass"


def default_action(legal: Sequence[Action]) -> Action:
    """C-7: ``pass`` if it is legal, otherwise the first action in canonical order."""
    for action in legal:
        if action.kind == "pass":
            return action
    return legal[0]


def apply_policy(
    finishing_order: Sequence[Sequence[int]],
    faults: Sequence[Fault],
    policy: str,
    teams: Sequence[Sequence[int]] | None = None,
) -> list[list[int]]:
    """The finishing order after the fault policy (C-7).

    ``forfeit``: faulted seats leave their groups and share one last group; in team games the whole team of
    a faulted seat goes there. ``continue``: unchanged.
    """
    check_policy(policy)
    order = [list(g) for g in finishing_order]
    faulted = {f.seat for f in faults}
    if policy == "continue" or not faulted:
        return order
    if teams:
        faulted = {s for team in teams if faulted & set(team) for s in team}
    kept = [[s for s in g if s not in faulted] for g in order]
    return [g for g in kept if g] + [sorted(faulted)]


def game_result(game: Game, state: State, faults: Sequence[Fault], policy: str) -> GameResult:
    """The C-10 result of a finished state, with the fault policy applied (C-7)."""
    rules = state.result()
    order = apply_policy(rules.finishing_order, faults, policy, game.teams(state.seats))
    return GameResult(
        game=game.id,
        n=state.seats,
        places=places_from_order(order, state.seats),
        rule_places=rules.places,
        finishing_order=tuple(tuple(g) for g in order),
        rule_finishing_order=tuple(tuple(g) for g in rules.finishing_order),
        scores=tuple(rules.scores),
        faults=tuple(faults),
        aborted=rules.aborted,
        extra=dict(rules.extra),
    )


Listener = Callable[[State, list[dict[str, Any]]], None]


def play_game(
    game: Game,
    bots: Sequence[Bot],
    *,
    seed: int,
    options: Mapping[str, object] | None = None,
    dealer: int = 0,
    policy: str = "forfeit",
    listener: Listener | None = None,
) -> GameRecord:
    """Play one game, one bot per seat in seat order, and return its record.

    ``listener``, if given, receives the new log entries (referee's view, wire form) after each step,
    for narration. Faults of the bots never raise: they are recorded (C-7).
    """
    check_policy(policy)
    n = len(bots)
    state = game.new_state(n, seed, options, dealer=dealer)
    teams = game.teams(n)
    faults: list[Fault] = []
    disabled = [False] * n
    for seat, bot in enumerate(bots):
        info = GameInfo(game=game.id, options=dict(state.options), seat=seat, seats=n, teams=teams,
                        bot_seed=bot_seed(seed, seat))
        try:
            bot.new_game(info)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of a bot is its fault, never ours
            faults.append(_fault(seat, 0, exc))
            disabled[seat] = True
    actions: list[str] = []
    choices: list[int] = []
    times: list[int | None] = []
    said: dict[int, Said] = {}
    written = [""] * n  # what each program bot wrote on stderr in this game (its decisions' parts included) …
    dropped = [0] * n  # … the last STDERR_CAP bytes of it, after this many
    cursors = [0] * n
    seen = 0
    if listener:
        listener(state, state.events(0, None))
        seen = state.log_size
    # The loop of every game played: the state's methods are looked up once, and a bot's answer that is one of the
    # legal objects (an in-process bot's usual answer) is found by identity, without comparing texts. What is applied
    # is always one of the legal objects, so it goes straight to the engine's _apply, whose contract is exactly that
    # (State.apply would search the legal list again).
    legal_actions, apply_legal, observe = state.legal_actions, state._apply, state.observe
    acts = [bot.act for bot in bots]
    # the clock of a bot that keeps one (a program bot, an in-process bot under the time limits) measures the time
    # its answer took (a program bot's from its request written to its answer read); others are timed here
    clocks = [kept_clock(bot) for bot in bots]
    stderrs = [stderr_taker(bot) for bot in bots]
    # An in-process bot thinks in this process: a program bot that has answered must not run on beside it (a program
    # bot waited for freezes the others itself after a short grace, referee/cgroups.py)
    in_process: list[bool] | None = None  # found when a program bot is first idle (only they can be)
    try:
        while (to_act := state.to_act) is not None:
            seat = to_act
            legal = legal_actions()
            played: Action | None = None
            choice = -1
            used: int | None = None
            # C-6: a lone pass is applied without asking (two or more actions never are: is_forced is not asked
            # then); a seat whose process ended is not asked (C-7)
            if not disabled[seat] and (len(legal) > 1 or not is_forced(legal)):
                since = cursors[seat]
                cursors[seat] = state.log_size
                if idle_pending():
                    if in_process is None:
                        in_process = [not _is_program(bot) for bot in bots]
                    if in_process[seat]:
                        freeze_idle()
                take, clock = stderrs[seat], clocks[seat]
                if clock is not None:
                    clock.used = None
                failure: BaseException | None = None
                start = time.perf_counter()
                try:
                    answer = acts[seat](Decision(seat, legal, partial(observe, seat, since)))
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - a bot's exception, even sys.exit, is a fault (C-7)
                    failure = exc
                elapsed = time.perf_counter() - start
                used = round((clock.used if clock is not None and clock.used is not None else elapsed) * 1e6)
                note = ""
                if failure is not None:
                    fault = _fault(seat, len(actions), failure)
                    faults.append(fault)
                    disabled[seat] = fault.kind.ends_process  # C-7: not asked again in this game
                else:
                    if type(answer) is Answer:
                        note, answer = _note(answer.note), answer.action
                    for i, candidate in enumerate(legal):
                        if candidate is answer:
                            played, choice = candidate, i
                            break
                    else:
                        played = _answer(state, legal, answer, seat, len(actions), faults)
                        if played is not None:
                            choice = choice_index(legal, played)
                err = _take(take) if take is not None else ""
                if err:  # kept to its tail as it grows: a bot that floods stderr costs no memory
                    written[seat], cut = tail_of(written[seat] + err, STDERR_CAP)
                    dropped[seat] += cut
                if note or err:
                    said[len(actions)] = Said(note, keep_tail(err, DECISION_STDERR))
            if played is None:
                played = default_action(legal)
                choice = choice_index(legal, played)
            apply_legal(played)  # the engine's own errors propagate: they are not the bot's fault
            actions.append(played.text)
            choices.append(choice)
            times.append(used)
            if listener:
                listener(state, state.events(seen, None))
                seen = state.log_size
    finally:
        if idle_pending():  # a game that ends, or raises: its program bots do not run on after their last answer
            freeze_idle()
    result = game_result(game, state, faults, policy)
    stderr: dict[int, str] = {}
    for seat, bot in enumerate(bots):
        try:  # the game is over: a bot failing now, even with sys.exit, changes nothing
            bot.game_over(result.to_dict())  # the Bot interface's plain result object, a copy for each bot
        except (Exception, SystemExit):  # noqa: BLE001,S110
            pass
        take = stderrs[seat]
        text = keep_tail(written[seat] + (_take(take) if take is not None else ""), STDERR_CAP, dropped[seat])
        if text:
            stderr[seat] = text
    return GameRecord(game.id, n, seed, dealer, dict(state.options), [getattr(b, "name", "?") for b in bots],
                      actions, policy, result, stderr, choices, times, said_within(said, SAID_CAP))


def _is_program(bot: Bot) -> bool:
    from .remote import RemoteBot  # loaded already: a program bot is one

    return isinstance(bot, RemoteBot)


def _take(take: Callable[[], str]) -> str:
    try:
        text = take()
    except Exception:  # noqa: BLE001 - a bot's own stderr accessor is its code, too
        return ""
    return text if isinstance(text, str) else ""


def _note(note: object) -> str:
    """A bot's note as kept: text, at most NOTE_LIMIT characters, the rest cut with a mark that says so."""
    if not isinstance(note, str):
        return f"[the note is {type(note).__name__}, not text]"
    if len(note) <= NOTE_LIMIT:
        return note
    return f"{note[:NOTE_LIMIT]}[… {len(note) - NOTE_LIMIT} more characters cut]"


def _answer(state: State, legal: Sequence[Action], answer: object, seat: int, index: int,
            faults: list[Fault]) -> Action | None:
    """The legal action a bot's answer names when it is not one of the legal objects: its text (a program bot
    always answers with the text; only the engine knows which legal action has it) or an equal action. None, and
    an ``illegal`` fault recorded, for anything else (C-7)."""
    try:
        if isinstance(answer, str):
            return state.parse_action(answer)
        if isinstance(answer, Action):
            for candidate in legal:
                if candidate == answer:
                    return candidate
    except IllegalActionError:
        pass
    faults.append(Fault(seat, FaultKind.ILLEGAL, index, f"{_one_line(str(answer))} is not a legal action"))
    return None


def choice_index(legal: Sequence[Action], action: Action) -> int:
    """The index of ``action`` in ``legal`` (-1 if it is not there: then applying it raises)."""
    for i, candidate in enumerate(legal):  # identity first, as State.apply looks
        if candidate is action:
            return i
    for i, candidate in enumerate(legal):
        if candidate == action:
            return i
    return -1


def _fault(seat: int, decision: int, exc: BaseException) -> Fault:
    """A bot's exception as a fault: a :class:`BotError` carries its kind; anything else is a crash (C-7)."""
    kind = exc.kind if isinstance(exc, BotError) else FaultKind.CRASH
    return Fault(seat, kind, decision, _one_line(str(exc)) or type(exc).__name__)


def _one_line(text: str, limit: int = 300) -> str:
    """Untrusted text made fit for a one-line message: the first line, cut to ``limit`` characters."""
    lines = text.splitlines()
    return lines[0][:limit] if lines else ""
