"""`/dm …`: start and run matches, read rules, boards, clocks, logs and histories.

The cog is put together from one class per kind of command: `_start` (`/dm start`, on the room opening of
`_rooms`), `_config`, `_read` (help, rules, board, status), `_play` (resign, mulligan, ready), `_host` (the
`/dm host` group), `_records` (log, history) and `_practice`; what they share is in `_base`. discord.py
collects the commands from the base classes last to first, so the bases are listed in the reverse of the
order `/dm` (and `/dm help`) lists their commands in."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord.commands._config import ConfigCommand
from bot.adapters.discord.commands._host import HostCommands
from bot.adapters.discord.commands._play import PlayCommands
from bot.adapters.discord.commands._practice import PracticeCommand
from bot.adapters.discord.commands._read import ReadCommands
from bot.adapters.discord.commands._records import RecordCommands
from bot.adapters.discord.commands._start import StartCommand

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)


class MatchCommands(
    PracticeCommand,
    RecordCommands,
    PlayCommands,
    ReadCommands,
    ConfigCommand,
    StartCommand,
    HostCommands,
    commands.GroupCog,
    group_name="dm",
    group_description="Death Match host: matches and games",
):
    """Every `/dm` subcommand. Each hands a request to the host service and answers briefly."""

    def __init__(self, bot: DMHost) -> None:
        parts(bot).commands = self
        self.bot = bot
        self._practice = None
        super().__init__()

    async def cog_unload(self) -> None:
        """The practice opponent stops thinking."""
        if parts(self.bot).commands is self:
            parts(self.bot).commands = None
        if self._practice is not None:
            await self._practice.close()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Resumed practice matches get their opponent back; every server's name is kept for its review page."""
        await self.resume_practice()
        for guild in list(self.bot.guilds):
            await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """A new server: its name is kept for its review page."""
        await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """A server back after an outage (or one Discord announces as available rather than joined): its
        name may have changed meanwhile."""
        await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        """A server renamed: its review page follows."""
        if before.name != after.name:
            await self.keep_guild_name(after)

    async def keep_guild_name(self, guild: discord.Guild) -> None:
        """Store a server's name (cleaned by the store; an unchanged one writes nothing); a database that
        cannot be written is logged, never raised into Discord's events."""
        try:
            await self.bot.guild_settings.set_name(guild.id, guild.name)
        except Exception:
            log.exception("guild %s: its name could not be stored", guild.id)
