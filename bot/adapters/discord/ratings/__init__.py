"""`/dm ratings leaderboard` and `/dm ratings profile`, and the Discord bot's ratings subscriber (`bot.ratings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.ratings._cog import RatingCommands

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["RatingCommands", "setup"]


async def setup(bot: DMHost) -> None:
    """Rate finished matches; add the rating commands to `/dm`."""
    await bot.add_cog(RatingCommands(bot))
