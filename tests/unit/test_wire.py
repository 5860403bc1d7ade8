"""Framing of the bot protocol (protocol/wire.py): FrameDecoder bounds and decoding, pack, message builders.

Non-minimal encodings are built by hand, byte by byte, from the msgpack spec: the decoder must accept any valid
msgpack map, not only what ``msgpack.packb`` would produce.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest

from protocol.errors import ProtocolViolation
from protocol.wire import (
    MAX_DEPTH,
    MAX_FRAME,
    PROTOCOL_VERSIONS,
    FrameDecoder,
    bye,
    game_over,
    hello,
    hello_problems,
    new_game,
    pack,
    packer,
    request,
)

# ------------------------------------------------------------------------------------------------ hand encoding


def fixstr(text: str) -> bytes:
    data = text.encode()
    assert len(data) < 32
    return bytes([0xA0 | len(data)]) + data


def str16(text: str) -> bytes:
    data = text.encode()
    return b"\xda" + struct.pack(">H", len(data)) + data


def str32(text: str) -> bytes:
    data = text.encode()
    return b"\xdb" + struct.pack(">I", len(data)) + data


def uint64(value: int) -> bytes:
    return b"\xcf" + struct.pack(">Q", value)


def uint32(value: int) -> bytes:
    return b"\xce" + struct.pack(">I", value)


def int64(value: int) -> bytes:
    return b"\xd3" + struct.pack(">q", value)


def map16(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xde" + struct.pack(">H", len(pairs)) + b"".join(k + v for k, v in pairs)


def map32(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xdf" + struct.pack(">I", len(pairs)) + b"".join(k + v for k, v in pairs)


def fixmap(pairs: list[tuple[bytes, bytes]]) -> bytes:
    assert len(pairs) < 16
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def feed_all(decoder: FrameDecoder, chunks: list[bytes]) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    for chunk in chunks:
        frames.extend(decoder.feed(chunk))
    return frames


ACTION = {"type": "action", "id": 7, "action": "attack(7T,7K)"}
OBSERVATION = {"hand": ["7T", "9R"], "trump": "K", "events": [{"type": "attack", "seat": 0, "cards": ["6K"]}]}

# ------------------------------------------------------------------------------------------------ pack


@pytest.mark.parametrize("message", [
    ACTION,
    {"type": "hello", "version": 1, "name": "bot", "games": ["durak", "kazaki"]},
    {"type": "x", "nested": {"a": [1, 2, {"b": None}], "f": 1.5, "t": True}, "blob": b"\x00\xff"},
    {"type": "unicode", "text": "козырь ♠"},
])
def test_pack_round_trip(message: dict[str, Any]) -> None:
    assert FrameDecoder().feed(pack(message)) == [message]
    assert msgpack.unpackb(pack(message), raw=False) == message


def test_pack_keeps_bytes_and_text_apart() -> None:
    data = pack({"type": "t", "s": "ab", "b": b"ab"})
    assert b"\xa2ab" in data  # str as fixstr
    assert b"\xc4\x02ab" in data  # bytes as bin8, not str
    assert FrameDecoder().feed(data) == [{"type": "t", "s": "ab", "b": b"ab"}]


def test_a_packer_of_ones_own_packs_as_pack_frame_after_frame() -> None:
    mine = packer()
    for message in (ACTION, hello(), request(id=2, observation=OBSERVATION, legal=["take"], deadline_ms=9), bye()):
        assert mine(message) == pack(message)


def test_message_builders() -> None:
    assert hello() == {"type": "hello", "versions": list(PROTOCOL_VERSIONS), "referee": "referee"}
    assert new_game(game="durak", options={"perevodnoy": True}, seat=1, seats=2, teams=None, bot_seed=5,
                    game_no=3) == {"type": "new_game", "game": "durak", "options": {"perevodnoy": True},
                                   "seat": 1, "seats": 2, "teams": None, "bot_seed": 5, "game_no": 3}
    assert request(id=4, observation={"hand": []}, legal=["take"], deadline_ms=250) == {
        "type": "request", "id": 4, "observation": {"hand": []}, "legal": ["take"], "deadline_ms": 250, "bank_ms": 0}
    assert game_over({"places": [1, 2]}) == {"type": "game_over", "result": {"places": [1, 2]}}
    assert bye() == {"type": "bye"}
    for message in (hello(), bye(), game_over({}), request(id=1, observation={}, legal=[], deadline_ms=1)):
        assert FrameDecoder().feed(pack(message)) == [message]


# ------------------------------------------------------------------------------------------------ splitting


def test_frame_split_byte_by_byte() -> None:
    data = pack(ACTION)
    decoder = FrameDecoder()
    for byte in data[:-1]:
        assert decoder.feed(bytes([byte])) == []
    assert decoder.feed(data[-1:]) == [ACTION]


def test_two_frames_split_byte_by_byte() -> None:
    second = {"type": "hello", "version": 1, "name": "n"}
    data = pack(ACTION) + pack(second)
    frames = feed_all(FrameDecoder(), [bytes([b]) for b in data])
    assert frames == [ACTION, second]


def test_several_frames_in_one_chunk() -> None:
    messages = [{"type": "action", "id": i, "action": "take"} for i in range(5)]
    assert FrameDecoder().feed(b"".join(pack(m) for m in messages)) == messages


def test_chunk_ending_mid_frame_keeps_the_rest() -> None:
    a, b, c = pack({"type": "a"}), pack({"type": "b", "x": list(range(20))}), pack({"type": "c"})
    data = a + b + c
    cut = len(a) + len(b) // 2
    decoder = FrameDecoder()
    assert decoder.feed(data[:cut]) == [{"type": "a"}]
    assert decoder.feed(data[cut:]) == [{"type": "b", "x": list(range(20))}, {"type": "c"}]


def test_the_rest_of_a_frame_is_not_read_as_a_frame_of_its_own() -> None:
    # A small read is decoded in one call only when nothing is buffered before it: here the second read alone is a
    # well-formed map (the bytes the first frame carries), but it is the end of the first frame.
    inner = pack({"type": "action", "id": 1, "action": "take"})
    outer = pack({"type": "note", "blob": inner})
    decoder = FrameDecoder()
    assert decoder.feed(outer[:-len(inner)]) == []
    assert decoder.feed(outer[-len(inner):]) == [{"type": "note", "blob": inner}]
    assert decoder.sizes == [len(outer)]
    assert decoder.feed(inner) == [{"type": "action", "id": 1, "action": "take"}] and decoder.sizes == [len(inner)]


def test_empty_chunk_is_harmless() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"") == []
    assert decoder.feed(pack(ACTION)) == [ACTION]
    assert decoder.feed(b"") == []


def test_many_small_frames_in_one_chunk_are_not_oversized() -> None:
    # Every frame is well under max_frame; only the chunk is large. max_frame bounds a frame, not a read.
    decoder = FrameDecoder(max_frame=100)
    messages = [{"type": "action", "id": i, "action": "x" * 30} for i in range(20)]
    chunk = b"".join(pack(m) for m in messages)
    assert all(len(pack(m)) < 100 for m in messages) and len(chunk) > 4 * 100
    assert decoder.feed(chunk) == messages


def test_many_frames_over_many_chunks_stay_bounded() -> None:
    # A long stream of small frames: the decoder must not accumulate them (bounded memory) nor mistake the
    # stream's total length for one frame.
    decoder = FrameDecoder(max_frame=200)
    frame = pack({"type": "action", "id": 1, "action": "y" * 50})
    total = 0
    for _ in range(200):
        total += len(decoder.feed(frame * 3))
    assert total == 600


# ------------------------------------------------------------------------------------------------ non-minimal


def test_wide_ints_accepted() -> None:
    data = fixmap([(fixstr("type"), fixstr("action")), (fixstr("id"), uint64(5)), (fixstr("n"), uint32(1)),
                   (fixstr("neg"), int64(-2)), (fixstr("action"), fixstr("take"))])
    assert FrameDecoder().feed(data) == [{"type": "action", "id": 5, "n": 1, "neg": -2, "action": "take"}]


def test_wide_strings_accepted() -> None:
    data = fixmap([(str16("type"), str32("action")), (str32("id"), b"\x07"), (fixstr("action"), str16("take"))])
    assert FrameDecoder().feed(data) == [{"type": "action", "id": 7, "action": "take"}]


@pytest.mark.parametrize("build", [map16, map32], ids=["map16", "map32"])
def test_wide_maps_accepted(build: Any) -> None:
    data = build([(fixstr("type"), fixstr("action")), (fixstr("id"), b"\x01"), (fixstr("action"), fixstr("take"))])
    assert FrameDecoder().feed(data) == [{"type": "action", "id": 1, "action": "take"}]


def test_empty_map32_accepted() -> None:
    assert FrameDecoder().feed(map32([])) == [{}]


def test_non_minimal_frame_split_byte_by_byte() -> None:
    data = map32([(str32("type"), str16("action")), (str16("id"), uint64(3)), (str32("action"), str32("pass"))])
    frames = feed_all(FrameDecoder(), [bytes([b]) for b in data])
    assert frames == [{"type": "action", "id": 3, "action": "pass"}]


def test_unknown_keys_kept() -> None:
    message = {"type": "action", "id": 1, "action": "take", "comment": "gg", "x-debug": {"depth": 3}}
    assert FrameDecoder().feed(pack(message)) == [message]


def test_unknown_message_type_is_still_a_frame() -> None:
    assert FrameDecoder().feed(pack({"type": "log", "text": "hi"})) == [{"type": "log", "text": "hi"}]


# ------------------------------------------------------------------------------------------------ malformed


def assert_violation(kind: str, decoder: FrameDecoder, chunks: list[bytes]) -> ProtocolViolation:
    with pytest.raises(ProtocolViolation) as info:
        feed_all(decoder, chunks)
    assert info.value.kind == kind, str(info.value)
    assert str(info.value) and "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize("data", [
    pytest.param(b"\x05", id="positive-fixint"),
    pytest.param(b"\xcf" + struct.pack(">Q", 2**40), id="uint64"),
    pytest.param(b"\xa5hello", id="str"),
    pytest.param(b"\x93\x01\x02\x03", id="array"),
    pytest.param(b"\xc0", id="nil"),
    pytest.param(b"\xc3", id="true"),
    pytest.param(b"\xc4\x02ab", id="bin"),
])
def test_non_map_is_malformed(data: bytes) -> None:
    assert_violation("malformed", FrameDecoder(), [data])


def test_text_on_stdout_is_malformed() -> None:
    error = assert_violation("malformed", FrameDecoder(), [b"hello\n"])
    assert "map" in str(error)


def test_non_map_after_good_frame_is_malformed() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(pack(ACTION)) == [ACTION]
    assert_violation("malformed", decoder, [b"Traceback (most recent call last):\n"])


def nested(depth: int) -> bytes:
    """An action frame whose extra key holds arrays nested so that the frame is ``depth`` levels deep."""
    return b"\x82\xa4type\xa6action\xa5extra" + b"\x91" * (depth - 2) + b"\x90"


def test_nesting_up_to_the_limit_is_a_frame() -> None:
    assert FrameDecoder().feed(nested(MAX_DEPTH))[0]["type"] == "action"


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 5000])
def test_deeper_nesting_is_malformed_without_recursing(depth: int) -> None:
    # 1,000 levels decode in msgpack and then break repr() (RecursionError) wherever a message quotes them.
    error = assert_violation("malformed", FrameDecoder(), [nested(depth)])
    assert f"more than {MAX_DEPTH} deep" in str(error) or "undecodable" in str(error)


def test_undecodable_byte_is_malformed() -> None:
    assert_violation("malformed", FrameDecoder(), [b"\xc1"])


def test_undecodable_byte_inside_map_is_malformed() -> None:
    assert_violation("malformed", FrameDecoder(), [b"\x81\xa4type\xc1"])


def test_undecodable_byte_split_is_malformed() -> None:
    assert_violation("malformed", FrameDecoder(), [b"\x81", b"\xa4ty", b"pe", b"\xc1"])


@pytest.mark.parametrize("data", [
    pytest.param(b"\x82\xa4type\xa6action\xa6action\xa2\xff\xfe", id="value"),
    pytest.param(b"\x81\xa2\xff\xfe\x01", id="key"),
])
def test_invalid_utf8_string_is_malformed(data: bytes) -> None:
    assert_violation("malformed", FrameDecoder(), [data])


# ------------------------------------------------------------------------------------------------ oversized


def test_frame_at_the_limit_is_accepted() -> None:
    base = pack({"type": "x", "p": ""})
    message = {"type": "x", "p": "a" * 1000}
    size = len(pack(message))
    decoder = FrameDecoder(max_frame=size)
    assert decoder.feed(pack(message)) == [message]
    assert len(base) < size


def test_one_big_string_is_oversized() -> None:
    data = pack({"type": "x", "p": "a" * (MAX_FRAME + 10)})
    assert_violation("oversized", FrameDecoder(), [data])


def test_big_bin_is_oversized() -> None:
    data = pack({"type": "x", "p": b"\0" * (MAX_FRAME + 10)})
    assert_violation("oversized", FrameDecoder(), [data])


def test_big_frame_in_chunks_is_oversized() -> None:
    data = pack({"type": "x", "p": "a" * (3 * MAX_FRAME)})
    assert_violation("oversized", FrameDecoder(), [data[i:i + 1000] for i in range(0, len(data), 1000)])


def test_frame_of_many_small_parts_is_oversized() -> None:
    # No single string exceeds the bound, but the frame does.
    data = pack({"type": "x", "a": "a" * (MAX_FRAME // 2), "b": "b" * (MAX_FRAME // 2), "c": list(range(100))})
    assert len(data) > MAX_FRAME
    assert_violation("oversized", FrameDecoder(), [data[i:i + 4096] for i in range(0, len(data), 4096)])


HUGE_HEADERS = [
    pytest.param(b"\xc6" + struct.pack(">I", 100 << 20), id="bin32"),
    pytest.param(b"\xdb" + struct.pack(">I", 100 << 20), id="str32"),
    pytest.param(b"\x82\xa4type\xa6action\xa6action\xdb" + struct.pack(">I", 100 << 20), id="str32-in-map"),
    pytest.param(b"\x81\xa1a\xdb\xff\xff\xff\xff", id="str32-4GiB-in-map"),
    pytest.param(b"\xc6\xff\xff\xff\xff", id="bin32-4GiB"),
    pytest.param(b"\xc9\xff\xff\xff\xff", id="ext32-4GiB"),
    pytest.param(b"\x81\xa1a\xda\xff\xff", id="str16-too-long-for-the-frame"),
    pytest.param(b"\xdf" + struct.pack(">I", 1 << 31), id="map32"),
    pytest.param(b"\x81\xa4type\xdd" + struct.pack(">I", 1 << 31), id="array32-in-map"),
    pytest.param(b"\x81\xa1a\xde\x9c\x40", id="map16-of-40000-pairs-in-map"),
    pytest.param(b"\x81\xa1a\x92\xdc\x80\x00\xdc\x80\x00", id="two-arrays-of-32768-items"),
]


@pytest.mark.parametrize("header", HUGE_HEADERS)
def test_a_header_announcing_more_than_a_frame_is_oversized_as_it_arrives(header: bytes) -> None:
    """Issue 33: the header alone, with nothing after it, is oversized (it used to wait for the bytes it announced,
    and a bot that sent only the header got timeouts), in one read or byte by byte."""
    assert_violation("oversized", FrameDecoder(), [header])
    decoder = FrameDecoder()
    with pytest.raises(ProtocolViolation) as info:
        for i in range(len(header)):
            decoder.feed(header[i:i + 1])
    assert info.value.kind == "oversized" and i == len(header) - 1  # at its last byte, not before
    if max(header[-4:]) == 0xff:
        assert "frame larger than 65536 bytes" in str(info.value)


@pytest.mark.parametrize("header", HUGE_HEADERS[:3])
def test_huge_header_is_oversized_without_buffering_it(header: bytes) -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolViolation) as info:
        decoder.feed(header + b"\0" * 65536)
    assert info.value.kind == "oversized"


def test_an_unfinished_frame_within_the_bounds_waits_for_its_bytes() -> None:
    frame = pack({"type": "action", "id": 7, "action": "x" * 60000, "list": list(range(1000)), "nested": [[[[1]]]]})
    assert len(frame) < MAX_FRAME
    decoder = FrameDecoder()
    for i in range(0, len(frame) - 1, 997):
        assert decoder.feed(frame[i:min(i + 997, len(frame) - 1)]) == []
    assert decoder.feed(frame[-1:]) == [msgpack.unpackb(frame)]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 1023, 1024, 1025, 100_000])
@pytest.mark.parametrize("bare", [True, False], ids=["bare", "in-a-map"])
def test_arrays_nested_too_deep_are_malformed_whole_or_byte_by_byte(depth: int, bare: bool) -> None:
    """Issue 33: 1,000 nested arrays alone reached repr() (a RecursionError) before the depth was checked; beyond
    1,024 levels msgpack itself gives up (StackError): the same fault, in one read or byte by byte."""
    data = (b"" if bare else b"\x82\xa4type\xa6action\xa1k") + b"\x91" * depth + b"\xc0"
    error = assert_violation("malformed", FrameDecoder(), [data])
    assert str(error) == f"arrays and maps nested more than {MAX_DEPTH} deep"
    error = assert_violation("malformed", FrameDecoder(), [data[i:i + 1] for i in range(min(len(data), 2000))])
    assert str(error) == f"arrays and maps nested more than {MAX_DEPTH} deep"  # 1,025 levels are enough for 100,000


def test_a_deep_value_replaced_by_a_later_one_of_its_key_is_not_too_deep() -> None:
    """The depth is the decoded frame's: judged alike whole and in pieces (the walk of an unfinished frame does not
    judge it)."""
    data = b"\x82\xa2id" + b"\x91" * 500 + b"\xc0\xa2id\x07"
    assert FrameDecoder().feed(data) == [{"id": 7}]
    decoder = FrameDecoder()
    assert [f for i in range(len(data)) for f in decoder.feed(data[i:i + 1])] == [{"id": 7}]


def test_small_max_frame_is_enforced() -> None:
    decoder = FrameDecoder(max_frame=64)
    assert decoder.feed(pack({"type": "ok"})) == [{"type": "ok"}]
    assert_violation("oversized", decoder, [pack({"type": "x", "p": "z" * 100})])


def test_hello_problems() -> None:
    good = {"type": "hello", "version": 1, "name": "x", "games": None}
    assert hello_problems(good, (1,), every_key=True) == []
    assert hello_problems({**good, "games": ["durak"], "extra": 1}, (1,), every_key=True) == []
    assert hello_problems({k: v for k, v in good.items() if k != "games"}, (1,), every_key=True) == ["no 'games' key"]
    assert hello_problems({k: v for k, v in good.items() if k != "games"}, (1,)) == []  # the referee's reading
    assert hello_problems({"type": "hello"}, (1,)) == ["no 'version' key", "no 'name' key"]
    assert "version 2" in hello_problems({**good, "version": 2}, (1,))[0]
    assert "version True" in hello_problems({**good, "version": True}, (1,))[0]
    assert "name ''" in hello_problems({**good, "name": ""}, (1,))[0]
    assert "games 'durak'" in hello_problems({**good, "games": "durak"}, (1,))[0]


def test_decoder_reports_the_size_of_each_frame() -> None:
    one, two = pack({"type": "a"}), pack({"type": "b", "x": "y" * 300})
    decoder = FrameDecoder()
    assert decoder.feed(one + two[:10]) == [{"type": "a"}] and decoder.sizes == [len(one)]
    assert decoder.feed(two[10:] + one) == [{"type": "b", "x": "y" * 300}, {"type": "a"}]
    assert decoder.sizes == [len(two), len(one)]
    assert decoder.feed(b"") == [] and decoder.sizes == []


@pytest.mark.parametrize("declared", [
    {"seats": [2]}, {"seats": [2, 3, 2]}, {"seats": None}, {"options": None}, {"options": {}},
    {"options": {"durak": {"transfer": [True]}, "kozel-hvaleny": {"lyusya": ["lose"], "target_eyes": [12, 6]}}},
    {"options": {"durak": None, "game-from-the-future": {"x": [1]}}},
])
def test_hello_may_declare_seats_and_options(declared: dict[str, Any]) -> None:
    good = {"type": "hello", "version": 1, "name": "x", "games": None}
    assert hello_problems({**good, **declared}, (1,), every_key=True) == []


@pytest.mark.parametrize(("declared", "words"), [
    ({"seats": []}, "seats []"),
    ({"seats": 2}, "seats 2"),
    ({"seats": [0]}, "seats [0]"),
    ({"seats": [65]}, "seats [65]"),
    ({"seats": [True]}, "seats [True]"),
    ({"seats": ["2"]}, "seats ['2']"),
    ({"seats": [2.0]}, "seats [2.0]"),
    ({"seats": [-(2 ** 63)]}, "seats [-9223372036854775808]"),
    ({"seats": list(range(1, 2000))}, "seats [1, 2, 3,"),
    ({"options": []}, "options []"),
    ({"options": {"durak": {"transfer": True}}}, "options {'durak'"),
    ({"options": {"durak": {"transfer": []}}}, "options {'durak'"),
    ({"options": {"durak": {"transfer": [None]}}}, "options {'durak'"),
    ({"options": {"durak": {"transfer": [[True]]}}}, "options {'durak'"),
    ({"options": {"durak": {"transfer": [1.5]}}}, "options {'durak'"),
    ({"options": {"durak": ["transfer"]}}, "options {'durak'"),
    ({"options": {"durak": {7: [True]}}}, "options {'durak'"),
    ({"options": {7: None}}, "options {7: None}"),
    ({"options": "durak"}, "options 'durak'"),
])
def test_a_bad_declaration_is_one_short_problem(declared: dict[str, Any], words: str) -> None:
    good = {"type": "hello", "version": 1, "name": "x", "games": None}
    problems = hello_problems({**good, **declared}, (1,))
    assert len(problems) == 1 and problems[0].startswith(words), problems
    assert "\n" not in problems[0] and len(problems[0]) < 260
