"""Old rows are cleaned up: heartbeats of processes long gone (not of a lease holder), jobs done long ago."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import insert, select, update

from bot.host.service import MatchService
from bot.jobs import store as jobs
from bot.jobs.table import JobRow
from bot.store.db import Heartbeat
from bot.store.health import prune_heartbeats
from bot.store.leases import ShardLease
from tests.bot.conftest import Recorder


async def test_old_heartbeats_and_done_jobs_go_and_the_rest_stays(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    engine = service.store.engine
    now = dt.datetime.now(dt.UTC)
    old, week = now - dt.timedelta(days=30), dt.timedelta(days=7)
    async with engine.begin() as conn:
        for name, at in (("gone", old), ("holder", old), ("fresh", now)):
            await conn.execute(insert(Heartbeat).values(instance=name, loop_time=1.0, at=at))
        await conn.execute(insert(ShardLease).values(shard=99, owner="holder", epoch=1, expires_at=old))
        await jobs.put(
            conn,
            [
                jobs.NewJob("t", "t:old-done", old),
                jobs.NewJob("t", "t:old-open", old),
                jobs.NewJob("t", "t:new-done", now),
            ],
            now,
        )
        await conn.execute(update(JobRow).where(JobRow.key.in_(["t:old-done", "t:new-done"])).values(done=True))
    # (the host's own heartbeat loop prunes too, at its first beat: what is left is what counts)
    await prune_heartbeats(engine, now - week)
    async with engine.begin() as conn:
        await jobs.prune_done(conn, now - week)
    async with engine.connect() as conn:
        beats = set((await conn.execute(select(Heartbeat.instance))).scalars())
        keys = set((await conn.execute(select(JobRow.key).where(JobRow.key.like("t:%")))).scalars())
    assert {"holder", "fresh", service.instance} <= beats and "gone" not in beats
    assert keys == {"t:old-open", "t:new-done"}
