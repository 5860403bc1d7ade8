"""3 play: legal actions over complete games, forced actions, two games, request ids, nothing unasked."""

from __future__ import annotations

from typing import Any

from ..harness import Event, Played, RemapIds, Run, Session
from ..verdicts import Finding, Level, broken, case, info, ok
from .helpers import PLAY_FAULTS, QUIET_TIME, fault_lines, games_text, no_faults, one_game, play_all, show


def _unasked(run: Run) -> list[tuple[Event, str]]:
    """Frames the bot sent that answer nothing: each with the last message the referee had sent before it."""
    allowance: dict[tuple[int, Any], int] = {}
    last: dict[int, str] = {}
    extra = []
    ended: set[int] = set()  # processes that were sent bye: what they write then is case 7.2's
    for event in run.events:
        if event.proc in ended:
            continue
        if event.kind == "sent":
            if event.type == "bye":
                ended.add(event.proc)
                continue
            last[event.proc] = str(event.type)
            if event.type == "hello":
                allowance[(event.proc, "hello")] = 1
            elif event.type == "request":
                allowance[(event.proc, event.value["id"])] = 1
        elif event.kind == "received":
            value = event.value
            key = (event.proc, "hello") if event.type in ("hello", "error") else (
                (event.proc, value.get("id")) if event.type == "action" and type(value.get("id")) is int else None)
            if key is not None and allowance.get(key, 0) > 0:
                allowance[key] -= 1
            else:
                extra.append((event, last.get(event.proc, "nothing")))
        elif event.kind == "garbage":  # bytes that are not even a frame answer nothing
            extra.append((event, last.get(event.proc, "nothing")))
    return extra



@case("3.1", "every action legal over complete games of each game and seat count", section="5.6, 7", level=Level.MUST)
def legal_actions(s: Session) -> Finding:
    games = s.shared("play", lambda: play_all(s))
    faults = fault_lines(games, PLAY_FAULTS)
    decisions = len(s.runs["play"].exchanges())
    if faults:
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        return broken(f"{len(faults)} fault{'s' if len(faults) > 1 else ''} over {games_text(games)}",
                      expected="one legal action per request", actual=faults[0] + more, faults=faults)
    return ok(f"{games_text(games)}, {decisions} requests: every answer legal", requests=decisions)


FORCED_TRIES = 4


@case("3.2", "a request with a single legal action is answered with it", section="5.5", level=Level.MUST)
def forced_action(s: Session) -> Finding:
    run = s.run("forced")
    games: list[Played] = []
    forced: list[tuple[Event, Event | None]] = []
    for k in range(FORCED_TRIES):
        program = s.program(run)
        seed = s.seed_for("forced", k)
        try:
            n = s.fewest()
            games.append(program.play(s.main_game, n, seat=seed % n, seed=seed))
        finally:
            program.close()
        forced = [(q, a) for q, a in run.exchanges() if len(q.value.get("legal", ())) == 1]
        if forced:
            break
    if not forced:
        return info(f"no request with a single legal action came up in {games_text(games)}")
    for request, answer in forced:
        only = request.value["legal"][0]
        if answer is None or answer.value.get("action") != only:
            return broken(f"a request with the single legal action {only!r} was not answered with it",
                          expected=f"action {{id: {request.value['id']}, action: {only!r}}}",
                          actual=show(answer) if answer is not None else "no answer")
    return ok(f"{len(forced)} request{'s' if len(forced) > 1 else ''} with a single legal action, each answered "
              "with it")


@case("3.3", "two games in one process, the second after a reset", section="1, 6", level=Level.MUST)
def two_games(s: Session) -> Finding:
    run = s.run("two-games")
    first, second = s.main_game, (s.games[1] if len(s.games) > 1 else s.main_game)
    counts = s.seat_counts(second)
    n1, n2 = s.fewest(first), counts[min(1, len(counts) - 1)]
    program = s.program(run)
    try:
        a = program.play(first, n1, seat=0, seed=s.seed_for("two-games", 1))
        b = program.play(second, n2, seat=n2 - 1, seed=s.seed_for("two-games", 2))
    finally:
        program.close()
    if len(program.probes) > 1:
        return broken("the bot exited between games and was started again",
                      expected="one process for both games (a bot exits only at bye or end of input)",
                      actual=f"{len(program.probes)} processes; the first ended with status {run.exit_codes[0]}")
    if b.faults and not a.faults:
        return broken("the second game in the same process went wrong", expected="the second game plays like the first",
                      actual=fault_lines([b])[0])
    return no_faults([a, b], "in one process")


@case("3.4", "every action carries its request's id, unchanged (ids above 2^32)", section="5.6, 6", level=Level.MUST)
def request_ids(s: Session) -> Finding:
    run, played = one_game(s, "ids", twist=RemapIds)
    for request, answer in run.exchanges():
        if answer is None:
            wire_id = request.value["id"]
            later = [e for e in run.events if e.kind == "received" and e.type == "action" and e.t >= request.t
                     and e.proc == request.proc]
            return broken("an answer did not carry its request's id",
                          expected=f"action {{id: {wire_id}, …}} (the request's id, unchanged)",
                          actual=show(later[0]) if later else "no action at all")
    if played.faults:
        return no_faults([played], "with request ids above 2^32")
    return ok(f"{len(run.exchanges())} answers, each with its request's id (ids from {RemapIds().base + 1009})")


@case("3.5", "no frame unless asked (after hello, new_game, game_over)", section="6", level=Level.MUST)
def nothing_unasked(s: Session) -> Finding:
    run = s.run("unasked")
    program = s.program(run)
    try:
        error = program.start()
        if error is not None:
            return broken("the handshake failed", expected="a hello", actual=str(error))
        assert program.probe is not None
        program.probe.listen(QUIET_TIME / 2)
        played = program.play(s.main_game, s.fewest(), seat=0,
                              seed=s.seed_for("unasked"))
        if program.probe is not None and program.probe.alive:
            program.probe.listen(QUIET_TIME)
    finally:
        program.close()
    extra = _unasked(run)
    if extra:
        event, after = extra[0]
        return broken(f"{len(extra)} frame{'s' if len(extra) > 1 else ''} that answer no hello or request",
                      expected="exactly one hello, and one action per request", actual=f"after {after}: {show(event)}")
    if played.faults:
        return no_faults([played], "in the game")
    return ok(f"one hello and {len(run.exchanges())} actions, nothing else (also {QUIET_TIME:g} s after game_over)")
