"""The series table: a best-of-N between two players, its games and their results.

It hangs on the host's declarative `Base` (so `Base.metadata` has it once `bot.series` is imported);
migration `0009_series` creates it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import PK, Base, UTCDateTime, utcnow


class SeriesRow(Base):
    """One best-of-N series: what is played, by whom, every game's match id and result."""

    __tablename__ = "series"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    game: Mapped[str] = mapped_column(String(32))
    best_of: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    host_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    player1_id: Mapped[str] = mapped_column(String(64), index=True)
    player1_name: Mapped[str] = mapped_column(String(100))
    player2_id: Mapped[str] = mapped_column(String(64), index=True)
    player2_name: Mapped[str] = mapped_column(String(100))
    first: Mapped[int] = mapped_column(Integer, default=1)
    matches: Mapped[list[int]] = mapped_column(JSON, default=list)
    results: Mapped[list[int]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(16), default="running")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
