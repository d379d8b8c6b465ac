"""Initial schema: matches, players, the append-only event log, heartbeats.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("result_reason", sa.String(32), nullable=True),
        sa.Column("event_count", sa.Integer(), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_index("ix_matches_guild_id", "matches", ["guild_id"])
    op.create_index("ix_matches_channel_id", "matches", ["channel_id"])
    op.create_table(
        "match_players",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("match_id", PK, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.UniqueConstraint("match_id", "seat"),
    )
    op.create_index("ix_match_players_match_id", "match_players", ["match_id"])
    op.create_index("ix_match_players_player_id", "match_players", ["player_id"])
    op.create_table(
        "match_events",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("match_id", PK, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("message_id", sa.String(32), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.UniqueConstraint("match_id", "seq"),
    )
    op.create_index("ix_events_match_seq", "match_events", ["match_id", "seq"])
    op.create_table(
        "heartbeats",
        sa.Column("instance", sa.String(64), primary_key=True),
        sa.Column("loop_time", sa.Float(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("heartbeats")
    op.drop_index("ix_events_match_seq", table_name="match_events")
    op.drop_table("match_events")
    op.drop_index("ix_match_players_player_id", table_name="match_players")
    op.drop_index("ix_match_players_match_id", table_name="match_players")
    op.drop_table("match_players")
    op.drop_index("ix_matches_channel_id", table_name="matches")
    op.drop_index("ix_matches_guild_id", table_name="matches")
    op.drop_index("ix_matches_status", table_name="matches")
    op.drop_table("matches")
