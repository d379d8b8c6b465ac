"""Persistence: models, engines (SQLite or PostgreSQL) and migrations at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    event,
    text,
)
from sqlalchemy.engine import Connection, Dialect, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

PK = BigInteger().with_variant(Integer, "sqlite")


def utcnow() -> dt.datetime:
    """Aware UTC now."""
    return dt.datetime.now(dt.UTC)


class UTCDateTime(TypeDecorator[dt.datetime]):
    """Stores aware datetimes as UTC; SQLite drops offsets, so normalise both ways."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(dt.UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    """Declarative base of dmhost's tables."""


class Match(Base):
    """One match: who, what, where, its result, and a snapshot for fast resume."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), index=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    winner_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    result_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    event_count: Mapped[int] = mapped_column(Integer, default=0)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)
    rated: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    """False: a casual match (`rated:false`, practice); None (matches older than ratings) counts as True."""


class MatchPlayer(Base):
    """A player of a match: seat, stable id and display name."""

    __tablename__ = "match_players"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(100))


class MatchEvent(Base):
    """One entry of a match's append-only log."""

    __tablename__ = "match_events"
    __table_args__ = (UniqueConstraint("match_id", "seq"), Index("ix_events_match_seq", "match_id", "seq"))

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    kind: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    message_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Heartbeat(Base):
    """Last sign of life of a host process, so downtime is not charged to anyone's clock."""

    __tablename__ = "heartbeats"

    instance: Mapped[str] = mapped_column(String(64), primary_key=True)
    loop_time: Mapped[float] = mapped_column(Float)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


def sqlite_url_for(path: str | Path) -> str:
    """`sqlite+aiosqlite:///` URL of a file path."""
    return f"sqlite+aiosqlite:///{Path(path).expanduser().resolve()}"


SQLITE_BUSY_SECONDS = 30.0
"""How long a SQLite write waits for another process's write lock before it fails."""

PG_TIMEOUTS = {
    "lock_timeout": "10s",
    "statement_timeout": "60s",
    "idle_in_transaction_session_timeout": "5s",
}
"""Every PostgreSQL session's bounds (issue 38, 6): a write waits at most 10 s for a lock and a statement runs at
most 60 s (migrations are not bounded), and a transaction left open 5 s with nothing to do is ended by the
server — so a process frozen inside a write transaction (SIGSTOP, a debugger, a swapped-out machine) loses its
locks after 5 s and a standby can take its shards over; the frozen process's own commit then fails."""


def make_engine(url: str, *, foreign_keys: bool = True, echo: bool = False) -> AsyncEngine:
    """An async engine; SQLite gets WAL, busy timeout and (optionally) foreign keys; PostgreSQL the lock,
    statement and idle-in-transaction timeouts of `PG_TIMEOUTS`."""
    if url.startswith("sqlite"):
        # One connection: SQLite runs one writer at a time anyway, and with several pooled connections the
        # writers wait in SQLite's busy handler (sleeps of up to 100 ms) instead of in a fair asyncio
        # queue; under load (benchmarks/soak.py) that made clock deadlines fire up to 90 ms late. A task waiting
        # for the connection waits longer than its holder may wait for the file's lock, so the holder's own
        # answer (the database is locked: another process took over) always comes first.
        engine = create_async_engine(
            url,
            echo=echo,
            connect_args={"timeout": SQLITE_BUSY_SECONDS},
            pool_size=1,
            max_overflow=0,
            pool_timeout=SQLITE_BUSY_SECONDS + 15,
        )

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
            cur.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
            cur.close()

        return engine
    parsed = make_url(url)
    settings: dict[str, str] = {}
    if parsed.get_backend_name() == "postgresql":
        settings.update(PG_TIMEOUTS)
    schema = parsed.query.get("schema")
    if schema:
        # `?schema=NAME` puts dmhost's tables in a PostgreSQL schema of their own.
        settings["search_path"] = schema if isinstance(schema, str) else schema[0]
        parsed = parsed.difference_update_query(["schema"])
    connect_args: dict[str, Any] = {"server_settings": settings} if settings else {}
    return create_async_engine(parsed, echo=echo, pool_pre_ping=True, connect_args=connect_args)


def session_factory(engine: AsyncEngine) -> async_sessionmaker[Any]:
    """Sessions that keep objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


def _alembic_config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    import migrations

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


RENAMED_REVISIONS = {
    "0003_leases": "0004_leases",
    "0003_ratings": "0005_ratings",
    "0003_tournaments": "0006_tournaments",
    "0003_schedule": "0007_schedule",
    "0004_tourney_checkin": "0008_tourney_checkin",
    "0004_series": "0009_series",
    "0004_schedule_start": "0010_schedule_start",
}
"""Revision ids before they were numbered in chain order (2026-11-27): a database stamped with an old id is
re-stamped with its new one before migrating, and an old id given on the command line means the new one."""


def _adopt_renamed_revisions(connection: Connection) -> None:
    """Re-stamp a database whose Alembic version still carries a revision's old id (same schema, new name)."""
    from sqlalchemy import inspect

    if not inspect(connection).has_table("alembic_version"):
        return
    for old, new in RENAMED_REVISIONS.items():
        connection.execute(
            text("UPDATE alembic_version SET version_num = :new WHERE version_num = :old"), {"old": old, "new": new}
        )


def _run_alembic(connection: Connection, action: str, revision: str) -> None:
    from alembic import command

    _adopt_renamed_revisions(connection)
    revision = RENAMED_REVISIONS.get(revision, revision)
    cfg = _alembic_config(connection)
    if action == "upgrade":
        command.upgrade(cfg, revision)
    else:
        command.downgrade(cfg, revision)


def known_revision(revision: str) -> bool:
    """Whether `revision` names a migration of this build (`head`, `base`, an id, or a relative step like `-1`)."""
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    revision = RENAMED_REVISIONS.get(revision, revision)
    if revision in ("head", "heads", "base") or (revision.lstrip("+-").isdigit() and revision[:1] in "+-"):
        return True
    try:
        return ScriptDirectory.from_config(_alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def revisions() -> list[str]:
    """The migrations of this build, oldest first."""
    from alembic.script import ScriptDirectory

    return [s.revision for s in reversed(list(ScriptDirectory.from_config(_alembic_config()).walk_revisions()))]


MIGRATE_LOCK_KEY = "dmhost:migrate"
"""What the migrations lock (PostgreSQL: an advisory lock on this text's hash and the schema's name)."""

LOCK_POLL_S = 0.05
"""How often a process waiting for another one's migrations looks at the SQLite lock again."""


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None: in memory, or not SQLite)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


@contextlib.asynccontextmanager
async def _file_lock(path: Path) -> AsyncIterator[None]:
    """Hold an exclusive `flock` on the folder of a SQLite database while migrating it: two processes starting
    on one new file migrate one after the other, the second finding nothing left to do. The folder is locked,
    not the file: closing a descriptor of the database file would drop this process's own SQLite locks on it
    (POSIX record locks are per process), and a lock file beside it would be left behind."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


async def migrate(url: str, action: str = "upgrade", revision: str = "head") -> None:
    """Apply migrations inside the running loop (foreign keys off on SQLite, then checked). Processes starting
    together never race: on SQLite the database's folder is locked (`flock`) around the migrations, on PostgreSQL
    the migrating transaction takes an advisory lock first (the second process waits, then finds nothing to do)."""
    path = _sqlite_file(url)
    if path is not None and sys.platform != "win32":
        async with _file_lock(path):
            await _migrate(url, action, revision)
    else:
        await _migrate(url, action, revision)


async def _migrate(url: str, action: str, revision: str) -> None:
    engine = make_engine(url, foreign_keys=False)
    try:
        async with engine.begin() as conn:
            if conn.dialect.name == "postgresql":  # a migration may take long: only locks stay bounded
                await conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
                await conn.exec_driver_sql("SET LOCAL idle_in_transaction_session_timeout = 0")
                await conn.exec_driver_sql("SET LOCAL lock_timeout = 0")  # another process's migrations may be long
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtext(:key || ':' || current_schema()))"),
                    {"key": MIGRATE_LOCK_KEY},
                )
                await conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{PG_TIMEOUTS['lock_timeout']}'")
            await conn.run_sync(_run_alembic, action, revision)
        if url.startswith("sqlite"):
            async with engine.connect() as conn:
                problems = (await conn.execute(text("PRAGMA foreign_key_check"))).fetchall()
                if problems:
                    raise RuntimeError(f"foreign key problems after migration: {problems[:5]}")
    finally:
        await engine.dispose()


async def current_revision(url: str) -> str | None:
    """The database's Alembic revision, or None when it has none."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:

            def _rev(sync_conn: Connection) -> str | None:
                from alembic.runtime.migration import MigrationContext

                found = MigrationContext.configure(sync_conn).get_current_revision()
                return RENAMED_REVISIONS.get(found, found) if found else found

            return await conn.run_sync(_rev)
    finally:
        await engine.dispose()
