"""The store's tests share one fixture: a `MatchStore` opened on an empty database (`db_url`, SQLite and
PostgreSQL), so that its opening migrates it as a first start does."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.store.matches import MatchStore


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[MatchStore]:
    s = MatchStore(db_url)
    await s.open()
    yield s
    await s.close()
