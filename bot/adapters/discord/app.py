"""The Discord bot: builds the client, loads the Discord features, resumes matches, shuts down cleanly."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.adapters.discord._parts import Parts
from bot.compose import App
from bot.jobs import JobQueue
from bot.records.analysis_worker import AnalysisWorker
from bot.settings import Settings
from bot.store.matches import StoredMatch

log = logging.getLogger(__name__)

EXTENSIONS = (
    "bot.adapters.discord.errors",
    "bot.adapters.discord.announce",
    "bot.adapters.discord.room",
    "bot.adapters.discord.commands",
    "bot.adapters.discord.series",
    "bot.adapters.discord.overview",
    "bot.adapters.discord.tournament",
    "bot.adapters.discord.ratings",
    "bot.adapters.discord.schedule",
    "bot.adapters.discord.correspondence",
    "bot.adapters.discord.coaching",
)
"""Loaded in this order: the announcer subscribes to host events before any match is resumed."""


def make_intents(message_content: bool = True) -> discord.Intents:
    """Guilds, guild messages, members and message content (the last two are privileged); without
    `message_content` (`DMHOST_MESSAGE_CONTENT=off`) Discord shows the bot only the messages that mention it,
    and moves come by mention or `/move`."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.members = True
    intents.message_content = message_content
    return intents


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that receives a guild's events (Discord's formula; DMs go to shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def owns_guild(settings: Settings, guild_id: int | None) -> bool:
    """Whether this process hosts the matches of a guild (always, unless shard ids are configured)."""
    if not settings.shard_ids or not settings.shard_count:
        return True
    return shard_of(guild_id, settings.shard_count) in settings.shard_ids


discord_now = discord.utils.utcnow
"""Discord's time (aware UTC), which the times of messages are read against: the Discord host's wall clock (an
alias, not a wrapper: it is called on every posted move)."""


class DMHost(commands.Bot):
    """The bot: Discord client plus the application it adapts (`bot.compose.App`)."""

    def __init__(self, settings: Settings, app: App, *, sync_commands: bool, **kwargs: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=make_intents(settings.message_content),
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            **kwargs,
        )
        self.settings = settings
        self.parts = Parts()
        """The Discord features loaded, typed (each puts itself here when it is built)."""
        self.app = app
        """Every service and store, built once by the composition root (`bot.compose.build_app`); the
        features receive theirs from it."""
        self.host = app.host
        self.service = app.service
        self.service.room_privacy = self.room_is_private  # stored with each match: lists leave private rooms out
        self.ratings = app.ratings
        self.guild_settings = app.guilds
        self.sync_commands = sync_commands
        self.resumed: list[int] = []
        self.analysis: AnalysisWorker | None = None
        """Analyses finished matches in the background (started in `setup_hook`)."""
        self.jobs: JobQueue = app.jobs
        """The one durable jobs runner of this process (`bot.jobs`): each feature registers its kinds once ready."""

    def room_is_private(self, channel_id: int | None) -> bool | None:
        """Whether a match's room is a private thread (None when the room is not known here)."""
        room = self.get_channel(channel_id) if channel_id is not None else None
        if room is None:
            return None
        return isinstance(room, discord.Thread) and room.is_private()

    def owns(self, stored: StoredMatch) -> bool:
        """Whether this process resumes a stored match (shard ownership)."""
        return owns_guild(self.settings, stored.guild_id)

    async def load_features(self) -> None:
        """Load every Discord feature (idempotent)."""
        for name in EXTENSIONS:
            if name not in self.extensions:
                await self.load_extension(name)

    async def setup_hook(self) -> None:
        """Features first (so resumes are announced), then migrations + resumes, then command sync."""
        from games.solver import ensure_compiled, set_memory_limit  # compiled in the background: no player waits

        set_memory_limit(self.settings.solver_memory)  # DMHOST_SOLVER_MEMORY: the practice opponent's tables
        self.solver_loading = asyncio.create_task(asyncio.to_thread(ensure_compiled))
        await self.load_features()
        self.service.caught_up.clear()  # overdue correspondence deadlines wait for the room catch-up
        self.resumed = await self.service.start(select=self.owns)
        self.jobs.start()  # the database is migrated: features register their kinds when they are ready
        if self.settings.analysis:
            self.analysis = self.host.start_analysis(owns=lambda g: owns_guild(self.settings, g))
        await self.guild_settings.load()
        log.info("resumed %d match(es): %s", len(self.resumed), self.resumed)
        if self.sync_commands:
            synced = await self.tree.sync()
            log.info("synced %d application command(s)", len(synced))

    async def close(self) -> None:
        """Stop the match timers, close the database, then disconnect."""
        try:
            for cog in list(self.cogs.values()):
                before_close = getattr(cog, "before_close", None)
                if before_close is not None:  # features with timers of their own stop them first
                    await before_close()
            await self.jobs.close()
            if self.analysis is not None:
                await self.analysis.close()
            await self.host.close()
        finally:
            await super().close()


class ShardedDMHost(DMHost, commands.AutoShardedBot):
    """The bot when this process runs several (or chosen) shards."""


def create_bot(settings: Settings, app: App, *, sync_commands: bool = True) -> DMHost:
    """The bot on the application the composition root built for this process (`bot.compose.build_app`, called
    by the entry point: `bot.ops.apps.discord_app`); nothing connects until it is started. Tests sync no
    commands."""
    if settings.shard_count:
        return ShardedDMHost(
            settings,
            app,
            sync_commands=sync_commands,
            shard_ids=settings.shard_ids,
            shard_count=settings.shard_count,
        )
    return DMHost(settings, app, sync_commands=sync_commands)
