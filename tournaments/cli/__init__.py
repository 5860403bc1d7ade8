"""The ``referee tournament`` commands, a module (or two) each in this folder, imported only when one of them runs
(or ``--help`` lists them): ``referee games`` and ``referee play`` never load them, nor numpy."""

from __future__ import annotations

from referee.cli.common import LazyGroup

__all__ = ["LeagueGroup", "TournamentGroup", "group", "league_group"]

HELP = "Round-robin tournaments: every table of the field, every seat rotation, rating tables."


class TournamentGroup(LazyGroup):
    """``referee tournament``: its commands in the order of its help."""

    lazy = {"run": "tournaments.cli.run:run", "resume": "tournaments.cli.stored:resume",
            "table": "tournaments.cli.stored:table", "games": "tournaments.cli.games:games",
            "record": "tournaments.cli.records:record", "verify": "tournaments.cli.records:verify",
            "join": "tournaments.cli.join:join", "report": "tournaments.cli.report:report",
            "sprt": "tournaments.cli.sprt:sprt"}


def group() -> TournamentGroup:
    """The group, as typer makes a ``typer.Typer(help=HELP, no_args_is_help=True)`` of these commands."""
    return TournamentGroup(name="tournament", help=HELP, no_args_is_help=True, rich_markup_mode=None)


LEAGUE_HELP = "A standing league: benchmarks keep playing, candidates are evaluated by SPRT, a live web page."


class LeagueGroup(LazyGroup):
    """``referee league``: its commands in the order of its help."""

    lazy = {"init": "tournaments.cli.league:init", "serve": "tournaments.cli.league:serve",
            "add": "tournaments.cli.league:add", "retire": "tournaments.cli.league:retire",
            "promote": "tournaments.cli.league:promote", "stop": "tournaments.cli.league:stop",
            "start": "tournaments.cli.league:start", "show": "tournaments.cli.league:show"}


def league_group() -> LeagueGroup:
    return LeagueGroup(name="league", help=LEAGUE_HELP, no_args_is_help=True, rich_markup_mode=None)
