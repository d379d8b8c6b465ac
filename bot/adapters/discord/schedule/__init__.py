"""Scheduled Death Matches on Discord: `/dm schedule`, `/dm reschedule`, `/dm cancel`, `/dm upcoming`,
`/dm results`, the event card, reminders, check-in buttons and the server's Events tab."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.schedule._cog import ScheduleCog
from bot.adapters.discord.schedule._views import ScheduleButton

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["ScheduleButton", "ScheduleCog", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the scheduling commands (under `/dm`) and register their persistent buttons."""
    cog = ScheduleCog(bot, bot.app.scheduler)
    await bot.add_cog(cog)
    cog.attach_commands()
    bot.add_dynamic_items(ScheduleButton)
