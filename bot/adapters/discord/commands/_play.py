"""`/dm resign`, `/dm mulligan` and `/dm ready`: a player's actions in their match."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord.commands._base import CommandsBase, MatchId
from bot.adapters.discord.room import ask_privately


class PlayCommands(CommandsBase):
    """`/dm resign`, `/dm mulligan`, `/dm ready` (a part of the `/dm` cog)."""

    def _action(self, action: str) -> Callable[[int, str], Awaitable[object]]:
        """A player's action of the match's rules, as a step."""

        async def step(match_id: int, user: str) -> object:
            return await self.service.act(match_id, user, action)

        return step

    @app_commands.command(name="resign", description="Resign your match")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def resign(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Give up, once confirmed (Confirm / Cancel, seen only by the player, lapsing after 30 s)."""
        live = self._match(interaction, match)
        grave = self.service.grave(live.id, str(interaction.user.id), "resign")
        if grave is None:  # not a player, or the match is over: the service says why
            await self._one_step(interaction, live.id, self._action("resign"), "You resigned match {match}.")
            return
        await ask_privately(self.bot, interaction, grave)

    @app_commands.command(name="mulligan", description="Use your mulligan (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def mulligan(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Rewind your last turn and the opponent's."""
        await self._one_step(interaction, match, self._action("mulligan"), "Mulligan used in match {match}.")

    @app_commands.command(name="ready", description="Say you are ready to move from grace (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def ready(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Ask the opponent to confirm they are here."""
        reply = "Your opponent has been asked to confirm they are here."
        await self._one_step(interaction, match, self._action("ready"), reply)
