"""Best-of-N series: their players, settings, games and results.

Revision ID: 0009_series
Revises: 0008_tourney_checkin
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime

revision = "0009_series"
down_revision = "0008_tourney_checkin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "series",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("best_of", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("host_id", sa.String(64), nullable=True),
        sa.Column("player1_id", sa.String(64), nullable=False),
        sa.Column("player1_name", sa.String(100), nullable=False),
        sa.Column("player2_id", sa.String(64), nullable=False),
        sa.Column("player2_name", sa.String(100), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False),
        sa.Column("matches", sa.JSON(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_series_player1_id", "series", ["player1_id"])
    op.create_index("ix_series_player2_id", "series", ["player2_id"])


def downgrade() -> None:
    op.drop_index("ix_series_player2_id", "series")
    op.drop_index("ix_series_player1_id", "series")
    op.drop_table("series")
