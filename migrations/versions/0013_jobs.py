"""Jobs: one table for every timer that must outlive the process; the schedule's own `schedule_jobs` moves in.

Each schedule job becomes a job of kind `schedule.<kind>` keyed `schedule:<id>:<kind>` (a reminder:
`schedule:<id>:remind:<offset>`); of several rows for one key (a retry added beside a done one) the pending
one is kept, else the latest. The downgrade moves the schedule's jobs back.

Revision ID: 0013_jobs
Revises: 0012_correspondence
Create Date: 2026-11-28
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime, utcnow

revision = "0013_jobs"
down_revision = "0012_correspondence"
branch_labels = None
depends_on = None

KINDS = ("remind", "checkin", "start", "noshow")


def _old_table() -> sa.Table:
    return sa.table(
        "schedule_jobs",
        sa.column("id", sa.BigInteger()),
        sa.column("schedule_id", sa.BigInteger()),
        sa.column("guild_id", sa.BigInteger()),
        sa.column("kind", sa.String()),
        sa.column("offset_s", sa.Integer()),
        sa.column("due_at", UTCDateTime()),
        sa.column("state", sa.String()),
        sa.column("claimed_by", sa.String()),
        sa.column("claimed_at", UTCDateTime()),
    )


def _jobs_table() -> sa.Table:
    return sa.table(
        "jobs",
        sa.column("kind", sa.String()),
        sa.column("key", sa.String()),
        sa.column("due_at", UTCDateTime()),
        sa.column("payload", sa.JSON()),
        sa.column("scope", sa.BigInteger()),
        sa.column("claimed_by", sa.String()),
        sa.column("claimed_at", UTCDateTime()),
        sa.column("done", sa.Boolean()),
        sa.column("attempts", sa.Integer()),
        sa.column("created_at", UTCDateTime()),
    )


def _key(schedule_id: int, kind: str, offset: int | None) -> str:
    return f"schedule:{schedule_id}:{kind}" + (f":{offset}" if kind == "remind" else "")


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("due_at", UTCDateTime(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("scope", sa.BigInteger(), nullable=True),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_at", UTCDateTime(), nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("key"),
    )
    op.create_index("ix_jobs_done_due", "jobs", ["done", "due_at"])
    op.create_index("ix_jobs_done_claimed", "jobs", ["done", "claimed_at"])
    conn = op.get_bind()
    old = _old_table()
    chosen: dict[str, Any] = {}
    for row in conn.execute(sa.select(old).order_by(old.c.id)).mappings():
        key = _key(int(row["schedule_id"]), str(row["kind"]), row["offset_s"])
        kept = chosen.get(key)
        if kept is None or not (kept["state"] == "pending" and row["state"] != "pending"):
            chosen[key] = row
    now = utcnow()
    rows = [
        {
            "kind": f"schedule.{row['kind']}",
            "key": key,
            "due_at": row["due_at"],
            "payload": {"schedule": int(row["schedule_id"]), "offset": row["offset_s"]},
            "scope": row["guild_id"],
            "claimed_by": row["claimed_by"] if row["state"] != "pending" else None,
            "claimed_at": row["claimed_at"] if row["state"] != "pending" else None,
            "done": row["state"] != "pending",
            "attempts": 0 if row["state"] == "pending" else 1,
            "created_at": now,
        }
        for key, row in chosen.items()
    ]
    if rows:
        op.bulk_insert(_jobs_table(), rows)
    op.drop_index("ix_schedule_jobs_schedule_id", table_name="schedule_jobs")
    op.drop_index("ix_schedule_jobs_state_due", table_name="schedule_jobs")
    op.drop_table("schedule_jobs")


def downgrade() -> None:
    op.create_table(
        "schedule_jobs",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("schedule_id", PK, sa.ForeignKey("schedules.id", ondelete="CASCADE"), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("offset_s", sa.Integer(), nullable=True),
        sa.Column("due_at", UTCDateTime(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_at", UTCDateTime(), nullable=True),
    )
    op.create_index("ix_schedule_jobs_state_due", "schedule_jobs", ["state", "due_at"])
    op.create_index("ix_schedule_jobs_schedule_id", "schedule_jobs", ["schedule_id"])
    conn = op.get_bind()
    jobs = _jobs_table()
    schedules = sa.table("schedules", sa.column("id", sa.BigInteger()))
    known = {int(r[0]) for r in conn.execute(sa.select(schedules.c.id))}
    rows = []
    query = sa.select(jobs).where(jobs.c.kind.in_([f"schedule.{k}" for k in KINDS]))
    for row in conn.execute(query).mappings():
        payload = row["payload"] or {}
        schedule_id = payload.get("schedule")
        if schedule_id is None or int(schedule_id) not in known:
            continue
        rows.append(
            {
                "schedule_id": int(schedule_id),
                "guild_id": row["scope"],
                "kind": str(row["kind"]).removeprefix("schedule."),
                "offset_s": payload.get("offset"),
                "due_at": row["due_at"],
                "state": "done" if row["done"] else "pending",
                "claimed_by": row["claimed_by"],
                "claimed_at": row["claimed_at"],
            }
        )
    if rows:
        op.bulk_insert(_old_table(), rows)
    op.drop_index("ix_jobs_done_claimed", table_name="jobs")
    op.drop_index("ix_jobs_done_due", table_name="jobs")
    op.drop_table("jobs")
