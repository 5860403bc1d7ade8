"""The referee's side of the wire: a bot in another process, seen through the in-process Bot interface.

:class:`RemoteBot` starts its process once and reuses it for many games. It performs the handshake, sends
``new_game``, one ``request`` per decision and ``game_over``, and turns every misbehaviour into a typed
error (C-7): ``timeout`` (no answer by the deadline), ``stall`` (``stall_after`` timeouts in a row, or it
stopped reading), ``crash`` (the process died), ``malformed``/``oversized`` (bad frames). After anything but
a timeout the process is killed; the next game starts a fresh one. The time bank and the count of timeouts are
kept by a :class:`referee.clock.Clock`, as for in-process bots. ``act`` returns the reply's text: the game loop
resolves it to an action (an illegal text is its fault).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from protocol.bot import Answer, BotBase, Decision, GameInfo
from protocol.errors import BotCrashed, BotError, BotStalled, BotTimeout, ProtocolViolation
from protocol.wire import PROTOCOL_VERSIONS, answers, bye, game_over, hello, hello_problems, new_game, request

from .clock import LATENCY_GRACE, Clock, TimeControl
from .transport import Transport

__all__ = ["RemoteBot", "LATENCY_GRACE"]


class RemoteBot(BotBase):
    """A bot behind a :class:`Transport`; ``connect`` starts a new connection (process) when needed."""

    def __init__(self, connect: Callable[[], Transport], *, name: str, time: TimeControl = TimeControl(),
                 referee: str = "referee") -> None:
        self.name = name
        self.connect = connect
        self.time = time
        self.clock = Clock(time)
        self.referee = referee
        self.transport: Transport | None = None
        self.starts = 0
        self.version: int | None = None
        self.bot_name: str | None = None
        self.games: list[str] | None = None
        self.seats: list[int] | None = None  # the seat counts its hello declares (None: any)
        self.options: dict[str, Any] | None = None  # the option values its hello declares, by game (None: any)
        self._id = 0
        self._games_played = 0
        self._written_at = 0.0  # when the current request was written: the bot's clock starts there
        self._stderr = ""
        self._start_error: BotError | None = None
        self._new_game: dict[str, Any] | None = None  # this game's new_game message, to rejoin after a restart
        self._answered = False  # has the bot answered a request in this game?
        self.last_exit: int | None = None  # exit status of the last process that went away

    # ------------------------------------------------------------------------------------ connection

    def start(self) -> None:
        """Start the process and shake hands (raises a typed BotError on failure)."""
        self._drop()
        self.transport = self.connect()
        self.starts += 1
        deadline = time.monotonic() + self.time.handshake_time
        try:
            self.transport.send(hello(PROTOCOL_VERSIONS, self.referee), deadline)
            while True:
                reply = self.transport.receive(deadline)
                kind = reply.get("type")
                if kind == "error":
                    raise BotCrashed(f"bot refused the handshake: {str(reply.get('message', ''))[:200]}")
                if kind == "hello":
                    break  # anything else before the hello is ignored, as unknown messages are
            self._accept_hello(reply)
            self.transport.pause()  # no pondering: a bot runs only while it is asked (PROTOCOL.md section 8)
        except BotTimeout as exc:
            self._drop()
            raise BotTimeout(f"no hello within the handshake time ({self.time.handshake_time:g} s)") from exc
        except BotError:
            self._drop()
            raise

    def probe(self) -> None:
        """Start ahead of a game (to read the hello's games). A failure is kept and reported as the next
        game's fault, so a bot that cannot start is not started twice for one game."""
        try:
            self.start()
        except BotError as exc:
            self._start_error = exc

    def _accept_hello(self, reply: Mapping[str, Any]) -> None:
        problems = hello_problems(reply, PROTOCOL_VERSIONS)
        if problems:
            raise ProtocolViolation(f"bad hello: {'; '.join(problems)}")
        self.version, self.bot_name, self.games = reply["version"], reply["name"], reply.get("games")
        self.seats, self.options = reply.get("seats"), reply.get("options")

    def _drop(self) -> None:
        """Kill the process (if any) and keep its last stderr for this game's record."""
        if self.transport is not None:
            self.last_exit = self.transport.close()
            self._stderr += self.transport.take_stderr()
            self.transport = None

    @property
    def alive(self) -> bool:
        return self.transport is not None and self.transport.alive

    def take_stderr(self) -> str:
        """The bot's stderr since the last call, capped (see ProcessTransport)."""
        text = self._stderr + (self.transport.take_stderr() if self.transport else "")
        self._stderr = ""
        return text

    # ---------------------------------------------------------------------------------- Bot interface

    def new_game(self, info: GameInfo) -> None:
        if self._start_error is not None:  # a start that failed just before this game is not retried now
            error, self._start_error = self._start_error, None
            raise error
        if not self.alive:
            self.start()
        assert self.transport is not None
        self.clock.new_game()
        self._games_played += 1
        self._answered = False
        self._new_game = new_game(game=info.game, options=dict(info.options), seat=info.seat, seats=info.seats,
                                  teams=[list(t) for t in info.teams] if info.teams else None,
                                  bot_seed=info.bot_seed, game_no=self._games_played)
        try:
            self._send_new_game()
        except BotCrashed:
            if not self._left_cleanly():
                raise
            self._rejoin()

    def _send_new_game(self) -> None:
        assert self.transport is not None and self._new_game is not None
        self._guard(self.transport.send, self._new_game, time.monotonic() + self.time.handshake_time)

    def _rejoin(self) -> None:
        """A fresh process joins the current game (observations are whole, C-8): the last one exited (status 0)
        between games, which may show at new_game's write or at the first request's exchange."""
        self.start()
        self._send_new_game()

    def _left_cleanly(self) -> bool:
        """Did the process exit with status 0 before answering anything in this game? Such a bot left
        between games (it should wait for bye, docs/PROTOCOL.md); it is restarted once, without a fault."""
        return not self._answered and self.last_exit == 0 and self.transport is None

    def act(self, decision: Decision) -> str | Answer:
        """The reply's text, legal or not: the game loop resolves it to an action (an illegal one is its fault);
        with the reply's ``debug`` note, if it has one, as an :class:`Answer`."""
        if self.transport is None:  # dropped in this game (a process that died unseen fails its exchange below)
            raise BotCrashed("bot process is gone")
        self._id += 1
        rid = self._id
        allowed = self.clock.allowed
        message = request(id=rid, observation=decision.observation, legal=[a.text for a in decision.legal],
                          deadline_ms=int(allowed * 1000), bank_ms=int(self.clock.bank * 1000))
        self._written_at = time.monotonic()  # set again once the request is written
        try:
            try:
                reply = self._guard(self._exchange, message, rid, allowed)
            except BotCrashed:
                if not self._left_cleanly():
                    raise
                self._rejoin()
                reply = self._guard(self._exchange, message, rid, allowed)
        finally:  # time beyond the move limit comes out of the bank, answered or not
            self.clock.spend(time.monotonic() - self._written_at)
            if self.transport is not None:
                self.transport.idle()  # frozen from soon after its answer (or its time-out) to its next request
        self.clock.answered()
        self._answered = True
        text = reply.get("action")
        if not isinstance(text, str):
            self._drop()
            keys = ", ".join(sorted(str(k)[:40] for k in reply)[:12])
            what = "no 'action' key" if "action" not in reply else f"an 'action' that is {type(text).__name__}"
            raise ProtocolViolation(f"reply {rid} has {what}, which must be a string (the reply's keys: {keys})")
        note = reply.get("debug")
        return text if note is None else Answer(text, note)

    def _exchange(self, message: dict[str, Any], rid: int, allowed: float) -> Mapping[str, Any]:
        """Write a request and wait for its answer. The write is bounded too (a bot that does not read its stdin
        times out), but the bot's clock starts when the write completes (PROTOCOL.md section 8)."""
        transport = self.transport
        assert transport is not None
        transport.discard()  # written before this request, so no answer to it, whatever its id says
        transport.send(message, time.monotonic() + allowed + LATENCY_GRACE)  # into the pipe of a frozen bot…
        self._written_at = time.monotonic()
        transport.resume()  # …which thawed finds it there: one wake-up, not one to thaw and one for the request
        deadline = self._written_at + allowed + LATENCY_GRACE
        while True:
            reply = transport.receive(deadline)
            if answers(reply, rid):
                return reply
            # Unknown types are ignored; an action with another id (or a non-integer one) answers nothing.

    def _guard(self, call: Callable[..., Any], *args: Any) -> Any:
        """Run one exchange, ``call(*args)``; a timeout counts on the clock (a stall after ``stall_after`` in a
        row); drop broken bots."""
        try:
            return call(*args)
        except BotTimeout as exc:
            try:
                self.clock.on_timeout(exc)
            except BotStalled:
                self._drop()
                raise
        except BotError:
            self._drop()
            raise

    def game_over(self, result: Mapping[str, Any]) -> None:
        if self.alive:
            assert self.transport is not None
            try:
                self.transport.send(game_over(dict(result)), time.monotonic() + self.time.handshake_time)
                self.transport.pause()  # between games too
            except BotError:
                self._drop()

    def close(self) -> None:
        """Say bye, give the bot 2 s to exit, then kill its process group."""
        if self.transport is None:
            return
        if self.transport.alive:
            try:
                self.transport.send(bye(), time.monotonic() + 1.0)
            except BotError:
                pass
        self.transport.close(grace=2.0)
        self.transport = None
