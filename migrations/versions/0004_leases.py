"""Shard leases: owner, epoch (fencing token) and expiry per shard, so that a match has one host at a time.

Revision ID: 0004_leases
Revises: 0003_face
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0004_leases"
down_revision = "0003_face"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "shard_leases",
        sa.Column("shard", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("acquired_at", UTCDateTime(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("shard_leases")
