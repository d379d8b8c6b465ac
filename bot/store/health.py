"""The host's health for Docker's HEALTHCHECK: how recent is the newest heartbeat in the database."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.db import Heartbeat, make_engine


async def newest_heartbeat(url: str) -> dt.datetime | None:
    """When any host process last wrote its heartbeat (aware UTC), or None when none ever did.

    Reads only: it neither migrates nor creates anything (a database without tables has no heartbeat).
    """
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            has_table = await conn.run_sync(lambda sync: sync.dialect.has_table(sync, Heartbeat.__tablename__))
            if not has_table:
                return None
            newest: dt.datetime | None = (await conn.execute(select(func.max(Heartbeat.at)))).scalar()
    finally:
        await engine.dispose()
    if newest is None:
        return None
    return newest.replace(tzinfo=dt.UTC) if newest.tzinfo is None else newest.astimezone(dt.UTC)


KEEP_DAYS = 7
"""Heartbeats of processes silent this long (and finished jobs due this long ago) are deleted."""


async def prune_heartbeats(engine: AsyncEngine, before: dt.datetime) -> int:
    """Delete the heartbeats written before `before` by processes that hold no shard lease (every start of a
    process is a new instance, so without this the table grows with every restart); how many went."""
    from sqlalchemy import delete

    from bot.store.leases import ShardLease

    async with engine.begin() as conn:
        gone = await conn.execute(
            delete(Heartbeat).where(Heartbeat.at < before, Heartbeat.instance.not_in(select(ShardLease.owner)))
        )
    return int(gone.rowcount or 0)
