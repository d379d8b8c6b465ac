"""The game-room listener: players' messages become move attempts; deletes and edits take provisional moves back;
resignations and play-ending moves are confirmed first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.room._cog import GameRoom
from bot.adapters.discord.room._confirm import LAPSE_SECONDS, ask_in_room, ask_privately

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["LAPSE_SECONDS", "GameRoom", "ask_in_room", "ask_privately", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the game-room listener."""
    await bot.add_cog(GameRoom(bot))
