"""Scheduled Death Matches: schedules, their due actions (jobs) and per-guild scheduling settings.

Revision ID: 0007_schedule
Revises: 0006_tournaments
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime

revision = "0007_schedule"
down_revision = "0006_tournaments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("room_id", sa.BigInteger(), nullable=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("first", sa.Integer(), nullable=True),
        sa.Column("advantage", sa.String(32), nullable=True),
        sa.Column("room_mode", sa.String(16), nullable=True),
        sa.Column("player1_id", sa.String(64), nullable=False),
        sa.Column("player1_name", sa.String(100), nullable=False),
        sa.Column("player2_id", sa.String(64), nullable=False),
        sa.Column("player2_name", sa.String(100), nullable=False),
        sa.Column("host_id", sa.String(64), nullable=True),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("prize", sa.Text(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("reminders", sa.JSON(), nullable=False),
        sa.Column("checkin_s", sa.Integer(), nullable=False),
        sa.Column("no_show_s", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("here1", UTCDateTime(), nullable=True),
        sa.Column("here2", UTCDateTime(), nullable=True),
        sa.Column("wait_until", UTCDateTime(), nullable=False),
        sa.Column("proposed_at", UTCDateTime(), nullable=True),
        sa.Column("proposed_by", sa.String(64), nullable=True),
        sa.Column("match_id", sa.BigInteger(), nullable=True),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("result_reason", sa.String(32), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("event_id", sa.BigInteger(), nullable=True),
        sa.Column("card_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_schedules_guild_status_at", "schedules", ["guild_id", "status", "at"])
    op.create_index("ix_schedules_player1_id", "schedules", ["player1_id"])
    op.create_index("ix_schedules_player2_id", "schedules", ["player2_id"])
    op.create_index("ix_schedules_match_id", "schedules", ["match_id"])
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
    op.create_table(
        "schedule_settings",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("timezone", sa.String(64), nullable=True),
        sa.Column("reminders", sa.JSON(), nullable=True),
        sa.Column("checkin_s", sa.Integer(), nullable=True),
        sa.Column("no_show_s", sa.Integer(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("schedule_settings")
    op.drop_index("ix_schedule_jobs_schedule_id", table_name="schedule_jobs")
    op.drop_index("ix_schedule_jobs_state_due", table_name="schedule_jobs")
    op.drop_table("schedule_jobs")
    op.drop_index("ix_schedules_match_id", table_name="schedules")
    op.drop_index("ix_schedules_player2_id", table_name="schedules")
    op.drop_index("ix_schedules_player1_id", table_name="schedules")
    op.drop_index("ix_schedules_guild_status_at", table_name="schedules")
    op.drop_table("schedules")
