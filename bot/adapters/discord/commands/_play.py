"""`/dm resign` and one command per house-rule action that declares itself one (`Action.command`: today
`/dm mulligan` and `/dm ready`): a player's actions in their match."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord.commands._base import CommandsBase, MatchId
from bot.host import rules
from bot.wording import rule_words


class PlayCommands(CommandsBase):
    """`/dm resign` and the house rules' action commands (a part of the `/dm` cog)."""

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
        prompts = parts(self.bot).prompts
        if prompts is None:
            raise LookupError("the confirmation prompts are not loaded")
        await prompts.ask_privately(interaction, grave)


def _action_command(action: rules.Action, words: dict[str, str]) -> app_commands.Command[Any, Any, None]:
    """`/dm <action>`: the action in the player's match, answered with the rule's `done:<action>` words."""
    reply = words[f"done:{action.name}"]

    async def run(self: PlayCommands, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        await self._one_step(interaction, match, self._action(action.name), reply)

    run.__name__ = action.name
    run.__qualname__ = f"PlayCommands.{action.name}"  # a method of the cog: discord.py passes the cog first
    run.__doc__ = words[f"command:{action.name}"]
    command = app_commands.command(name=action.name, description=words[f"command:{action.name}"])(run)
    return app_commands.describe(match="match id (default: your match in this channel)")(command)


def _add_action_commands() -> None:
    """Every house-rule action declared a command becomes one of this class's commands, in the rules' order
    (discord.py collects the `/dm` cog's commands from its base classes when the cog's class is made)."""
    words = rule_words()
    for rule in rules.REGISTRY:
        for action in rule.actions:
            if action.command:
                setattr(PlayCommands, action.name, _action_command(action, words))


_add_action_commands()
