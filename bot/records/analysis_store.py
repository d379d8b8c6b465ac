"""Stored analyses: one row per analysed match, its entries as JSON (`bot.records.analysis`).

`load_analysis(store_or_engine, match_id)` is what readers use (the match page, `/dm log`,
`dmhost log --analyse`); `analysed(store, match_id)` loads or computes and stores on demand.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from sqlalchemy import ForeignKey, String, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import JSON

from bot.store.db import PK, Base, Match, UTCDateTime, utcnow
from bot.store.matches import MatchStore
from bot.types import MatchStatus

ANALYSIS_VERSION = "3"
"""Bumped when the engines or the verdict thresholds change (older rows stay readable). 2: Trax's missed
win in 2, the game still open, is a mistake (it was a blunder). 3: Dots and Dot Dash judged by the win chance lost,
with a deeper engine (`games.analysis`)."""
CATCH_UP_DAYS = 7
"""At start, finished matches of the last this many days without an analysis are analysed; older ones
on demand (`dmhost log --analyse`)."""


class MatchAnalysis(Base):
    """The analysis of one finished match: every judged move, in order of play."""

    __tablename__ = "match_analyses"

    match_id: Mapped[int] = mapped_column(
        PK, ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    version: Mapped[str] = mapped_column(String(16))
    entries: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    computed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)


def _engine(store_or_engine: MatchStore | AsyncEngine) -> AsyncEngine:
    return store_or_engine if isinstance(store_or_engine, AsyncEngine) else store_or_engine.engine


async def load_analysis(store_or_engine: MatchStore | AsyncEngine, match_id: int) -> list[dict[str, Any]] | None:
    """The stored entries of a match's analysis, or None when it has none yet."""
    async with _engine(store_or_engine).connect() as conn:
        row = (await conn.execute(select(MatchAnalysis.entries).where(MatchAnalysis.match_id == match_id))).first()
    return None if row is None else list(row[0])


async def save_analysis(
    store_or_engine: MatchStore | AsyncEngine, match_id: int, entries: list[dict[str, Any]]
) -> None:
    """Store (or replace) a match's analysis."""
    async with _engine(store_or_engine).begin() as conn:
        await conn.execute(delete(MatchAnalysis).where(MatchAnalysis.match_id == match_id))
        await conn.execute(
            insert(MatchAnalysis).values(
                match_id=match_id, version=ANALYSIS_VERSION, entries=entries, computed_at=utcnow()
            )
        )


async def missing_analyses(
    store_or_engine: MatchStore | AsyncEngine, since: dt.datetime, limit: int = 500
) -> list[int]:
    """Finished matches of an analysed game, ended since `since`, that have no analysis: newest first."""
    from bot.records.analysis import ANALYSED_GAMES

    query = (
        select(Match.id)
        .outerjoin(MatchAnalysis, MatchAnalysis.match_id == Match.id)
        .where(
            Match.status == MatchStatus.FINISHED,
            Match.game.in_(ANALYSED_GAMES),
            Match.finished_at >= since,
            MatchAnalysis.match_id.is_(None),
        )
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(limit)
    )
    async with _engine(store_or_engine).connect() as conn:
        return [int(r[0]) for r in (await conn.execute(query)).all()]


async def analysed(store: MatchStore, match_id: int) -> list[dict[str, Any]] | None:
    """The match's analysis: stored, or computed now (in a worker thread) and stored when the match has
    finished. None when there is no such match."""
    entries = await load_analysis(store, match_id)
    if entries is not None:
        return entries
    stored = await store.load(match_id, with_events=True)
    if stored is None:
        return None
    from bot.records.analysis import analyse_match

    entries = await asyncio.to_thread(analyse_match, stored)
    if stored.status == MatchStatus.FINISHED:
        await save_analysis(store, match_id, entries)
    return entries
