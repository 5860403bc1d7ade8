"""Text from a bot, made safe to show on a terminal: the one function every command uses for it.

A bot writes what it likes to its stderr, and puts what it likes in the strings it sends. Printed as they are,
escape sequences would set the window title, write the clipboard (OSC 52), clear the screen, or overwrite a line
with a fake one (a carriage return); Unicode format characters would reorder what follows (a right-to-left
override). :func:`printable` shows each such character as its escape instead (``\\x1b``, ``\\r``, ``\\u202e``).
Records keep the raw text: this is for display only.
"""

from __future__ import annotations

import unicodedata

__all__ = ["counted", "printable"]

_KEPT = {"\n", "\t"}


def _escape(char: str) -> str:
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character (C0, DEL, C1), format character (bidi overrides, zero widths) and
    line or paragraph separator escaped. Newlines and tabs are kept unless ``one_line``."""
    return "".join(
        _escape(c) if (one_line or c not in _KEPT) and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
        else c
        for c in text
    )


def counted(n: int, noun: str) -> str:
    """``n`` and a noun that takes an s in the plural: ``1 worker``, ``2 workers``, ``0 deals``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
