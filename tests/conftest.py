"""Shared fixtures: a real host service on a real SQLite file (or PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import os
import uuid
from collections.abc import AsyncIterator, Iterator
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


def _register_sqlalchemy_calls_with_looptime() -> None:
    """The same problem for PostgreSQL, one layer up: asyncpg waits on a socket, and while a query is
    in flight the loop looks idle to looptime (its no-op cycles run out in microseconds, faster than
    any server answers), so it would jump to the next timer in the middle of a commit. Every database
    call of SQLAlchemy's asyncio layer goes through `greenlet_spawn`; while one runs we register a
    marker future as a looptime "sync future", so the loop waits for the server in real time and the
    fake clock only moves when no query is in flight. (Patched where it is imported, not at the
    source, because those modules bound the name at import.)"""
    import sqlalchemy.ext.asyncio.engine
    import sqlalchemy.ext.asyncio.result
    import sqlalchemy.ext.asyncio.session

    modules = (sqlalchemy.ext.asyncio.engine, sqlalchemy.ext.asyncio.result, sqlalchemy.ext.asyncio.session)
    original = sqlalchemy.ext.asyncio.engine.greenlet_spawn

    async def greenlet_spawn(fn: Any, *args: Any, _require_await: bool = False, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        futures = getattr(loop, "_LoopTimeEventLoop__sync_futures", None)
        if futures is None:
            return await original(fn, *args, _require_await=_require_await, **kwargs)
        marker = loop.create_future()
        futures.add(marker)
        try:
            return await original(fn, *args, _require_await=_require_await, **kwargs)
        finally:
            marker.set_result(None)

    for module in modules:
        module.greenlet_spawn = greenlet_spawn  # type: ignore[attr-defined]


_register_sqlite_futures_with_looptime()
_register_sqlalchemy_calls_with_looptime()


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


def _pg_admin(sql: str) -> None:
    """Run one statement on the PostgreSQL server, from a sync fixture (own thread, own loop)."""
    import asyncpg

    assert PG_URL is not None
    dsn = PG_URL.replace("postgresql+asyncpg://", "postgresql://").split("?")[0]

    async def run() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


@contextlib.contextmanager
def _pg_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test, as a `?schema=` URL; dropped afterwards."""
    if not PG_URL:
        pytest.skip("DMHOST_TEST_PG_URL is not set")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    _pg_admin(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}schema={schema}"
    finally:
        _pg_admin(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return sqlite_url_for(tmp_path / "dmhost.db")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Every service test runs on a SQLite file and, when DMHOST_TEST_PG_URL is set, on PostgreSQL."""
    if request.param == "sqlite":
        yield sqlite_url_for(tmp_path / "dmhost.db")
        return
    with _pg_schema() as url:
        yield url


@pytest.fixture
async def host(db_url: str) -> AsyncIterator[tuple[MatchService, Recorder]]:
    rec = Recorder()
    service = await make_service(db_url, rec)
    yield service, rec
    await service.close()
    await service.store.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A clean PostgreSQL schema per test (skipped when DMHOST_TEST_PG_URL is not set)."""
    with _pg_schema() as url:
        yield url
