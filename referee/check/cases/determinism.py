"""8 determinism: the same seed gives the same answers."""

from __future__ import annotations

from ..harness import Session
from ..verdicts import Finding, Level, broken, case, ok
from .helpers import fault_lines


@case("8.1", "the same seed gives the same answers", section="5.4", level=Level.MAY)
def determinism(s: Session) -> Finding:
    n = s.fewest()
    seed = s.seed_for("determinism")
    records = []
    asked = s.asked() or 10**9  # the same number of decisions asked in both runs, even of a slow bot
    for k in (1, 2):
        run = s.run(f"determinism-{k}")
        program = s.program(run)
        try:
            records.append(program.play(s.main_game, n, seat=seed % n, seed=seed, asked=asked))
        finally:
            program.close()
    faults = fault_lines(records)
    if faults:
        return broken("the games to compare had faults", expected="two games without a fault",
                      actual=faults[0], breach=Level.MUST)
    mine = [[e.value.get("action") for e in s.runs[f"determinism-{k}"].received() if e.type == "action"]
            for k in (1, 2)]
    if mine[0] != mine[1]:
        at = next((i for i, (x, y) in enumerate(zip(mine[0], mine[1], strict=False)) if x != y),
                  min(len(mine[0]), len(mine[1])))
        first = mine[0][at] if at < len(mine[0]) else "nothing"
        second = mine[1][at] if at < len(mine[1]) else "nothing"
        return broken(f"two runs with seed {seed} differ at the bot's answer {at + 1}",
                      expected="the same answers for the same seed (bot_seed)",
                      actual=f"{first!r} in the first run, {second!r} in the second")
    return ok(f"two runs with seed {seed}: the same {len(mine[0])} answers")
