"""The game-room listener: players' messages become move attempts; deletes and edits take moves back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.room._cog import GameRoom

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["GameRoom", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the game-room listener."""
    await bot.add_cog(GameRoom(bot))
