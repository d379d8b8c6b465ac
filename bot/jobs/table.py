"""The `jobs` table: every timer that must outlive the process, one row each (migration `0013_jobs`).

A row is a job of some `kind` (the handler registered for it runs it), named by a unique `key` (adding
the same key again changes that row: a job added twice is one job), due at `due_at` (absolute, UTC),
with a JSON `payload` for its handler and a `scope` (the guild it belongs to, for sharded processes).
A runner claims a due row by a conditional UPDATE that writes `claimed_by`/`claimed_at`, so only one
process runs it; `done` is set when its handler returned, `attempts` counts the claims.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final, cast

from sqlalchemy import JSON, BigInteger, Boolean, Index, Integer, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import PK, Base, UTCDateTime, utcnow

KEY_LENGTH: Final = 200


class JobRow(Base):
    """One durable timer."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_done_due", "done", "due_at"),
        Index("ix_jobs_done_claimed", "done", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    due_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    scope: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """The guild the job belongs to (None: no guild, as a DM scheduled in the terminal)."""
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


JOBS: Final = cast(Table, JobRow.__table__)
