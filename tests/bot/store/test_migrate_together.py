"""Processes starting together on one new database migrate one after the other (issue 47, 6; issue 50, 4):
on SQLite the database's folder is locked around the migrations, on PostgreSQL an advisory lock is taken."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.store.db import current_revision, make_engine, revisions

pytestmark = pytest.mark.slow

TOGETHER = 4
STARTER = """
import asyncio, sys, time
from bot.store.db import migrate
start = float(sys.argv[2])
while time.time() < start:
    time.sleep(0.001)
asyncio.run(migrate(sys.argv[1]))
print("migrated")
"""


def _migrate_together(url: str, cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start `TOGETHER` processes that all begin migrating `url` at the same moment; their results."""
    import time

    start = time.time() + 2.0  # every interpreter is up by then (imports take about a second here)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", STARTER, url, str(start)],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(TOGETHER)
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


async def _tables(url: str) -> int:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda sync: sync.dialect.get_table_names(sync))
            return len(names)
    finally:
        await engine.dispose()


def test_processes_migrating_one_new_database_together_all_succeed(db_url: str, tmp_path: Path) -> None:
    results = _migrate_together(db_url, tmp_path)
    for result in results:
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.strip() == "migrated"
        assert "Traceback" not in result.stderr
    assert asyncio.run(current_revision(db_url)) == revisions()[-1]
    assert asyncio.run(_tables(db_url)) > 10


def test_the_sqlite_lock_leaves_nothing_beside_the_database(sqlite_url: str, tmp_path: Path) -> None:
    results = _migrate_together(sqlite_url, tmp_path)
    assert [r.returncode for r in results] == [0] * TOGETHER
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("dmhost.db")) == ["dmhost.db"]


async def _locked_elsewhere(url: str) -> bool:
    """Whether the migrations' advisory lock of this schema can be taken now (it must be free after migrating)."""
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            got = await conn.execute(
                text("SELECT pg_try_advisory_xact_lock(hashtext('dmhost:migrate' || ':' || current_schema()))")
            )
            return not bool(got.scalar_one())
    finally:
        await engine.dispose()


@pytest.mark.pg
def test_the_postgresql_advisory_lock_is_released_after_migrating(pg_url: str, tmp_path: Path) -> None:
    assert [r.returncode for r in _migrate_together(pg_url, tmp_path)] == [0] * TOGETHER
    assert asyncio.run(_locked_elsewhere(pg_url)) is False
