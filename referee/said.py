"""What a bot says at a decision besides its action: its own note (the reply's ``debug``, docs/PROTOCOL.md 5.6;
:class:`protocol.bot.Answer` in process) and the stderr it writes while it is asked. The game loop
(referee/match.py) attributes both to the decision; records keep them (docs/RECORDS.md, ``said``) within a budget:
:data:`SAID_CAP` characters a game for every record, :data:`DEBUG_BUDGET` by default in a tournament's database
(``--debug-budget``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["DEBUG_BUDGET", "DECISION_STDERR", "SAID_CAP", "STDERR_CAP", "Said", "dropped_mark", "keep_tail",
           "said_to_dict", "said_within", "tail_of"]

#: The most of a bot's stderr kept with one decision (the last bytes it wrote while asked).
DECISION_STDERR = 4096

#: How much of a program bot's stderr is kept for a game (the most recent bytes; referee/transport.py drains it).
STDERR_CAP = 64 * 1024

#: The most characters of the bots' words any record keeps of one game (a record file stays far below its limit).
SAID_CAP = 1_000_000


@dataclass(frozen=True, slots=True)
class Said:
    """What a seat said at one decision: its note (the reply's ``debug``, :class:`protocol.bot.Answer`) and what it
    wrote on stderr while it was asked (program bots). Either may be empty."""

    note: str = ""
    stderr: str = ""

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in (("note", self.note), ("stderr", self.stderr)) if v}


def dropped_mark(count: int) -> str:
    """The line that stands where ``count`` earlier bytes of a bot's stderr were dropped (docs/PROTOCOL.md)."""
    return f"[… {count} earlier bytes dropped]\n"


def tail_of(text: str, cap: int) -> tuple[str, int]:
    """The last ``cap`` bytes (UTF-8) of ``text`` and how many bytes before them were dropped."""
    if len(text) * 4 <= cap:
        return text, 0  # the usual case: short enough whatever its characters
    data = text.encode("utf-8", "replace")
    if len(data) <= cap:
        return text, 0
    kept = data[-cap:].decode("utf-8", "ignore")  # a character cut in two is dropped whole
    return kept, len(data) - len(kept.encode())


def keep_tail(text: str, cap: int, dropped: int = 0) -> str:
    """The last ``cap`` bytes of ``text``, after :func:`dropped_mark` when it is longer (or ``dropped`` bytes were
    dropped before it already)."""
    kept, cut = tail_of(text, cap)
    return dropped_mark(dropped + cut) + kept if dropped + cut else kept


def said_to_dict(said: Mapping[int, Said]) -> dict[str, dict[str, str]]:
    """A game's words as records and ``play --json`` write them: by decision number (text), in decision order."""
    return {str(decision): words.to_dict() for decision, words in sorted(said.items())}


#: The characters of the bots' words (notes and stderr, by decision) a tournament keeps of a game by default.
DEBUG_BUDGET = 4000


def said_within(said: Mapping[int, Said], budget: int | None, first: Iterable[int] = ()) -> dict[int, Said]:
    """A game's words (:attr:`GameRecord.said`) within ``budget`` characters (None: all of them): the decisions
    ``first`` (its faults) before the others, then in decision order; the words that do not fit are cut there,
    with a mark saying how many decisions' words were not kept whole."""
    if budget is None:
        return dict(said)
    faults = [d for d in dict.fromkeys(first) if d in said]
    order = faults + [d for d in sorted(said) if d not in faults]
    kept: dict[int, Said] = {}
    left = budget
    for i, decision in enumerate(order):
        entry = said[decision]
        if len(entry.note) + len(entry.stderr) <= left:
            kept[decision] = entry
            left -= len(entry.note) + len(entry.stderr)
            continue
        mark = (f"[… the game's budget of {budget} characters of bots' words is spent: the words of "
                f"{len(order) - i} decision{'s' if len(order) - i != 1 else ''} are not kept whole]")
        note = entry.note[:left]
        stderr = entry.stderr[len(entry.stderr) - (left - len(note)):] if left > len(note) else ""
        kept[decision] = Said(note, f"{stderr}{mark}")
        break
    return kept
