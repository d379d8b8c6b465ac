"""Shared fixtures: a real host service on a real SQLite file (or PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.db import sqlite_url_for
from bot.service import HostEvent, MatchService
from bot.store import MatchStore

PG_URL = os.environ.get("DMHOST_TEST_PG_URL")


def _register_sqlite_futures_with_looptime() -> None:
    """aiosqlite answers from its own thread, which looptime cannot see: while a query is in flight
    the loop looks idle and looptime would fast-forward to the next timer. Registering each query's
    future the way looptime registers `run_in_executor` futures makes it wait for the database in
    real time instead, so the fake clock only moves when nothing at all is happening."""
    import aiosqlite.core

    original = aiosqlite.core.Connection._execute

    async def _execute(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        futures = getattr(loop, "_LoopTimeEventLoop__sync_futures", None)
        if futures is None or not self._running or not self._connection:
            return await original(self, fn, *args, **kwargs)
        future = loop.create_future()
        futures.add(future)
        self._tx.put_nowait((future, functools.partial(fn, *args, **kwargs)))
        return await future

    aiosqlite.core.Connection._execute = _execute  # type: ignore[method-assign]


_register_sqlite_futures_with_looptime()


class Recorder:
    """Collects host events with the loop time they were published at."""

    def __init__(self) -> None:
        self.events: list[tuple[float, HostEvent]] = []
        self._waiters: list[tuple[str, asyncio.Future[HostEvent]]] = []

    def __call__(self, ev: HostEvent) -> None:
        self.events.append((asyncio.get_running_loop().time(), ev))
        for kind, fut in list(self._waiters):
            if kind == ev.kind and not fut.done():
                fut.set_result(ev)

    def kinds(self) -> list[str]:
        return [e.kind for _, e in self.events]

    def of(self, kind: str) -> list[tuple[float, HostEvent]]:
        return [(t, e) for t, e in self.events if e.kind == kind]

    async def wait(self, kind: str, timeout: float = 10_000) -> HostEvent:
        for _, e in self.events:
            if e.kind == kind:
                return e
        fut: asyncio.Future[HostEvent] = asyncio.get_running_loop().create_future()
        self._waiters.append((kind, fut))
        return await asyncio.wait_for(fut, timeout)


async def make_service(url: str, recorder: Recorder | None = None, **kw: Any) -> MatchService:
    service = MatchService(MatchStore(url), heartbeat_seconds=kw.pop("heartbeat_seconds", 1.0), **kw)
    if recorder is not None:
        service.subscribe(recorder)
    await service.start()
    return service


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return sqlite_url_for(tmp_path / "dmhost.db")


@pytest.fixture
async def host(db_url: str) -> AsyncIterator[tuple[MatchService, Recorder]]:
    rec = Recorder()
    service = await make_service(db_url, rec)
    yield service, rec
    await service.close()
    await service.store.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A clean PostgreSQL schema per test (skipped when DMHOST_TEST_PG_URL is not set)."""
    if not PG_URL:
        pytest.skip("DMHOST_TEST_PG_URL is not set")
    import asyncpg

    dsn = PG_URL.replace("postgresql+asyncpg://", "postgresql://")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}schema={schema}"
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    await conn.close()
