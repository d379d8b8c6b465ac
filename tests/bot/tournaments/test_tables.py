"""Migrations 0006_tournaments and 0008_tourney_checkin match the tournament models, and go down and up."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, inspect

from bot.store.db import Base, current_revision, migrate
from bot.store.matches import MatchStore
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS

OURS = {TOURNAMENTS.name, ENTRIES.name, GAMES.name}


async def test_the_migration_creates_exactly_the_models(db_url: str) -> None:
    store = MatchStore(db_url)
    await store.open()
    try:

        def diff(conn: Any) -> list[Any]:
            ours = MetaData()
            for table in Base.metadata.sorted_tables:
                if table.name in OURS or table.name == "matches":
                    table.to_metadata(ours)
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return [d for d in compare_metadata(context, ours) if _table_of(d) in OURS]

        async with store.engine.connect() as conn:
            assert await conn.run_sync(diff) == []
        await migrate(db_url, "downgrade", "0003_face")  # this migration's parent (later ones come off too)
        async with store.engine.connect() as conn:
            names = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
        assert not names & OURS and "matches" in names
        await migrate(db_url, "upgrade", "head")
        from alembic.script import ScriptDirectory

        from bot.store.db import _alembic_config

        assert await current_revision(db_url) == ScriptDirectory.from_config(_alembic_config()).get_current_head()
    finally:
        await store.close()


def _table_of(change: Any) -> str | None:
    """The table an autogenerate difference is about."""
    item = change[0] if isinstance(change, list) else change
    for part in item[1:]:
        name = getattr(part, "name", None) if not isinstance(part, str) else None
        table = getattr(part, "table", None)
        if table is not None and getattr(table, "name", None):
            return str(table.name)
        if name and hasattr(part, "columns"):
            return str(name)
        if isinstance(part, str):
            return part
    return None
