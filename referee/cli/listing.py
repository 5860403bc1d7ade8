"""``referee games`` and ``referee bots``: what the registry holds, with where each comes from."""

from __future__ import annotations

import json
from typing import Any

import typer

from .common import cli_registry, print_json
from .tables import fitted_table

__all__ = ["bots", "games"]


def games(json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the games, their seat ranges, teams and options with defaults."""
    registry = cli_registry()
    rows = []
    for _, entry in sorted(registry.games.items()):
        rows.append({**entry.game.describe(), "source": {"package": entry.source.package,
                                                        "version": entry.source.version}})
    if json_out:
        print_json({"games": rows})
        return
    table = [
        [r["id"], f"{r['min_seats']}-{r['max_seats']}", "yes" if r["teams"] else "no",
         ", ".join(f"{o['name']}={json.dumps(o['default'])}" for o in r["options"]) or "-",
         f"{r['source']['package']} {r['source']['version']}", r["title"]]
        for r in rows
    ]
    typer.echo(fitted_table(table, ["game", "seats", "teams", "options (defaults)", "source", "title"]))


def bots(json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the registered bots, the games they support and where they come from."""
    registry = cli_registry()
    rows: list[dict[str, Any]] = [
        {"name": e.name, "description": e.description, "games": list(e.games) if e.games is not None else None,
         "source": {"package": e.source.package, "version": e.source.version}}
        for _, e in sorted(registry.bots.items())
    ]
    if json_out:
        print_json({"bots": rows})
        return
    table = [[r["name"], ", ".join(r["games"]) if r["games"] is not None else "all",
              f"{r['source']['package']} {r['source']['version']}", r["description"]] for r in rows]
    typer.echo(fitted_table(table, ["bot", "games", "source", "description"]))
