"""The scheduler's tables: scheduled Death Matches and per-guild settings (their due actions are rows of
`bot.jobs`).

They hang on the host's declarative `Base`, so `Base.metadata` has them as soon as this module is
imported (`bot.schedule` imports it); migration `0007_schedule` creates them.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import PK, Base, UTCDateTime, utcnow


class ScheduleRow(Base):
    """One scheduled Death Match: what, who, when, the stake, and where it stands."""

    __tablename__ = "schedules"
    __table_args__ = (Index("ix_schedules_guild_status_at", "guild_id", "status", "at"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    room_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    first: Mapped[int | None] = mapped_column(Integer, nullable=True)
    advantage: Mapped[str | None] = mapped_column(String(32), nullable=True)
    room_mode: Mapped[str | None] = mapped_column(String(16), nullable=True)
    player1_id: Mapped[str] = mapped_column(String(64), index=True)
    player1_name: Mapped[str] = mapped_column(String(100))
    player2_id: Mapped[str] = mapped_column(String(64), index=True)
    player2_name: Mapped[str] = mapped_column(String(100))
    host_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    prize: Mapped[str | None] = mapped_column(Text, nullable=True)
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    reminders: Mapped[list[int]] = mapped_column(JSON, default=list)
    checkin_s: Mapped[int] = mapped_column(Integer)
    no_show_s: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    here1: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    here2: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    wait_until: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    proposed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    proposed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    match_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    start_token: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """Written with the claim that starts the DM (or rules on a no-show); the match is recorded only under
    the same token, in the transaction that stores it (migration `0010_schedule_start`)."""
    winner_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    result_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    event_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    card_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class ScheduleSettingsRow(Base):
    """A guild's scheduling settings; an empty column means the built-in default."""

    __tablename__ = "schedule_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reminders: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    checkin_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    no_show_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
