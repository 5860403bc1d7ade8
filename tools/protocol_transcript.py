"""Print docs/PROTOCOL-TRANSCRIPT.md: every frame of one real, seeded game between the referee and a bot program.

Run from the repository root::

    python tools/protocol_transcript.py > docs/PROTOCOL-TRANSCRIPT.md

It plays ``durak``, 2 seats, seed 2051: seat 0 is the built-in ``heuristic`` bot inside the referee's process, seat 1
the program ``python -m bots.first`` (the ``first`` bot through the Python SDK), started and spoken to exactly as
``referee play durak -b heuristic -b 'cmd:python -m bots.first' --seed 2051`` does it (a RemoteBot over a
ProcessTransport, move time 1000 ms, no time bank; not in the sandbox, which changes nothing on the pipes). The bytes
are those that crossed the pipes: the referee's frames as written to the bot's stdin, the bot's frames as read from its
stdout, cut into frames by the referee's own decoder. Both bots are deterministic and no frame carries a time, so the
output depends only on the code; tests/integration/test_protocol_transcript.py fails when the committed appendix differs
from what this prints."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

from protocol.wire import MAX_FRAME, FrameDecoder
from referee import __version__
from referee.clock import TimeControl
from referee.match import play_game
from referee.plugins import load_registry
from referee.remote import RemoteBot
from referee.transport import ProcessTransport

GAME, SEED = "durak", 2051
BOT_ARGV = [sys.executable, "-m", "bots.first"]
WIDTH = 100  # decoded JSON: a value that fits in this many columns stays on one line

Frame = tuple[str, bytes, dict[str, Any]]  # direction, bytes, decoded map


class _RecordingDecoder(FrameDecoder):
    """The referee's decoder of the bot's stdout, keeping each frame's bytes (FrameDecoder.sizes says how long)."""

    def __init__(self, log: list[Frame]) -> None:
        super().__init__(MAX_FRAME)
        self.log = log
        self._bytes = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._bytes += data
        frames = super().feed(data)
        for frame, size in zip(frames, self.sizes, strict=True):
            self.log.append(("bot → referee", bytes(self._bytes[:size]), frame))
            del self._bytes[:size]
        return frames


class _RecordingTransport(ProcessTransport):
    """A ProcessTransport that also keeps every frame it writes, as written."""

    def __init__(self, argv: list[str], log: list[Frame]) -> None:
        super().__init__(argv, decoder=_RecordingDecoder(log))
        self.log = log
        self._message: dict[str, Any] | None = None

    def send(self, message: dict[str, Any], deadline: float) -> None:
        self._message = message
        super().send(message, deadline)

    def send_raw(self, data: bytes, deadline: float) -> None:
        self.log.append(("referee → bot", bytes(data), self._message or {}))
        super().send_raw(data, deadline)


def record() -> tuple[list[Frame], Any, int | None]:
    """Play the game; return the frames in order, the game record and the bot's exit status."""
    registry = load_registry()
    log: list[Frame] = []
    bot = RemoteBot(lambda: _RecordingTransport(BOT_ARGV, log), name="bots.first", time=TimeControl(move_time=1.0),
                    referee=f"referee/{__version__}")
    try:
        game_record = play_game(registry.game(GAME), [registry.bot("heuristic").factory(), bot], seed=SEED)
    finally:
        transport = bot.transport
        bot.close()
    exit_code = transport.proc.returncode if isinstance(transport, ProcessTransport) else None
    return log, game_record, exit_code


# ------------------------------------------------------------------------------------------ rendering


def hexdump(data: bytes) -> str:
    """``xxd`` style: offset, 16 bytes in groups of 2, the printable ASCII."""
    lines = []
    for at in range(0, len(data), 16):
        chunk = data[at:at + 16]
        groups = " ".join(chunk[i:i + 2].hex() for i in range(0, len(chunk), 2))
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{at:08x}: {groups:<39}  {text}")
    return "\n".join(lines)


def to_json(value: Any, indent: int = 0, used: int | None = None) -> str:
    """JSON, on one line when it fits in WIDTH columns (``used`` of them are taken already), else one key or item
    per line, indented by 2."""
    flat = json.dumps(value, ensure_ascii=False)
    if (indent if used is None else used) + len(flat) <= WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            head = pad + json.dumps(key, ensure_ascii=False) + ": "
            lines.append(head + to_json(item, indent + 2, len(head)))
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    return "[\n" + ",\n".join(pad + to_json(item, indent + 2) for item in value) + "\n" + " " * indent + "]"


def tokens(data: bytes) -> Iterator[tuple[bytes, str, str]]:
    """The msgpack tokens of a frame made of maps, arrays, strings, ints, bools and nil: (bytes, what, value)."""
    i = 0
    while i < len(data):
        b = data[i]
        if b <= 0x7F:
            yield data[i:i + 1], f"positive fixint {b}", str(b)
            i += 1
        elif 0x80 <= b <= 0x8F:
            yield data[i:i + 1], f"fixmap, {b & 0x0F} entr{'y' if b & 0x0F == 1 else 'ies'}", "{"
            i += 1
        elif 0x90 <= b <= 0x9F:
            yield data[i:i + 1], f"fixarray, {b & 0x0F} element{'' if b & 0x0F == 1 else 's'}", "["
            i += 1
        elif 0xA0 <= b <= 0xBF:
            n = b & 0x1F
            yield data[i:i + 1 + n], f"fixstr, {n} bytes", json.dumps(data[i + 1:i + 1 + n].decode())
            i += 1 + n
        else:
            size = {0xC0: 1, 0xC2: 1, 0xC3: 1, 0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9, 0xDE: 3}.get(b)
            if size is None:
                raise ValueError(f"tokens() does not know the msgpack type 0x{b:02x}")
            yield data[i:i + size], f"0x{b:02x}", ""
            i += size


def _spaced(data: bytes) -> str:
    text = " ".join(f"{b:02x}" for b in data)
    return text if len(data) <= 9 else " ".join(f"{b:02x}" for b in data[:3]) + " … " + f"{data[-1]:02x}"


ENCODINGS = {  # header byte → how it reads, for the list of other encodings that occur
    0xC0: "`c0` nil", 0xC2: "`c2` false", 0xC3: "`c3` true", 0xCC: "`cc` + 1 byte: uint8",
    0xCD: "`cd` + 2 bytes: uint16 (`cd 03 e8` is 1000)", 0xCE: "`ce` + 4 bytes: uint32",
    0xCF: "`cf` + 8 bytes: uint64 (the `bot_seed`)", 0xDE: "`de` + 2 bytes: map16, a map of 16 or more entries "
    "(the observation)",
}


def _title(n: int, direction: str, frame: bytes, message: dict[str, Any], label: str = "") -> str:
    kind = message.get("type")
    rid = f" {message['id']}" if kind in ("request", "action") else ""
    return f"### {n}. `{kind}`{rid}{label} ({direction}, {len(frame)} bytes)"


def render() -> str:
    log, game_record, exit_code = record()
    requests = [m for d, _, m in log if m.get("type") == "request"]
    shown = {requests[0]["id"], requests[1]["id"], requests[-1]["id"]}
    seat1 = len(requests)
    out: list[str] = []
    say = out.append
    say("# Appendix to PROTOCOL.md: an example transcript")
    say("")
    say("<!-- Generated by `python tools/protocol_transcript.py > docs/PROTOCOL-TRANSCRIPT.md`; do not edit by hand.")
    say("     tests/integration/test_protocol_transcript.py fails when this file differs from what the script "
        "prints. -->")
    say("")
    say(f"A complete, real game of `{GAME}` with 2 seats (seed {SEED}): seat 0 is the built-in `heuristic` bot in the "
        "referee's process, seat 1 is a program bot, `python -m bots.first` (the `first` bot through the Python SDK: "
        f"it always plays `legal[0]`). The game took {game_record.decisions} decisions, {seat1} of them seat 1's. "
        "Every frame between the referee and seat 1 is shown, in order: as bytes (hexadecimal with an ASCII column) "
        "and decoded (as JSON; msgpack nil is `null`). Requests "
        f"{min(r['id'] for r in requests if r['id'] not in shown)} to "
        f"{max(r['id'] for r in requests if r['id'] not in shown)} are summarised in a table. Seat 0's decisions "
        "are made inside the referee and leave no frames; seat 1 learns of them from the `events` of its next "
        "observation ([PROTOCOL.md](PROTOCOL.md), [WIRE.md](WIRE.md)).")
    say("")
    say("**How it was produced.** [`tools/protocol_transcript.py`](../tools/protocol_transcript.py) starts the bot "
        "and talks to it exactly as `referee play durak -b heuristic -b 'cmd:python -m bots.first' --seed 2051` "
        "does (a `RemoteBot` over a `ProcessTransport`, move time 1000 ms, no time bank; without the sandbox, "
        "which changes where the bot runs, not what it is sent), and records the bytes "
        "that cross the pipes: the referee's frames as written to the bot's stdin, the bot's as read from its "
        "stdout, cut into frames by the referee's decoder. After the game it calls `RemoteBot.close()`, which "
        f"sends `bye`; the bot exited with status {exit_code}. Both bots are deterministic and no frame carries a "
        "time, so the transcript changes only when the code does.")
    say("")
    first = log[0][1]
    say("**Reading the bytes.** The first frame, `hello`, byte by byte:")
    say("")
    say("| bytes | msgpack | value |")
    say("|---|---|---|")
    for raw, what, value in tokens(first):
        say(f"| `{_spaced(raw)}` | {what} | {f'`{value}`' if value else ''} |")
    say("")
    seen = sorted({b for _, frame, _ in log for raw, _, _ in tokens(frame) if (b := raw[0]) in ENCODINGS})
    say("Other encodings that appear below: " + ", ".join(ENCODINGS[b] for b in seen) + "; `9n` is a fixarray "
        "of n elements and `8n` a fixmap of n entries.")
    n = 0
    summary: list[tuple[dict[str, Any], dict[str, Any], int]] = []
    pending: tuple[dict[str, Any], int] | None = None
    for direction, frame, message in log:
        kind = message.get("type")
        if kind in ("request", "action") and message["id"] not in shown:
            if kind == "request":
                pending = (message, len(frame))
            elif pending is not None:
                summary.append((pending[0], message, pending[1]))
                pending = None
            continue
        if summary:
            first_id, last_id = summary[0][0]["id"], summary[-1][0]["id"]
            say("")
            say(f"Requests {first_id} to {last_id}, each answered at once with `legal[0]`:")
            say("")
            say("| id | phase | legal | answer | request bytes |")
            say("|---|---|---|---|---|")
            for req, act, size in summary:
                legal = ", ".join(f"`{a}`" for a in req["legal"])
                say(f"| {req['id']} | {req['observation']['phase']} | {legal} | `{act['action']}` | {size} |")
            summary = []
        n += 1
        label = ", the last one" if kind == "request" and message["id"] == requests[-1]["id"] else ""
        say("")
        say(_title(n, direction, frame, message, label))
        say("")
        say("```")
        say(hexdump(frame))
        say("```")
        say("")
        say("```json")
        say(to_json(message))
        say("```")
    result = game_record.result
    say("")
    say("After `bye` the referee closed the bot's stdin and stdout and waited for it to exit. In the result, "
        f"`loser` is {result.extra.get('loser')}: `first` {'lost to' if result.extra.get('loser') == 1 else 'beat'} "
        f"`heuristic`. {'Neither seat had a fault.' if not result.faults else 'There were faults.'}")
    return "\n".join(_wrap(line) for line in out) + "\n"


def _wrap(line: str) -> str:
    """Prose paragraphs wrapped at 120 columns, like the other docs; tables, code and headings as they are."""
    if len(line) <= 120 or line.startswith(("|", "#", " ", "{", "[", "0")):
        return line
    return textwrap.fill(line, 120, break_long_words=False, break_on_hyphens=False)


if __name__ == "__main__":
    sys.stdout.write(render())
