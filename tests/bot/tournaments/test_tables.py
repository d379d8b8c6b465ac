"""Migrations 0006_tournaments and 0008_tourney_checkin match the tournament models, and go down and up."""

from __future__ import annotations

from sqlalchemy import inspect

from bot.store.db import current_revision, migrate
from bot.store.matches import MatchStore
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS
from tests.bot.store.schema import differences

OURS = {TOURNAMENTS.name, ENTRIES.name, GAMES.name}


async def test_the_migration_creates_exactly_the_models(db_url: str) -> None:
    store = MatchStore(db_url)
    await store.open()
    try:
        assert await differences(store.engine, OURS) == []
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
