"""The catalogue of ``referee check``: named cases, each checking one rule of docs/PROTOCOL.md (docs/CHECK.md).

A :class:`Case` has an id (``2.1``), a group, a one-line title, the PROTOCOL.md section it checks, the level of
that rule (MUST, SHOULD or MAY) and a run function that returns an :class:`Outcome`. The verdict follows from both:

- the case passed: ``OK``; the case only records something: ``INFORMATIONAL``;
- it found a breach: ``FAILED`` for a MUST, ``NON-STRICT`` for a SHOULD, ``UNIMPLEMENTED`` for a MAY (an optional
  feature that is absent). A case may find a breach of another level than its own (a late answer within the grace
  breaks only a SHOULD of a MUST case).

Every case starts the bot afresh (or uses a shared run of the same session, like the complete games that cases
1.2, 1.3, 3.1 and 4.1 all look at), and derives its deals from the session seed and its own id, so
``referee check SPEC --cases ID --seed N`` plays the same games again.
"""

from __future__ import annotations

import fnmatch
import json
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol.actions import Action
from protocol.bot import BotBase, Decision
from protocol.errors import BotError, ConfigError, RefereeError
from protocol.remote import LATENCY_GRACE
from protocol.wire import PROTOCOL_VERSIONS, bye, hello, hello_problems, pack

from .harness import (
    EXIT_TIME,
    HANDSHAKE_TIME,
    KEYS_OTHER_TYPES,
    KEYS_V1,
    MOVE_TIME,
    REFEREE,
    SHORT_MOVE_TIME,
    Burst,
    Event,
    ExtraKeys,
    Joined,
    Played,
    Reencode,
    RemapIds,
    Run,
    Session,
    Split,
    UnknownTypes,
    jsonable,
    offer,
    unknown_message,
)

__all__ = ["Level", "Verdict", "Outcome", "Case", "CaseResult", "CATALOGUE", "GROUPS", "select", "run_case",
           "run_cases", "tally", "exit_code"]


class Level(StrEnum):
    """How strong the rule a case checks is (docs/PROTOCOL.md: *must*, *should*; optional features: *may*)."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"


class Verdict(StrEnum):
    OK = "OK"
    NON_STRICT = "NON-STRICT"
    FAILED = "FAILED"
    INFORMATIONAL = "INFORMATIONAL"
    UNIMPLEMENTED = "UNIMPLEMENTED"


_BREACH = {Level.MUST: Verdict.FAILED, Level.SHOULD: Verdict.NON_STRICT, Level.MAY: Verdict.UNIMPLEMENTED}


@dataclass(frozen=True)
class Outcome:
    """What a case found. ``passed``: True, False (a breach, of ``breach`` or else the case's level) or None
    (recorded only). ``expected``/``actual`` explain a breach; ``data`` holds measurements for the report."""

    passed: bool | None
    detail: str
    expected: str = ""
    actual: str = ""
    breach: Level | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


def ok(detail: str, **data: Any) -> Outcome:
    return Outcome(True, detail, data=data)


def info(detail: str, **data: Any) -> Outcome:
    return Outcome(None, detail, data=data)


def broken(detail: str, *, expected: str, actual: str, breach: Level | None = None, **data: Any) -> Outcome:
    return Outcome(False, detail, expected, actual, breach, data)


@dataclass(frozen=True)
class Case:
    """One named check. ``needs_hello``: the case needs a bot that completes the handshake."""

    id: str
    group: str
    title: str
    section: str
    level: Level
    run: Callable[[Session], Outcome] = field(repr=False, compare=False)
    needs_hello: bool = True

    def verdict(self, outcome: Outcome) -> Verdict:
        if outcome.passed is None:
            return Verdict.INFORMATIONAL
        if outcome.passed:
            return Verdict.OK
        return _BREACH[outcome.breach or self.level]

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "group": self.group, "title": self.title, "section": self.section,
                "level": self.level.value}


@dataclass
class CaseResult:
    case: Case
    outcome: Outcome
    verdict: Verdict
    seconds: float
    runs: list[str]


# ------------------------------------------------------------------------------------------------ helpers

QUIET_TIME = 0.3  # how long the suite listens for frames the bot should not send
_FATAL = ("illegal", "malformed", "oversized", "crash")  # faults case 3.1 looks at; 4.1 takes timeout and stall


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _show(event: Event | None, limit: int = 160) -> str:
    """A received or sent frame in one line: its JSON, or the bytes (hex and text) that were not a frame."""
    if event is None:
        return "nothing"
    if event.kind == "garbage":
        text = event.data[:48].decode("ascii", "replace")
        text = "".join(c if " " <= c <= "~" else "." for c in text)
        return f"bytes {event.data[:24].hex(' ')}{' …' if len(event.data) > 24 else ''} ({text!r}): {event.note}"
    text = json.dumps(jsonable(event.value), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + " …"


def _fault_line(played: Played, fault: Any) -> str:
    return f"{played.where()}, decision {fault.decision}: {fault.kind}: {fault.message}"


def _faults(games: Sequence[Played], kinds: Iterable[str] | None = None) -> list[str]:
    wanted = set(kinds) if kinds is not None else None
    return [_fault_line(p, f) for p in games for f in p.faults if wanted is None or f.kind in wanted]


def _games_text(games: Sequence[Played]) -> str:
    by_game: dict[str, list[int]] = {}
    for p in games:
        by_game.setdefault(p.game, []).append(p.seats)
    parts = []
    for game_id, seats in by_game.items():
        lo, hi = min(seats), max(seats)
        parts.append(f"{game_id} {lo}-{hi} seats" if lo != hi else f"{game_id} {lo} seats")
    return f"{len(games)} game{'s' if len(games) != 1 else ''} ({', '.join(parts)})"


def _no_faults(games: Sequence[Played], what: str, **data: Any) -> Outcome:
    """OK when the bot had no fault in ``games``; else the first fault as the actual outcome."""
    faults = _faults(games)
    if faults:
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        return broken(f"{len(faults)} fault{'s' if len(faults) > 1 else ''} {what}",
                      expected="complete games without a fault", actual=faults[0] + more, faults=faults, **data)
    return ok(f"{_games_text(games)} {what}: no fault", **data)


def _stats(latencies: Sequence[float]) -> dict[str, float]:
    if not latencies:
        return {}
    ordered = sorted(latencies)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"replies": len(ordered), "p50_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(pct(0.95) * 1000, 3), "max_ms": round(ordered[-1] * 1000, 3)}


def _stats_text(stats: Mapping[str, float]) -> str:
    if not stats:
        return "no replies"
    return (f"{stats['replies']} replies: p50 {stats['p50_ms']:.1f} ms, p95 {stats['p95_ms']:.1f} ms, "
            f"max {stats['max_ms']:.1f} ms")


def _one_game(s: Session, name: str, *, twist: Callable[[], Any] | None = None, move_time: float | None = None,
              seats: int | None = None, options: dict[str, Any] | None = None,
              opponents: list[Any] | None = None, game: str | None = None) -> tuple[Run, Played]:
    """One complete game of the main game (fewest seats) in a fresh process, then bye."""
    run = s.run(name)
    program = s.program(run, twist=twist, **({"move_time": move_time} if move_time else {}))
    game_id = game or s.main_game
    n = seats or s.registry.game(game_id).min_seats
    seed = s.seed_for(name, game_id, n)
    try:
        played = program.play(game_id, n, seat=seed % n, seed=seed, options=options, opponents=opponents)
    finally:
        program.close()
    return run, played


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


class _Blunder(BotBase):
    """An in-process opponent that plays one illegal action, so that a ``game_over`` carries a fault."""

    name = "blunder"

    def __init__(self) -> None:
        self.done = False

    def act(self, decision: Decision) -> Action:
        if not self.done:
            self.done = True
            return "x_check_illegal"  # type: ignore[return-value]  # recorded as an 'illegal' fault
        return decision.legal[0]


# ------------------------------------------------------------------------------------------------ 1 process


def quiet_before_hello(s: Session) -> Outcome:
    run = s.run("quiet")
    probe = run.probe()
    heard = probe.listen(QUIET_TIME)
    early = [e for e in run.events if e.kind in ("received", "garbage")]
    if early or heard == "eof":
        probe.close()
        if early:
            return broken(f"wrote on stdout before the referee's hello (within {QUIET_TIME:g} s of the start)",
                          expected="no byte on stdout before the referee's hello", actual=_show(early[0]))
        return broken("closed its stdout before the referee's hello", expected="waits for the referee's hello",
                      actual=f"end of output (status {probe.exit_code})")
    try:  # end politely; the handshake itself is case 2.1's
        deadline = time.monotonic() + HANDSHAKE_TIME
        probe.send(hello(PROTOCOL_VERSIONS, REFEREE), deadline)
        probe.receive(deadline)
        probe.send(bye(), time.monotonic() + 1.0)
    except BotError:
        pass
    finally:
        probe.close(grace=EXIT_TIME)
    return ok(f"nothing on stdout during the first {QUIET_TIME:g} s")


def _play_all(s: Session) -> list[Played]:
    """Shared by 1.2, 1.3, 3.1 and 4.1: one complete game per game and seat count, each in a fresh process."""
    run = s.run("play")
    games = []
    for game_id in s.games:
        counts = s.seat_counts(game_id)
        for n in counts:
            if s.asked() is not None and n not in (counts[0], counts[-1]):
                continue  # a slow bot (docs/CHECK.md, "Time"): the fewest and the most seats only
            seed = s.seed_for("play", game_id, n)
            program = s.program(run)
            try:
                games.append(program.play(game_id, n, seat=seed % n, seed=seed))
            finally:
                program.close()
    return games


def all_frames(s: Session) -> Outcome:
    games = s.shared("play", lambda: _play_all(s))
    run = s.runs["play"]
    bad = run.garbage()
    if bad:
        return broken("bytes on stdout that are not msgpack map frames",
                      expected="only msgpack maps on stdout", actual=_show(bad[0]))
    received = run.received()
    return ok(f"{len(received)} frames, {sum(e.size for e in received)} bytes over {_games_text(games)}")


def stderr_tail(s: Session) -> Outcome:
    games = s.shared("play", lambda: _play_all(s))
    run = s.runs["play"]
    if not run.stderr_bytes:
        return info(f"nothing on stderr over {_games_text(games)}", stderr_bytes=0)
    lines = run.stderr.rstrip().splitlines()
    last = lines[-1] if lines else ""
    return info(f"{run.stderr_bytes} bytes on stderr over {_games_text(games)}; last line: {last[:100]!r}",
                stderr_bytes=run.stderr_bytes)


# ------------------------------------------------------------------------------------------------ 2 handshake


_HELLO_SHAPE = "{type: hello, version: one of the offered, name: non-empty str, games: nil or array of str}"


def hello_in_time(s: Session) -> Outcome:
    reply, problem, seconds = s.handshake()
    if reply is None:
        return broken("no hello", expected=f"a hello within {HANDSHAKE_TIME:g} s", actual=problem)
    if reply.get("type") != "hello":
        return broken("refused the handshake", expected="hello", actual=_frame(reply))
    return ok(f"hello after {_ms(seconds)}", seconds=round(seconds, 4))


def _frame(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False)[:200]


def hello_valid(s: Session) -> Outcome:
    reply, problem, _ = s.handshake()
    if reply is None or reply.get("type") != "hello":
        return broken("no hello to check (see 2.1)", expected=_HELLO_SHAPE,
                      actual=problem or _frame(reply))
    problems = hello_problems(reply, PROTOCOL_VERSIONS, every_key=True)
    if problems:
        return broken("; ".join(problems), expected=_HELLO_SHAPE, actual=_frame(reply))
    games = reply["games"]
    return ok(f"version {reply['version']}, name {reply['name']!r}, "
              f"games {', '.join(games) if games is not None else 'nil (any game)'}")


def _offer(s: Session, name: str, versions: list[int]) -> tuple[dict[str, Any] | None, str, int | None, Run]:
    """Offer ``versions`` in a run of its own; the answer, what went wrong, the exit status after an error."""
    run = s.run(name)
    reply, problem, _, code = offer(run, versions)
    return reply, problem, code, run


FUTURE_VERSION = 99


def newer_versions(s: Session) -> Outcome:
    offered = [*PROTOCOL_VERSIONS, FUTURE_VERSION]
    reply, problem, _, _ = _offer(s, "versions", offered)
    expected = f"hello with version {PROTOCOL_VERSIONS[-1]} (offered {offered}; {FUTURE_VERSION} does not exist)"
    if reply is None:
        return broken("no answer to a hello that offers a version the bot does not know", expected=expected,
                      actual=problem, breach=Level.MUST)
    if reply.get("type") == "error":
        return broken("refused a hello that also offers an unknown version", expected=expected, actual=_frame(reply))
    version = reply.get("version")
    if version in PROTOCOL_VERSIONS and not isinstance(version, bool):
        return ok(f"picked version {version} of {offered}")
    if version in offered:
        return broken(f"picked version {version!r}, which it cannot speak (it does not exist)", expected=expected,
                      actual=_frame(reply))
    return broken(f"picked version {version!r}, which was not offered", expected=expected, actual=_frame(reply),
                  breach=Level.MUST)


def no_common_version(s: Session) -> Outcome:
    offered = [FUTURE_VERSION]
    reply, problem, code, run = _offer(s, "no-common-version", offered)
    expected = f"error {{message: one line}}, then exit within {EXIT_TIME:g} s"
    if reply is None:
        return broken("no answer to a hello offering only an unknown version", expected=expected, actual=problem)
    if reply.get("type") != "error":
        return broken("answered hello although no version is common", expected=expected, actual=_frame(reply))
    message = reply.get("message")
    if not isinstance(message, str) or not message.strip():
        return broken("error without a message", expected=expected, actual=_frame(reply))
    if code is None:
        return broken(f"sent error but did not exit within {EXIT_TIME:g} s", expected=expected,
                      actual=f"{_frame(reply)}, still running")
    return ok(f"error {message[:80]!r}, exit status {code}", exit_code=code)


# ------------------------------------------------------------------------------------------------ 3 play


def legal_actions(s: Session) -> Outcome:
    games = s.shared("play", lambda: _play_all(s))
    faults = _faults(games, _FATAL)
    decisions = len(s.runs["play"].exchanges())
    if faults:
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        return broken(f"{len(faults)} fault{'s' if len(faults) > 1 else ''} over {_games_text(games)}",
                      expected="one legal action per request", actual=faults[0] + more, faults=faults)
    return ok(f"{_games_text(games)}, {decisions} requests: every answer legal", requests=decisions)


FORCED_TRIES = 4


def forced_action(s: Session) -> Outcome:
    run = s.run("forced")
    game = s.registry.game(s.main_game)
    games: list[Played] = []
    forced: list[tuple[Event, Event | None]] = []
    for k in range(FORCED_TRIES):
        program = s.program(run)
        seed = s.seed_for("forced", k)
        try:
            games.append(program.play(s.main_game, game.min_seats, seat=seed % game.min_seats, seed=seed))
        finally:
            program.close()
        forced = [(q, a) for q, a in run.exchanges() if len(q.value.get("legal", ())) == 1]
        if forced:
            break
    if not forced:
        return info(f"no request with a single legal action came up in {_games_text(games)}")
    for request, answer in forced:
        only = request.value["legal"][0]
        if answer is None or answer.value.get("action") != only:
            return broken(f"a request with the single legal action {only!r} was not answered with it",
                          expected=f"action {{id: {request.value['id']}, action: {only!r}}}",
                          actual=_show(answer) if answer is not None else "no answer")
    return ok(f"{len(forced)} request{'s' if len(forced) > 1 else ''} with a single legal action, each answered "
              "with it")


def two_games(s: Session) -> Outcome:
    run = s.run("two-games")
    first, second = s.main_game, (s.games[1] if len(s.games) > 1 else s.main_game)
    g1, g2 = s.registry.game(first), s.registry.game(second)
    n1, n2 = g1.min_seats, min(g2.min_seats + 1, g2.max_seats)
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
                      actual=_faults([b])[0])
    return _no_faults([a, b], "in one process")


def request_ids(s: Session) -> Outcome:
    run, played = _one_game(s, "ids", twist=RemapIds)
    for request, answer in run.exchanges():
        if answer is None:
            wire_id = request.value["id"]
            later = [e for e in run.events if e.kind == "received" and e.type == "action" and e.t >= request.t
                     and e.proc == request.proc]
            return broken("an answer did not carry its request's id",
                          expected=f"action {{id: {wire_id}, …}} (the request's id, unchanged)",
                          actual=_show(later[0]) if later else "no action at all")
    if played.faults:
        return _no_faults([played], "with request ids above 2^32")
    return ok(f"{len(run.exchanges())} answers, each with its request's id (ids from {RemapIds().base + 1009})")


def nothing_unasked(s: Session) -> Outcome:
    run = s.run("unasked")
    program = s.program(run)
    try:
        error = program.start()
        if error is not None:
            return broken("the handshake failed", expected="a hello", actual=str(error))
        assert program.probe is not None
        program.probe.listen(QUIET_TIME / 2)
        played = program.play(s.main_game, s.registry.game(s.main_game).min_seats, seat=0,
                              seed=s.seed_for("unasked"))
        if program.probe is not None and program.probe.alive:
            program.probe.listen(QUIET_TIME)
    finally:
        program.close()
    extra = _unasked(run)
    if extra:
        event, after = extra[0]
        return broken(f"{len(extra)} frame{'s' if len(extra) > 1 else ''} that answer no hello or request",
                      expected="exactly one hello, and one action per request", actual=f"after {after}: {_show(event)}")
    if played.faults:
        return _no_faults([played], "in the game")
    return ok(f"one hello and {len(run.exchanges())} actions, nothing else (also {QUIET_TIME:g} s after game_over)")


# ------------------------------------------------------------------------------------------------ 4 timing


def _timing(run: Run, games: Sequence[Played], move_time: float, kinds: Iterable[str] | None) -> Outcome:
    stats: dict[str, Any] = _stats(run.latencies())
    deadline_ms = int(move_time * 1000)
    text = f"{_stats_text(stats)} (deadline_ms {deadline_ms})"
    faults = _faults(games, kinds)
    if faults:
        return broken(f"{len(faults)} late or missing answer{'s' if len(faults) > 1 else ''}; {text}",
                      expected=f"every action within deadline_ms ({deadline_ms} ms; the referee allows "
                               f"{int(LATENCY_GRACE * 1000)} ms more)", actual=faults[0], **stats)
    late = [t for t in run.latencies() if t > move_time]
    if late:
        return broken(f"{len(late)} answer{'s' if len(late) > 1 else ''} after deadline_ms (within the grace); {text}",
                      expected=f"every action within deadline_ms ({deadline_ms} ms), not in the grace",
                      actual=f"slowest answer after {_ms(max(late))}", breach=Level.SHOULD, **stats)
    return ok(text, **stats)


def within_deadline(s: Session) -> Outcome:
    games = s.shared("play", lambda: _play_all(s))
    return _timing(s.runs["play"], games, MOVE_TIME, ("timeout", "stall"))


def short_deadline(s: Session) -> Outcome:
    run, played = _one_game(s, "short-deadline", move_time=SHORT_MOVE_TIME)
    return _timing(run, [played], SHORT_MOVE_TIME, None)


# ------------------------------------------------------------------------------------------------ 5 messages


def unknown_types(s: Session) -> Outcome:
    run = s.run("unknown-types")
    program = s.program(run, twist=UnknownTypes)
    try:
        error = program.start()
        if error is not None:
            return broken("the handshake failed", expected="a hello", actual=str(error))
        probe = program.probe
        assert probe is not None
        frames = [(pack(m), m) for m in (unknown_message(100 + k) for k in range(3))]
        probe.write(frames, time.monotonic() + HANDSHAKE_TIME, note="unknown message types, after the handshake")
        probe.listen(QUIET_TIME / 2)
        answers = [e for e in run.events if e.kind in ("received", "garbage") and e.type != "hello"]
        if answers:
            return broken("answered an unknown message", expected="unknown messages are ignored: no answer",
                          actual=_show(answers[0]))
        seed = s.seed_for("unknown-types")
        n = s.registry.game(s.main_game).min_seats
        played = program.play(s.main_game, n, seat=seed % n, seed=seed)
    finally:
        program.close()
    return _no_faults([played], "with an unknown message before every message")


def unknown_keys(s: Session) -> Outcome:
    _, played = _one_game(s, "unknown-keys", twist=lambda: ExtraKeys(KEYS_V1))
    return _no_faults([played], "with unknown keys in every message and map")


def other_types(s: Session) -> Outcome:
    _, played = _one_game(s, "other-types", twist=lambda: ExtraKeys(KEYS_OTHER_TYPES))
    return _no_faults([played], "with unknown keys holding float, bin and ext values")


def wide_ints(s: Session) -> Outcome:
    _, played = _one_game(s, "wide-ints", twist=lambda: Reencode("int"))
    return _no_faults([played], "with every integer in a wider encoding (uint8 … uint64, int8 … int64)")


def wide_strs(s: Session) -> Outcome:
    _, played = _one_game(s, "wide-strs", twist=lambda: Reencode("str"))
    return _no_faults([played], "with every string as str8, str16 or str32")


def wide_containers(s: Session) -> Outcome:
    _, played = _one_game(s, "wide-containers", twist=lambda: Reencode("container"))
    return _no_faults([played], "with every map and array as map16/map32, array16/array32")


def every_message(s: Session) -> Outcome:
    games = []
    for game_id in s.games:
        game = s.registry.game(game_id)
        flipped = {o.name: not o.default for o in game.options if isinstance(o.default, bool)}
        try:
            game.configure(flipped)
        except ConfigError:
            flipped = {}
        n = min(3, game.max_seats) if game.min_seats <= 3 else game.min_seats
        opponents = [_Blunder(), *s.opponents(n - 2)]
        _, played = _one_game(s, f"all-forms-{game_id}", game=game_id, seats=n, options=flipped or None,
                              opponents=opponents)
        games.append(played)
    return _no_faults(games, "with every boolean option flipped and a fault in game_over")


# ------------------------------------------------------------------------------------------------ 6 robustness


def split_frames(s: Session) -> Outcome:
    _, played = _one_game(s, "split", twist=Split, move_time=1.0)
    return _no_faults([played], "with every frame written one byte per write")


def joined_frames(s: Session) -> Outcome:
    run, played = _one_game(s, "joined", twist=Joined)
    joined = sum(1 for e in run.events if e.kind == "sent" and "in one write" in e.note)
    return _no_faults([played], f"with new_game + request and game_over + bye written together ({joined} writes)")


def burst(s: Session) -> Outcome:
    _, played = _one_game(s, "burst", twist=Burst, move_time=1.0)
    return _no_faults([played], "with 2000 unknown messages before the first request")


# ------------------------------------------------------------------------------------------------ 7 shutdown


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
    n = s.registry.game(s.main_game).min_seats
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


def _exit_outcome(ending: _Ending, what: str) -> Outcome:
    expected = f"exit status 0 within {EXIT_TIME:g} s of {what}"
    if ending.problem:
        return broken(ending.problem, expected=expected, actual=_faults([ending.played])[0]
                      if ending.played.faults else ending.problem)
    if ending.code is None:
        return broken(f"still running {EXIT_TIME:g} s after {what}", expected=expected, actual="no exit (killed)")
    if ending.code != 0:
        return broken(f"exit status {ending.code} after {what}", expected=expected,
                      actual=f"status {ending.code} after {_ms(ending.seconds)}")
    return ok(f"exit status 0 after {_ms(ending.seconds)}", seconds=round(ending.seconds, 4))


def bye_exits(s: Session) -> Outcome:
    return _exit_outcome(s.shared("bye", lambda: _end_after_game(s, "bye", "bye")), "bye")


def quiet_after_bye(s: Session) -> Outcome:
    ending = s.shared("bye", lambda: _end_after_game(s, "bye", "bye"))
    if ending.problem:
        return broken(ending.problem, expected="nothing on stdout after bye", actual=ending.problem)
    if ending.after_game:
        return broken("wrote on stdout after game_over, before bye", expected="nothing on stdout after the last "
                      "game_over and bye", actual=_show(ending.after_game[0]))
    if ending.after:
        return broken("wrote on stdout after bye", expected="nothing on stdout after bye",
                      actual=_show(ending.after[0]))
    return ok("nothing on stdout after bye")


def eof_exits(s: Session) -> Outcome:
    return _exit_outcome(_end_after_game(s, "eof", "eof"), "end of input")


# ------------------------------------------------------------------------------------------------ 8 determinism


def determinism(s: Session) -> Outcome:
    game = s.registry.game(s.main_game)
    n = game.min_seats
    seed = s.seed_for("determinism")
    records = []
    asked = s.asked() or 10**9  # the same number of decisions asked in both runs, even of a slow bot
    for k in (1, 2):
        run = s.run(f"determinism-{k}")
        program = s.program(run)
        try:
            records.append(program.play(s.main_game, n, seat=seed % n, seed=seed, asked=asked))
        finally:
            program.close()
    faults = _faults(records)
    if faults:
        return broken("the games to compare had faults", expected="two games without a fault",
                      actual=faults[0], breach=Level.MUST)
    mine = [[e.value.get("action") for e in s.runs[f"determinism-{k}"].received() if e.type == "action"]
            for k in (1, 2)]
    if mine[0] != mine[1]:
        at = next((i for i, (x, y) in enumerate(zip(mine[0], mine[1], strict=False)) if x != y),
                  min(len(mine[0]), len(mine[1])))
        first = mine[0][at] if at < len(mine[0]) else "nothing"
        second = mine[1][at] if at < len(mine[1]) else "nothing"
        return broken(f"two runs with seed {seed} differ at the bot's answer {at + 1}",
                      expected="the same answers for the same seed (bot_seed)",
                      actual=f"{first!r} in the first run, {second!r} in the second")
    return ok(f"two runs with seed {seed}: the same {len(mine[0])} answers")


# ------------------------------------------------------------------------------------------------ catalogue

GROUPS = {"1": "process", "2": "handshake", "3": "play", "4": "timing", "5": "messages", "6": "robustness",
          "7": "shutdown", "8": "determinism"}

M, S, Y = Level.MUST, Level.SHOULD, Level.MAY

CATALOGUE: tuple[Case, ...] = (
    Case("1.1", "process", "nothing on stdout before the referee's hello", "2, 5.2", M, quiet_before_hello, False),
    Case("1.2", "process", "everything on stdout decodes as msgpack map frames", "2, 3", M, all_frames),
    Case("1.3", "process", "stderr is drained and its tail kept (recorded)", "10", Y, stderr_tail),
    Case("2.1", "handshake", "answers hello with hello within 5 s", "8", M, hello_in_time, False),
    Case("2.2", "handshake", "hello picks an offered version, has a name and games", "5.2", M, hello_valid, False),
    Case("2.3", "handshake", "offered an unknown version too, picks one it speaks", "11", S, newer_versions, False),
    Case("2.4", "handshake", "no common version: error with a message, then exit", "5.3, 11", M,
         no_common_version, False),
    Case("3.1", "play", "every action legal over complete games of each game and seat count", "5.6, 7", M,
         legal_actions),
    Case("3.2", "play", "a request with a single legal action is answered with it", "5.5", M, forced_action),
    Case("3.3", "play", "two games in one process, the second after a reset", "1, 6", M, two_games),
    Case("3.4", "play", "every action carries its request's id, unchanged (ids above 2^32)", "5.6, 6", M,
         request_ids),
    Case("3.5", "play", "no frame unless asked (after hello, new_game, game_over)", "6", M, nothing_unasked),
    Case("4.1", "timing", "every action within deadline_ms; p50/p95/max recorded", "8", M, within_deadline),
    Case("4.2", "timing", f"a short deadline ({int(SHORT_MOVE_TIME * 1000)} ms) is still met", "8", M,
         short_deadline),
    Case("5.1", "messages", "unknown message types are ignored", "6", M, unknown_types),
    Case("5.2", "messages", "unknown keys are ignored", "6, 11", M, unknown_keys),
    Case("5.3", "messages", "unknown values of other types (float, bin, ext) are skipped", "3", S, other_types),
    Case("5.4", "messages", "integers in wider encodings are accepted", "3", M, wide_ints),
    Case("5.5", "messages", "strings as str8, str16, str32 are accepted", "3", M, wide_strs),
    Case("5.6", "messages", "maps and arrays as map16/32, array16/32 are accepted", "3", M, wide_containers),
    Case("5.7", "messages", "every message in all its forms (options, faults in game_over)", "5", M, every_message),
    Case("6.1", "robustness", "frames split byte by byte", "3", M, split_frames),
    Case("6.2", "robustness", "several frames in one write", "3", M, joined_frames),
    Case("6.3", "robustness", "a burst of 2000 unknown messages, more than a pipe holds", "2, 6", M, burst),
    Case("7.1", "shutdown", "bye: exit status 0 within 2 s", "5.8, 10", M, bye_exits),
    Case("7.2", "shutdown", "bye: nothing more on stdout", "5.8, 6", M, quiet_after_bye),
    Case("7.3", "shutdown", "end of input on stdin: exit status 0 within 2 s", "1, 10", M, eof_exits),
    Case("8.1", "determinism", "the same seed gives the same answers", "5.4", Y, determinism),
)


# ------------------------------------------------------------------------------------------------ running


def select(patterns: Sequence[str], catalogue: Sequence[Case] = CATALOGUE) -> list[Case]:
    """The cases matching any pattern, in catalogue order. A pattern is an id (``2.1``), a prefix (``2``, which
    selects ``2.*``), a glob (``3.*``, ``*.1``) or a group name (``timing``); commas separate several.
    :class:`ConfigError` for a pattern that matches nothing."""
    wanted = [p.strip() for pattern in patterns for p in pattern.split(",") if p.strip()]
    if not wanted:
        return list(catalogue)
    chosen: set[str] = set()
    for pattern in wanted:
        hits = [c.id for c in catalogue
                if c.id == pattern or c.id.startswith(pattern.rstrip(".") + ".") or c.group == pattern
                or fnmatch.fnmatchcase(c.id, pattern)]
        if not hits:
            raise ConfigError(f"no case matches {pattern!r} (ids {catalogue[0].id} … {catalogue[-1].id}, groups "
                              f"{', '.join(dict.fromkeys(c.group for c in catalogue))}; see --list)")
        chosen.update(hits)
    return [c for c in catalogue if c.id in chosen]


def run_case(session: Session, case: Case) -> CaseResult:
    """Run one case. A bot's misbehaviour is a verdict; a failure of the suite itself raises RefereeError."""
    session.begin()
    start = time.monotonic()
    if case.needs_hello and session.hello is None:
        outcome = broken("not run: the bot did not complete the handshake (see 2.1)",
                         expected="a hello", actual=session.hello_error or "no hello", breach=Level.MUST)
    else:
        try:
            outcome = case.run(session)
        except BotError as exc:  # a bot error no step of the case expected
            outcome = broken(f"the bot failed: {exc}", expected="a bot that keeps to the protocol",
                             actual=f"{exc.kind}: {exc}")
        except RefereeError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug of the suite: reported as a harness error (exit code 2)
            raise RefereeError(f"internal error in case {case.id}: {type(exc).__name__}: {exc}") from exc
    return CaseResult(case, outcome, case.verdict(outcome), time.monotonic() - start, session.used())


def run_cases(session: Session, cases: Sequence[Case],
              on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    results = []
    for case in cases:
        result = run_case(session, case)
        results.append(result)
        if on_result:
            on_result(result)
    return results


def tally(results: Iterable[CaseResult]) -> dict[Verdict, int]:
    counts = {v: 0 for v in Verdict}
    for r in results:
        counts[r.verdict] += 1
    return counts


def exit_code(results: Iterable[CaseResult], *, strict: bool = False) -> int:
    """0 when nothing failed; 1 when a case FAILED, or (``strict``) was NON-STRICT."""
    bad = {Verdict.FAILED, Verdict.NON_STRICT} if strict else {Verdict.FAILED}
    return 1 if any(r.verdict in bad for r in results) else 0
