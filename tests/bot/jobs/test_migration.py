"""Migration `0013_jobs` on SQLite and PostgreSQL: the schedule's jobs move into the `jobs` table (one row
per key, the pending one kept), and the downgrade moves them back."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import text

from bot.store.db import make_engine, migrate

AT = dt.datetime(2026, 12, 1, 12, 0)  # noqa: DTZ001 - UTC, written as the columns store it (raw SQL)


async def test_schedule_jobs_move_into_jobs_and_back(db_url: str) -> None:
    await migrate(db_url, "upgrade", "0012_correspondence")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO schedules (id, guild_id, game, options, clock, rules, player1_id, player1_name,"
                    " player2_id, player2_name, at, reminders, checkin_s, no_show_s, status, wait_until,"
                    " created_at, updated_at) VALUES (7, 42, 'boxes', '{}', '{}', '{}', 'a', 'A', 'b', 'B',"
                    " :at, '[600]', 900, 600, 'scheduled', :at, :at, :at)"
                ),
                {"at": AT},
            )
            rows = [
                ("remind", 600, AT - dt.timedelta(minutes=10), "done"),
                ("start", None, AT, "done"),  # a start tried, then a retry added beside it
                ("start", None, AT + dt.timedelta(seconds=5), "pending"),
                ("noshow", None, AT + dt.timedelta(minutes=10), "pending"),
            ]
            for kind, offset, due, state in rows:
                await conn.execute(
                    text(
                        "INSERT INTO schedule_jobs (schedule_id, guild_id, kind, offset_s, due_at, state)"
                        " VALUES (7, 42, :kind, :offset, :due, :state)"
                    ),
                    {"kind": kind, "offset": offset, "due": due, "state": state},
                )
    finally:
        await engine.dispose()
    await migrate(db_url)
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            moved = (await conn.execute(text("SELECT kind, key, done, scope FROM jobs ORDER BY key"))).all()
        assert [(k, key, bool(done), scope) for k, key, done, scope in moved] == [
            ("schedule.noshow", "schedule:7:noshow", False, 42),
            ("schedule.remind", "schedule:7:remind:600", True, 42),
            ("schedule.start", "schedule:7:start", False, 42),
        ]
    finally:
        await engine.dispose()
    await migrate(db_url, "downgrade", "0012_correspondence")
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            back = (await conn.execute(text("SELECT kind, offset_s, state FROM schedule_jobs ORDER BY kind"))).all()
        assert [tuple(r) for r in back] == [
            ("noshow", None, "pending"),
            ("remind", 600, "done"),
            ("start", None, "pending"),
        ]
    finally:
        await engine.dispose()
