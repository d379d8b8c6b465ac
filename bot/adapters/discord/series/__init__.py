"""Best-of-N series, time odds on the board, and the rematch button (issue 28, "Hosts")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.series._cog import SeriesCog
from bot.adapters.discord.series._views import RematchButton

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["RematchButton", "SeriesCog", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the series feature, put its lines on the boards, register the rematch button."""
    cog = SeriesCog(bot, bot.app.series, bot.app.rematches)
    await bot.add_cog(cog)
    cog.attach_notes()
    bot.add_dynamic_items(RematchButton)
