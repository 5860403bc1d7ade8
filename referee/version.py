"""What ``referee --version`` prints: the installed version, or the package's own when run from a source tree that
is not installed. Its own module: the console script answers ``--version`` without importing the command line."""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("referee")
    except PackageNotFoundError:
        from . import __version__

        return __version__
