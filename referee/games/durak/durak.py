"""Podkidnoy ``durak`` with 36 cards, and perevodnoy with ``transfer=true`` (RULES.md section 2), on the engine of
:mod:`.base`."""

from __future__ import annotations

from ..cards import DECK36
from .base import DurakFamily, family_options

__all__ = ["Durak", "DURAK_DECK"]

DURAK_DECK = DECK36


class Durak(DurakFamily):
    """Podkidnoy durak with 36 cards; ``transfer=true`` gives perevodnoy."""

    id = "durak"
    title = "Durak (подкидной дурак)"
    deck = DURAK_DECK
    loser_name = "Fool"
    options = family_options(throw_after_take=True, withdraw=False, redeal_five=False)
