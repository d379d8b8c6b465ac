"""What /metrics shows of the durable jobs: how many are due, and how many overdue, in every process of a database."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select

from bot.jobs.table import JobRow
from bot.store.matches import MatchStore

LATE_SECONDS = 5.0
"""A job due longer ago than this is overdue."""


async def job_counts(store: MatchStore) -> dict[str, float]:
    """The durable jobs due now and those overdue (due more than `LATE_SECONDS` ago), of every process of the
    store's database: the gauges `dmhost_jobs_due`, `dmhost_jobs_overdue`."""
    now = dt.datetime.now(dt.UTC)
    async with store.engine.connect() as conn:
        due = await conn.scalar(select(func.count()).where(JobRow.done.is_(False), JobRow.due_at <= now))
        late = await conn.scalar(
            select(func.count()).where(
                JobRow.done.is_(False), JobRow.due_at <= now - dt.timedelta(seconds=LATE_SECONDS)
            )
        )
    return {"dmhost_jobs_due": float(due or 0), "dmhost_jobs_overdue": float(late or 0)}
