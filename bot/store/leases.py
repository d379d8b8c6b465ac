"""Shard leases: which process hosts a shard's matches, until when, and under which epoch (fencing token).

A lease row per shard: `owner` (a process's instance id), `epoch` (rises at every takeover) and
`expires_at`. A process takes all its shards in one transaction or none (so two processes with
overlapping shard sets never deadlock), renews them while it lives, and releases them when it stops.
Every write of a match's events checks, in its own transaction, that the writer still holds the
shard's current epoch (`FENCE_SQL`): an old owner that was paused past its lease can never write
after a takeover.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import struct
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    String,
    bindparam,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import SQLITE_BUSY_SECONDS, Base, UTCDateTime

log = logging.getLogger(__name__)

NOBODY = ""
"""The owner of a lease that no process holds."""


class ShardLease(Base):
    """Who hosts a shard's matches, under which epoch, and until when."""

    __tablename__ = "shard_leases"

    shard: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    owner: Mapped[str] = mapped_column(String(64), default=NOBODY)
    epoch: Mapped[int] = mapped_column(BigInteger, default=0)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    acquired_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)


_LONG_AGO = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
"""The expiry of a lease row nobody has held yet."""


class LeaseLost(Exception):
    """A write was refused: the writer no longer holds the current epoch of the match's shard."""

    def __init__(self, shards: set[int]) -> None:
        super().__init__(f"the lease of shard(s) {sorted(shards)} is held by another process now")
        self.shards = shards


@dataclass(frozen=True)
class Holder:
    """Who holds a shard now."""

    shard: int
    owner: str
    epoch: int
    expires_at: dt.datetime


@dataclass
class Fencing:
    """What a store checks on every write: this process (`owner`) must hold the current epoch of the shard of
    each match it writes (`epochs`: shard → epoch held; a shard missing from it is not held)."""

    owner: str
    shard_count: int
    epochs: dict[int, int] = field(default_factory=dict)
    on_lost: list[Callable[[set[int]], None]] = field(default_factory=list)

    said: bool = False
    """Whether this hosting term's loss was logged already (one line per loss, however it was learnt)."""

    def hold(self, epochs: dict[int, int]) -> None:
        """A new hosting term: these shards are held under these epochs."""
        self.epochs.update(epochs)
        self.said = False

    def drop(self, shards: set[int]) -> None:
        """These shards were taken over: forget them, say so in one log line, tell the listeners."""
        gone = {s: self.epochs.pop(s) for s in sorted(shards) if s in self.epochs}
        if not gone:
            return
        if not self.said:
            self.said = True
            log.warning(
                "lost the lease of shard(s) %s (epoch %s) to another process: no longer hosting the matches of "
                "shard(s) %s",
                sorted(gone),
                ", ".join(str(e) for e in gone.values()),
                sorted({*gone, *self.epochs}),
            )
        for listener in list(self.on_lost):
            listener(set(gone))

    def shard(self, guild_id: int | None) -> int:
        """Discord's shard of a guild; matches outside any guild live on shard 0."""
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    def holds(self, guild_id: int | None) -> bool:
        """Whether this process holds the lease of a guild's shard now."""
        return self.shard(guild_id) in self.epochs

    def needed(self, guilds: list[int | None]) -> tuple[dict[int, int], set[int]]:
        """The (shard → epoch) to check for writes to these guilds' matches, and the shards not held at all."""
        shards = {self.shard(g) for g in guilds}
        return {s: self.epochs[s] for s in shards if s in self.epochs}, {s for s in shards if s not in self.epochs}


FENCE_SQL = "UPDATE shard_leases SET epoch = epoch WHERE shard = ? AND owner = ? AND epoch = ?"
"""The fencing check for the raw SQLite write path (one row updated: the writer still holds the epoch)."""

_FENCE = (
    update(ShardLease)
    .where(
        ShardLease.shard == bindparam("f_shard"),
        ShardLease.owner == bindparam("f_owner"),
        ShardLease.epoch == bindparam("f_epoch"),
    )
    .values(epoch=ShardLease.epoch)
)


async def fence(conn: AsyncConnection, owner: str, epochs: dict[int, int]) -> set[int]:
    """Inside a write transaction: the shards among `epochs` (shard → epoch) this owner no longer holds.
    The row lock taken here makes a concurrent takeover wait for this transaction to finish."""
    lost = set()
    for shard, epoch in sorted(epochs.items()):
        result = await conn.execute(_FENCE, {"f_shard": shard, "f_owner": owner, "f_epoch": epoch})
        if result.rowcount != 1:
            lost.add(shard)
    return lost


def db_now(dialect: str, plus: float = 0.0) -> ColumnElement[Any]:
    """The database's own clock, `plus` seconds on, as a SQL expression of the lease's time columns: lease
    times are read and written against one clock, whatever the clocks of the hosts' machines say."""
    if dialect == "sqlite":  # the text form UTCDateTime stores (microseconds: the milliseconds and 000)
        return literal_column(f"(strftime('%Y-%m-%d %H:%M:%f', 'now', '{plus:+.3f} seconds') || '000')", UTCDateTime)
    return literal_column(f"(clock_timestamp() + interval '{plus:.3f} seconds')", UTCDateTime)


_WAL_WRITE_LOCK = 120
"""The byte of a SQLite WAL database's `-shm` file that its writer locks (os_unix.c: UNIX_SHM_BASE + WAL_WRITE_LOCK)."""


def sqlite_writer(path: Path) -> int | None:
    """The process (on this machine) that holds a SQLite WAL database's write lock now, if another one does
    (Linux only: None elsewhere, and when nobody writes)."""
    import fcntl

    if not sys.platform.startswith("linux"):
        return None
    try:
        fd = os.open(f"{path}-shm", os.O_RDONLY)
    except OSError:
        return None
    try:
        query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, _WAL_WRITE_LOCK, 1, 0)
        kind, _whence, _start, _len, pid = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, query))
    except OSError:
        return None
    finally:
        os.close(fd)
    return pid if kind != fcntl.F_UNLCK and pid > 0 else None


def process_owner(kind: str) -> str:
    """An owner id naming this machine and process (`KIND:HOST:PID:RANDOM`, at most 50 characters), so that
    another process of this machine can tell at once that it no longer runs (`process_gone`)."""
    return f"{kind[:8]}:{_host()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _host() -> str:
    """This machine's name as owner ids carry it (cut so that a job's claim token, an owner id and 13 more
    characters, fits its 64)."""
    return socket.gethostname()[:24]


def process_gone(owner: str) -> bool:
    """Whether an owner id (`process_owner`) names a process of this machine that no longer runs (or is a
    zombie). False for any other id: a process of another machine, or an id of another form."""
    parts = owner.split(":")
    if len(parts) != 4 or parts[1] != _host():
        return False
    try:
        pid = int(parts[2])
    except ValueError:
        return False
    if pid == os.getpid():
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def stopped(pid: int) -> bool:
    """Whether a process of this machine is stopped (SIGSTOP, Ctrl-Z, a debugger): it runs nothing until resumed."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] in (["T"], ["t"])


class LeaseTable:
    """The lease operations of one process (`owner`) on a set of shards. Expiry is the database's clock
    (`db_now`) at the time of each write, so the hosts' machines need not agree on the time."""

    def __init__(self, engine: AsyncEngine, owner: str, shards: list[int], lease_seconds: float) -> None:
        self.engine = engine
        self.owner = owner
        self.shards = sorted(set(shards))
        self.lease_seconds = lease_seconds
        self.dialect = engine.dialect.name
        self.acquire_wait = max(1.0, min(5.0, lease_seconds / 2))
        """How long taking the leases waits for another writer (SQLite) before it looks again."""

    def _now(self) -> ColumnElement[Any]:
        return db_now(self.dialect)

    def _until(self) -> ColumnElement[Any]:
        return db_now(self.dialect, self.lease_seconds)

    async def holders(self) -> list[Holder]:
        """The current holders of this process's shards (only the rows that exist)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(ShardLease).where(ShardLease.shard.in_(self.shards)))).all()
        return [Holder(r.shard, r.owner, int(r.epoch), r.expires_at) for r in rows]

    async def acquire(self) -> dict[int, int] | None:
        """Take every shard at once if none is held by a live owner (their epochs rise), else none: the
        epochs (shard → epoch), or None. On SQLite it waits at most `acquire_wait` for another writer."""
        async with self.engine.connect() as conn:
            if self.dialect != "sqlite":
                return await self._acquire(conn)
            await conn.exec_driver_sql(f"PRAGMA busy_timeout={int(self.acquire_wait * 1000)}")
            try:
                return await self._acquire(conn)
            finally:
                await conn.exec_driver_sql(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
                await conn.rollback()

    async def _acquire(self, conn: AsyncConnection) -> dict[int, int] | None:
        if conn.in_transaction():
            await conn.commit()
        async with conn.begin():
            now = self._now()
            existing = {
                r[0]
                for r in (await conn.execute(select(ShardLease.shard).where(ShardLease.shard.in_(self.shards)))).all()
            }
            missing = [s for s in self.shards if s not in existing]
            if missing:
                await conn.execute(
                    insert(ShardLease),
                    [{"shard": s, "owner": NOBODY, "epoch": 0, "expires_at": _LONG_AGO} for s in missing],
                )
            taken = (
                await conn.execute(
                    update(ShardLease)
                    .where(
                        ShardLease.shard.in_(self.shards),
                        (ShardLease.expires_at <= now)
                        | (ShardLease.owner == NOBODY)
                        | (ShardLease.owner == self.owner),
                    )
                    .values(owner=self.owner, epoch=ShardLease.epoch + 1, expires_at=self._until(), acquired_at=now)
                    .returning(ShardLease.shard, ShardLease.epoch)
                )
            ).all()
            if len(taken) != len(self.shards):
                await conn.rollback()
                return None
        return {int(s): int(e) for s, e in taken}

    async def end_frozen_writer(self) -> int | None:
        """SQLite only, after taking the leases failed because the database stayed locked: a process of this
        machine that holds the write lock while it is stopped (SIGSTOP, Ctrl-Z) blocks every writer for as
        long as it stays stopped, and nothing but its end frees the lock. When every lease this process wants
        has expired (no live owner), such a process is ended (SIGKILL: its open transaction is rolled back)
        and its id returned; otherwise nothing is done (None)."""
        if self.dialect != "sqlite":
            return None
        database = make_url(str(self.engine.url)).database
        if not database or database == ":memory:":
            return None
        pid = sqlite_writer(Path(database))
        if pid is None or pid == os.getpid() or not stopped(pid):
            return None
        async with self.engine.connect() as conn:  # a read: WAL lets it past the writer
            live = (
                await conn.execute(
                    select(func.count())
                    .select_from(ShardLease)
                    .where(
                        ShardLease.shard.in_(self.shards),
                        ShardLease.owner != NOBODY,
                        ShardLease.owner != self.owner,
                        ShardLease.expires_at > self._now(),
                    )
                )
            ).scalar_one()
        if live:
            return None
        log.warning(
            "process %d holds the database's write lock while stopped, and its leases have expired: ending it "
            "so that shard(s) %s can be taken over",
            pid,
            self.shards,
        )
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return None
        return pid

    async def renew(self, epochs: dict[int, int]) -> set[int]:
        """Extend the leases held under `epochs`; the shards that were lost meanwhile."""
        async with self.engine.begin() as conn:
            kept = (
                await conn.execute(
                    update(ShardLease)
                    .where(ShardLease.shard.in_(list(epochs)), ShardLease.owner == self.owner)
                    .values(expires_at=self._until())
                    .returning(ShardLease.shard, ShardLease.epoch)
                )
            ).all()
        still = {int(s) for s, e in kept if epochs.get(int(s)) == int(e)}
        return set(epochs) - still

    async def release(self, epochs: dict[int, int]) -> None:
        """Give the leases up now (a clean stop): a standby takes them at its next look."""
        async with self.engine.begin() as conn:
            for shard, epoch in epochs.items():
                await conn.execute(
                    update(ShardLease)
                    .where(ShardLease.shard == shard, ShardLease.owner == self.owner, ShardLease.epoch == epoch)
                    .values(owner=NOBODY, expires_at=self._now())
                )
