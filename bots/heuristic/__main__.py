"""``python -m bots.heuristic``: the heuristic bot over the protocol (docs/PROTOCOL.md)."""

from protocol.sdk import run_bot

from . import PLAYS, HeuristicBot

if __name__ == "__main__":
    raise SystemExit(run_bot(HeuristicBot(), games=sorted(PLAYS)))
