"""``python -m referee.ismcts [--ms MS] [--iterations N] [--guide G] …`` (every setting of docs/ISMCTS.md): the
``ismcts`` bot as a program, speaking the protocol (docs/PROTOCOL.md) through the SDK's :func:`protocol.sdk.run_bot`.
A bad flag is one line on stderr and exit status 2."""

from __future__ import annotations

import argparse
import sys

from protocol.sdk import run_bot

from ..errors import ConfigError
from ..games.plugin import builtin_games
from .bot import SETTINGS, IsmctsBot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.ismcts", description=__doc__.splitlines()[0])
    for key, meaning in SETTINGS.items():
        parser.add_argument(f"--{key}", metavar="VALUE", help=meaning)
    args = parser.parse_args(argv)
    given = {key: value for key in SETTINGS if (value := getattr(args, key)) is not None}
    try:
        bot = IsmctsBot(**given)
    except ConfigError as exc:
        print(f"python -m referee.ismcts: error: {exc}", file=sys.stderr)
        return 2
    return run_bot(bot, games=sorted(builtin_games()))


if __name__ == "__main__":
    raise SystemExit(main())
