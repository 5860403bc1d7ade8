"""Cossacks-Robbers (``kazaki``): a children's Durak with 40 cards numbered 0-9 (RULES.md section 2), on the
engine of :mod:`.base`."""

from __future__ import annotations

from protocol.cards import KAZAKI_SUITS, Deck

from .base import DurakFamily, family_options

__all__ = ["Kazaki", "KAZAKI_DECK"]

KAZAKI_DECK = Deck(KAZAKI_SUITS, range(0, 10))


class Kazaki(DurakFamily):
    """Cossacks-Robbers: a children's Durak with 40 cards numbered 0-9 (seed 000)."""

    id = "kazaki"
    title = "Cossacks-Robbers (Казаки-разбойники)"
    deck = KAZAKI_DECK
    loser_name = "Robber"
    options = family_options(throw_after_take=False, withdraw=True, redeal_five=True)
