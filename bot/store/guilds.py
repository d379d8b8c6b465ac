"""Per-guild settings (host role, game-room channel, default room mode, default clocks per game) and the
guild's name as Discord last told it (the server review page is named after it).

Stored in the `guild_settings` table (migration 0002) through the host's engine, and kept in memory:
a guild's interactions all reach the one process that owns its shard, so the copy read at start-up
and updated on every write is always current for the guilds this process serves.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, cast

from sqlalchemy import JSON, BigInteger, String, Table, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from bot.playernames import clean_name
from bot.store.db import Base, UTCDateTime, utcnow
from bot.types import TimeControl
from games import registry
from games.base import OptionsError

ROOM_MODES: Final = ("public", "private", "channel")
"""Where `/dm start` opens a match's room: a public thread, a private thread, or the channel itself."""

MAX_GUILD_NAME: Final = 100
"""The longest guild name kept (Discord's own limit); a longer one is cut."""


class GuildSettingsRow(Base):
    """One guild's settings; a column left empty means the host's built-in default."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    host_role_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    room_channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    room_mode: Mapped[str | None] = mapped_column(String(16), nullable=True)
    clocks: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    results_channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # migration 0003_face
    name: Mapped[str | None] = mapped_column(String(MAX_GUILD_NAME), nullable=True)  # migration 0017_guild_names
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


TABLE = cast(Table, GuildSettingsRow.__table__)


class SettingsError(ValueError):
    """A setting that cannot be stored: `code` and `data` say why (`bot.wording` words it for the host)."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code, data)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class GuildSettings:
    """A guild's settings (None / empty: the built-in default)."""

    guild_id: int
    host_role_id: int | None = None
    room_channel_id: int | None = None
    room_mode: str | None = None
    clocks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Per game id, clock overrides as `/dm start … clock:` takes them (`{"move": "90"}`)."""
    results_channel_id: int | None = None
    """Where finished matches' results are posted (None: each room's parent channel)."""
    name: str | None = None
    """The guild's name as the Discord face last stored it, cleaned (None: never told)."""

    def clock_for(self, game: str) -> dict[str, str]:
        """The guild's default clock overrides for a game (empty: the game's own default)."""
        return dict(self.clocks.get(game, {}))


def validate_clock(game: str, clock: Mapping[str, str]) -> dict[str, str]:
    """Clock overrides for a game, checked the way `/dm start` checks them; SettingsError when unusable."""
    try:
        ruleset = registry.get(game)
    except registry.UnknownGameError as exc:
        raise SettingsError("settings_game", detail=str(exc.args[0])) from None
    try:
        TimeControl.from_spec(ruleset.default_clock(ruleset.parse_options({})), clock)
    except (ValueError, OptionsError) as exc:
        raise SettingsError("settings_clock", title=ruleset.title, detail=str(exc)) from None
    return {str(k): str(v) for k, v in clock.items()}


_UNSET: Final[Any] = object()


class GuildSettingsStore:
    """Reads and writes guild settings on the host's engine; `cached` answers without the database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._cache: dict[int, GuildSettings] = {}

    @staticmethod
    def _from_row(row: RowMapping) -> GuildSettings:
        clocks = {str(g): {str(k): str(v) for k, v in c.items()} for g, c in (row["clocks"] or {}).items()}
        return GuildSettings(
            int(row["guild_id"]),
            row["host_role_id"],
            row["room_channel_id"],
            row["room_mode"],
            clocks,
            row.get("results_channel_id"),
            row.get("name"),
        )

    async def load(self) -> None:
        """Read every guild's settings into memory (after migrations, at start-up)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(TABLE))).mappings().all()
        self._cache = {int(r["guild_id"]): self._from_row(r) for r in rows}

    def rooms(self) -> dict[int, int]:
        """Guild id → the game-room channel set with `/dm config`, for the guilds that set one (as read)."""
        return {g: s.room_channel_id for g, s in self._cache.items() if s.room_channel_id is not None}

    def cached(self, guild_id: int | None) -> GuildSettings:
        """The settings as last read or written (defaults for a guild without any)."""
        if guild_id is None:
            return GuildSettings(0)
        return self._cache.get(guild_id) or GuildSettings(guild_id)

    async def get(self, guild_id: int) -> GuildSettings:
        """A guild's settings from the database (and refresh the in-memory copy)."""
        table = TABLE
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(table).where(table.c.guild_id == guild_id))).mappings().first()
        settings = self._from_row(row) if row is not None else GuildSettings(guild_id)
        self._cache[guild_id] = settings
        return settings

    async def update(
        self,
        guild_id: int,
        *,
        host_role_id: int | None = _UNSET,
        room_channel_id: int | None = _UNSET,
        room_mode: str | None = _UNSET,
        clock: tuple[str, Mapping[str, str] | None] | None = None,
        results_channel_id: int | None = _UNSET,
    ) -> GuildSettings:
        """Change some settings (None resets one to the default); `clock=(game, overrides)` sets a game's
        default clock (None or empty overrides: back to the game's own). Returns the new settings."""
        if room_mode is not _UNSET and room_mode is not None and room_mode not in ROOM_MODES:
            raise SettingsError("settings_room_mode", modes=", ".join(ROOM_MODES), value=room_mode)
        game_clock: tuple[str, dict[str, str]] | None = None
        if clock is not None:
            game, overrides = clock
            key = game.strip().lower()
            game_clock = (key, validate_clock(key, overrides) if overrides else {})
        current = await self.get(guild_id)
        changes: dict[str, Any] = {}
        if host_role_id is not _UNSET:
            changes["host_role_id"] = host_role_id
        if room_channel_id is not _UNSET:
            changes["room_channel_id"] = room_channel_id
        if room_mode is not _UNSET:
            changes["room_mode"] = room_mode
        if results_channel_id is not _UNSET:
            changes["results_channel_id"] = results_channel_id
        if game_clock is not None:
            clocks = {g: dict(c) for g, c in current.clocks.items()}
            if game_clock[1]:
                clocks[game_clock[0]] = game_clock[1]
            else:
                clocks.pop(game_clock[0], None)
            changes["clocks"] = clocks
        new = replace(current, **changes)
        values = {
            "host_role_id": new.host_role_id,
            "room_channel_id": new.room_channel_id,
            "room_mode": new.room_mode,
            "clocks": {g: dict(c) for g, c in new.clocks.items()},
            "results_channel_id": new.results_channel_id,
            "updated_at": utcnow(),
        }
        table = TABLE
        for attempt in range(2):
            try:
                async with self.engine.begin() as conn:
                    done = await conn.execute(update(table).where(table.c.guild_id == guild_id).values(**values))
                    if done.rowcount == 0:
                        await conn.execute(table.insert().values(guild_id=guild_id, **values))
                break
            except IntegrityError:
                if attempt:  # another writer inserted the row between our update and insert: update it
                    raise
        self._cache[guild_id] = new
        return new

    async def set_name(self, guild_id: int, name: str) -> str | None:
        """Keep a guild's name (the Discord face calls this when the bot is ready in a guild, joins one, or
        sees one renamed): cleaned by the rules of player names (`bot.playernames.clean_name`, at most
        `MAX_GUILD_NAME` characters), written alone (no other setting changes), the row created when the
        guild has none. Returns the name kept (None: nothing printable, the stored name is left as it was);
        an unchanged name writes nothing."""
        clean = clean_name(name, MAX_GUILD_NAME)
        if clean is None or self.cached(guild_id).name == clean:
            return clean
        table = TABLE
        values = {"name": clean, "updated_at": utcnow()}
        for attempt in range(2):
            try:
                async with self.engine.begin() as conn:
                    done = await conn.execute(update(table).where(table.c.guild_id == guild_id).values(**values))
                    if done.rowcount == 0:
                        await conn.execute(table.insert().values(guild_id=guild_id, clocks={}, **values))
                break
            except IntegrityError:
                if attempt:  # another writer inserted the row between our update and insert: update it
                    raise
        self._cache[guild_id] = replace(self.cached(guild_id), name=clean)
        return clean
