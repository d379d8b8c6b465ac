"""`/puzzle`: puzzles from this server's games, a member's coaching profile, fair play and the daily puzzle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.coaching._cog import CoachingCog

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["CoachingCog", "setup"]


async def setup(bot: DMHost) -> None:
    """Add `/puzzle`."""
    await bot.add_cog(CoachingCog(bot))
