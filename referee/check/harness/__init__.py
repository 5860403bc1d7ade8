"""The harness of ``referee check``: a bot program under test, every byte it reads and writes recorded.

- A :class:`Probe` is a :class:`~referee.transport.ProcessTransport` that records each frame in both directions
  (its exact bytes, its decoded value, the time) in a :class:`Run`, and lets a :class:`Twist` change how the
  referee's side writes: re-encoded, split, joined, with extra messages or extra keys.
- Complete games are played by the real runner (:func:`referee.match.play_game`) with a
  :class:`~referee.remote.RemoteBot` whose transport is a probe (:class:`Program`), so a bot is checked under the
  conditions of ``referee play``.
- A :class:`Session` holds what every case needs: the bot's command, the games it plays, the seed, and the runs
  (shared runs are played once and used by several cases), and the wire log (``--wire-log``) that every probe also
  writes to, through the transport's own hook.

:mod:`.transcript` holds the records (:class:`Event`, :class:`Run`) and the time limits, :mod:`.probe` the probe and
its twists, :mod:`.session` the programs, the handshake on its own (:func:`offer`) and the session.
"""

from .probe import (
    KEYS_OTHER_TYPES,
    KEYS_V1,
    Burst,
    ExtraKeys,
    Joined,
    NonMinimal,
    Probe,
    Reencode,
    RemapIds,
    Split,
    Twist,
    UnknownTypes,
    unknown_message,
)
from .session import GAME_SECONDS, MIN_ASKED, Played, Program, Session, offer
from .transcript import (
    EXIT_TIME,
    HANDSHAKE_TIME,
    MOVE_TIME,
    RECEIVED_KEPT,
    REFEREE,
    SHORT_MOVE_TIME,
    STDERR_KEPT,
    Event,
    Run,
    jsonable,
)

__all__ = [
    "Event", "Run", "Probe", "Program", "Played", "Session", "Twist", "Reencode", "ExtraKeys", "UnknownTypes",
    "Split", "Joined", "Burst", "RemapIds", "NonMinimal", "HANDSHAKE_TIME", "MOVE_TIME", "SHORT_MOVE_TIME", "REFEREE",
    "EXIT_TIME", "STDERR_KEPT", "RECEIVED_KEPT", "GAME_SECONDS", "MIN_ASKED", "KEYS_V1", "KEYS_OTHER_TYPES",
    "unknown_message", "jsonable", "offer",
]
