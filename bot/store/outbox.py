"""The outbox: notices owed to people (a reminder, a result, a ruling), stored in the transaction of the event
that owes them, and marked told by the face that told them (migration `0014_notices`).

A row per notice, named by a unique `key` (`notice:<match>:<seq>:<kind>`: the match, the sequence number of the
log entry its action began at, its kind), with its `match_id`, its `scope` (the guild, None for the terminal),
its `kind` and a JSON `payload` (what a face needs to say it again: the event's data, seat, names and detail).
`told_at` is empty until a face told it. A face marks a notice told after it told it; the next start of a face
tells, in order, the notices of its matches still untold (a face killed between its commit and its telling owes
them still). Telling is therefore at least once and, but for a kill between telling and marking, exactly once.

The table is generic: any feature adds its own notices (`owe` in its own transaction, a key namespace of its
own) and a face claims them with `untold` and `mark_told`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from sqlalchemy import JSON, BigInteger, Index, String, Table, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import PK, Base, UTCDateTime, utcnow

KEY_LENGTH: Final = 200


class NoticeRow(Base):
    """One notice owed (or told)."""

    __tablename__ = "notices"
    __table_args__ = (Index("ix_notices_told_match", "told_at", "match_id"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    kind: Mapped[str] = mapped_column(String(32))
    match_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    scope: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    told_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    told_by: Mapped[str | None] = mapped_column(String(64), nullable=True)


NOTICES: Final = cast(Table, NoticeRow.__table__)


@dataclass(frozen=True)
class Notice:
    """A notice to owe (or as stored)."""

    key: str
    kind: str
    match_id: int | None = None
    scope: int | None = None
    payload: Mapping[str, Any] = field(default_factory=dict)
    id: int = 0


async def owe(conn: AsyncConnection, notices: Sequence[Notice], now: dt.datetime | None = None) -> None:
    """Store notices owed, in the caller's transaction (a key stored already stays as it is: owed once)."""
    now = now or utcnow()
    for notice in notices:
        if len(notice.key) > KEY_LENGTH:
            raise ValueError(f"notice key longer than {KEY_LENGTH}: {notice.key[:40]}…")
        values = {
            "key": notice.key,
            "kind": notice.kind,
            "match_id": notice.match_id,
            "scope": notice.scope,
            "payload": dict(notice.payload),
            "created_at": now,
        }
        if conn.dialect.name == "postgresql":
            await conn.execute(pg_insert(NOTICES).values(**values).on_conflict_do_nothing(index_elements=["key"]))
        else:
            await conn.execute(sqlite_insert(NOTICES).values(**values).on_conflict_do_nothing(index_elements=["key"]))


async def untold(conn: AsyncConnection, match_ids: Collection[int], limit: int = 1000) -> list[Notice]:
    """The notices of these matches nobody told yet, in the order they were owed."""
    if not match_ids:
        return []
    query = (
        select(NOTICES)
        .where(NOTICES.c.told_at.is_(None), NOTICES.c.match_id.in_(sorted(match_ids)))
        .order_by(NOTICES.c.id)
        .limit(limit)
    )
    return [_notice(r) for r in (await conn.execute(query)).mappings().all()]


async def untold_in_guilds(conn: AsyncConnection, limit: int = 1000) -> list[Notice]:
    """The notices of every guild (scope set) nobody told yet, in the order they were owed."""
    query = (
        select(NOTICES)
        .where(NOTICES.c.told_at.is_(None), NOTICES.c.scope.is_not(None))
        .order_by(NOTICES.c.id)
        .limit(limit)
    )
    return [_notice(r) for r in (await conn.execute(query)).mappings().all()]


def _notice(r: Any) -> Notice:
    return Notice(str(r["key"]), str(r["kind"]), r["match_id"], r["scope"], dict(r["payload"] or {}), int(r["id"]))


async def mark_told(conn: AsyncConnection, keys: Collection[str], by: str, now: dt.datetime | None = None) -> set[str]:
    """Mark notices told (by the face `by`): the keys marked now (a notice told already is not marked again)."""
    if not keys:
        return set()
    marked = set()
    for key in sorted(keys):
        done = await conn.execute(
            update(NOTICES)
            .where(NOTICES.c.key == key, NOTICES.c.told_at.is_(None))
            .values(told_at=now or utcnow(), told_by=by[:64])
        )
        if int(done.rowcount or 0) == 1:
            marked.add(key)
    return marked


async def told(conn: AsyncConnection, key: str) -> bool | None:
    """Whether a notice was told (None: no such notice)."""
    row = (await conn.execute(select(NOTICES.c.told_at).where(NOTICES.c.key == key))).first()
    return None if row is None else row[0] is not None
