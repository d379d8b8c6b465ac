"""The game-room listener: players' messages become move attempts (or mentions of the bot and `/move`, without
the message-content intent); deletes and edits take provisional moves back;
resignations and play-ending moves are confirmed first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.room._cog import GameRoom
from bot.adapters.discord.room._confirm import LAPSE_SECONDS, ConfirmButton, ConfirmPrompts, ask_in_room, ask_privately
from bot.adapters.discord.room._move import MoveCommand
from bot.adapters.discord.room._move import load as load_move

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["LAPSE_SECONDS", "ConfirmPrompts", "GameRoom", "MoveCommand", "ask_in_room", "ask_privately", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the game-room listener and the confirmation prompts (their buttons are recognised after a restart);
    without the message-content intent, `/move` too."""
    await bot.add_cog(GameRoom(bot))
    await load_move(bot)
    await bot.add_cog(ConfirmPrompts(bot, bot.app.confirmations))
    bot.add_dynamic_items(ConfirmButton)
