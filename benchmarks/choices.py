"""How much does ``ismcts`` gain over ``heuristic``'s move, decision by decision? A yardstick of its search far less
noisy than an SPRT (docs/ISMCTS.md, "What limits it").

Games of ``heuristic`` at every seat are played (seeds ``--seed``, ``--seed`` + 1, …) and every decision of seat 0
with more than one legal action is kept, with what ``ismcts`` would know there (the seat's view) and ``heuristic``'s
move. On a sample of them (``--decisions``) every legal action is valued twice, each on ``--worlds`` worlds drawn
from that view (the same worlds for every action):

- **model**: its mean reward in the search's own playouts (the game's ``first``, ``policy`` and ``deal``): the value
  the search estimates, and would find exactly with an unlimited budget;
- **heuristic**: its mean reward when, after it, every seat is played by ``heuristic`` (told the whole game so far
  from its seat's view) to the end of the deal (``deal=1``) or of the game: what the move is worth among players
  like the baseline of ``strength.py``.

Then the bot's search chooses, ``--reps`` times with other random numbers, at a fixed budget of ``--iterations``
playouts (about what 100 ms buys: ``strength.py`` prints the playouts a move), with the game's default settings and
with each ``--variant`` (``KEY=VALUE,...``, as in a SPEC). Its gain on a decision is the value of its choice less
that of ``heuristic``'s move, a mean over the reps; the table gives each variant's mean gain per decision with a
95 % interval, by both values, its gain among heuristic players less the defaults', decision by decision (the
paired comparison: the decisions' own spread cancels out of it), and how often it overrides ``heuristic``. The row
``best model action`` is the action of the highest model value: the most any search of that model could gain.
Rewards are those of the search: 1 for first place in the deal (or game), 0 for last.

    python benchmarks/choices.py --game koroli --decisions 200 --workers 2
    python benchmarks/choices.py --game koroli --variant flat=0 --variant guide=2 --iterations 650
    python benchmarks/choices.py --game durak --seats 3 --iterations 800 --worlds 200
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from tabulate import tabulate

from bots.heuristic import HeuristicBot
from protocol.actions import Action
from protocol.bot import Decision, GameInfo
from referee.engine import State
from referee.errors import ConfigError
from referee.games.plugin import builtin_games
from referee.ismcts.bot import IsmctsBot
from referee.ismcts.search import rewards_at, search
from referee.ismcts.settings import Settings
from referee.match import play_game


@dataclass(frozen=True, slots=True)
class Kept:
    """One decision of seat 0: the game, its seats and options, the seat's view, the legal actions and heuristic's
    move."""

    game: str
    seats: int
    options: dict[str, Any]
    view: list[dict[str, Any]]
    legal: list[Action]
    hint: str


class _Watcher(IsmctsBot):
    """Plays ``heuristic``'s move (its guide) and keeps every decision of more than one action, with its view."""

    def __init__(self) -> None:
        super().__init__(ms=1)
        self.kept: list[Kept] = []

    def act(self, decision: Decision) -> Action:
        self.view.append(decision.observation)
        assert self.guide is not None
        hint = self.guide.act(decision)
        if len(decision.legal) > 1:
            info = self.info
            self.kept.append(Kept(info.game, info.seats, dict(info.options), list(self.view), list(decision.legal),
                                  hint.text))
        return hint


def collect(game_id: str, seats: int, games: int, seed: int) -> list[Kept]:
    """Every decision of seat 0 with a choice, in ``games`` games of ``heuristic`` at every seat."""
    game = builtin_games()[game_id]
    watcher = _Watcher()
    for i in range(games):
        play_game(game, [watcher, *(HeuristicBot() for _ in range(seats - 1))], seed=seed + i)
    return watcher.kept


def heuristic_play(state: State, stop: float, teams: tuple[tuple[int, ...], ...] | None) -> list[float]:
    """Every seat's reward once ``heuristic`` has played ``state`` on at every seat until ``stop`` deals are done (or
    to the end): a bot a seat, each told the whole log so far from its seat's view at its first decision."""
    n = state.seats
    bots = []
    for seat in range(n):
        bot = HeuristicBot()
        bot.new_game(GameInfo(game=state.game.id, options=dict(state.options), seat=seat, seats=n, teams=teams))
        bots.append(bot)
    since = [0] * n
    legal = state.legal_actions()
    while legal and state.deals_done < stop:
        mover = state.to_act
        assert mover is not None
        if len(legal) == 1:
            state.apply(legal[0])
        else:
            decision = Decision(mover, legal, partial(state.observe, mover, since[mover]))
            decision.observation  # noqa: B018 - built now: the events up to here, not those after the move
            since[mover] = state.log_size
            answer = bots[mover].act(decision)
            state.apply(answer if isinstance(answer, Action) else state.parse_action(answer))
        legal = state.legal_actions()
    return rewards_at(state, teams, not legal)


def judge(kept: Kept, variants: Sequence[tuple[str, Settings]], worlds_per_action: int, reps: int,
          seed: int) -> dict[str, Any]:
    """One decision: the model and heuristic values of its actions, and each variant's gain over the hint."""
    game = builtin_games()[kept.game]
    seat = kept.view[-1]["seat"]
    teams = game.teams(kept.seats)
    worlds = game.worlds(kept.seats, seat, kept.view, kept.options)
    base = Settings().for_game(kept.game)
    texts = [a.text for a in kept.legal]
    # the flat search without a guide plays every action on the same worlds: its means are the model's values
    model_value = search(worlds, kept.legal, random.Random(seed),
                         replace(base, ms=0, iterations=len(texts) * worlds_per_action, flat=1),
                         seconds=0, teams=teams, keep=None).means
    played = {t: 0.0 for t in texts}
    rng = random.Random(seed + 1)
    for _ in range(worlds_per_action):
        world = worlds.sample(rng)
        stop = world.deals_done + 1 if base.deal else math.inf
        for text in texts:
            state = world.clone()  # type: ignore[attr-defined]
            state.apply(state.parse_action(text))
            played[text] += heuristic_play(state, stop, teams)[seat]
    heuristic_value = {t: v / worlds_per_action for t, v in played.items()}
    row: dict[str, Any] = {"best": max(texts, key=lambda t: model_value[t])}
    for name, settings in variants:
        choices = [search(worlds, kept.legal, random.Random(seed + 100 + r), settings, seconds=0, teams=teams,
                          keep=kept.hint).text for r in range(reps)]
        row[name] = choices
    row["values"] = (model_value, heuristic_value, kept.hint)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="koroli", help="the game (default koroli)")
    parser.add_argument("--seats", type=int, default=4, help="seats (default 4)")
    parser.add_argument("--games", type=int, default=6, help="games of heuristic the decisions come from (default 6)")
    parser.add_argument("--seed", type=int, default=500, help="seed of the first game (default 500)")
    parser.add_argument("--decisions", type=int, default=100, help="decisions judged (default 100)")
    parser.add_argument("--worlds", type=int, default=100, help="worlds per action for the values (default 100)")
    parser.add_argument("--iterations", type=int, default=650, help="the search's playouts a move (default 650)")
    parser.add_argument("--reps", type=int, default=8, help="searches per decision and variant (default 8)")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE,...",
                        help="settings of ismcts besides the game's defaults (repeatable)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    if args.game not in builtin_games():
        parser.error(f"no built-in game {args.game!r} (they are: {', '.join(sorted(builtin_games()))})")
    try:
        builtin_games()[args.game].check_seats(args.seats)
        variants = [(name, Settings.parse({"ms": 0, "iterations": args.iterations,
                                           **dict(p.split("=", 1) for p in name.split(",") if "=" in p)})
                           .for_game(args.game)) for name in ["defaults", *args.variant]]
    except ConfigError as exc:
        parser.error(str(exc))
    kept = collect(args.game, args.seats, args.games, args.seed)
    random.Random(args.seed).shuffle(kept)
    kept = kept[:args.decisions]
    work = partial(judge, variants=variants, worlds_per_action=args.worlds, reps=args.reps, seed=args.seed)
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(work, kept))
    table = []
    names = [name for name, _ in variants]
    defaults: list[float] = []  # the defaults' gain among heuristic players, decision by decision
    for name in [*names, "best model action"]:
        model_gain, played_gain, overrides = [], [], []
        for row in rows:
            model_value, heuristic_value, hint = row["values"]
            choices = [row["best"]] if name == "best model action" else row[name]
            model_gain.append(statistics.fmean(model_value[c] - model_value[hint] for c in choices))
            played_gain.append(statistics.fmean(heuristic_value[c] - heuristic_value[hint] for c in choices))
            overrides.append(statistics.fmean(c != hint for c in choices))
        defaults = defaults or played_gain
        against = _mean([g - d for g, d in zip(played_gain, defaults, strict=True)]) if name != "defaults" else "-"
        table.append([name, _mean(model_gain), _mean(played_gain), against, f"{statistics.fmean(overrides):.1%}"])
    print(f"{args.game}, {args.seats} seats: {len(rows)} decisions of seat 0 from {args.games} games of heuristic, "
          f"{args.iterations} playouts a search, {args.reps} searches a decision and variant, values over "
          f"{args.worlds} worlds an action")
    print(tabulate(table, headers=["search", "gain in the model", "gain among heuristic players",
                                   "the same, less the defaults'", "overrides"], disable_numparse=True))


def _mean(values: Sequence[float]) -> str:
    """The mean with its 95 % interval's half-width (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return f"{mean:+.4f} ± {half:.4f}"


if __name__ == "__main__":
    main()
