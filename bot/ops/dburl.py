"""Which database a command works on: its `--db` (a file path or a URL), else the configured one. A leaf
of `bot.ops`, so that the command modules (`bot.ops.cli`, `bot.ops.tournament_cli`) need not import each other."""

from __future__ import annotations

from bot.opserrors import normal_url
from bot.store.db import sqlite_url_for


def db_url(path: str | None) -> str:
    """The database URL for `--db PATH` (a path means a SQLite file), or the configured one when None."""
    if path:
        return normal_url(path) if "://" in path else sqlite_url_for(path)
    from bot.settings import load_settings

    return load_settings().db_url
