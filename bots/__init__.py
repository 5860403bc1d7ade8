"""The built-in bots: ``random``, ``first`` and ``heuristic``."""
