"""A seeded slice of benchmarks/fuzz_decoder.py (issue 33): hostile byte streams, whole and in pieces, through the
referee's frame decoder raise nothing but typed faults. The benchmark runs 100,000 examples and more;
this runs a few hundred, and the ``deep`` test (``-m deep``) a few thousand, the same ones every time (a fixed seed,
no example database)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("hypothesis")

FUZZ = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_decoder.py"
EXAMPLES = 500
DEEP_EXAMPLES = 2000


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_decoder", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fuzz_decoder = _load()


def fuzz(examples: int) -> None:
    count = 0

    def counted() -> None:
        nonlocal count
        count += 1

    fuzz_decoder.fuzz(examples, 20260, on_example=counted)
    assert count == examples


def test_a_seeded_slice_of_the_fuzzer_finds_no_untyped_exception() -> None:
    fuzz(EXAMPLES)


@pytest.mark.deep
def test_a_deeper_seeded_slice_of_the_fuzzer_finds_no_untyped_exception() -> None:
    fuzz(DEEP_EXAMPLES)


@pytest.mark.parametrize("depth", [990, 1000, 1010, 1023])
def test_the_depths_where_repr_gave_up_are_in_reach(depth: int) -> None:
    """The fuzzer reaches what issue 33 found: arrays nested about 1,000 deep, alone, which repr() could not print
    (msgpack's own limit is 1,024)."""
    fuzz_decoder.check(b"\x91" * depth + b"\xc0", [7, 3])
    fuzz_decoder.check(b"\x81\xa1k" * depth + b"\xc0", [])


def test_the_builder_makes_the_hostile_cases() -> None:
    streams = [fuzz_decoder.Builder(random.Random(n)).stream()[0] for n in range(300)]
    assert any(b"\x91" * 900 in s or b"\x81\xa1k" * 900 in s for s in streams)  # nested about 1,000 deep
    assert any(b"\xdb\xff\xff\xff\xff" in s or b"\xc6\xff\xff\xff\xff" in s for s in streams)  # 4 GiB announced
    assert any(b"\xc1" in s for s in streams)
