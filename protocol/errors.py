"""The one error tree of the project.

It lives in the lowest layer (``protocol``) so that every layer above can raise and catch the same types;
``referee.errors`` re-exports it. Low-level errors (OSError, msgpack, JSON) are translated into these at the
boundary where they happen, with ``raise ... from exc``::

    RefereeError                 base of every error raised on purpose
    ├── ParseError               a card, action, message or record field that cannot be read
    ├── ConfigError              a bad game, option, seat count, bot spec or command-line value
    │   ├── AccessError          a change to a league without its token, or with a wrong one
    │   └── ConflictError        a change a league's state refuses (a name taken, a bot already in that role)
    ├── RulesError               a rules violation
    │   └── IllegalActionError   an action that is not in the legal list
    ├── RecordError              a record that cannot be read or does not replay
    ├── PluginError              a plugin that fails to load or registers something twice
    ├── ExecutorError            a worker process that died or failed (what was stored stays)
    ├── StorageError             a tournament database that cannot be opened, read or written
    │   ├── StoreLocked          another process plays the tournament (its lock is held)
    │   └── StoreChanged         the stored configuration changed between a read and a write
    └── BotError                 a bot misbehaved (carries its FaultKind, RULES.md C-7; base: crash)
        ├── BotTimeout           no answer in time                    (timeout)
        ├── BotCrashed           the bot raised or its process died    (crash)
        ├── BotStalled           the bot stopped answering for good    (stall)
        └── ProtocolViolation    malformed or oversized data           (malformed / oversized)

The fault kinds themselves, and whether each ends the bot's part in the game, are :class:`FaultKind`, defined here
beside the errors that carry them (one fault as a value is :class:`protocol.faults.Fault`).

Every error's message is one line that says what is wrong and, where possible, how to fix it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "FaultKind",
    "RefereeError",
    "ParseError",
    "ConfigError",
    "AccessError",
    "ConflictError",
    "RulesError",
    "IllegalActionError",
    "RecordError",
    "PluginError",
    "ExecutorError",
    "StorageError",
    "StoreLocked",
    "StoreChanged",
    "BotError",
    "BotTimeout",
    "BotCrashed",
    "BotStalled",
    "ProtocolViolation",
]


class RefereeError(Exception):
    """Base of every error the referee raises on purpose."""


class ParseError(RefereeError, ValueError):
    """Text or data that is not a valid card, action, message or record field."""


class ConfigError(RefereeError, ValueError):
    """A bad configuration: unknown game or option, bad value, wrong number of seats or bots."""


class AccessError(ConfigError):
    """A change to a league (add, retire, promote, start, stop) without the operator's token, or with a wrong one."""


class ConflictError(ConfigError):
    """A change that the league's state refuses: a bot name taken, a bot already in the role asked for."""


class RulesError(RefereeError):
    """A violation of the rules of a game."""


class IllegalActionError(RulesError, ValueError):
    """An action that is not among the legal actions of the current decision point."""


class RecordError(RefereeError):
    """A game record that cannot be read, or that does not replay to the same game."""


class PluginError(RefereeError):
    """A plugin that cannot be loaded, or that registers a name already taken."""


class ExecutorError(RefereeError):
    """A process that plays a tournament's games died or failed; the games stored before it stay stored."""


class StorageError(RefereeError):
    """A tournament database that cannot be opened, read or written, or holds damaged rows."""


class StoreLocked(StorageError):
    """Another process plays the tournament of this database: its lock is held."""


class StoreChanged(StorageError):
    """The stored configuration changed between a read and its compare-and-swap write: read again and retry."""


class FaultKind(StrEnum):
    """The kind of a fault (C-7), each member with its word and two facts: ``ends_process``, after this fault the
    bot is not asked again in this game (its default action plays the seat to the end) and a program bot's process
    is not trusted any more; ``answered``, the bot replied at the decision, wrongly, rather than not in time or not
    at all."""

    def __new__(cls, word: str, ends_process: bool, answered: bool) -> FaultKind:
        member = str.__new__(cls, word)
        member._value_ = word
        member._ends_process = ends_process  # type: ignore[attr-defined]
        member._answered = answered  # type: ignore[attr-defined]
        return member

    #: an answer that is not in the legal list; asked again at its next decision
    ILLEGAL = "illegal", False, True
    #: no answer in time; asked again at its next decision
    TIMEOUT = "timeout", False, False
    #: three timeouts in a row, or a bot that stopped reading
    STALL = "stall", True, False
    #: an exception, or a dead process
    CRASH = "crash", True, False
    #: bad data on the wire: the stream cannot be trusted any more (C-7, "malformed and oversized are final")
    MALFORMED = "malformed", True, True
    #: a frame larger than the limit: the same as malformed
    OVERSIZED = "oversized", True, True

    @property
    def ends_process(self) -> bool:
        """C-7: True when the bot is not asked again in this game after this fault."""
        return bool(self._ends_process)  # type: ignore[attr-defined]

    @property
    def answered(self) -> bool:
        """Whether the bot replied at the decision, wrongly (illegal, malformed, oversized), rather than not in time
        or not at all (a timeout, a stall, a crash): a record's time there is then how long the referee waited, or,
        for an in-process bot that answered after its deadline, how long it took."""
        return bool(self._answered)  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, word: Any) -> FaultKind:
        """The kind named ``word``; :class:`ParseError` for anything else."""
        kind = cls._value2member_map_.get(word) if isinstance(word, str) else None  # every stored fault is parsed
        if kind is not None:
            return kind  # type: ignore[return-value]
        raise ParseError(f"{word!r:.40} is not a fault kind (one of {', '.join(cls)})")


class BotError(RefereeError):
    """A bot misbehaved. ``kind`` is the fault it is recorded as (RULES.md C-7)."""

    kind: FaultKind = FaultKind.CRASH


class BotTimeout(BotError):
    kind = FaultKind.TIMEOUT


class BotCrashed(BotError):
    kind = FaultKind.CRASH


class BotStalled(BotError):
    kind = FaultKind.STALL


class ProtocolViolation(BotError):
    """Malformed (``kind=FaultKind.MALFORMED``) or oversized (``kind=FaultKind.OVERSIZED``) data from a bot."""

    def __init__(self, message: str, *, kind: FaultKind = FaultKind.MALFORMED) -> None:
        super().__init__(message)
        self.kind = kind
