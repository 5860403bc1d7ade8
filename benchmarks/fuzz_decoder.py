"""Fuzz the decoder of bot frames (protocol/wire.py) with hypothesis: no input may raise anything but a typed fault.

Each example is a byte stream a hostile bot could write: well-formed frames and values of every msgpack type
(hand-encoded, so non-minimal encodings too), arrays and maps nested up to 1,100 deep (msgpack's own stack stops
at 1,024; Python's repr at about 1,000), headers announcing up to 4 GiB, bytes that are not msgpack, invalid UTF-8,
truncated and mutated streams, and plain random bytes. Each stream is fed, whole and cut into random pieces, to
the referee's decoder (``FrameDecoder()``). What must hold, for every example:

- ``feed`` returns maps or raises :class:`~protocol.errors.ProtocolViolation` of kind ``malformed`` or
  ``oversized`` with a one-line message; nothing else (no ``RecursionError``, ``TypeError``, ``ValueError`` …);
- every map it returns nests at most :data:`~protocol.wire.MAX_DEPTH` deep, and what the referee does with a
  frame (``repr``, ``hello_problems``, ``answers``) works on it;
- the stream cut into pieces gives the same outcome as whole: the same frames, or a fault (of either kind when the
  stream has both: a header announcing too much before bytes that are not msgpack is ``oversized`` when it arrives
  alone, ``malformed`` when the bad bytes come with it).

    python benchmarks/fuzz_decoder.py                        # 100,000 examples, seed 0
    python benchmarks/fuzz_decoder.py --examples 1000000 --seed 7

It prints the examples run, the time, examples/s and how many ended in each outcome; a failing example is shrunk
and printed by hypothesis, and the exit code is 1. ``tests/unit/test_wire_fuzz.py`` runs a seeded slice of it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgpack
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from protocol.errors import ProtocolViolation
from protocol.wire import MAX_DEPTH, MAX_FRAME, FrameDecoder, answers, hello_problems, too_deep

#: The recursion limit each example runs under: Python's default, the referee's (hypothesis raises it while it
#: runs a test, and repr() of 1,000 nested arrays would then pass).
RECURSION_LIMIT = 1000
#: What ended each example (the streams' outcomes, whole), for the summary.
OUTCOMES: Counter[str] = Counter()


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


# ------------------------------------------------------------------------------------------------ strategies


def _header(first: int, length: int) -> bytes:
    """The header of a str, bin, ext, array or map of ``length`` (bytes or items) in the encoding ``first``."""
    width = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xc7: 1, 0xc8: 2, 0xc9: 4, 0xd9: 1, 0xda: 2, 0xdb: 4,
             0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4}[first]
    return bytes([first]) + (length % (1 << (8 * width))).to_bytes(width, "big")


def _str(data: bytes, first: int) -> bytes:
    """``data`` as a str in a chosen encoding (fixstr when short enough and asked for with 0xa0)."""
    if first == 0xa0:
        return bytes([0xa0 | len(data)]) + data if len(data) < 32 else _header(0xd9, len(data)) + data
    return _header(first, len(data)) + data


def _array(items: list[bytes], first: int) -> bytes:
    if first == 0x90 and len(items) < 16:
        return bytes([0x90 | len(items)]) + b"".join(items)
    return _header(0xdc if first == 0x90 else first, len(items)) + b"".join(items)


def _map(pairs: list[tuple[bytes, bytes]], first: int) -> bytes:
    body = b"".join(k + v for k, v in pairs)
    if first == 0x80 and len(pairs) < 16:
        return bytes([0x80 | len(pairs)]) + body
    return _header(0xde if first == 0x80 else first, len(pairs)) + body


def _nest(depth: int, inner: bytes, how: str) -> bytes:
    """``inner`` inside ``depth`` arrays or maps of one item (``how``: array, map, or both in turn)."""
    if how == "array":
        return b"\x91" * depth + inner
    if how == "map":
        return b"\x81\xa1k" * depth + inner
    return b"\x81\xa1k\x91" * (depth // 2) + (b"\x81\xa1k" if depth % 2 else b"") + inner


KEY_NAMES = ["type", "id", "action", "version", "name", "games", "message", "observation", "k", ""]
#: The encodings of a header with a length: bin, ext, str of 8, 16 and 32 bits; array and map of 16 and 32.
LENGTH_FIRSTS = [0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf]


class Builder:
    """Hostile byte streams from a :class:`random.Random` of a seed that hypothesis draws: one draw an example, so
    that 100,000 examples take minutes, not hours (the structured strategies below shrink better, and are drawn
    too)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def scalar(self) -> bytes:
        r = self.rnd
        pick = r.randrange(12)
        if pick == 0:
            return _pack(r.choice([0, 1, -1, 127, 128, -33, 1 << 31, -(1 << 63), (1 << 64) - 1, r.getrandbits(64)]))
        if pick == 1:
            return r.choice([b"\xc0", b"\xc2", b"\xc3"])
        if pick == 2:
            return _pack(r.choice([0.0, -1.5, float("inf"), float("nan"), r.random()]))
        if pick == 3:
            return b"\xca" + r.randbytes(4)
        if pick in (4, 5):
            text = r.choice(["", "take", "attack(7K,7T)", "пас", "\u202e\x1b[2J", "x" * r.randrange(300)]).encode()
            return _str(text, r.choice([0xa0, 0xd9, 0xda, 0xdb]))
        if pick == 6:
            return _str(r.randbytes(r.randrange(12)), r.choice([0xa0, 0xd9, 0xda, 0xdb]))  # often invalid UTF-8
        if pick == 7:
            data = r.randbytes(r.randrange(40))
            return _header(r.choice([0xc4, 0xc5, 0xc6]), len(data)) + data
        if pick == 8:
            fixed = r.choice([(0xd4, 1), (0xd5, 2), (0xd6, 4), (0xd7, 8), (0xd8, 16)])
            return bytes([fixed[0], r.choice([0xff, 1, 0x80])]) + r.randbytes(fixed[1])  # fixext; 0xff: timestamp
        if pick == 9:
            data = r.randbytes(r.randrange(20))
            return _header(r.choice([0xc7, 0xc8, 0xc9]), len(data) - 1 if data else 0) + data
        if pick == 10:  # a header announcing a length, with or without what it announces
            return _header(r.choice(LENGTH_FIRSTS), r.choice([r.randrange(1 << 17), (1 << 32) - 1, MAX_FRAME,
                                                              MAX_FRAME + 1, MAX_FRAME - 8]))
        return b"\xc1"  # never used in msgpack

    def value(self, budget: int) -> bytes:
        r = self.rnd
        if budget <= 0 or r.random() < 0.45:
            return self.scalar()
        pick = r.randrange(4)
        if pick == 0:
            items = [self.value(budget // 3) for _ in range(r.randrange(5))]
            return _array(items, r.choice([0x90, 0xdc, 0xdd]))
        if pick == 1:
            pairs = [(self.key(), self.value(budget // 3)) for _ in range(r.randrange(5))]
            return _map(pairs, r.choice([0x80, 0xde, 0xdf]))
        depth = r.choice([r.randrange(1, 40), MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, r.randrange(900, 1100)])
        return _nest(depth, self.value(budget // 4), r.choice(["array", "map", "both"]))

    def key(self) -> bytes:
        return _pack(self.rnd.choice(KEY_NAMES)) if self.rnd.random() < 0.9 else self.value(2)

    def frame(self) -> bytes:
        r = self.rnd
        pick = r.randrange(5)
        if pick == 0:  # a reply, maybe with one hostile value
            pairs = [(_pack("type"), _pack("action")), (_pack("id"), _pack(r.randrange(1 << 20))),
                     (_pack("action"), _pack("take"))]
            if r.random() < 0.7:
                pairs.append((_pack("extra"), self.value(12)))
            r.shuffle(pairs)
            return _map(pairs, 0x80)
        if pick == 1:
            return self.value(12)  # anything, a map or not
        if pick == 2:  # arrays or maps nested about as deep as repr() and msgpack go, alone (issue 33)
            return _nest(r.randrange(900, 1100), self.scalar(), r.choice(["array", "map", "both"]))
        return _map([(self.key(), self.value(12)) for _ in range(r.randrange(6))], r.choice([0x80, 0xde, 0xdf]))

    def stream(self) -> tuple[bytes, list[int]]:
        r = self.rnd
        data = b"".join(self.frame() for _ in range(r.randrange(1, 4)))
        if r.random() < 0.3:  # mutated: bytes overwritten, or cut short
            out = bytearray(data)
            for _ in range(r.randrange(1, 4)):
                out[r.randrange(len(out))] = r.randrange(256)
            data = bytes(out[:r.randrange(len(out) + 1)] if r.random() < 0.5 else out)
        elif r.random() < 0.05:
            data = r.randbytes(r.randrange(300))
        sizes = [r.choice([1, 2, 3, 5, 8, 40, 1000, 70000]) for _ in range(r.randrange(12))]
        return data, sizes


random_streams = st.integers(0, (1 << 64) - 1).map(lambda n: Builder(random.Random(n)).stream())

KEYS = st.sampled_from(KEY_NAMES)
STR_FIRST = st.sampled_from([0xa0, 0xd9, 0xda, 0xdb])

scalars = st.one_of(
    st.integers(-(1 << 63), (1 << 64) - 1).map(_pack),
    st.sampled_from([b"\xc0", b"\xc2", b"\xc3", b"\xc1"]),  # nil, false, true, and never used in msgpack
    st.builds(lambda t, f: _str(t.encode(), f), st.text(max_size=10), STR_FIRST),
    st.builds(lambda b, f: _str(b, f), st.binary(max_size=6), STR_FIRST),  # often invalid UTF-8
    st.builds(lambda first, n: _header(first, n), st.sampled_from(LENGTH_FIRSTS),
              st.sampled_from([3, MAX_FRAME - 8, MAX_FRAME + 1, (1 << 32) - 1])),
)


def _containers(children: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.builds(_array, st.lists(children, max_size=3), st.sampled_from([0x90, 0xdc, 0xdd])),
        st.builds(_map, st.lists(st.tuples(KEYS.map(_pack), children), max_size=3), st.sampled_from([0x80, 0xde])),
        st.builds(_nest, st.sampled_from([MAX_DEPTH, MAX_DEPTH + 1, 1000, 1030]), children,
                  st.sampled_from(["array", "map", "both"])),
    )


structured_streams = st.tuples(st.lists(st.recursive(scalars, _containers, max_leaves=4), min_size=1,
                                        max_size=3).map(b"".join),
                               st.lists(st.integers(1, 9), max_size=4))
#: Nine examples in ten from the builder, one structured.
hostile_streams = st.integers(0, 9).flatmap(lambda n: structured_streams if n == 0 else random_streams)


# ------------------------------------------------------------------------------------------------ the property


def _pieces(data: bytes, sizes: list[int]) -> list[bytes]:
    pieces, at = [], 0
    for size in sizes:
        if at >= len(data):
            break
        pieces.append(data[at:at + size])
        at += size
    if at < len(data):
        pieces.append(data[at:])
    return pieces


def _run(data: bytes, sizes: list[int]) -> tuple[list[dict[str, Any]], str | None]:
    """Feed ``data`` in pieces of ``sizes`` (the rest whole): the frames, and the kind of the fault if any."""
    decoder = FrameDecoder(MAX_FRAME)
    got: list[dict[str, Any]] = []
    try:
        for piece in _pieces(data, sizes):
            got += decoder.feed(piece)
    except ProtocolViolation as exc:
        message = str(exc)
        assert exc.kind in ("malformed", "oversized"), exc.kind
        assert message and "\n" not in message, message
        return got, exc.kind
    return got, None


def _use(frame: dict[str, Any]) -> None:
    """What the referee does with a frame: it must be safe on anything the decoder returns."""
    assert type(frame) is dict
    assert not too_deep(frame, MAX_DEPTH)
    repr(frame)
    hello_problems(frame, (1,))
    answers(frame, 1)


def check(data: bytes, sizes: list[int]) -> None:
    """The property, for one stream cut at ``sizes``."""
    whole, fault = _run(data, [])
    pieces, fault_in_pieces = _run(data, sizes)
    assert (fault is None) == (fault_in_pieces is None), (fault, fault_in_pieces)
    if fault is None:
        assert repr(pieces) == repr(whole)  # (NaN is not NaN)
    for frame in pieces:
        _use(frame)
    OUTCOMES[fault or ("frames" if whole else "nothing yet")] += 1


def fuzz(examples: int, seed_value: int, *, on_example: Callable[[], None] = lambda: None) -> None:
    """Run :func:`check` on ``examples`` generated examples (hypothesis, seeded; no example database)."""

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(hostile_streams)
    def run(example: tuple[bytes, list[int]]) -> None:
        on_example()
        raised = sys.getrecursionlimit()  # hypothesis raises it for its own sake: check at the referee's
        sys.setrecursionlimit(RECURSION_LIMIT)
        try:
            check(*example)
        finally:
            sys.setrecursionlimit(raised)

    run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000, help="examples to run (default 100,000)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis's seed (default 0)")
    args = parser.parse_args(argv)
    count = 0

    def counted() -> None:
        nonlocal count
        count += 1

    start = time.perf_counter()
    failed = False
    try:
        fuzz(args.examples, args.seed, on_example=counted)
    except Exception:  # noqa: BLE001 - hypothesis has printed the shrunk example
        failed = True
        import traceback

        traceback.print_exc()
    seconds = time.perf_counter() - start
    outcomes = ", ".join(f"{kind} {n}" for kind, n in OUTCOMES.most_common())
    print(f"{count} examples (the last ones shrinking a failure)" if failed else f"{count} examples, no untyped "
          f"exception", f"in {seconds:.1f} s: {count / seconds:,.0f} examples/s; seed {args.seed}")
    print(f"outcomes (whole stream): {outcomes}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
