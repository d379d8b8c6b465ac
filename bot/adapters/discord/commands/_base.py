"""What every part of the `/dm` cog shares: the bot and its host service, finding the match a command means,
the one-step body of the player's and host's commands, the game autocomplete (the parts are in `_cog`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import OverviewPart, parts
from bot.adapters.discord._shared import find_match, may_read_room, require_host, respond
from bot.host.events import Refusal
from bot.host.service import HostError, Live, MatchService
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost
    from bot.adapters.practice import PracticeBot
    from bot.series import SeriesService

MatchId = app_commands.Range[int, 1]
MAX_EMBED = 4000


def title(game: str) -> str:
    """A game's title (its id when the registry has none)."""
    return registry.TITLES.get(game, game)


async def game_autocomplete(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    """Games whose id or title contains what was typed."""
    typed = current.strip().lower()
    return [
        app_commands.Choice(name=f"{title(g)} ({g})", value=g)
        for g in registry.ids()
        if typed in g or typed in title(g).lower()
    ][:25]


class CommandsBase(commands.Cog):
    """The state and helpers of the `/dm` cog that its parts (one class per kind of command) share; each part
    is a cog class of its own only for the type of its commands: the one cog loaded is `MatchCommands`."""

    bot: DMHost
    _practice: PracticeBot | None

    @property
    def service(self) -> MatchService:
        """The host service."""
        return self.bot.service

    def _match(self, interaction: discord.Interaction[Any], match_id: int | None) -> Live:
        live = find_match(
            self.service, interaction.channel_id, match_id, str(interaction.user.id), interaction.guild_id
        )
        interaction.extras["match_id"] = live.id
        return live

    def _readable(self, interaction: discord.Interaction[Any], match: int | None) -> Live:
        """A match the user may look at (players, hosts, and whoever can read its room)."""
        live = self._match(interaction, match)
        if not may_read_room(interaction, live.channel_id, [p.id for p in live.players.values()]):
            raise HostError(Refusal("unseen_match", data={"match": live.id}))
        return live

    def _overview(self) -> OverviewPart:
        """The overview feature (boards, status, histories), through `parts`."""
        overview = parts(self.bot).overview
        if overview is None:
            raise HostError("The overview is not running on this bot.")
        return overview

    def _series(self) -> SeriesService | None:
        """The series service, when the series feature is loaded."""
        feature = parts(self.bot).series
        return feature.series if feature is not None else None

    def _guild_settings(self, guild_id: int | None) -> Any:
        """This server's settings from `/dm config` (None when the build has no per-server settings)."""
        store = getattr(self.bot, "guild_settings", None)
        return store.cached(guild_id) if store is not None and guild_id is not None else None

    def _practice_ids(self) -> set[str]:
        """The player ids of the practice opponent (this bot, and the terminal room's)."""
        ids = {"local:dmhost-bot"}
        if self.bot.user is not None:
            ids.add(str(self.bot.user.id))
        return ids

    async def _one_step(
        self,
        interaction: discord.Interaction[Any],
        match: int | None,
        step: Callable[[int, str], Awaitable[object]],
        reply: str,
        *,
        host: bool = False,
    ) -> None:
        """The body every one-step command shares: (hosts only), find the match, hand the step to the
        service with the user's id, answer privately (`reply` may name `{match}`)."""
        if host:
            require_host(interaction)
        live = self._match(interaction, match)
        await step(live.id, str(interaction.user.id))
        await respond(interaction, reply.format(match=live.id))
