"""What both sides of the wire share: cards, actions, the bot interface, the wire format, the error tree, and the
bot SDK (``protocol.sdk``). The referee's own side of the wire (transport, RemoteBot) is ``referee``'s.

This is the lowest layer: it imports nothing else of the project (protocol ← bots, protocol ← referee ←
tournaments; tests/unit/test_layers.py).
"""

from .actions import Action
from .bot import Answer, Bot, BotBase, Decision, GameInfo
from .cards import Card, Deck
from .errors import ParseError, RefereeError

__all__ = ["Action", "Answer", "Bot", "BotBase", "Card", "Decision", "Deck", "GameInfo", "ParseError", "RefereeError"]
