"""referee: a referee and tournament runner for bots that play Russian card games."""

from protocol.hooks import hookimpl

__version__ = "0.1.0"
__all__ = ["hookimpl", "__version__"]
