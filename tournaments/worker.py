"""Playing a tournament's games in one process: :class:`GameWorker` builds each entrant's bot once and reuses
it (and the bot process behind it) across games. Every executor plays its games through one."""

from __future__ import annotations

from protocol.bot import Bot
from referee.botspec import BotSpec, parse_spec
from referee.match import play_game
from referee.plugins import load_registry
from referee.said import said_within
from referee.sandbox import Sandbox
from referee.wirelog import WireLog

from .config import TournamentConfig
from .schedule import Scheduled
from .storage import FinishedGame, RecordTemplate

__all__ = ["GameWorker"]


class GameWorker:
    """Plays scheduled games of one tournament; bots are made once and reused."""

    def __init__(self, config: TournamentConfig, sandbox: Sandbox | None = None,
                 wire_log: WireLog | None = None) -> None:
        self.config = config
        self.sandbox = sandbox  # how program bots are started (None: as they are)
        self.wire_log = wire_log  # where their frames are logged (--wire-log), from this process
        self.registry = load_registry()
        self.game = self.registry.game(config.game)
        self.specs: list[BotSpec] = [parse_spec(spec, self.registry) for spec in config.specs]
        self.bots: dict[int, Bot] = {}
        self.template = RecordTemplate.of(config.to_dict(), self.game)

    def _bot(self, entrant: int) -> Bot:
        if entrant not in self.bots:
            self.bots[entrant] = self.specs[entrant].make(self.registry, time=self.config.time_control(),
                                                          sandbox=self.sandbox, wire_log=self.wire_log)
        return self.bots[entrant]

    def play(self, job: Scheduled) -> FinishedGame:
        bots = [self._bot(e) for e in job.seating]
        record = play_game(self.game, bots, seed=job.seed, options=self.config.options,
                           policy=self.config.policy)
        faulted = {f.seat for f in record.faults}
        stderr = {str(s): text for s, text in record.stderr.items() if s in faulted}
        record.said = said_within(record.said, self.config.debug_budget, [f.decision for f in record.faults])
        record.bots = [self.config.entrants[e] for e in job.seating]
        return FinishedGame.encode(job.seq, job.key, job.seed, record, stderr, self.template)

    def close(self) -> None:
        for bot in self.bots.values():
            try:
                bot.close()
            except Exception:  # noqa: BLE001 - closing must reach every bot
                pass
        self.bots.clear()
