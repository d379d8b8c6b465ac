"""The checks and the room every new match of `/dm start` and `/dm practice` shares: refusals before anything
is opened, the room (a public or private thread, or the channel), a refusal after the "thinking…" answer."""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any

import discord

from bot.adapters.discord._shared import NO_PINGS, parse_pairs
from bot.adapters.discord.render import markdown
from bot.host.clocks import TimeControl, seat_odds
from bot.host.events import Refusal
from bot.host.service import HostError
from bot.store.guilds import GuildSettings, GuildSettingsStore
from bot.wording import options_text
from bot.wording.commands import no_thread
from games import registry
from games.base import AnyRuleset, OptionsError

log = logging.getLogger(__name__)


_MENTION = re.compile(r"<@!?(\d{1,20})>")
"""A member mentioned in a clock's time odds (`<@42>:move=30`, as Discord writes a mention typed in an option)."""


def mentions_as_ids(clock: dict[str, str]) -> dict[str, str]:
    """The odds of a member mentioned by Discord (`<@42>:reserve`) as the odds of their id (`42:reserve`),
    which the host's `seat_odds` matches against each player's names and id."""
    return {_MENTION.sub(r"\1", key): value for key, value in clock.items()}


def _aliases(member: discord.Member) -> list[str]:
    """What may name a member in a clock's time odds: display name, user name, global name, id."""
    return [member.display_name, member.name, member.global_name or "", str(member.id)]


async def refuse_after_defer(interaction: discord.Interaction[Any], text: str) -> None:
    """A refusal after the public "thinking…" answer: remove that answer, tell the host privately."""
    with contextlib.suppress(discord.HTTPException):
        await interaction.delete_original_response()
    await interaction.followup.send(markdown(text), ephemeral=True, allowed_mentions=NO_PINGS)


class Rooms:
    """Checking a new match and opening its room, by this server's settings (`/dm config`)."""

    def __init__(self, guild_settings: GuildSettingsStore) -> None:
        self.guild_settings = guild_settings

    def _configured(self, guild_id: int | None) -> GuildSettings | None:
        """This server's settings (None outside a server)."""
        return self.guild_settings.cached(guild_id) if guild_id is not None else None

    def mode(self, interaction: discord.Interaction[Any], room: str | None) -> str:
        """The room asked for, else this server's default (`/dm config`), else a public thread."""
        if room is None:
            configured = self._configured(interaction.guild_id)
            room = (configured.room_mode if configured is not None else None) or "public"
        return "private" if room == "thread" else room

    def check_start(
        self,
        game: str,
        player1: discord.Member,
        player2: discord.Member | None,
        options: str,
        clock: str,
        guild_id: int | None = None,
    ) -> tuple[AnyRuleset, dict[str, str], dict[str, str]]:
        """Everything `/dm start` (or `/dm practice`, without a second member) can refuse before it opens a room."""
        if player1.bot or (player2 is not None and player2.bot):
            raise HostError(Refusal("bots_cannot_play"))
        if player2 is not None and player1.id == player2.id:
            raise HostError(Refusal("two_different_players"))
        opts = parse_pairs(options, "options")
        clk = parse_pairs(clock, "clock")
        try:
            ruleset = registry.get(game)
        except registry.UnknownGameError:
            raise HostError(
                Refusal("unknown_game", data={"game": game, "known": ", ".join(registry.GAME_MODULES)})
            ) from None
        try:
            parsed = ruleset.parse_options(opts)
        except OptionsError as exc:
            raise HostError(f"Options: {options_text(exc.problems, exc.valid)}") from None
        configured = self._configured(guild_id)
        if configured is not None:
            clk = {**configured.clock_for(ruleset.id), **clk}  # this server's default clock for the game
        try:
            clk = seat_odds(mentions_as_ids(clk), [_aliases(m) for m in (player1, player2) if m is not None])
            TimeControl.from_spec(ruleset.default_clock(parsed), clk)
        except ValueError as exc:
            raise HostError(f"Clock: {exc}") from None
        return ruleset, opts, clk

    def _parent(self, interaction: discord.Interaction[Any]) -> Any:
        """Where a public room opens: the guild's game-room channel when one is configured, else here."""
        settings = self._configured(interaction.guild_id)
        configured = settings.room_channel_id if settings is not None else None
        if configured is not None and interaction.guild is not None:
            channel = interaction.guild.get_channel(int(configured))
            if isinstance(channel, discord.TextChannel):
                return channel
        return interaction.channel

    async def open(
        self,
        interaction: discord.Interaction[Any],
        mode: str,
        title: str,
        player1: discord.Member,
        player2: discord.Member | None,
        host: discord.abc.User,
        *,
        opponent_name: str | None = None,
    ) -> tuple[Any, discord.Thread | None]:
        """The room of a new match: a public or private thread (players and host added), or this channel."""
        here: Any = interaction.channel
        if mode == "channel":
            return here, None
        parent = self._parent(interaction) if mode == "public" else here
        if not isinstance(parent, discord.TextChannel):
            raise HostError(Refusal("thread_from_text"))
        kind = discord.ChannelType.public_thread if mode == "public" else discord.ChannelType.private_thread
        try:
            thread = await parent.create_thread(
                name=f"{title}: {player1.display_name} vs {player2.display_name if player2 else opponent_name}"[:100],
                type=kind,
                auto_archive_duration=10080,
                invitable=mode != "private",  # only moderators invite to a private room
            )
        except discord.Forbidden:
            raise HostError(no_thread(mode, parent.mention)) from None
        for member in dict.fromkeys([player1.id, *([player2.id] if player2 else []), host.id]):
            try:
                await thread.add_user(discord.Object(member))
            except discord.HTTPException:
                log.warning("could not add %s to thread %s", member, thread.id)
        return thread, thread
