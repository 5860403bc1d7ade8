"""1 process: what the bot writes on stdout and stderr, around and over complete games."""

from __future__ import annotations

import time

from protocol.errors import BotError
from protocol.wire import PROTOCOL_VERSIONS, bye, hello

from ..harness import EXIT_TIME, HANDSHAKE_TIME, REFEREE, Probe, Session
from ..verdicts import Finding, Level, broken, case, info, ok
from .helpers import QUIET_TIME, games_text, play_all, show


@case("1.1", "nothing on stdout before the referee's hello", section="2, 5.2", level=Level.MUST, needs_hello=False)
def quiet_before_hello(s: Session) -> Finding:
    run = s.run("quiet")
    probe = Probe.start(run)
    heard = probe.listen(QUIET_TIME)
    early = [e for e in run.events if e.kind in ("received", "garbage")]
    if early or heard == "eof":
        probe.close()
        if early:
            return broken(f"wrote on stdout before the referee's hello (within {QUIET_TIME:g} s of the start)",
                          expected="no byte on stdout before the referee's hello", actual=show(early[0]))
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


@case("1.2", "everything on stdout decodes as msgpack map frames", section="2, 3", level=Level.MUST)
def all_frames(s: Session) -> Finding:
    games = s.shared("play", lambda: play_all(s))
    run = s.runs["play"]
    bad = run.garbage()
    if bad:
        return broken("bytes on stdout that are not msgpack map frames",
                      expected="only msgpack maps on stdout", actual=show(bad[0]))
    received = run.received()
    return ok(f"{len(received)} frames, {sum(e.size for e in received)} bytes over {games_text(games)}")


@case("1.3", "stderr is drained and its tail kept (recorded)", section="10", level=Level.MAY)
def stderr_tail(s: Session) -> Finding:
    games = s.shared("play", lambda: play_all(s))
    run = s.runs["play"]
    if not run.stderr_bytes:
        return info(f"nothing on stderr over {games_text(games)}", stderr_bytes=0)
    lines = run.stderr.rstrip().splitlines()
    last = lines[-1] if lines else ""
    return info(f"{run.stderr_bytes} bytes on stderr over {games_text(games)}; last line: {last[:100]!r}",
                stderr_bytes=run.stderr_bytes)
