"""Thinks (here: draws actions at random) until half of its time is gone, then plays the action it drew most."""

import random
import time
from collections import Counter

from protocol.sdk import run


def act(observation, legal, deadline):
    left_ms = deadline.remaining_ms() if deadline is not None else 100  # the referee always sends deadline_ms
    stop = time.monotonic() + 0.5 * left_ms / 1000  # the other half: a margin for a busy machine
    votes = Counter([0])
    while time.monotonic() < stop:
        votes[random.randrange(len(legal))] += 1  # a real bot would search here
    return legal[votes.most_common(1)[0][0]]


if __name__ == "__main__":
    raise SystemExit(run(act, name="thinker"))
