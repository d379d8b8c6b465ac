"""Migration 0005_ratings: the tables come and go; old matches are rated unless they were practice."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import text

from bot.store.db import make_engine, migrate
from bot.store.matches import MatchStore
from tests.bot.store.schema import differences, table_of

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


async def _tables(url: str) -> set[str]:
    from sqlalchemy import inspect

    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


@pytest.mark.parametrize("practice_id", ["local:dmhost-bot"])
async def test_upgrade_keeps_old_matches_rated_except_terminal_practice(db_url: str, practice_id: str) -> None:
    await migrate(db_url, "upgrade", "0002")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            for mid, second in ((1, "local:bob"), (2, practice_id)):
                await conn.execute(
                    text(
                        "INSERT INTO matches (id, game, options, clock, status, created_at, updated_at, event_count, "
                        "snapshot) VALUES (:id, 'boxes', '{}', '{}', 'finished', :t, :t, 0, '{}')"
                    ),
                    {"id": mid, "t": "2026-01-01 00:00:00" if db_url.startswith("sqlite") else T0},
                )
                await conn.execute(
                    text(
                        "INSERT INTO match_players (match_id, seat, player_id, name) VALUES "
                        "(:id, 1, 'local:alice', 'alice'), (:id, 2, :p, 'other')"
                    ),
                    {"id": mid, "p": second},
                )
    finally:
        await engine.dispose()
    await migrate(db_url)
    assert {"player_ratings", "rating_changes"} <= await _tables(db_url)
    store = MatchStore(db_url)
    try:
        old, practice = await store.load(1), await store.load(2)
        assert old is not None and practice is not None
        assert old.rated is True and practice.rated is False
    finally:
        await store.close()
    await migrate(db_url, "downgrade", "0002")
    assert not {"player_ratings", "rating_changes"} & await _tables(db_url)
    await migrate(db_url)


async def test_the_migration_creates_exactly_the_rating_models(db_url: str) -> None:
    import bot.ratings.models  # noqa: F401  (the rating tables join Base.metadata)

    ours = {"player_ratings", "rating_changes"}
    store = MatchStore(db_url)
    await store.open()
    try:
        rated = differences(store.engine, ours, also=lambda d: table_of(d) == "matches" and "'rated'" in repr(d))
        assert await rated == []  # and the `rated` column of matches
    finally:
        await store.close()
