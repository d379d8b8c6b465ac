"""Correspondence players' own settings: the vacation allowance a server grants, the days each player took
this year, and how each wants to hear that a game waits for them (`/dm event vacation`, `/dm event notify`).

Two tables (migration 0012_correspondence): `correspondence_settings` (per guild: the yearly allowance) and
`correspondence_players` (per guild and player: the notify choice, the vacation days taken in a year, and
when the current vacation ends). The clocks themselves stop in the matches (`MatchService.set_away`); what
is kept here is what outlives one match: the allowance used, and the player's choice.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final, cast

from sqlalchemy import BigInteger, Integer, String, Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.db import Base, UTCDateTime, utcnow

VACATION_DAYS: Final = 14
"""The yearly vacation allowance of a server that set none."""
MAX_VACATION_DAYS: Final = 365
NOTIFY: Final = ("room", "dm", "digest")
"""How a player hears that a game waits: the mention in the room only (the default), a direct message per
reminder as well, or one direct message a day listing every game that waits (the digest)."""


class CorrespondenceSettingsRow(Base):
    """A guild's correspondence settings; an empty column means the built-in default."""

    __tablename__ = "correspondence_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    vacation_days: Mapped[int | None] = mapped_column(Integer, nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class CorrespondencePlayerRow(Base):
    """One player's correspondence choices and vacation in one guild."""

    __tablename__ = "correspondence_players"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    notify: Mapped[str | None] = mapped_column(String(16), nullable=True)
    vacation_year: Mapped[int | None] = mapped_column(Integer, nullable=True)
    vacation_used: Mapped[int] = mapped_column(Integer, default=0)
    """Whole days of vacation taken in `vacation_year`."""
    away_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    digest_sent: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


SETTINGS = cast(Table, CorrespondenceSettingsRow.__table__)
PLAYERS = cast(Table, CorrespondencePlayerRow.__table__)


@dataclass(frozen=True)
class CorrespondencePlayer:
    """A player's row as read (defaults for a player without one)."""

    guild_id: int
    player_id: str
    notify: str = "room"
    vacation_year: int | None = None
    vacation_used: int = 0
    away_until: dt.datetime | None = None
    digest_sent: dt.datetime | None = None

    def used_in(self, year: int) -> int:
        """Vacation days taken in `year`."""
        return self.vacation_used if self.vacation_year == year else 0

    def away(self, now: dt.datetime) -> bool:
        """On vacation at `now`."""
        return self.away_until is not None and self.away_until > now


class CorrespondenceStore:
    """Reads and writes correspondence settings and players on the host's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def allowance(self, guild_id: int) -> int:
        """The server's yearly vacation allowance in days."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(SETTINGS).where(SETTINGS.c.guild_id == guild_id))).mappings().first()
        return VACATION_DAYS if row is None or row["vacation_days"] is None else int(row["vacation_days"])

    async def set_allowance(self, guild_id: int, days: int | None) -> int:
        """Set the yearly allowance (None: back to the default); returns the allowance now."""
        values = {"vacation_days": days, "updated_at": utcnow()}
        async with self.engine.begin() as conn:
            done = await conn.execute(update(SETTINGS).where(SETTINGS.c.guild_id == guild_id).values(**values))
            if int(done.rowcount or 0) == 0:
                await conn.execute(insert(SETTINGS).values(guild_id=guild_id, **values))
        return await self.allowance(guild_id)

    async def player(self, guild_id: int, player_id: str) -> CorrespondencePlayer:
        """A player's row (defaults when there is none)."""
        table = PLAYERS
        async with self.engine.connect() as conn:
            row = (
                (await conn.execute(select(table).where(table.c.guild_id == guild_id, table.c.player_id == player_id)))
                .mappings()
                .first()
            )
        return CorrespondencePlayer(guild_id, player_id) if row is None else _player(row)

    async def players(self, notify: str) -> list[CorrespondencePlayer]:
        """Every player (in any guild) who chose this way of hearing."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(PLAYERS).where(PLAYERS.c.notify == notify))).mappings().all()
        return [_player(r) for r in rows]

    async def save(self, guild_id: int, player_id: str, **values: Any) -> CorrespondencePlayer:
        """Change some of a player's columns (the row is made when there is none)."""
        table = PLAYERS
        values["updated_at"] = utcnow()
        where = (table.c.guild_id == guild_id, table.c.player_id == player_id)
        async with self.engine.begin() as conn:
            done = await conn.execute(update(table).where(*where).values(**values))
            if int(done.rowcount or 0) == 0:
                await conn.execute(insert(table).values(guild_id=guild_id, player_id=player_id, **values))
        return await self.player(guild_id, player_id)


def _player(row: Any) -> CorrespondencePlayer:
    return CorrespondencePlayer(
        int(row["guild_id"]),
        str(row["player_id"]),
        row["notify"] or "room",
        row["vacation_year"],
        int(row["vacation_used"] or 0),
        row["away_until"],
        row["digest_sent"],
    )
