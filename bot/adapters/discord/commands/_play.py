"""`/dm resign` and one command per house-rule action that declares itself one (`Action.command`: today
`/dm mulligan` and `/dm ready`): a player's actions in their match."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapters.discord.commands._common import Matches, MatchId
from bot.host import rules
from bot.host.service import MatchService
from bot.wording import rule_words
from bot.wording.commands import RESIGNED

if TYPE_CHECKING:
    from bot.adapters.discord._parts import Parts


class Play:
    """`/dm resign` and the house rules' action commands."""

    def __init__(self, service: MatchService, matches: Matches, features: Parts) -> None:
        self.service = service
        self.matches = matches
        self.features = features

    def step(self, action: str) -> Callable[[int, str], Awaitable[object]]:
        """A player's action of the match's rules, as a step."""

        async def step(match_id: int, user: str) -> object:
            return await self.service.act(match_id, user, action)

        return step

    async def resign(self, interaction: discord.Interaction[Any], match: int | None) -> None:
        """Give up, once confirmed (Confirm / Cancel, seen only by the player, lapsing after 30 s)."""
        live = self.matches.find(interaction, match)
        grave = self.service.grave(live.id, str(interaction.user.id), "resign")
        if grave is None:  # not a player, or the match is over: the service says why
            await self.matches.one_step(interaction, live.id, self.step("resign"), RESIGNED)
            return
        prompts = self.features.prompts
        if prompts is None:
            raise LookupError("the confirmation prompts are not loaded")
        await prompts.ask_privately(interaction, grave)

    def action_commands(self) -> list[app_commands.Command[Any, Any, None]]:
        """`/dm <action>` for every house-rule action declared a command, in the rules' order."""
        words = rule_words()
        return [
            self._action_command(action, words) for rule in rules.REGISTRY for action in rule.actions if action.command
        ]

    def _action_command(self, action: rules.Action, words: dict[str, str]) -> app_commands.Command[Any, Any, None]:
        """`/dm <action>`: the action in the player's match, answered with the rule's `done:<action>` words."""
        reply = words[f"done:{action.name}"]

        async def run(interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
            await self.matches.one_step(interaction, match, self.step(action.name), reply)

        described = words[f"command:{action.name}"]
        run.__name__, run.__doc__ = action.name, described
        make = app_commands.command(name=action.name, description=described)
        command: app_commands.Command[Any, Any, None] = make(run)
        return app_commands.describe(match="match id (default: your match in this channel)")(command)
