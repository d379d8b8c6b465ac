"""Scheduled DMs at scale: 10,000 schedules (60,000 jobs) in one database.

    python -m benchmarks.schedule [--schedules 10000] [--db-url URL]

Measures the look-up the timer task makes before every sleep (the earliest pending job, an index seek
on (state, due_at)) and the scheduler's start-up (taking up stale DMs, moving no-show waits, checking
started ones) with every schedule in the database.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert

from bot.jobs.table import JOBS
from bot.schedule.core import Scheduler
from bot.schedule.store import SCHEDULES, ScheduleSettings, ScheduleStore, plan_jobs
from bot.store.db import make_engine, migrate, sqlite_url_for

TARGET_NEXT_DUE_MS = 5.0
TARGET_STARTUP_S = 2.0


@dataclass
class ScheduleFigures:
    """What one run measured."""

    schedules: int
    jobs: int
    next_due_p50_ms: float
    next_due_max_ms: float
    startup_s: float


async def fill(url: str, count: int, now: dt.datetime) -> int:
    """`count` schedules spread over the next 30 days, with their jobs; returns the number of jobs."""
    await migrate(url)
    engine = make_engine(url)
    settings = ScheduleSettings()
    jobs = 0
    try:
        async with engine.begin() as conn:
            for chunk in range(0, count, 1000):
                rows = []
                for i in range(chunk, min(count, chunk + 1000)):
                    at = now + dt.timedelta(minutes=30 + (i * 4320) % (30 * 24 * 60), seconds=i % 60)
                    rows.append(
                        {
                            "guild_id": 1000 + i % 50,
                            "game": "boxes",
                            "options": {},
                            "clock": {},
                            "rules": {},
                            "first": 1,
                            "player1_id": f"p{2 * i}",
                            "player1_name": f"player{2 * i}",
                            "player2_id": f"p{2 * i + 1}",
                            "player2_name": f"player{2 * i + 1}",
                            "at": at,
                            "reminders": list(settings.reminders),
                            "checkin_s": settings.checkin_s,
                            "no_show_s": settings.no_show_s,
                            "status": "scheduled",
                            "wait_until": at + dt.timedelta(seconds=settings.no_show_s),
                            "created_at": now,
                            "updated_at": now,
                        }
                    )
                ids = (await conn.execute(insert(SCHEDULES).returning(SCHEDULES.c.id, SCHEDULES.c.at), rows)).all()
                job_rows = [
                    {"kind": j.kind, "key": j.key, "due_at": j.due, "payload": dict(j.payload), "scope": j.scope}
                    | {"done": False, "attempts": 0, "created_at": now}
                    for sid, at in ids
                    for j in plan_jobs(int(sid), None, at, settings, now)
                ]
                await conn.execute(insert(JOBS), job_rows)
                jobs += len(job_rows)
    finally:
        await engine.dispose()
    return jobs


async def measure(count: int, url: str | None = None) -> ScheduleFigures:
    """Fill a database, then time `next_due` (200 look-ups) and a scheduler's start-up."""
    with tempfile.TemporaryDirectory() as folder:
        url = url or sqlite_url_for(Path(folder) / "schedule.db")
        now = dt.datetime.now(dt.UTC)
        jobs = await fill(url, count, now)
        engine = make_engine(url)
        try:
            queue = Scheduler(ScheduleStore(engine), poll_seconds=None).jobs
            await queue.next_due()  # the connection is open
            times = []
            for _ in range(200):
                t0 = time.perf_counter()
                await queue.next_due()
                times.append((time.perf_counter() - t0) * 1000)
            scheduler = Scheduler(ScheduleStore(engine), poll_seconds=None)
            t0 = time.perf_counter()
            await scheduler.start()
            await scheduler.jobs.next_due()
            startup = time.perf_counter() - t0
            await scheduler.close()
        finally:
            await engine.dispose()
    return ScheduleFigures(count, jobs, statistics.median(times), max(times), startup)


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.schedule")
    parser.add_argument("--schedules", type=int, default=10_000)
    parser.add_argument("--db-url")
    args = parser.parse_args(argv)
    fig = asyncio.run(measure(args.schedules, args.db_url))
    print(
        f"{fig.schedules} schedules, {fig.jobs} jobs: next due p50 {fig.next_due_p50_ms:.2f} ms "
        f"(max {fig.next_due_max_ms:.2f} ms), start-up {fig.startup_s:.3f} s"
    )
    ok = fig.next_due_p50_ms <= TARGET_NEXT_DUE_MS and fig.startup_s <= TARGET_STARTUP_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
