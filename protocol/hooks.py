"""The marker plugins use to implement referee's hooks (the hooks themselves: ``referee.hookspecs``).

It lives in the lowest layer so that bot packages can implement hooks without importing the referee core::

    from protocol.hooks import hookimpl

    @hookimpl
    def register_bots(register):
        register("mybot", MyBot, description="plays the lowest card")
"""

import pluggy

PROJECT = "referee"
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["PROJECT", "hookimpl"]
