"""One error handler for every slash command and button."""

from __future__ import annotations

from discord.ext import commands

from bot.adapters.discord.errors._cog import ErrorHandler, report_error

__all__ = ["ErrorHandler", "report_error", "setup"]


async def setup(bot: commands.Bot) -> None:
    """Load the error handler."""
    await bot.add_cog(ErrorHandler(bot))
