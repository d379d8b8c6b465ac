"""Correspondence players' commands on Discord (issue 41): `/dm event vacation`, `/dm event notify`, the
reminders sent as direct messages and the daily digest, and `/dm config vacation_days:`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.correspondence._cog import CorrespondenceCog

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["CorrespondenceCog", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the correspondence commands (into the `/dm event` group: `/dm` itself is full)."""
    cog = CorrespondenceCog(bot, bot.app.correspondence, bot.app.reminders)
    await bot.add_cog(cog)
    cog.attach_commands()
