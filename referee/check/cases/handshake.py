"""2 handshake: hello, versions offered and refused (docs/PROTOCOL.md sections 5.2, 5.3, 11)."""

from __future__ import annotations

import json
from typing import Any

from protocol.wire import PROTOCOL_VERSIONS, hello_problems

from ..harness import EXIT_TIME, HANDSHAKE_TIME, Run, Session, jsonable, offer
from ..verdicts import Finding, Level, broken, case, ok
from .helpers import ms_text

_HELLO_SHAPE = ("{type: hello, version: one of the offered, name: non-empty str, games: nil or array of str; "
                "optional seats, options as PROTOCOL.md 5.2}")


@case("2.1", "answers hello with hello within 5 s", section="8", level=Level.MUST, needs_hello=False)
def hello_in_time(s: Session) -> Finding:
    reply, problem, seconds = s.handshake()
    if reply is None:
        return broken("no hello", expected=f"a hello within {HANDSHAKE_TIME:g} s", actual=problem)
    if reply.get("type") != "hello":
        return broken("refused the handshake", expected="hello", actual=_frame(reply))
    return ok(f"hello after {ms_text(seconds)}", seconds=round(seconds, 4))


def _frame(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False)[:200]


@case("2.2", "hello picks an offered version, has a name and games", section="5.2", level=Level.MUST, needs_hello=False)
def hello_valid(s: Session) -> Finding:
    reply, problem, _ = s.handshake()
    if reply is None or reply.get("type") != "hello":
        return broken("no hello to check (see 2.1)", expected=_HELLO_SHAPE,
                      actual=problem or _frame(reply))
    problems = hello_problems(reply, PROTOCOL_VERSIONS, every_key=True)
    if problems:
        return broken("; ".join(problems), expected=_HELLO_SHAPE, actual=_frame(reply))
    games = reply["games"]
    unknown = s.unknown_declarations()
    if unknown:
        return broken(f"its hello declares {'; '.join(unknown)}: a declaration the games do not have excludes "
                      "nothing, so the bot may be seated where it did not mean to play", breach=Level.SHOULD,
                      expected="option names of the declared games ('referee games' lists them)",
                      actual=_frame(reply.get("options")))
    return ok(f"version {reply['version']}, name {reply['name']!r}, "
              f"games {', '.join(games) if games is not None else 'nil (any game)'}")


def _offer(s: Session, name: str, versions: list[int]) -> tuple[dict[str, Any] | None, str, int | None, Run]:
    """Offer ``versions`` in a run of its own; the answer, what went wrong, the exit status after an error."""
    run = s.run(name)
    reply, problem, _, code = offer(run, versions)
    return reply, problem, code, run


FUTURE_VERSION = 99


@case("2.3", "offered an unknown version too, picks one it speaks", section="11", level=Level.SHOULD, needs_hello=False)
def newer_versions(s: Session) -> Finding:
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


@case("2.4", "no common version: error with a message, then exit", section="5.3, 11", level=Level.MUST,
      needs_hello=False)
def no_common_version(s: Session) -> Finding:
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
