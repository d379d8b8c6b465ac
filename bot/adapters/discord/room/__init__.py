"""The game-room listener: players' messages become move attempts; deletes and edits take provisional moves back;
resignations and play-ending moves are confirmed first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.room._cog import GameRoom
from bot.adapters.discord.room._confirm import LAPSE_SECONDS, ConfirmButton, ConfirmPrompts, ask_in_room, ask_privately

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["LAPSE_SECONDS", "ConfirmPrompts", "GameRoom", "ask_in_room", "ask_privately", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the game-room listener and the confirmation prompts (their buttons are recognised after a restart)."""
    await bot.add_cog(GameRoom(bot))
    await bot.add_cog(ConfirmPrompts(bot, bot.app.confirmations))
    bot.add_dynamic_items(ConfirmButton)
