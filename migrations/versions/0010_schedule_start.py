"""Scheduled DMs: the start token that makes a DM's start (or no-show forfeit) happen once, even when a
process stopped between claiming it and recording its match.

Revision ID: 0010_schedule_start
Revises: 0009_series
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_schedule_start"
down_revision = "0009_series"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("schedules") as batch:
        batch.add_column(sa.Column("start_token", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("schedules") as batch:
        batch.drop_column("start_token")
