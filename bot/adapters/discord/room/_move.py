"""`/move text:` — a move without the message-content intent (`DMHOST_MESSAGE_CONTENT=off`).

Without the privileged intent Discord shows the bot only the messages that mention it (the room reads those,
the mention left out: `GameRoom.handle`). `/move` is the other way in: its own top-level command (so `/dm`
keeps its room), loaded only in that mode. It makes the room's one call, `MatchService.post`, with the same
parsing, refusals and Confirm / Cancel as a posted message: a played move is shown in the room as the player's
own message would be; a refusal or a text that is not a move is told to the player alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import wording
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import board_linked, respond
from bot.adapters.discord.render import markdown
from bot.adapters.discord.room._confirm import ask_privately
from bot.host.service import Outcome
from bot.wording import reason_text

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

MAX_TEXT = 200
"""A move is short; a longer text is refused by Discord before it reaches the bot."""


class MoveCommand(commands.Cog, name="Move"):
    """`/move text:` and the line on every board that says how to move in this mode."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot

    def attach_notes(self) -> None:
        """Every board says how to move (a mention or `/move`): plain messages are not read in this mode."""
        announcer = parts(self.bot).announcer
        if announcer is not None and self.board_note not in announcer.board_notes:
            announcer.board_notes.append(self.board_note)

    def board_note(self, match_id: int) -> str | None:
        """The board's line on how to move."""
        return wording.board_move_note(self._name())

    def _name(self) -> str:
        user = self.bot.user
        return user.display_name if user is not None else "dmhost"

    @app_commands.command(name="move", description="Play a move in your match in this room (e.g. A1-B1)")
    @app_commands.describe(text="your move as you would post it: A1-B1, T15, resign, take back, …")
    async def move(self, interaction: discord.Interaction[Any], text: app_commands.Range[str, 1, MAX_TEXT]) -> None:
        """The text goes the way a posted message goes (`MatchService.post`)."""
        player = str(interaction.user.id)
        channel_id = interaction.channel_id
        if channel_id is None:
            await respond(interaction, markdown(wording.move_no_match()))
            return
        posted = await self.bot.service.post(channel_id, interaction.guild_id, player, text)
        if posted is None:
            await respond(interaction, markdown(wording.move_no_match()))
            return
        interaction.extras["match_id"] = posted.match_id
        if posted.grave is not None:  # a resignation or a play-ending move: Confirm / Cancel first
            await ask_privately(self.bot, interaction, posted.grave)
            return
        result = posted.result
        if result is None or result.status == Outcome.ACCEPTED:
            await respond(
                interaction, markdown(wording.move_played(interaction.user.display_name, text)), ephemeral=False
            )
            return
        why = reason_text(result) or ""
        if result.status == Outcome.IGNORED:
            why = wording.move_not_read(text, why)
        await respond(interaction, board_linked(self.bot, posted.match_id, why))


async def load(bot: DMHost) -> None:
    """Load `/move` and the boards' line, when the bot reads moves without the message-content intent."""
    if bot.settings.message_content:
        return
    cog = MoveCommand(bot)
    await bot.add_cog(cog)
    cog.attach_notes()
