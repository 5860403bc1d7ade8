"""The events of ``kazaki`` and ``durak`` in plain words (``Game.narrate``; RULES.md section 2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cards import narrate_card

__all__ = ["narrate"]


def narrate(event: Mapping[str, Any], loser_name: str = "loser") -> str:
    """One event in plain words ("seat 2 attacks with 7T 7K"): the events every card game has by
    :func:`~referee.games.cards.narrate_card`, then the family's."""
    said = narrate_card(event)
    if said is not None:
        return said
    kind = event["type"]
    seat = event.get("seat")
    cards = " ".join(event.get("cards") or [])
    match kind:
        case "deal":
            again = f" (redeal {event['redeal']})" if event["redeal"] else ""
            return f"seat {seat if seat is not None else event['dealer']} deals{again}"
        case "trump":
            holder = event["holder"]
            where = f", shown from the dealer's hand (seat {holder})" if holder is not None else ""
            return f"trump is {event['suit']}: {event['card']} turned up{where}"
        case "first_attacker":
            shown = f" showing the lowest trump {event['card']}" if event["card"] else " (no trumps dealt)"
            return f"seat {seat} attacks first{shown}"
        case "bout":
            cap = event["cap"]
            cards_word = "card" if cap == 1 else "cards"
            return f"bout: seat {event['attacker']} attacks seat {event['defender']} (at most {cap} {cards_word})"
        case "attack":
            return f"seat {seat} attacks with {cards}"
        case "defend":
            return f"seat {seat} covers {event['attack']} with {event['card']}"
        case "transfer":
            return f"seat {seat} transfers with {cards}"
        case "take":
            return f"seat {seat} gives up the defence and will take"
        case "throw_in":
            return f"seat {seat} throws in {event['card']}"
        case "withdraw":
            return f"seat {seat} takes back {event['card']}"
        case "pass":
            return f"seat {seat} passes"
        case "pick_up":
            n = len(event["cards"])
            return f"seat {seat} takes {n} card{'s' if n != 1 else ''}: {cards}"
        case "beaten":
            return f"beaten: {cards} go to the discard pile"
        case "out":
            return f"seat{'s' if len(event['seats']) > 1 else ''} {', '.join(map(str, event['seats']))} out"
        case "end":
            if event["aborted"]:
                return "the game is aborted at the bout limit"
            if event["draw"]:
                return "the game is a draw: nobody is left holding cards"
            return f"seat {event['loser']} is the {loser_name}"
    return f"{kind}: {dict(event)}"
