"""Coaching: certified puzzles, the matches searched for them, puzzle ratings, attempts and daily puzzles.

Revision ID: 0015_puzzles
Revises: 0014_notices
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import PK, UTCDateTime

revision = "0015_puzzles"
down_revision = "0014_notices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("match_id", PK, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("guild_key", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("position", sa.JSON(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("mover_id", sa.String(64), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("proof", sa.JSON(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("plays", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_puzzles_match_id", "puzzles", ["match_id"])
    op.create_index("ix_puzzles_pick", "puzzles", ["guild_key", "game", "rating"])
    op.create_table(
        "puzzle_scans",
        sa.Column(
            "match_id", PK, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
        ),
        sa.Column("found", sa.Integer(), nullable=False),
        sa.Column("scanned_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "puzzle_ratings",
        sa.Column("guild_key", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column(
            "puzzle_id", PK, sa.ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
        ),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("guild_key", sa.BigInteger(), nullable=False),
        sa.Column("move", sa.String(100), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_puzzle_attempts_player_id", "puzzle_attempts", ["player_id"])
    op.create_table(
        "puzzle_daily",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("last_day", sa.String(10), nullable=True),
        sa.Column("last_puzzle", sa.BigInteger(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("puzzle_daily")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzle_scans")
    op.drop_table("puzzles")
