"""Stored move analyses of finished matches (one row per match, its entries as JSON).

Revision ID: 0011_analysis
Revises: 0010_schedule_start (re-chained after the other parallel revisions at the merge)
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime

revision = "0011_analysis"
down_revision = "0010_schedule_start"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column(
            "match_id", PK, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
        ),
        sa.Column("version", sa.String(16), nullable=False),
        sa.Column("entries", sa.JSON(), nullable=False),
        sa.Column("computed_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_analyses")
