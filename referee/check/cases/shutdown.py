"""7 shutdown: bye and end of input end the process, and nothing follows bye."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from protocol.errors import BotError
from protocol.wire import bye

from ..harness import EXIT_TIME, Event, Played, Session
from ..verdicts import Finding, Level, broken, case, ok
from .helpers import QUIET_TIME, fault_lines, ms_text, show


@dataclass
class _Ending:
    played: Played
    code: int | None
    seconds: float
    after: list[Event]
    problem: str = ""
    after_game: list[Event] = field(default_factory=list)  # written after game_over, before bye (or end of input)


def _end_after_game(s: Session, name: str, how: str) -> _Ending:
    """One game, then ``bye`` (``how="bye"``) or end of input (``"eof"``); how the process ends."""
    run = s.run(name)
    program = s.program(run)
    seed = s.seed_for(name)
    n = s.fewest()
    try:
        played = program.play(s.main_game, n, seat=seed % n, seed=seed)
        probe = program.probe
        if probe is None or not probe.alive:
            return _Ending(played, None, 0.0, [], problem="the bot was not running after the game (see its faults)")
        game_end = len(run.events)
        probe.listen(QUIET_TIME / 3)  # what the bot writes after game_over answers nothing either (7.2)
        mark = len(run.events)
        after_game = [e for e in run.events[game_end:] if e.kind in ("received", "garbage")]
        if how == "bye":
            probe.send(bye(), time.monotonic() + 1.0)
        else:
            probe.close_stdin()
        start = time.monotonic()
        code = probe.wait_exit(EXIT_TIME)
        seconds = time.monotonic() - start
        after = [e for e in run.events[mark:] if e.kind in ("received", "garbage")]
        probe.close()
        program.bot.transport = None  # already ended: no second bye
        return _Ending(played, code, seconds, after, after_game=after_game)
    except BotError as exc:
        return _Ending(played, None, 0.0, [], problem=f"could not say {how}: {exc}")
    finally:
        program.close()


def _exit_outcome(ending: _Ending, what: str) -> Finding:
    expected = f"exit status 0 within {EXIT_TIME:g} s of {what}"
    if ending.problem:
        return broken(ending.problem, expected=expected, actual=fault_lines([ending.played])[0]
                      if ending.played.faults else ending.problem)
    if ending.code is None:
        return broken(f"still running {EXIT_TIME:g} s after {what}", expected=expected, actual="no exit (killed)")
    if ending.code != 0:
        return broken(f"exit status {ending.code} after {what}", expected=expected,
                      actual=f"status {ending.code} after {ms_text(ending.seconds)}")
    return ok(f"exit status 0 after {ms_text(ending.seconds)}", seconds=round(ending.seconds, 4))


@case("7.1", "bye: exit status 0 within 2 s", section="5.8, 10", level=Level.MUST)
def bye_exits(s: Session) -> Finding:
    return _exit_outcome(s.shared("bye", lambda: _end_after_game(s, "bye", "bye")), "bye")


@case("7.2", "bye: nothing more on stdout", section="5.8, 6", level=Level.MUST)
def quiet_after_bye(s: Session) -> Finding:
    ending = s.shared("bye", lambda: _end_after_game(s, "bye", "bye"))
    if ending.problem:
        return broken(ending.problem, expected="nothing on stdout after bye", actual=ending.problem)
    if ending.after_game:
        return broken("wrote on stdout after game_over, before bye", expected="nothing on stdout after the last "
                      "game_over and bye", actual=show(ending.after_game[0]))
    if ending.after:
        return broken("wrote on stdout after bye", expected="nothing on stdout after bye",
                      actual=show(ending.after[0]))
    return ok("nothing on stdout after bye")


@case("7.3", "end of input on stdin: exit status 0 within 2 s", section="1, 10", level=Level.MUST)
def eof_exits(s: Session) -> Finding:
    return _exit_outcome(_end_after_game(s, "eof", "eof"), "end of input")
