"""The coaching tables: certified puzzles, which matches were searched for them, puzzle ratings and attempts,
and each server's daily-puzzle channel.

`guild_key` is the Discord server's id, or 0 under no server (the terminal), as in the rating tables.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import JSON

from bot.store.db import PK, Base, UTCDateTime, utcnow

NO_GUILD = 0
"""The `guild_key` of puzzles and ratings under no Discord server."""


class PuzzleRow(Base):
    """One certified puzzle: a position of a finished match where the mover erred and one move was right."""

    __tablename__ = "puzzles"
    __table_args__ = (Index("ix_puzzles_pick", "guild_key", "game", "rating"),)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(PK, ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    """Moves played before the position (the erring move was move `ply + 1`)."""
    guild_key: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    moves: Mapped[list[str]] = mapped_column(JSON)
    seats: Mapped[list[int]] = mapped_column(JSON)
    """The seat of each move in `moves` (Dots may let a seat move out of turn)."""
    position: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The position (`Ruleset.to_json`)."""
    seat: Mapped[int] = mapped_column(Integer)
    """The seat to move."""
    mover_id: Mapped[str] = mapped_column(String(64))
    """The player who erred there."""
    answer: Mapped[list[str]] = mapped_column(JSON)
    value: Mapped[float] = mapped_column(Float)
    proof: Mapped[dict[str, Any]] = mapped_column(JSON)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    plays: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleScan(Base):
    """A finished match whose analysis was searched for puzzles (with how many were found)."""

    __tablename__ = "puzzle_scans"

    match_id: Mapped[int] = mapped_column(
        PK, ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    found: Mapped[int] = mapped_column(Integer)
    scanned_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleRating(Base):
    """A player's puzzle rating in one server and game (Glicko-2)."""

    __tablename__ = "puzzle_ratings"

    guild_key: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)


class PuzzleAttempt(Base):
    """One answer to a puzzle (a player is served each puzzle once)."""

    __tablename__ = "puzzle_attempts"

    puzzle_id: Mapped[int] = mapped_column(
        PK, ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    guild_key: Mapped[int] = mapped_column(BigInteger)
    move: Mapped[str] = mapped_column(String(100))
    solved: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class DailyPuzzle(Base):
    """Where a server's daily puzzle is posted, and the last day it was."""

    __tablename__ = "puzzle_daily"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    last_day: Mapped[str | None] = mapped_column(String(10), nullable=True)
    last_puzzle: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
