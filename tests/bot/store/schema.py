"""What the tests of migrations share: the differences Alembic's autogenerate finds between a migrated database
and the models of some tables."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.db import Base


def table_of(change: Any) -> str | None:
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


async def differences(
    engine: AsyncEngine, tables: Collection[str], *, also: Callable[[Any], bool] = lambda change: False
) -> list[Any]:
    """How the database differs from the models of `tables` (compared with `matches`, which they refer to, and
    with the columns' types): the differences about those tables, and those `also` keeps."""

    def diff(conn: Any) -> list[Any]:
        wanted = MetaData()
        for table in Base.metadata.sorted_tables:
            if table.name in tables or table.name == "matches":
                table.to_metadata(wanted)
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return [d for d in compare_metadata(context, wanted) if table_of(d) in tables or also(d)]

    async with engine.connect() as conn:
        return await conn.run_sync(diff)
