"""The `/dm` slash command group."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.commands._cog import MatchCommands

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["MatchCommands", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the `/dm` commands."""
    await bot.add_cog(MatchCommands(bot))
