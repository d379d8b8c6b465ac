"""The stored series of some players, read from the `series` table for those outside this package (the review
pages, through `SeriesService.series_of`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, or_, select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.series.models import SeriesRow

_SERIES = cast(Table, SeriesRow.__table__)


async def rows_of(engine: AsyncEngine, player_ids: Sequence[str]) -> Sequence[RowMapping]:
    """Every series row in which one of `player_ids` plays."""
    played_by = or_(_SERIES.c.player1_id.in_(player_ids), _SERIES.c.player2_id.in_(player_ids))
    async with engine.connect() as conn:
        return (await conn.execute(select(_SERIES).where(played_by))).mappings().all()
