"""Announcements in game rooms, the board message, and the per-match buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.announce._cog import Announcer
from bot.adapters.discord.announce._views import MatchButton, buttons, custom_id

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["Announcer", "MatchButton", "buttons", "custom_id", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the announcer and register the persistent buttons."""
    await bot.add_cog(Announcer(bot))
    bot.add_dynamic_items(MatchButton)
