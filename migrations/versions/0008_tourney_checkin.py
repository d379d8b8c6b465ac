"""Tournaments: check-in, no-shows, start and round times, seeding by rating, and the claim that opens each
game's match once (bot/tournaments/tables.py).

Revision ID: 0008_tourney_checkin
Revises: 0007_schedule
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from bot.store.db import UTCDateTime

revision = "0008_tourney_checkin"
down_revision = "0007_schedule"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as t:
        t.add_column(sa.Column("checkin_s", sa.Integer(), nullable=True))
        t.add_column(sa.Column("no_show_s", sa.Integer(), nullable=True))
        t.add_column(sa.Column("round_every_s", sa.Integer(), nullable=True))
        t.add_column(sa.Column("seeding", sa.String(16), nullable=True))
    with op.batch_alter_table("tournament_entries") as t:
        t.add_column(sa.Column("checked_in_at", UTCDateTime(), nullable=True))
    with op.batch_alter_table("tournament_games") as t:
        t.add_column(sa.Column("room_id", sa.BigInteger(), nullable=True))
        t.add_column(sa.Column("starts_at", UTCDateTime(), nullable=True))
        t.add_column(sa.Column("here_white", UTCDateTime(), nullable=True))
        t.add_column(sa.Column("here_black", UTCDateTime(), nullable=True))
        t.add_column(sa.Column("opening_by", sa.String(64), nullable=True))
        t.add_column(sa.Column("opening_at", UTCDateTime(), nullable=True))
        t.add_column(sa.Column("opening_after", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_games") as t:
        for name in ("opening_after", "opening_at", "opening_by", "here_black", "here_white", "starts_at", "room_id"):
            t.drop_column(name)
    with op.batch_alter_table("tournament_entries") as t:
        t.drop_column("checked_in_at")
    with op.batch_alter_table("tournaments") as t:
        for name in ("seeding", "round_every_s", "no_show_s", "checkin_s"):
            t.drop_column(name)
