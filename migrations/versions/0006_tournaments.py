"""Tournaments: the tournament, its entries and its games (bot/tournaments/tables.py).

Revision ID: 0006_tournaments
Revises: 0005_ratings
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0006_tournaments"
down_revision = "0005_ratings"
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("format", sa.String(24), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("prize", sa.String(200), nullable=True),
        sa.Column("bye_points", sa.Float(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=True),
        sa.Column("signup_closes_at", UTCDateTime(), nullable=True),
        sa.Column("starts_at", UTCDateTime(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("seeds", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_tournaments_guild_id", "tournaments", ["guild_id"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", PK, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("joined_at", UTCDateTime(), nullable=False),
        sa.Column("withdrawn_at", UTCDateTime(), nullable=True),
        sa.UniqueConstraint("tournament_id", "player_id"),
    )
    op.create_index("ix_tournament_entries_tournament_id", "tournament_entries", ["tournament_id"])
    op.create_table(
        "tournament_games",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", PK, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("white", sa.Integer(), nullable=False),
        sa.Column("black", sa.Integer(), nullable=True),
        sa.Column("bye_points", sa.Float(), nullable=True),
        sa.Column("match_id", sa.BigInteger(), nullable=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("forfeit", sa.Boolean(), nullable=False),
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.UniqueConstraint("tournament_id", "round", "board"),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])
    op.create_index("ix_tournament_games_match_id", "tournament_games", ["match_id"])


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_table("tournament_entries")
    op.drop_table("tournaments")
