"""Correspondence: a server's yearly vacation allowance, and each player's notify choice and vacation days.

Revision ID: 0012_correspondence
Revises: 0011_analysis
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0012_correspondence"
down_revision = "0011_analysis"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "correspondence_settings",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("vacation_days", sa.Integer(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "correspondence_players",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("notify", sa.String(16), nullable=True),
        sa.Column("vacation_year", sa.Integer(), nullable=True),
        sa.Column("vacation_used", sa.Integer(), nullable=False),
        sa.Column("away_until", UTCDateTime(), nullable=True),
        sa.Column("digest_sent", UTCDateTime(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("correspondence_players")
    op.drop_table("correspondence_settings")
