"""A job closed by its feature before it falls due (`jobs.store.take`, an offer accepted) and a job's payload
changed while it waits (`jobs.store.rewrite`, a click noted), on SQLite and PostgreSQL: a job is either taken
once or run once, never both."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.jobs import NewJob
from bot.jobs import store as job_store
from bot.store.db import make_engine

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
LATER = NOW + dt.timedelta(minutes=10)
LEASE = dt.timedelta(minutes=5)


@pytest.fixture
async def engine(migrated_db_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(migrated_db_url)
    async with engine.begin() as conn:
        await job_store.put(conn, [NewJob("offer", "offer:1", LATER, {"clicked": []}, 7)], NOW)
    yield engine
    await engine.dispose()


async def test_a_job_is_taken_once_before_it_falls_due(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        assert await job_store.take(conn, "offer:1", NOW)
        assert not await job_store.take(conn, "offer:1", NOW), "taken already"
        job = await job_store.read(conn, "offer:1")
        assert job is not None and job.done and job.attempts == 0
        assert await job_store.due(conn, LATER, LATER - LEASE, ["offer"], job_store.Scope(), 10) == []


async def test_a_job_due_or_claimed_is_the_runners(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        assert not await job_store.take(conn, "offer:1", LATER), "due: no longer open to its feature"
        (job,) = await job_store.due(conn, LATER, LATER - LEASE, ["offer"], job_store.Scope(), 10)
        assert await job_store.claim(conn, job.id, "runner:1", LATER, LATER - LEASE)
        assert not await job_store.take(conn, "offer:1", NOW), "claimed by a runner"
        assert not await job_store.rewrite(conn, "offer:1", {"clicked": ["a"]}, NOW)
        stored = await job_store.read(conn, "offer:1")
        assert stored is not None and stored.payload == {"clicked": []} and stored.claimed_by == "runner:1"


async def test_a_rewrite_keeps_the_due_time_and_only_while_open(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        assert await job_store.rewrite(conn, "offer:1", {"clicked": ["a"]}, NOW)
        job = await job_store.read(conn, "offer:1")
        assert job is not None and job.payload == {"clicked": ["a"]} and job.due == LATER and not job.done
        assert await job_store.take(conn, "offer:1", NOW)
        assert not await job_store.rewrite(conn, "offer:1", {"clicked": ["a", "b"]}, NOW), "closed"
        assert not await job_store.rewrite(conn, "offer:2", {}, NOW), "unknown"
