"""`/dm …`: start and run matches, read rules, boards, clocks, logs and histories.

The cog is put together from one class per kind of command: `_start` (`/dm start`, on the room opening of
`_rooms`), `_config`, `_read` (help, rules, board, status), `_play` (resign, mulligan, ready), `_host` (the
`/dm host` group), `_records` (log, history) and `_practice`; what they share is in `_base`. discord.py
collects the commands from the base classes last to first, so the bases are listed in the reverse of the
order `/dm` (and `/dm help`) lists their commands in."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
        """Resumed practice matches get their opponent back."""
        await self.resume_practice()
