"""Thinks (here: draws actions at random) until half of its time is gone, then plays the action it drew most, with a
note saying why (the replay viewer shows it beside the decision)."""

import random
import time
from collections import Counter

from protocol.bot import Answer
from protocol.sdk import run


def act(observation, legal, deadline):
    left_ms = deadline.remaining_ms() if deadline is not None else 100  # the referee always sends deadline_ms
    stop = time.monotonic() + 0.5 * left_ms / 1000  # the other half: a margin for a busy machine
    votes = Counter([0])
    while time.monotonic() < stop:
        votes[random.randrange(len(legal))] += 1  # a real bot would search here
    best, count = votes.most_common(1)[0]
    return Answer(legal[best], f"{count} of {votes.total()} draws chose {legal[best]}; {left_ms:.0f} ms were left")


if __name__ == "__main__":
    raise SystemExit(run(act, name="thinker"))
