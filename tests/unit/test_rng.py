"""SplitMix64, the one random stream of a game (RULES.md C-5)."""

from __future__ import annotations

import pytest

from protocol.cards import Deck
from referee.games.durak import Durak
from referee.rng import MASK64, SplitMix64

DURAK_36 = Deck("CDHS", range(6, 15))


def reference_stream(seed: int, count: int) -> list[int]:
    """next64 written straight from the C-5 pseudocode, independent of the implementation under test."""
    out = []
    state = seed
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) % 2**64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        out.append(z ^ (z >> 31))
    return out


class ScriptedStream(SplitMix64):
    """A stream whose next64 outputs are given, to drive randbelow's rejection loop exactly."""

    def __init__(self, outputs: list[int]) -> None:
        super().__init__(0)
        self.outputs = list(outputs)
        self.calls = 0

    def next64(self) -> int:
        self.calls += 1
        return self.outputs.pop(0)


# ------------------------------------------------------------------------------------------ C-5 vectors


def test_c5_seed_0_next64_vector() -> None:
    rng = SplitMix64(0)
    assert rng.next64() == 0xE220A8397B1DCDAF
    assert rng.next64() == 0x6E789E6AA1B965F4


def test_c5_seed_0_shuffle_vector() -> None:
    a = list(range(10))
    SplitMix64(0).shuffle(a)
    assert a == [6, 3, 2, 9, 8, 1, 4, 7, 0, 5]


def test_c5_seed_1_shuffles_the_36_card_deck() -> None:
    order = list(range(len(DURAK_36)))
    SplitMix64(1).shuffle(order)
    deck = [DURAK_36.texts[i] for i in order]
    assert len(deck) == 36
    assert deck[:8] == ["9H", "10D", "AS", "9D", "JH", "10C", "KD", "10S"]
    assert deck[35] == "JC"


def test_c5_durak_deal_is_one_shuffle_of_the_canonical_deck_top_card_first() -> None:
    """C-5 + KZ-4/KZ-5: seed 1, 2 players, dealer 0: deck[0] goes to the dealer's left, deck[12] is trump."""
    order = list(range(36))
    SplitMix64(1).shuffle(order)
    deck = [DURAK_36.texts[i] for i in order]
    state = Durak().new_state(2, 1, {}, dealer=0)
    by_index = {t: i for i, t in enumerate(DURAK_36.texts)}
    seat1 = sorted(deck[0:12:2], key=by_index.__getitem__)
    seat0 = sorted(deck[1:12:2], key=by_index.__getitem__)
    assert state.observe(1)["hand"] == seat1
    assert state.observe(0)["hand"] == seat0
    assert state.observe(0)["trump_card"] == deck[12]
    assert state.observe(0)["stock"] == 36 - 12


@pytest.mark.parametrize("seed", [0, 1, 2, 42, 2**32, 2**63, 2**64 - 2, 2**64 - 1])
def test_next64_matches_the_spec_pseudocode(seed: int) -> None:
    rng = SplitMix64(seed)
    assert [rng.next64() for _ in range(20)] == reference_stream(seed, 20)


def test_state_can_be_copied_to_fork_the_stream() -> None:
    rng = SplitMix64(7)
    rng.next64()
    fork = SplitMix64(rng.state)
    assert [rng.next64() for _ in range(5)] == [fork.next64() for _ in range(5)]


def test_outputs_are_unsigned_64_bit() -> None:
    rng = SplitMix64(2**64 - 1)
    for _ in range(1000):
        assert 0 <= rng.next64() <= MASK64


# --------------------------------------------------------------------------------------------- randbelow


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 10, 36, 40, 1000, 2**32 + 1, 2**63 + 1, 2**64 - 1, 2**64])
def test_randbelow_stays_in_range(n: int) -> None:
    rng = SplitMix64(n % 1000)
    for _ in range(300):
        assert 0 <= rng.randbelow(n) < n


def test_randbelow_1_is_always_0() -> None:
    rng = SplitMix64(3)
    assert {rng.randbelow(1) for _ in range(50)} == {0}


@pytest.mark.parametrize("n", [1, 2, 8, 64, 2**40, 2**64])
def test_randbelow_power_of_two_never_rejects(n: int) -> None:
    """2^64 mod n = 0, so limit = 2^64: every output is kept and reduced mod n, one draw each."""
    rng = SplitMix64(11)
    raw = reference_stream(11, 100)
    assert [rng.randbelow(n) for _ in range(100)] == [x % n for x in raw]


def test_randbelow_rejects_outputs_at_or_above_the_limit() -> None:
    # n = 3: 2^64 mod 3 = 1, so limit = 2^64 - 1 and only the top value 2^64 - 1 is rejected.
    rng = ScriptedStream([2**64 - 1, 2**64 - 1, 5])
    assert rng.randbelow(3) == 5 % 3
    assert rng.calls == 3
    # The value just below the limit is accepted.
    rng = ScriptedStream([2**64 - 2, 5])
    assert rng.randbelow(3) == (2**64 - 2) % 3
    assert rng.calls == 1


def test_randbelow_rejection_on_a_real_stream() -> None:
    # n = 2^63 + 1: limit = 2^64 - (2^63 - 1) = 2^63 + 1, so about half of all outputs are rejected.
    # Seed 0's first output (0xE220…) is rejected; its second (0x6E78…) is below n and returned as is.
    n = 2**63 + 1
    rng = SplitMix64(0)
    assert rng.randbelow(n) == 0x6E789E6AA1B965F4
    assert rng.next64() == reference_stream(0, 3)[2]  # exactly two draws were consumed


def test_randbelow_follows_the_spec_on_long_runs() -> None:
    """randbelow against the C-5 pseudocode for awkward moduli (many rejections for n just above 2^63)."""
    for n in (3, 5, 6, 2**63 + 1, 2**63 + 12345, 2**64 - 1):
        rng = SplitMix64(n & 0xFFFF)
        raw = iter(reference_stream(n & 0xFFFF, 5000))
        limit = 2**64 - (2**64 % n)
        for _ in range(500):
            x = next(raw)
            while x >= limit:
                x = next(raw)
            assert rng.randbelow(n) == x % n


def test_randbelow_is_roughly_uniform() -> None:
    rng = SplitMix64(2024)
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.randbelow(6)] += 1
    assert all(850 < c < 1150 for c in counts), counts


# ----------------------------------------------------------------------------------------------- shuffle


def test_shuffle_is_the_c5_fisher_yates() -> None:
    for seed in (0, 1, 99, 2**64 - 1):
        a = list(range(40))
        SplitMix64(seed).shuffle(a)
        expected = list(range(40))
        ref = SplitMix64(seed)
        for i in range(39, 0, -1):
            j = ref.randbelow(i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert a == expected
        assert sorted(a) == list(range(40))


@pytest.mark.parametrize("items", [[], [7]])
def test_shuffle_of_fewer_than_two_items_draws_nothing(items: list[int]) -> None:
    rng = SplitMix64(5)
    a = list(items)
    rng.shuffle(a)
    assert a == items
    assert rng.state == 5


def test_shuffle_draws_once_per_position() -> None:
    rng = SplitMix64(5)
    rng.shuffle([1, 2])  # one randbelow(2): a power of two, no rejection possible
    assert rng.next64() == reference_stream(5, 2)[1]


# ------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70])
def test_seed_must_be_unsigned_64_bit(seed: int) -> None:
    with pytest.raises(ValueError, match="seed"):
        SplitMix64(seed)


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_seed_bounds_are_accepted(seed: int) -> None:
    assert SplitMix64(seed).state == seed


def _reference_shuffle(seed: int, a: list[int], limit_of: object = None) -> tuple[list[int], int]:
    """C-5's shuffle through randbelow's definition (with ``limit_of(n)`` as the rejection limit if given); the
    list and the stream's state after it."""
    out = list(a)
    rng = SplitMix64(seed)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = limit_of(n) if callable(limit_of) else (1 << 64) - ((1 << 64) % n)
        x = rng.next64()
        while x >= limit:
            x = rng.next64()
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out, rng.state


@pytest.mark.parametrize("size", [0, 1, 2, 10, 36, 52, 127, 128, 200])
def test_shuffle_is_fisher_yates_over_randbelow(size: int) -> None:
    """The shuffle writes next64 and randbelow out for speed: the same permutation and the same stream after it,
    below and above its table of limits (n < 128)."""
    for seed in (0, 1, 7, 2**64 - 1, 0x9E3779B97F4A7C15):
        a = list(range(size))
        rng = SplitMix64(seed)
        rng.shuffle(a)
        assert (a, rng.state) == _reference_shuffle(seed, list(range(size)))


def test_shuffle_rejects_as_randbelow_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rejection is about n/2^64 likely at a deck's sizes, so a lowered limit (half of the outputs rejected) drives
    the shuffle's own rejection loop: it draws again exactly as randbelow would."""
    import referee.rng as module

    monkeypatch.setattr(module, "_LIMITS", [0] + [(1 << 63) - ((1 << 63) % n) for n in range(1, 128)])
    a = list(range(36))
    rng = SplitMix64(5)
    rng.shuffle(a)
    assert (a, rng.state) == _reference_shuffle(5, list(range(36)), lambda n: (1 << 63) - ((1 << 63) % n))
    assert (a, rng.state) != _reference_shuffle(5, list(range(36)))
