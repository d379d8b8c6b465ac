"""The schema is guarded: Alembic's env knows every table, a fresh database migrated to head equals the
models exactly (an autogenerate would find nothing to do, on SQLite and PostgreSQL), and the revision ids
are unique and numbered in the order of their chain, each in a file named after it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from bot.store.db import RENAMED_REVISIONS, make_engine, migrate, revisions
from tests import ROOT

TABLENAME = re.compile(r"""__tablename__\s*=\s*["']([a-z_]+)["']""")


def declared_tables() -> set[str]:
    """Every table a module under bot/ declares."""
    found: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        found.update(TABLENAME.findall(path.read_text(encoding="utf-8")))
    return found


def test_env_gives_alembic_every_table() -> None:
    # A fresh interpreter imports only what env.py imports, so a table module imported by chance
    # elsewhere in the test session cannot hide a missing one.
    code = "from migrations.models import metadata; print(' '.join(sorted(metadata.tables)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    known = set(out.stdout.split())
    assert declared_tables() <= known, sorted(declared_tables() - known)
    assert {"matches", "schedules", "jobs", "schedule_settings", "series", "guild_settings"} <= known


async def test_a_fresh_database_equals_the_models(db_url: str) -> None:
    from migrations.models import metadata

    await migrate(db_url)
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            diffs = await conn.run_sync(lambda c: compare_metadata(MigrationContext.configure(c), metadata))
    finally:
        await engine.dispose()
    assert diffs == []


def test_revision_ids_are_unique_and_ordered() -> None:
    chain = revisions()
    assert len(chain) == len(set(chain))
    numbers = [int(r[:4]) for r in chain]
    assert numbers == list(range(1, len(chain) + 1)), chain
    files = sorted(p.stem for p in (ROOT / "migrations" / "versions").glob("0*.py"))
    assert [f[:4] for f in files] == [r[:4] for r in chain]
    for stem, rev in zip(files, chain, strict=True):
        assert stem == rev or (stem.startswith(rev + "_") and rev.isdigit()), (stem, rev)


async def test_a_database_stamped_with_an_old_revision_id_upgrades(tmp_path: Path) -> None:
    from sqlalchemy import text

    from bot.store.db import current_revision, sqlite_url_for

    url = sqlite_url_for(tmp_path / "old.db")
    await migrate(url, "upgrade", "0010_schedule_start")
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:  # as a database migrated before the ids were renumbered
            await conn.execute(text("UPDATE alembic_version SET version_num = '0004_schedule_start'"))
    finally:
        await engine.dispose()
    assert await current_revision(url) == "0010_schedule_start"
    await migrate(url)
    assert await current_revision(url) == revisions()[-1]
    await migrate(url, "downgrade", "0004_series")  # an old id on the command line means its new one
    assert await current_revision(url) == RENAMED_REVISIONS["0004_series"]
