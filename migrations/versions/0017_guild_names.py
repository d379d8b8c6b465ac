"""Guild settings: the guild's name as Discord last told it (the server review page is named after it).

Revision ID: 0017_guild_names
Revises: 0016_missed_games
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0017_guild_names"
down_revision = "0016_missed_games"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as t:
        t.add_column(sa.Column("name", sa.String(100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as t:
        t.drop_column("name")
