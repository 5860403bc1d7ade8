"""The session of ``referee check``: complete games by the real runner with a probe as the bot's transport
(:class:`Program`), the handshake on its own (:func:`offer`), and what every case shares (:class:`Session`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.bot import Bot
from protocol.errors import BotCrashed, BotError, BotTimeout, ConfigError
from protocol.wire import PROTOCOL_VERSIONS, bye, hello, hello_problems
from referee.clock import TimeControl
from referee.remote import RemoteBot

from ...botspec import declared_excludes, option_text, same_value
from ...match import Fault, GameRecord, default_action, play_game
from ...plugins import Registry
from ...rng import derive_seed
from ...terminal import printable
from ...wirelog import WireLog
from .probe import Probe, Twist
from .transcript import EXIT_TIME, HANDSHAKE_TIME, MOVE_TIME, REFEREE, Run

T = TypeVar("T")


# ------------------------------------------------------------------------------------------------ programs


@dataclass
class Played:
    """One complete game with the bot at ``seat``: the runner's record and the bot's faults in it."""

    game: str
    seats: int
    seat: int
    seed: int
    record: GameRecord

    @property
    def faults(self) -> list[Fault]:
        return [f for f in self.record.faults if f.seat == self.seat]

    def where(self) -> str:
        return f"{self.game}, {self.seats} seats, seat {self.seat}, seed {self.seed}"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seats": self.seats, "seat": self.seat, "seed": self.seed,
                "options": self.record.options, "decisions": self.record.decisions,
                "faults": [f.to_dict() for f in self.faults]}


#: A slow bot's complete games are cut to about this many seconds of its answers each (docs/CHECK.md, "Time").
GAME_SECONDS = 1.0
MIN_ASKED = 3  # decisions a cut game still asks the bot, however slow it is
_LATENCIES_KEPT = 64


class _Asked:
    """The bot under test in one game, asked at most ``limit`` decisions (or, with ``limit`` None, as many as
    :meth:`Session.asked` allows as its answers are timed); the referee plays the seat's later decisions itself, with
    the default action and no request, as it plays a lone ``pass`` (the bot's game_over comes as usual)."""

    def __init__(self, bot: RemoteBot, session: Session, run: Run, limit: int | None) -> None:
        self.bot, self.session, self.run, self.limit = bot, session, run, limit
        self.name = bot.name
        self.asked = self.cut = 0

    def new_game(self, info: Any) -> None:
        self.bot.new_game(info)

    def act(self, decision: Any) -> Any:
        limit = self.limit if self.limit is not None else self.session.asked()
        if limit is not None and self.asked >= limit:
            self.cut += 1
            return default_action(decision.legal)
        self.asked += 1
        start = time.monotonic()
        try:
            return self.bot.act(decision)
        finally:
            self.session.timed(time.monotonic() - start)

    def game_over(self, result: Any) -> None:
        self.bot.game_over(result)

    def take_stderr(self) -> str:
        return self.bot.take_stderr()

    def close(self) -> None:
        self.bot.close()


class Program:
    """The bot under test as the runner sees it: a RemoteBot whose processes are probes of one run."""

    def __init__(self, session: Session, run: Run, *, twist: Callable[[], Twist] | None = None,
                 move_time: float = MOVE_TIME) -> None:
        self.session = session
        self.run = run
        self.twist = twist or Twist
        self.probes: list[Probe] = []
        self.bot = RemoteBot(self._connect, name=session.name,
                             time=TimeControl(move_time=move_time, handshake_time=HANDSHAKE_TIME), referee=REFEREE)

    def _connect(self) -> Probe:
        probe = Probe.start(self.run, self.twist())
        self.probes.append(probe)
        return probe

    @property
    def probe(self) -> Probe | None:
        return self.probes[-1] if self.probes else None

    def start(self) -> BotError | None:
        """Start and shake hands now; the error if that failed."""
        try:
            self.bot.start()
        except BotError as exc:
            self.run.note(f"handshake failed: {exc}")
            return exc
        return None

    def play(self, game_id: str, seats: int, *, seat: int, seed: int, options: dict[str, Any] | None = None,
             opponents: list[Bot] | None = None, asked: int | None = None) -> Played:
        """One complete game through the real runner; the other seats are in-process bots. The bot is asked at most
        ``asked`` decisions (default: :meth:`Session.asked`, unlimited unless the bot is slow); the referee plays
        its seat's later decisions itself (the default action), without a request."""
        game = self.session.registry.game(game_id)
        options = self.session.options(game_id, options)  # -o and the bot's declaration, then the case's own
        others = opponents if opponents is not None else self.session.opponents(seats - 1)
        player = _Asked(self.bot, self.session, self.run, asked)
        bots: list[Bot] = [*others[:seat], player, *others[seat:]]  # type: ignore[list-item]
        self.run.note(f"game {game_id}, {seats} seats, the bot at seat {seat}, seed {seed}"
                      + (f", options {options}" if options else ""))
        record = play_game(game, bots, seed=seed, options=options)
        played = Played(game_id, seats, seat, seed, record)
        if player.cut:
            self.session.cut_games += 1
            self.run.note(f"the bot answers slowly: it was asked {player.asked} decisions, the referee played its "
                          f"{player.cut} later ones")
        self.run.games.append(played.to_json())
        for fault in played.faults:
            self.run.note(f"fault: {fault.kind} at decision {fault.decision}: {fault.message}")
        return played

    def close(self) -> None:
        """``bye``, 2 s to exit, then the process group is killed (as after ``referee play``). Until it exits, what
        the bot writes is read and recorded, after the ``bye`` in the transcript: so bytes it wrote after its last
        ``game_over`` are not lost with the process (in a tournament the next game would read them)."""
        probe = self.probe
        if probe is not None and probe.alive and self.bot.transport is probe:
            try:
                probe.send(bye(), time.monotonic() + 1.0)
            except BotError:
                pass
            else:
                probe.wait_exit(EXIT_TIME)
        self.bot.close()



def offer(run: Run, versions: Sequence[int]) -> tuple[dict[str, Any] | None, str, float, int | None]:
    """Start a probe and offer ``versions`` in a hello: the bot's answer (hello or error, or None), what went
    wrong, the seconds the answer took, and the exit status after an error answer (the bot should exit). A
    hello answer gets a bye; the probe is closed either way."""
    probe = Probe.start(run)
    start = time.monotonic()
    reply, problem, elapsed, code = None, "", 0.0, None
    try:
        deadline = start + HANDSHAKE_TIME
        probe.send(hello(tuple(versions), REFEREE), deadline)
        while reply is None:
            frame = probe.receive(deadline)
            if frame.get("type") in ("hello", "error"):
                reply = frame
        elapsed = time.monotonic() - start
        if reply.get("type") == "error":
            code = probe.wait_exit(EXIT_TIME)
        else:
            probe.send(bye(), time.monotonic() + 1.0)
    except BotTimeout:
        problem = f"no answer within {HANDSHAKE_TIME:g} s"
    except BotCrashed as exc:  # it ended (exited, or closed its stdout) before answering
        problem = str(exc)
        run.ended_unanswered = reply is None
    except BotError as exc:
        problem = str(exc)
    finally:
        probe.close(grace=EXIT_TIME)
    return reply, problem, elapsed or time.monotonic() - start, code

class Session:
    """What the cases share: the bot's command, the registry, the games to check, the seed and the runs."""

    def __init__(self, argv: Sequence[str], *, registry: Registry, seed: int, name: str = "bot",
                 cwd: str | None = None, popen: Callable[..., Any] | None = None,
                 wire_log: WireLog | None = None) -> None:
        self.argv = list(argv)
        self.popen = popen  # starts the bot (the sandbox's); None: subprocess.Popen
        self.wire_log = wire_log  # every probe's frames go there too (--wire-log), beside the transcripts
        self.registry = registry
        self.seed = seed
        self.name = name
        self.cwd = cwd
        self.games: list[str] = []
        self._counts: dict[str, list[int]] = {}  # by game: the seat counts to play (narrow)
        self._options: dict[str, dict[str, Any]] = {}  # by game: the options every game is played with (narrow)
        self.scope: list[str] = []  # what narrow() left out and why, for the header
        self.requested: list[str] = []  # --game
        self.runs: dict[str, Run] = {}
        self._memo: dict[str, tuple[Any, list[str]]] = {}
        self._used: list[str] = []
        self.hello: dict[str, Any] | None = None
        self.hello_error = ""
        self.latencies: list[float] = []  # the bot's latest answer times (seconds), for :meth:`asked`
        self.cut_games = 0  # complete games in which a slow bot was asked fewer decisions than it had
        #: (what failed, exit status, stderr) when the program ended before its hello: nothing can be checked
        self.start_failure: tuple[str, int, str] | None = None

    # --------------------------------------------------------------------------------------- bookkeeping

    def seed_for(self, *parts: object) -> int:
        """A seed for one game of one case, from the session seed: the same for ``--cases ID --seed N``."""
        return derive_seed(self.seed, *parts, sep=":", size=4)  # 4 bytes: the check's seeds as they always were

    def begin(self) -> None:
        self._used = []

    def used(self) -> list[str]:
        return list(dict.fromkeys(self._used))

    def run(self, name: str) -> Run:
        """A new run, recorded as used by the current case."""
        base, n = name, 1
        while name in self.runs:
            n += 1
            name = f"{base}#{n}"
        run = self.runs[name] = Run(name, self)
        self._used.append(name)
        return run

    def shared(self, name: str, build: Callable[[], T]) -> T:
        """``build()`` once per session; every case that asks gets the same value and the runs it made."""
        if name not in self._memo:
            before = set(self.runs)
            value = build()
            self._memo[name] = (value, [r for r in self.runs if r not in before])
        value, runs = self._memo[name]
        self._used.extend(runs)
        return value  # type: ignore[no-any-return]

    def program(self, run: Run, *, twist: Callable[[], Twist] | None = None,
                move_time: float = MOVE_TIME) -> Program:
        return Program(self, run, twist=twist, move_time=move_time)

    def timed(self, seconds: float) -> None:
        self.latencies.append(seconds)
        del self.latencies[:-_LATENCIES_KEPT]

    def asked(self) -> int | None:
        """How many decisions of a complete game to ask the bot: unlimited (None) while its answers are quick; for a
        slow bot as many as fit in :data:`GAME_SECONDS` at its median answer time, at least :data:`MIN_ASKED`, so
        that the whole check stays near a minute (docs/CHECK.md, "Time")."""
        if not self.latencies:
            return None
        median = sorted(self.latencies)[len(self.latencies) // 2]
        return max(MIN_ASKED, int(GAME_SECONDS / median)) if median * 100 > GAME_SECONDS else None

    def opponents(self, count: int) -> list[Bot]:
        """In-process opponents: the registered ``random`` bot (or ``first``)."""
        for name in ("random", "first"):
            if name in self.registry.bots:
                return [self.registry.bots[name].factory() for _ in range(count)]
        raise ConfigError("referee check needs the built-in bot 'random' or 'first' as an opponent")

    # --------------------------------------------------------------------------------------- games

    @property
    def main_game(self) -> str:
        return self.games[0]

    def seat_counts(self, game_id: str) -> list[int]:
        """The seat counts to play ``game_id`` at, fewest first: the game's, less those the bot's hello excludes
        and those ``--seats`` leaves out (:meth:`narrow`)."""
        if game_id in self._counts:
            return self._counts[game_id]
        game = self.registry.game(game_id)
        return list(range(game.min_seats, game.max_seats + 1))

    def fewest(self, game_id: str | None = None) -> int:
        """The fewest seats to play ``game_id`` (default: the main game) at."""
        return self.seat_counts(game_id or self.main_game)[0]

    def options(self, game_id: str, changes: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The options to play ``game_id`` with: those of ``-o`` and those the bot's declaration chose
        (:meth:`narrow`), with ``changes``; None for the game's defaults."""
        chosen = {**self._options.get(game_id, {}), **(changes or {})}
        return chosen or None

    def allows(self, game_id: str, name: str, value: Any) -> bool:
        """May a case play ``game_id`` with ``name=value``: not fixed by ``-o`` (or by the declaration) to
        another value, and not excluded by the bot's hello?"""
        fixed = self._options.get(game_id, {})
        if name in fixed:
            return same_value(fixed[name], value)
        seats, options = self.declared()
        return declared_excludes(seats, options, game_id, None, {name: value}) is None

    def declared(self) -> tuple[list[int] | None, dict[str, Any] | None]:
        """The seat counts and options the bot's hello declares (None: any); nothing from a bad hello, which
        case 2.1 reports."""
        hello = self.hello
        if hello is None or hello_problems(hello, PROTOCOL_VERSIONS):
            return None, None
        return hello.get("seats"), hello.get("options")

    def unknown_declarations(self) -> list[str]:
        """What the hello's ``options`` name that no registered game has: games, and options of a game (words like
        ``option 'transfr' of durak, which has no such option``)."""
        _, options = self.declared()
        found: list[str] = []
        for game_id, per_game in (options or {}).items():
            if game_id not in self.registry.games:
                found.append(f"options of {printable(str(game_id), one_line=True)[:40]!r}, which is no game here")
                continue
            names = {o.name for o in self.registry.game(game_id).options}
            found += [f"option {printable(str(name), one_line=True)[:40]!r} of {game_id}, which has no such option"
                      for name in per_game if name not in names]
        return found

    def narrow(self, seats: int | None = None, given: dict[str, str] | None = None) -> None:
        """Choose the seat counts and options of each game to check: ``--seats`` and ``-o`` (``given``), within
        what the bot's hello declares it plays. A game the bot does not play at all is left out when it was not
        asked for by ``--game``; :class:`ConfigError` (one line) when ``--seats``, ``-o`` or ``--game`` ask for
        what the bot excludes, or when nothing is left to check."""
        given = given or {}
        declared_seats, declared_options = self.declared()
        unknown = [key for key in given
                   if not any(key in {o.name for o in self.registry.game(g).options} for g in self.games)]
        if unknown:
            raise ConfigError(f"-o {unknown[0]}: no game checked ({', '.join(self.games)}) has that option "
                              f"('referee games' lists them)")
        kept: list[str] = []
        for game_id in self.games:
            game = self.registry.game(game_id)
            if seats is not None:
                game.check_seats(seats, " (--seats)")
            options = game.configure({k: v for k, v in given.items() if k in {o.name for o in game.options}})
            fixed: dict[str, Any] = {k: options[k] for k in given if k in options}
            why = declared_excludes(declared_seats, declared_options, game_id, seats, fixed)
            if why is not None:
                raise ConfigError(f"bot {self.name!r} does not play {game_id} {why}")
            counts = [n for n in range(game.min_seats, game.max_seats + 1)
                      if (seats is None or n == seats) and (declared_seats is None or n in declared_seats)]
            allowed = ((declared_options or {}).get(game_id) or {})
            for name, values in allowed.items():
                if name in options and name not in fixed and declared_excludes(
                        None, declared_options, game_id, None, {name: options[name]}) is not None:
                    fixed[name] = next((v for v in values if _valid(game, {**fixed, name: v})), None)
                    if fixed[name] is None:  # no value it declares is one the game takes
                        counts = []
            if not counts:
                if game_id in self.requested:
                    raise ConfigError(f"bot {self.name!r} does not play {game_id} at any seat count or option "
                                      f"value the game has (its hello declares seats {declared_seats}, options "
                                      f"{allowed or None})"[:300])
                self.scope.append(f"{game_id} left out: the bot's hello excludes every seat count or option value")
                continue
            kept.append(game_id)
            self._counts[game_id] = counts
            self._options[game_id] = {k: v for k, v in fixed.items() if v is not None}
            every = list(range(game.min_seats, game.max_seats + 1))
            if counts != every or self._options[game_id]:
                run_of = len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1))
                words = [f"{counts[0]}-{counts[-1]} seats" if run_of else f"{', '.join(map(str, counts))} seats"]
                words += [f"{k}={option_text(v)}" for k, v in self._options[game_id].items()]
                self.scope.append(f"{game_id} at {', '.join(words)}")
        if not kept:
            raise ConfigError(f"bot {self.name!r} plays none of the games checked at a seat count or option value "
                              f"they have ({'; '.join(self.scope)})")
        self.games = kept

    def handshake(self) -> tuple[dict[str, Any] | None, str, float]:
        """The shared handshake run (cases 2.1, 2.2): the bot's answer to ``hello`` (or None), what went wrong,
        and the seconds it took."""
        return self.shared("handshake", self._handshake)

    def _handshake(self) -> tuple[dict[str, Any] | None, str, float]:
        reply, problem, elapsed, _ = offer(self.run("handshake"), PROTOCOL_VERSIONS)
        return reply, problem, elapsed

    def discover(self, requested: Sequence[str] = ()) -> None:
        """Shake hands once to learn the games the bot plays, and choose the games to check.

        ``requested`` (``--game``) must be registered and played by the bot; by default every registered game
        the bot plays. :class:`ConfigError` when there is nothing to check."""
        self.requested = list(requested)
        for game_id in requested:
            self.registry.game(game_id)  # ConfigError for an unknown game
        reply, problem, _ = self.handshake()
        registered = sorted(self.registry.games)
        if reply is not None and reply.get("type") == "hello":
            self.hello = reply
            games = reply.get("games")
            if isinstance(games, list) and all(isinstance(g, str) for g in games):
                plays = [g for g in games if g in self.registry.games]
                for game_id in requested:
                    if game_id not in games:
                        raise ConfigError(f"bot {self.name!r} does not play {game_id} (it plays: "
                                          f"{', '.join(games) or 'nothing'})")
                if not requested and not plays:
                    raise ConfigError(f"bot {self.name!r} plays none of the registered games (it plays: "
                                      f"{', '.join(games) or 'nothing'}; registered: {', '.join(registered)})")
                self.games = list(dict.fromkeys(requested)) or plays
                return
        else:
            self.hello_error = problem or (f"it answered error: {reply.get('message')!r}" if reply else "no hello")
            run = self.runs["handshake"]
            code = run.exit_codes[-1] if run.exit_codes else None
            if run.ended_unanswered and code is not None:  # it ended by itself before its hello: it cannot start
                self.start_failure = (problem, code, run.stderr)
        self.games = list(dict.fromkeys(requested)) or registered


def _valid(game: Any, options: dict[str, Any]) -> bool:
    try:
        game.configure(options)
    except ConfigError:
        return False
    return True
