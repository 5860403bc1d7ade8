"""referee: a referee and tournament runner for bots that play Russian card games."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from protocol.hooks import hookimpl

__version__ = "0.1.0"
__all__ = ["hookimpl", "__version__"]


def __getattr__(name: str) -> Any:
    """``hookimpl`` is imported when first used: the ``referee`` command imports this package first, and a ^C
    must find its handler (referee.main) installed as early as possible."""
    if name == "hookimpl":
        from protocol.hooks import hookimpl

        return hookimpl
    raise AttributeError(f"module 'referee' has no attribute {name!r}")
