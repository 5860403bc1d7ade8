"""The replay viewer: a game record as one self-contained HTML page (docs/HTML.md).

The record is replayed through the engine (:func:`referee.record.replay`, so a record that does not replay is
refused as ``referee replay`` refuses it), and at every decision the page's data is taken through the engine's
public API only: each seat's observation (:meth:`State.observe` with the events since the previous decision, as
that seat saw them), the events in words (:meth:`Game.narrate`), the seat to act and its legal actions. The
fields every seat's observation holds alike are stored once per decision (``public``), the rest per seat
(``seats``), so the page's "as seat N saw it" view is ``public`` and ``seats[N]``: exactly that seat's
observation, nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from protocol.cards import SUIT_NAMES, SUIT_SYMBOLS

from ..engine import Game, State
from ..match import GameRecord
from ..record import replay
from .page import environment

__all__ = ["LEGAL_SHOWN", "SAID_SHOWN", "STDERR_SHOWN", "replay_data", "replay_html"]

#: The legal actions listed per decision (a Durak attack can have hundreds of sets); the count is always given.
LEGAL_SHOWN = 40
#: The end of a bot's stderr of the whole game the page shows (the record keeps a capped tail).
STDERR_SHOWN = 4000
#: The end of a decision's note and of its stderr lines the page shows.
SAID_SHOWN = 2000


def replay_data(record: GameRecord, find_game: Callable[[str], Game],
                limits: Sequence[int | None] | None = None) -> dict[str, Any]:
    """Everything the viewer shows, decision by decision: ``steps[i]`` is the position before action ``i``
    (``steps[-1]`` the end of the game). ``limits``: each seat's move time limit in milliseconds, where known (a
    tournament's); a record does not hold it."""
    game = find_game(record.game)
    steps: list[dict[str, Any]] = []
    seen = [0]  # the log size at the previous step

    def listen(state: State, events: list[dict[str, Any]]) -> None:
        since, seen[0] = seen[0], state.log_size
        observed = [state.observe(seat, since) for seat in range(state.seats)]
        heard = [[game.narrate(e) for e in o.pop("events", [])] for o in observed]
        keys = {k for o in observed for k in o}
        public = {k: observed[0][k] for k in sorted(keys)
                  if all(k in o and o[k] == observed[0][k] for o in observed)}
        seats = [{"events": said, **{k: v for k, v in o.items() if k not in public}}
                 for o, said in zip(observed, heard, strict=True)]
        legal = state.legal_actions()
        steps.append({"to_act": state.to_act, "events": [game.narrate(e) for e in events], "public": public,
                      "seats": seats, "legal": [a.text for a in legal[:LEGAL_SHOWN]], "legal_count": len(legal)})

    replayed = replay(record, find_game, listen)
    result = replayed.result
    data = result.to_dict()
    return {
        "game": record.game,
        "title": game.title,
        "seats": record.seats,
        "seed": str(record.seed),  # a 64-bit seed is not a JavaScript number
        "dealer": record.dealer,
        "options": dict(replayed.options),
        "policy": record.policy,
        "bots": list(record.bots),
        "teams": [list(t) for t in game.teams(record.seats) or ()],
        "actions": list(record.actions),
        "faults": [{**f.to_dict(), "kind": str(f.kind), "answered": f.kind.answered,
                    "played": record.actions[f.decision] if f.decision < len(record.actions) else None}
                   for f in record.faults],
        "result": {"places": list(result.places), "scores": [game.score_text(s) for s in result.scores],
                   "fields": [game.seat_fields(data, s) for s in range(record.seats)],
                   "aborted": result.aborted},
        "stderr": {str(seat): text[-STDERR_SHOWN:] for seat, text in sorted(record.stderr.items()) if text},
        "times": list(record.times),  # µs by decision, None where no seat was asked; empty: not measured
        "said": {str(d): {"note": said.note[-SAID_SHOWN:], "stderr": said.stderr[-SAID_SHOWN:]}
                 for d, said in sorted(record.said.items()) if said.note or said.stderr},
        "limits": list(limits) if limits is not None else [None] * record.seats,
        "steps": steps,
        "suits": {letter: [SUIT_SYMBOLS[letter], SUIT_NAMES[letter]] for letter in SUIT_SYMBOLS},  # C-3
    }


def replay_html(record: GameRecord, find_game: Callable[[str], Game], *, back: str | None = None,
                limits: Sequence[int | None] | None = None, back_label: str = "back to the tournament report") -> str:
    """The viewer page of ``record``; ``back``: a link shown at the top (the tournament report's page); ``limits``:
    each seat's move time limit in milliseconds (drawn on its time chart); ``back_label``: the link's words."""
    data = replay_data(record, find_game, limits)
    return environment().get_template("replay.html.j2").render(data=data, back=back, back_label=back_label,
                                                                stderr_shown=STDERR_SHOWN)
