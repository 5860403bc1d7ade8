"""Deals a program bot cannot search for: the operator's seed keyed with a secret of this user (docs/SECURITY.md).

A game's deal is a pure function of its seed (C-5), and a bot's ``bot_seed`` a public hash of the seed and its seat
(:func:`referee.match.bot_seed`). A seed the operator picks (``play --seed 11``, ``tournament run --seed 7``) is
small, so a bot that knows these functions can try the small seeds until one deals the hand it holds, or yields the
``bot_seed`` it was sent, and then knows every hand. So when a program bot plays, the operator's seed is not the
deal's seed: the deal's seed is a BLAKE2b hash of it keyed with a key that no bot ever sees. The key is drawn from
this user's *secret* (32 random bytes, created on first use in a file of mode 0600) and the seed, so the same
``--seed`` on the same account deals the same games again; a tournament stores its key with its configuration, so
it resumes, verifies and plays on other machines (Dask) without the secret. A record holds the deal's own seed, so it
replays anywhere, with no key.

The secret's file is ``$REFEREE_SECRET_FILE`` if set, else ``$XDG_DATA_HOME/referee/secret`` (by default
``~/.local/share/referee/secret``). The sandbox hides it even where a bot's visible folders hold it.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path

from .errors import ConfigError

__all__ = ["SECRET_ENV", "derive_key", "keyed_seed", "secret_path", "user_secret"]

#: The environment variable naming the secret's file (tests and CI point it at a file of their own).
SECRET_ENV = "REFEREE_SECRET_FILE"
#: A key's size: 128 bits, written as 32 hex digits.
KEY_BYTES = 16
_HEX = re.compile(r"[0-9a-f]{32,128}")


def secret_path() -> Path:
    """Where this user's secret is (or will be created)."""
    named = os.environ.get(SECRET_ENV)
    if named:
        return Path(named)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "referee" / "secret"


def user_secret() -> bytes:
    """This user's secret: read from :func:`secret_path`, or created there (32 bytes from the operating system, as
    hex, mode 0600) the first time. :class:`ConfigError` when it cannot be read or made, or is not 16 to 64 bytes of
    hex."""
    path = secret_path()
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = _create(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the secret that keys the deals, {path}: {exc} (docs/SECURITY.md)") from exc
    if not _HEX.fullmatch(text):
        raise ConfigError(f"the secret that keys the deals, {path}, is not 32 to 128 lowercase hex digits "
                          f"(delete it to draw a new one; docs/SECURITY.md)")
    return bytes.fromhex(text)


def _create(path: Path) -> str:
    """A new secret written to ``path`` without a moment where it is readable by others or half written; when
    another process made it first, that one."""
    text = secrets.token_hex(32)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(text + "\n")
            try:
                os.link(draft, path)  # never replaces a secret another process has just made
            except FileExistsError:
                return path.read_text(encoding="ascii").strip()
        finally:
            draft.unlink(missing_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the secret that keys the deals, {path}: {exc} (set {SECRET_ENV} to "
                          f"another file; docs/SECURITY.md)") from exc
    return text


def derive_key(purpose: str, seed: int) -> str:
    """The key of the deals of ``seed`` for ``purpose`` (``play``, ``tournament``): 128 bits, as hex, from this
    user's secret. A key goes into the records and databases it deals (they hold the deals anyway); the secret
    never does, so a key tells nothing about the deals of another seed."""
    return hashlib.blake2b(f"{purpose}/{seed}".encode(), key=user_secret(), digest_size=KEY_BYTES).hexdigest()


def keyed_seed(key: str, seed: int) -> int:
    """The 64-bit seed the deals of ``seed`` follow from under ``key`` (hex): keyed BLAKE2b, so without the key it is
    as good as random, whatever ``seed`` is. ValueError for a key that is not hex."""
    digest = hashlib.blake2b(str(seed).encode(), key=bytes.fromhex(key), digest_size=8).digest()
    return int.from_bytes(digest, "big")
