"""The match review page in Discord (issue 39): a link when `DMHOST_WEB_URL` names the public address of
`dmhost web`, else the page itself as an HTML file on `/dm log`, when it fits the upload limit."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from bot.records.page import build_match_page
from bot.records.pagetoken import load_secret, page_url
from bot.store.matches import StoredMatch


def page_link(base: str | None, ident: int, kind: str = "match") -> str | None:
    """The signed address of a page (a match's; `kind` tournament: a tournament's, server: a server's by its
    guild id), or None when no public address is configured (`DMHOST_WEB_URL`)."""
    if not base:
        return None
    return page_url(base, load_secret(), kind, ident)


async def page_file(
    stored: StoredMatch, budget: int, analysis: Sequence[Mapping[str, Any]] | None = None
) -> tuple[str, bytes] | None:
    """`match-ID.html` (with the stored `analysis`, else saying it is pending) when it fits `budget` bytes
    (None otherwise, or when it cannot be drawn)."""
    try:
        data = (await asyncio.to_thread(build_match_page, stored, (), analysis)).encode()
    except Exception:  # a record an older build wrote: the rest of /dm log still goes out
        return None
    return (f"match-{stored.id}.html", data) if len(data) <= budget else None
