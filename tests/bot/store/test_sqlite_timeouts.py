"""The order of SQLite's two timeouts (`bot/store/db.py`, `make_engine`): a task waiting for the one pooled
connection waits longer than the connection's holder may wait for the file's write lock, so the holder's own
answer ("database is locked") comes first and the waiting task then gets the connection, instead of both
racing and the waiting task failing on the pool ("the database does not answer").

Behaviour on a real SQLite file, a real engine from `make_engine` and the real clock (no looptime: SQLite's busy
wait sleeps in the driver's thread, outside the event loop's clock). The busy timeout is shrunk to half a second
for the test (`SQLITE_BUSY_SECONDS`, read by `make_engine` when it builds the engine) and the pool's timeout is
whatever `make_engine` derives from it. A second test reads both timeouts at their real figures from an engine
built as dmhost builds it, so a pool timeout written as a number of its own is held to the same order."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import QueuePool

from bot.store import db

BUSY_S = 0.5
"""The busy timeout the first test runs with (the real one is `SQLITE_BUSY_SECONDS`, 30 s)."""
HEAD_START_S = 0.3
"""How long the waiting task has been waiting for the pool when the holder starts waiting for the file's lock:
with a pool timeout no longer than the busy timeout, the waiting task would give up first."""


def _file(url: str) -> Path:
    database = make_url(url).database
    assert database
    return Path(database)


async def test_the_holders_locked_answer_comes_before_the_pool_gives_up_on_the_waiting_task(
    migrated_sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "SQLITE_BUSY_SECONDS", BUSY_S)
    engine = db.make_engine(migrated_sqlite_url)
    seen: list[str] = []
    started = time.monotonic()

    async def waiter() -> None:
        """Another task of the process: waits for the one pooled connection, then reads."""
        try:
            async with engine.connect() as conn:
                seen.append("waiter connected")
                assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
        except PoolTimeout:
            seen.append("waiter: pool timed out")

    other = sqlite3.connect(_file(migrated_sqlite_url), isolation_level=None, timeout=0)
    try:
        async with engine.connect() as holder:
            await holder.execute(text("SELECT 1"))  # the one pooled connection is made and held
            other.execute("BEGIN IMMEDIATE")  # another process holds the file's write lock
            waiting = asyncio.create_task(waiter())
            await asyncio.sleep(HEAD_START_S)
            assert engine.pool.checkedout() == 1 and not seen  # the waiter waits for the pool
            try:
                await holder.execute(
                    text("INSERT INTO heartbeats (instance, loop_time, at) VALUES ('me', 0, '2026-12-06 00:00:00')")
                )
            except OperationalError as exc:
                assert "database is locked" in str(exc.orig)
                seen.append("holder: database is locked")
        await asyncio.wait_for(waiting, 10)
        took = time.monotonic() - started
    finally:
        with contextlib.suppress(sqlite3.Error):
            other.execute("ROLLBACK")
        other.close()
        await engine.dispose()
    assert seen == ["holder: database is locked", "waiter connected"], seen
    assert took < BUSY_S + HEAD_START_S + 5  # the waiter got the connection as the holder let it go


async def test_a_task_waiting_for_the_pool_waits_longer_than_the_holder_waits_for_the_lock(
    migrated_sqlite_url: str,
) -> None:
    """At the real figures: the pool's timeout is the engine's own, the busy timeout the one SQLite reports on a
    connection of the same engine (what the driver's `timeout` and the `busy_timeout` pragma left set)."""
    engine = db.make_engine(migrated_sqlite_url)
    try:
        async with engine.connect() as conn:
            busy_s = (await conn.execute(text("PRAGMA busy_timeout"))).scalar_one() / 1000
        assert isinstance(engine.pool, QueuePool)  # one pooled connection, waited for in a queue
        pool_s = engine.pool.timeout()
    finally:
        await engine.dispose()
    assert busy_s == db.SQLITE_BUSY_SECONDS
    assert pool_s > busy_s, (pool_s, busy_s)
    assert pool_s - busy_s >= 10  # room for the holder's answer to reach the waiting task's turn
