"""referee: a referee and tournament runner for bots that play Russian card games."""

__version__ = "0.1.0"
