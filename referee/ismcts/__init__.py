"""``ismcts``: a strong reference bot for every built-in game, Information Set MCTS over sampled worlds.

It lives in the referee core, not in ``bots/``, because its model is the engine itself (``Game.worlds`` and the
:class:`~referee.engine.State` API), and ``bots`` import only ``protocol`` (docs/ISMCTS.md). The search is
:mod:`.search` (the tree :mod:`.tree`, the flat variant :mod:`.flat`, the playouts :mod:`.playouts`), its settings
:mod:`.settings`, the Bot :mod:`.bot`, the program ``python -m referee.ismcts`` (:mod:`.__main__`).

The package imports none of them: registering the bot (:mod:`.plugin`) loads only its settings; the search is
imported when the first ``ismcts`` bot is made.
"""
