"""6 robustness: frames split, joined, and a burst larger than a pipe holds."""

from __future__ import annotations

from ..harness import Burst, Joined, Session, Split
from ..verdicts import Finding, Level, case
from .helpers import no_faults, one_game


@case("6.1", "frames split byte by byte", section="3", level=Level.MUST)
def split_frames(s: Session) -> Finding:
    _, played = one_game(s, "split", twist=Split, move_time=1.0)
    return no_faults([played], "with every frame written one byte per write")


@case("6.2", "several frames in one write", section="3", level=Level.MUST)
def joined_frames(s: Session) -> Finding:
    run, played = one_game(s, "joined", twist=Joined)
    joined = sum(1 for e in run.events if e.kind == "sent" and "in one write" in e.note)
    return no_faults([played], f"with new_game + request and game_over + bye written together ({joined} writes)")


@case("6.3", "a burst of 2000 unknown messages, more than a pipe holds", section="2, 6", level=Level.MUST)
def burst(s: Session) -> Finding:
    _, played = one_game(s, "burst", twist=Burst, move_time=1.0)
    return no_faults([played], "with 2000 unknown messages before the first request")
