"""The unguessable part of a review page's address: an HMAC-SHA256 of what the page shows ("match:7",
"tournament:3", "server:1234"), keyed with a secret that the CLI and the server share.

The secret is the setting `DMHOST_WEB_SECRET` when set — in the environment, a `.env` file or a secrets
folder (`bot.settings`; give every process of a deployment the same one); otherwise a random one kept in
`$XDG_CONFIG_HOME/dmhost/web-secret` (default `~/.config/dmhost/`),
created on first use with mode 0600, so `dmhost log --url` and `dmhost web` on one machine agree.
Changing the secret invalidates every address given out.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from enum import StrEnum
from pathlib import Path

from bot.opserrors import OperatorError

DEFAULT_BASE = "http://127.0.0.1:8080"
"""The base of a printed address when nothing else names one (`page_base`)."""


class PageKind(StrEnum):
    """What a review page shows (the first part of its address)."""

    MATCH = "match"
    TOURNAMENT = "tournament"
    SERVER = "server"


def secret_path() -> Path:
    """Where the generated secret is kept."""
    root = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(root) / "dmhost" / "web-secret"


def load_secret() -> bytes:
    """The signing secret (see the module's text). A secret file that cannot be read or written is an
    `OperatorError` saying so (and how to give the secret instead)."""
    from bot.settings import load_settings

    given = load_settings().web_secret
    if given is not None and given.get_secret_value().strip():
        return given.get_secret_value().strip().encode()
    path = secret_path()
    try:
        try:
            return path.read_bytes().strip()
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fresh = secrets.token_urlsafe(32).encode()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(fresh)
            return fresh
    except OSError as exc:
        raise OperatorError(
            f"the review pages' secret file {path} cannot be {'read' if path.exists() else 'written'} "
            f"({exc.strerror or exc}): set DMHOST_WEB_SECRET (environment, .env or a secrets folder) or make "
            f"{path.parent} writable"
        ) from None


def address_path() -> Path:
    """Where `dmhost web` keeps the address it serves on (beside the secret), for `--url` on the same machine."""
    return secret_path().with_name("web-address")


def remember_address(url: str) -> None:
    """Keep the address `dmhost web` serves on (read by `page_base`); a folder that cannot be written is no
    reason to refuse to serve."""
    path = address_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(url + "\n", encoding="utf-8")
    except OSError:
        pass


def page_base(given: str | None = None) -> str:
    """The base of a printed page address: `given` (`--base`), else the setting `DMHOST_WEB_URL` (the public
    address, as the Discord face links it), else the address `dmhost web` printed when it last started on
    this machine, else `DEFAULT_BASE`."""
    if given:
        return given
    setting = os.environ.get("DMHOST_WEB_URL", "").strip()
    if setting:
        return setting
    try:
        kept = address_path().read_text(encoding="utf-8").strip()
    except OSError:
        kept = ""
    return kept or DEFAULT_BASE


def sign(secret: bytes, kind: str, ident: int) -> str:
    """The token of page `kind` number `ident` (22 URL-safe characters, 132 bits)."""
    mac = hmac.new(secret, f"{kind}:{ident}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii")[:22]


def valid(secret: bytes, kind: str, ident: int, token: str) -> bool:
    """Whether `token` is the token of that page (constant-time)."""
    if not token.isascii():  # a token is URL-safe base64: anything else is simply not it
        return False
    return hmac.compare_digest(sign(secret, kind, ident).encode("ascii"), token.encode("ascii"))


def page_url(base: str, secret: bytes, kind: str, ident: int) -> str:
    """The address of a page: `BASE/KIND/ID/TOKEN` (kind: match, tournament, server)."""
    return f"{base.rstrip('/')}/{kind}/{ident}/{sign(secret, kind, ident)}"
