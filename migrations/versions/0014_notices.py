"""Notices: the outbox of what a face owes people (a reminder, a result), stored with the event, marked told.

Revision ID: 0014_notices
Revises: 0013_jobs
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime

revision = "0014_notices"
down_revision = "0013_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notices",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("match_id", sa.BigInteger(), nullable=True),
        sa.Column("scope", sa.BigInteger(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("told_at", UTCDateTime(), nullable=True),
        sa.Column("told_by", sa.String(64), nullable=True),
        sa.UniqueConstraint("key"),
    )
    op.create_index("ix_notices_told_match", "notices", ["told_at", "match_id"])


def downgrade() -> None:
    op.drop_index("ix_notices_told_match", table_name="notices")
    op.drop_table("notices")
