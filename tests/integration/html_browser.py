"""A real headless Chromium for the HTML tests (Debian's ``chromium``, driven by Playwright through its executable
path; no ``playwright install``). Without Chromium or Playwright the tests are skipped, except in CI (``CI=true``),
where they fail: CI installs Chromium (.ci/run). One browser per test module; every page records its console
errors and uncaught exceptions, and :func:`no_errors` checks that there were none."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = os.environ.get("REFEREE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI installs Debian's chromium: .ci/run)")
    pytest.skip(what)


@contextmanager
def browser() -> Iterator[Any]:
    """A Chromium browser context with a fresh profile, closed at the end."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed (pip install -e '.[test]')")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        _missing(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as p, tempfile.TemporaryDirectory(prefix="referee-chromium-") as profile:
        context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS, headless=True,
                                                       viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()


def open_page(context: Any) -> Any:
    """A new page whose console errors and uncaught exceptions are kept in ``page.errors``."""
    page = context.new_page()
    page.set_default_timeout(30_000)  # a bound for a broken page, not a speed test: a busy machine is slow
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.errors = errors
    return page


def no_errors(page: Any) -> None:
    assert page.errors == [], page.errors
