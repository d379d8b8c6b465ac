"""Ratings: a match's `rated` flag, each player's figures per server and game, every rated match's changes.

Revision ID: 0005_ratings
Revises: 0004_leases
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0005_ratings"
down_revision = "0004_leases"
branch_labels = None
depends_on = None

MATCH_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=True))
    # Terminal-room practice matches (the practice opponent's fixed id) were never rated games.
    op.execute(
        "UPDATE matches SET rated = false WHERE id IN "
        "(SELECT match_id FROM match_players WHERE player_id = 'local:dmhost-bot')"
    )
    op.create_table(
        "player_ratings",
        sa.Column("guild_key", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("last_at", UTCDateTime(), nullable=False),
        sa.Column("last_match", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_player_ratings_board", "player_ratings", ["guild_key", "game", "rating"])
    op.create_table(
        "rating_changes",
        sa.Column(
            "match_id",
            MATCH_ID,
            sa.ForeignKey("matches.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("guild_key", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("opponent_id", sa.String(64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("deviation_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.Column("deviation_after", sa.Float(), nullable=False),
        sa.Column("volatility_after", sa.Float(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
    )
    op.create_index(
        "ix_rating_changes_player", "rating_changes", ["guild_key", "game", "player_id", "match_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_player_ratings_board", table_name="player_ratings")
    op.drop_table("player_ratings")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rated")
