"""A league server as a real process for the tests: ``referee league serve DIR --port 0`` started, waited for
(its ``server.json`` and its JSON API answering), and stopped (SIGINT, or SIGKILL when a test says so)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_process import ROOT, run_referee


class LeagueServer:
    def __init__(self, folder: Path, *args: str) -> None:
        self.folder = folder
        (folder / "server.json").unlink(missing_ok=True)
        self.log = open(folder / "serve.log", "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "referee", "league", "serve", str(folder), "--port", "0",
                                      "--workers", "1", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        self.url = self._wait_url()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server ended: {(self.folder / 'serve.log').read_text()}")
            try:
                url = str(json.loads((self.folder / "server.json").read_text())["url"])
                urllib.request.urlopen(url + "api/state", timeout=10).read()
                return url
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        raise AssertionError("the server did not answer within 60 s")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as reply:
            return json.loads(reply.read())

    def get_status(self, path: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def post(self, path: str, data: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path.lstrip("/"), data=json.dumps(data or {}).encode(),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def wait(self, what: Callable[[dict[str, Any]], Any], seconds: float = 90) -> dict[str, Any]:
        """The state once ``what(state)`` holds; AssertionError after ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            state = self.get("/api/state")
            if what(state):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"not reached in {seconds} s: {json.dumps(state)[:2000]}")
            time.sleep(0.2)

    def stop(self, kill: bool = False) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL if kill else signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def init_league(folder: Path, *args: str) -> str:
    """``referee league init`` of a test-sized durak league; its token."""
    done = run_referee("league", "init", str(folder), "durak", "--seats", "2", "--move-time", "200", "--seed", "7",
                       "--sandbox", "off", *args)
    assert done.returncode == 0, done.stderr
    return (folder / "token").read_text().strip()
