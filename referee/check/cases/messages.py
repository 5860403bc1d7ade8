"""5 messages: unknown types, keys and values, wider encodings, every message in all its forms."""

from __future__ import annotations

import time

from protocol.actions import Action
from protocol.bot import BotBase, Decision
from protocol.errors import ConfigError
from protocol.wire import pack

from ..harness import (
    HANDSHAKE_TIME,
    KEYS_OTHER_TYPES,
    KEYS_V1,
    ExtraKeys,
    Reencode,
    Session,
    UnknownTypes,
    unknown_message,
)
from ..verdicts import Finding, Level, broken, case
from .helpers import QUIET_TIME, no_faults, one_game, show


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


@case("5.1", "unknown message types are ignored", section="6", level=Level.MUST)
def unknown_types(s: Session) -> Finding:
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
                          actual=show(answers[0]))
        seed = s.seed_for("unknown-types")
        n = s.fewest()
        played = program.play(s.main_game, n, seat=seed % n, seed=seed)
    finally:
        program.close()
    return no_faults([played], "with an unknown message before every message")


@case("5.2", "unknown keys are ignored", section="6, 11", level=Level.MUST)
def unknown_keys(s: Session) -> Finding:
    _, played = one_game(s, "unknown-keys", twist=lambda: ExtraKeys(KEYS_V1))
    return no_faults([played], "with unknown keys in every message and map")


@case("5.3", "unknown values of other types (float, bin, ext) are skipped", section="3", level=Level.SHOULD)
def other_types(s: Session) -> Finding:
    _, played = one_game(s, "other-types", twist=lambda: ExtraKeys(KEYS_OTHER_TYPES))
    return no_faults([played], "with unknown keys holding float, bin and ext values")


@case("5.4", "integers in wider encodings are accepted", section="3", level=Level.MUST)
def wide_ints(s: Session) -> Finding:
    _, played = one_game(s, "wide-ints", twist=lambda: Reencode("int"))
    return no_faults([played], "with every integer in a wider encoding (uint8 … uint64, int8 … int64)")


@case("5.5", "strings as str8, str16, str32 are accepted", section="3", level=Level.MUST)
def wide_strs(s: Session) -> Finding:
    _, played = one_game(s, "wide-strs", twist=lambda: Reencode("str"))
    return no_faults([played], "with every string as str8, str16 or str32")


@case("5.6", "maps and arrays as map16/32, array16/32 are accepted", section="3", level=Level.MUST)
def wide_containers(s: Session) -> Finding:
    _, played = one_game(s, "wide-containers", twist=lambda: Reencode("container"))
    return no_faults([played], "with every map and array as map16/map32, array16/array32")


@case("5.7", "every message in all its forms (options, faults in game_over)", section="5", level=Level.MUST)
def every_message(s: Session) -> Finding:
    games = []
    for game_id in s.games:
        game = s.registry.game(game_id)
        flipped = {o.name: not o.default for o in game.options  # less what -o or the bot's hello rule out
                   if isinstance(o.default, bool) and s.allows(game_id, o.name, not o.default)}
        try:
            game.configure(flipped)
        except ConfigError:
            flipped = {}
        n = min(s.seat_counts(game_id), key=lambda k: (abs(k - 3), k))  # 3 where it may: more than one opponent
        opponents = [_Blunder(), *s.opponents(n - 2)]
        _, played = one_game(s, f"all-forms-{game_id}", game=game_id, seats=n, options=flipped or None,
                              opponents=opponents)
        games.append(played)
    return no_faults(games, "with every boolean option flipped and a fault in game_over")
