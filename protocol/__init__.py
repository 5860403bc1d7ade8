"""The bot-facing vocabulary of referee: cards, actions, the bot interface and the error tree.

This is the lowest layer: it imports nothing else of the project (protocol ← bots ← referee ← tournaments ← CLI).
"""

from .actions import Action
from .bot import Bot, BotBase, Decision, GameInfo
from .cards import Card, Deck
from .errors import ParseError, RefereeError

__all__ = ["Action", "Bot", "BotBase", "Card", "Decision", "Deck", "GameInfo", "ParseError", "RefereeError"]
