"""The rating tables: each player's current figures per server and game, and every rated match's changes.

`guild_key` is the Discord server's id, or 0 for matches hosted under no server (the terminal room).
Both tables are derived from the match logs and can be rebuilt from them (`dmhost ratings rebuild`).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.ratings.replay import NO_GUILD
from bot.store.db import Base, UTCDateTime

__all__ = ["NO_GUILD", "PlayerRating", "RatingChange"]


class PlayerRating(Base):
    """One player's current figures in one server and game (as of their last rated match)."""

    __tablename__ = "player_ratings"
    __table_args__ = (Index("ix_player_ratings_board", "guild_key", "game", "rating"),)

    guild_key: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    streak: Mapped[int] = mapped_column(Integer)
    """Consecutive wins (positive) or losses (negative) up to the last match; 0 after a draw."""
    last_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    last_match: Mapped[int] = mapped_column(BigInteger)


class RatingChange(Base):
    """What one rated match did to one of its players' figures."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_player", "guild_key", "game", "player_id", "match_id"),)

    match_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"),
        ForeignKey("matches.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    guild_key: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(String(64))
    opponent_id: Mapped[str] = mapped_column(String(64))
    score: Mapped[float] = mapped_column(Float)
    """1 won, 0.5 draw, 0 lost."""
    rating_before: Mapped[float] = mapped_column(Float)
    deviation_before: Mapped[float] = mapped_column(Float)
    """The deviation the match was rated with (grown with the time since the player's previous match)."""
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    volatility_after: Mapped[float] = mapped_column(Float)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
