"""`/dm event vacation` and `/dm event notify`: a correspondence player's own settings in a server.

The `/dm` group holds its 18 entries already (README, "The command tree"), so these two join `/dm event`,
the group about when games are played."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._shared import require_host, respond
from bot.host.service import HostError
from bot.host.vacation import VacationRefused, take_vacation
from bot.store.correspondence import MAX_VACATION_DAYS, CorrespondenceStore
from bot.wording import correspondence as words

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost


class CorrespondenceCog(commands.Cog):
    """Vacation and reminders for correspondence players."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.store = CorrespondenceStore(bot.service.store.engine)

    def attach_commands(self) -> None:
        """Put this cog's commands into `/dm event` (made here when the scheduling feature did not)."""
        group = self.bot.tree.get_command("dm")
        if not isinstance(group, app_commands.Group):
            return
        event = group.get_command("event")
        if not isinstance(event, app_commands.Group):
            event = app_commands.Group(name="event", description="Scheduled Death Matches", parent=group)
        for command in self.__cog_app_commands__:
            self.bot.tree.remove_command(command.name)
            event.add_command(command)

    async def cog_unload(self) -> None:
        """Take the commands off `/dm event`."""
        group = self.bot.tree.get_command("dm")
        event = group.get_command("event") if isinstance(group, app_commands.Group) else None
        if isinstance(event, app_commands.Group):
            for command in self.__cog_app_commands__:
                event.remove_command(command.name)

    def _links(self, match_ids: list[int]) -> list[str]:
        out = []
        for match_id in match_ids:
            live = self.bot.service.live.get(match_id)
            room = f" (<#{live.channel_id}>)" if live is not None and live.channel_id is not None else ""
            out.append(f"#{match_id}{room}")
        return out

    @app_commands.command(name="vacation", description="Stop your correspondence clocks for some days (0: back now)")
    @app_commands.describe(days="how many days (within this year's allowance); 0 ends your vacation now")
    @app_commands.guild_only()
    async def vacation(
        self, interaction: discord.Interaction[Any], days: app_commands.Range[int, 0, MAX_VACATION_DAYS]
    ) -> None:
        """Start a vacation of `days` days in this server's correspondence matches, or end it (0)."""
        if interaction.guild_id is None:
            raise HostError(words.refused("vacation_in_server", {}))
        try:
            done = await take_vacation(
                self.bot.service, self.store, interaction.guild_id, str(interaction.user.id), days
            )
        except VacationRefused as exc:
            raise HostError(words.refused(exc.code, exc.data)) from None
        if done.until is None:
            text = words.vacation_ended(self._links(done.matches), done.refunded, done.used, done.allowance)
        else:
            text = words.vacation_started(
                int(done.until.timestamp()), self._links(done.matches), done.used, done.allowance
            )
        await respond(interaction, text)

    async def config(self, interaction: discord.Interaction[Any], vacation_days: int) -> None:
        """`/dm config vacation_days:` (hosts): the yearly allowance of this server."""
        require_host(interaction)
        if interaction.guild_id is None:
            raise HostError(words.refused("vacation_in_server", {}))
        days = await self.store.set_allowance(interaction.guild_id, vacation_days)
        await respond(interaction, words.allowance_saved(days))

    async def allowance(self, guild_id: int) -> int:
        """The server's yearly vacation allowance (for `/dm config`)."""
        return await self.store.allowance(guild_id)
