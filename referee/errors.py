"""The referee's errors: the one tree defined in :mod:`protocol.errors`, re-exported here."""

from protocol.errors import *  # noqa: F403
from protocol.errors import __all__  # noqa: F401
