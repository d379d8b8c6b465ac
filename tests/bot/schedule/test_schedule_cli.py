"""`dmhost schedule add|list|cancel` on a real SQLite file, as the contract writes them; the migration
creates exactly the tables the models describe."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from bot.store.db import Base, make_engine, migrate, sqlite_url_for
from tests import dmhost


def test_add_list_cancel(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    first = dmhost(
        "schedule",
        "add",
        "boxes",
        "--player",
        "alice",
        "--player",
        "bob",
        "--at",
        "in 3 days",
        "--prize",
        "15 garnets",
        "--opt",
        "rows=2",
        "cols=2",
        "--db",
        db,
        "--json",
    )
    assert first.returncode == 0, first.stderr
    one = json.loads(first.stdout)
    assert one["schedule"] == 1 and one["prize"] == "15 garnets" and one["at"].endswith("Z")
    second = dmhost(
        "schedule",
        "add",
        "trax",
        "--player",
        "carol",
        "--player",
        "dave",
        "--at",
        "in 2h",
        "--db",
        db,
        "--rule",
        "mulligan=1",
    )
    assert second.returncode == 0, second.stderr
    listed = json.loads(dmhost("schedule", "list", "--db", db, "--json").stdout)
    assert [row["schedule"] for row in listed] == [2, 1]  # soonest first
    assert listed[1] == {
        "schedule": 1,
        "game": "boxes",
        "players": ["alice", "bob"],
        "at": one["at"],
        "prize": "15 garnets",
        "status": "scheduled",
        "match": None,
    }
    cancelled = dmhost("schedule", "cancel", "1", "--db", db)
    assert cancelled.returncode == 0 and json.loads(cancelled.stdout) == {"schedule": 1, "status": "cancelled"}
    assert [r["status"] for r in json.loads(dmhost("schedule", "list", "--db", db).stdout)] == [
        "scheduled",
        "cancelled",
    ]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    cases = [
        (("schedule", "add", "boxes", "--player", "alice", "--at", "in 2h", "--db", db), "two --player"),
        (("schedule", "add", "boxes", "--player", "a", "--player", "a", "--at", "in 2h", "--db", db), "two different"),
        (("schedule", "add", "boxes", "--player", "a", "--player", "b", "--at", "last week", "--db", db), "past"),
        (("schedule", "add", "chess", "--player", "a", "--player", "b", "--at", "in 2h", "--db", db), "unknown game"),
        (
            (
                "schedule",
                "add",
                "boxes",
                "--player",
                "a",
                "--player",
                "b",
                "--at",
                "in 2h",
                "--opt",
                "rows=99",
                "--db",
                db,
            ),
            "rows",
        ),
        (
            (
                "schedule",
                "add",
                "boxes",
                "--player",
                "a",
                "--player",
                "b",
                "--at",
                "in 2h",
                "--tz",
                "Nowhere/X",
                "--db",
                db,
            ),
            "unknown time zone",
        ),
        (("schedule", "cancel", "42", "--db", db), "no scheduled DM #42"),
        (("schedule", "list", "--db", str(tmp_path / "missing.db")), "no database"),
        (("schedule", "cancel", "x", "--db", db), ""),
    ]
    for args, words in cases:
        done = dmhost(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and words in done.stderr, (args, done.stderr)
        assert done.stdout == ""


def test_migration_matches_models(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    import bot.schedule  # noqa: F401  (the scheduler's models on Base)

    url = sqlite_url_for(tmp_path / "m.db")

    async def diff() -> list[object]:
        await migrate(url)
        engine = make_engine(url)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(lambda c: compare_metadata(MigrationContext.configure(c), Base.metadata))
        finally:
            await engine.dispose()

    ours = {"schedules", "jobs", "schedule_settings"}
    problems = [d for d in asyncio.run(diff()) if any(t in repr(d) for t in ours)]
    assert problems == []
    import importlib

    before = importlib.import_module("migrations.versions.0007_schedule").down_revision
    asyncio.run(migrate(url, "downgrade", before))  # this migration alone comes off and goes back on
    asyncio.run(migrate(url, "upgrade", "head"))
