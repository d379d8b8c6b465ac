"""Alembic environment: works from the CLI, from the bot at start-up, and from tests.

The bot and tests pass an open connection in `config.attributes["connection"]` (the
connection-sharing recipe), so nothing here starts an event loop of its own then.
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

import bot.ratings.models  # the rating tables join Base.metadata
import bot.records.analysis_store  # the stored analyses join Base.metadata
import bot.store.leases  # the shard leases join Base.metadata
import bot.tournaments.tables  # noqa: F401  (the tournament tables join Base.metadata)
from bot.store.db import Base, make_engine

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or os.environ.get(
        "DMHOST_DATABASE_URL", "sqlite+aiosqlite:///dmhost.db"
    )


async def _run_async() -> None:
    engine = make_engine(_url(), foreign_keys=False)
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


shared = config.attributes.get("connection")
if shared is not None:
    _run(shared)
elif context.is_offline_mode():
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_async())
