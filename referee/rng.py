"""SplitMix64, the one random stream of a game (RULES.md C-5).

The stream starts from the game's seed and is never re-seeded within a game. ``shuffle`` is the
Fisher-Yates shuffle of C-5 with rejection sampling, so results are identical on every platform.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence

__all__ = ["SplitMix64", "MASK64", "derive_seed"]

MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB
#: randbelow's rejection limit for n < 128 (a shuffle of up to 128 cards looks it up)
_LIMITS = [0] + [(1 << 64) - ((1 << 64) % n) for n in range(1, 128)]


class SplitMix64:
    """The SplitMix64 generator of C-5. ``state`` may be read and copied to fork a stream."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be an unsigned 64-bit integer, got {seed}")
        self.state = seed

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * _MUL1) & MASK64
        z = ((z ^ (z >> 27)) * _MUL2) & MASK64
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection (C-5)."""
        limit = (1 << 64) - ((1 << 64) % n)
        x = self.next64()
        while x >= limit:
            x = self.next64()
        return x % n

    def shuffle(self, a: MutableSequence[int]) -> None:
        """Shuffle ``a`` in place: for i from len-1 down to 1, swap a[i] with a[randbelow(i+1)]. The same numbers as
        those calls, with :meth:`next64` and :meth:`randbelow` written out (about 16 % faster): every deal of every
        game shuffles, and a search's playouts deal too (tests/unit/test_rng.py holds the two to the same stream)."""
        state = self.state
        for i in range(len(a) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < len(_LIMITS) else (1 << 64) - ((1 << 64) % n)
            while True:
                state = (state + _GAMMA) & MASK64
                z = ((state ^ (state >> 30)) * _MUL1) & MASK64
                z = ((z ^ (z >> 27)) * _MUL2) & MASK64
                z ^= z >> 31
                if z < limit:
                    break
            j = z % n
            a[i], a[j] = a[j], a[i]
        self.state = state


def derive_seed(*parts: object, sep: str = ":", size: int = 8) -> int:
    """A seed derived one-way from ``parts`` (their ``str`` joined by ``sep``): BLAKE2b with a ``size``-byte digest,
    big-endian. One-way, so a derived seed (a bot's, a deal's) does not reveal the seed it comes from. The separator
    and the size are part of every derived value: a caller keeps its own, or the seeds (and the stored games and
    replays made with them) change."""
    digest = hashlib.blake2b(sep.join(str(p) for p in parts).encode(), digest_size=size).digest()
    return int.from_bytes(digest, "big")
