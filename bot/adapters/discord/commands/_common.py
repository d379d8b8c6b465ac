"""What the `/dm` commands share: finding the match a command means (and whether the user may look at it), the
one-step body of the player's and host's commands, the features they reach through `parts`, the game
autocomplete."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapters.discord._shared import find_match, may_read_room, require_host, respond
from bot.adapters.discord.render import markdown
from bot.host.events import Refusal
from bot.host.service import HostError, Live, MatchService
from bot.wording.commands import NO_OVERVIEW
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord._parts import OverviewPart, Parts
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


def overview_of(features: Parts) -> OverviewPart:
    """The overview feature (boards, status, histories), or a refusal when it is not loaded."""
    overview = features.overview
    if overview is None:
        raise HostError(NO_OVERVIEW)
    return overview


def series_of(features: Parts) -> SeriesService | None:
    """The series service, when the series feature is loaded."""
    feature = features.series
    return feature.series if feature is not None else None


class Matches:
    """The match a command means, found through the host service, and the body of a one-step command."""

    def __init__(self, service: MatchService) -> None:
        self.service = service

    def find(self, interaction: discord.Interaction[Any], match_id: int | None) -> Live:
        """The match `match_id` names, else the one in this channel (the user's own first), this server's
        only; its id is noted on the interaction (an error report names it)."""
        live = find_match(
            self.service, interaction.channel_id, match_id, str(interaction.user.id), interaction.guild_id
        )
        interaction.extras["match_id"] = live.id
        return live

    def readable(self, interaction: discord.Interaction[Any], match_id: int | None) -> Live:
        """A match the user may look at (players, hosts, and whoever can read its room)."""
        live = self.find(interaction, match_id)
        if not may_read_room(interaction, live.channel_id, [p.id for p in live.players.values()]):
            raise HostError(Refusal("unseen_match", data={"match": live.id}))
        return live

    async def one_step(
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
        live = self.find(interaction, match)
        await step(live.id, str(interaction.user.id))
        await respond(interaction, markdown(reply.format(match=live.id)))
