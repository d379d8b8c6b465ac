"""Tournament tables (migrations 0006_tournaments, 0008_tourney_checkin, 0016_missed_games), on our declarative base."""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import PK, Base, UTCDateTime, utcnow


class TournamentRow(Base):
    """One tournament: what is played, how it is paired, where it stands (`round` is the last round paired)."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(32))
    format: Mapped[str] = mapped_column(String(24))
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    prize: Mapped[str | None] = mapped_column(String(200), nullable=True)
    bye_points: Mapped[float] = mapped_column(Float, default=1.0)
    max_players: Mapped[int | None] = mapped_column(Integer, nullable=True)
    signup_closes_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    starts_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    round: Mapped[int] = mapped_column(Integer, default=0)
    seeds: Mapped[list[int]] = mapped_column(JSON, default=list)
    checkin_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    no_show_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    round_every_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seeding: Mapped[str | None] = mapped_column(String(16), nullable=True)
    missed: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """What a missed game (a no-show) does: None, play on; `withdraw`, lichess's rule (migration 0016_missed_games)."""
    created_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class TournamentEntryRow(Base):
    """A player's entry; its id is the player's number in pairings; `withdrawn_at` once they left."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    player_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(100))
    joined_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    withdrawn_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    checked_in_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    missed_round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Under `missed:withdraw`: the round whose game the player missed, until they confirm they play on."""


class TournamentGameRow(Base):
    """One pairing of a round (`black` None: a bye); `match_id` once its match is open; `result` once over."""

    __tablename__ = "tournament_games"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "board"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    white: Mapped[int] = mapped_column(Integer)
    black: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bye_points: Mapped[float | None] = mapped_column(Float, nullable=True)
    match_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    forfeit: Mapped[bool] = mapped_column(Boolean, default=False)
    decided_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    room_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    starts_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    here_white: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    here_black: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    opening_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    opening_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    opening_after: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


TOURNAMENTS = cast(Table, TournamentRow.__table__)
ENTRIES = cast(Table, TournamentEntryRow.__table__)
GAMES = cast(Table, TournamentGameRow.__table__)
