"""``python -m referee``: the same as the ``referee`` command."""

from .main import main

main()
