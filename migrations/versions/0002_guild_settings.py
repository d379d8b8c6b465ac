"""Per-guild settings: host role, game-room channel, default room mode, default clocks per game.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("host_role_id", sa.BigInteger(), nullable=True),
        sa.Column("room_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("room_mode", sa.String(16), nullable=True),
        sa.Column("clocks", sa.JSON(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("guild_settings")
