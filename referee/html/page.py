"""What every HTML page shares: the Jinja2 environment over the packages' templates, data made safe for an inline
``<script>``, and writing a page whole or not at all."""

from __future__ import annotations

import contextlib
import json
import os
import re
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ..errors import ConfigError

__all__ = ["environment", "json_for_script", "static", "write_page"]


@cache
def environment(*packages: str) -> Environment:
    """The templates of ``packages`` (each one's ``templates/`` folder), then this package's: a page of another
    package may use this one's, and every template may inline a file of ``static/`` (``{{ static("base.css") }}``).
    Autoescaped; an undefined name is an error."""
    loaders = [PackageLoader(p, "templates") for p in packages] + [PackageLoader("referee.html", "templates")]
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(["html", "j2"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["script_json"] = json_for_script
    env.globals["static"] = static
    return env


@cache
def static(name: str) -> Markup:
    """A CSS or script file of this package's ``static/`` folder, inlined as it is (no template syntax in it)."""
    return Markup(files("referee.html").joinpath("static", name).read_text(encoding="utf-8"))


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_for_script(data: Any) -> str:
    """``data`` as JSON that an inline ``<script type="application/json">`` holds verbatim: ``<``, ``>`` and ``&``
    escaped, so no text in it (a bot's name, a stderr tail) can close the script element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    # A lone surrogate (a damaged record's text) cannot be written as UTF-8: JSON's escape keeps it a string.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_page(text: str, path: str | Path) -> None:
    """Write a page whole or not at all (a temporary file beside it, renamed over ``path``); ConfigError, one
    line, when it cannot be written."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as f:
            f.write(text)
            f.flush()
        os.replace(temporary, target)
    except (OSError, UnicodeError) as exc:  # UnicodeError: a lone surrogate in a damaged record's text
        with contextlib.suppress(OSError):
            temporary.unlink()
        reason = exc.strerror if isinstance(exc, OSError) else None
        raise ConfigError(f"cannot write {path}: {reason or exc}") from exc
