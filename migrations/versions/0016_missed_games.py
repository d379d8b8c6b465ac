"""Tournaments: lichess's rule for a missed game as an option (`missed:withdraw`): the tournament's choice,
and each entry's missed round still to be confirmed (bot/tournaments/tables.py).

Revision ID: 0016_missed_games
Revises: 0015_puzzles
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_missed_games"
down_revision = "0015_puzzles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as t:
        t.add_column(sa.Column("missed", sa.String(16), nullable=True))
    with op.batch_alter_table("tournament_entries") as t:
        t.add_column(sa.Column("missed_round", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_entries") as t:
        t.drop_column("missed_round")
    with op.batch_alter_table("tournaments") as t:
        t.drop_column("missed")
