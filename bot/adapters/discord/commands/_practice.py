"""`/dm practice`: a match against the practice opponent (`bot.adapters.practice.PracticeBot`, every game and
level) in a room of the player's own; after a restart the opponent takes its seats again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord._shared import pinging
from bot.adapters.discord.commands._base import game_autocomplete
from bot.adapters.discord.commands._rooms import RoomOpening
from bot.adapters.practice import PracticeBot
from bot.host.events import Refusal
from bot.host.service import HostError, MatchService, PlayerRef
from bot.wording import error_sentence
from games.opponents import LEVELS, uses_solver
from games.opponents import check_level as _check_level

log = logging.getLogger(__name__)


def levels(game: str) -> tuple[str, ...]:
    """The levels the practice opponent plays `game` at (empty: no opponent for this game)."""
    return tuple(LEVELS.get(game, ()))


def check_level(game: str, level: str) -> str:
    """The level in canonical form, or a ValueError that names the levels of `game`."""
    return _check_level(game, level)


def opponent(service: MatchService, player_id: str) -> PracticeBot:
    """The practice opponent playing as `player_id` (`watch(match_id, level)`, `close()`)."""
    return PracticeBot(service, player_id=player_id)


async def level_autocomplete(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    """The levels of the chosen game."""
    game = str(getattr(interaction.namespace, "game", "") or "").strip().lower()
    known = levels(game) or levels("boxes")
    return [app_commands.Choice(name=lv, value=lv) for lv in known if current.strip().lower() in lv][:25]


class PracticeCommand(RoomOpening):
    """`/dm practice` and its opponent (a part of the `/dm` cog)."""

    def practice_bot(self) -> PracticeBot:
        """The practice opponent, playing as this bot's own user (created on first use)."""
        if self._practice is None:
            assert self.bot.user is not None
            self._practice = opponent(self.service, str(self.bot.user.id))
        return self._practice

    async def resume_practice(self) -> None:
        """After a restart, the practice opponent takes its seats again (its level is in its name)."""
        if self.bot.user is None:
            return
        me = str(self.bot.user.id)
        for live in list(self.service.live.values()):
            seat = live.seat_of(me)
            if seat is None:
                continue
            level = live.players[seat].name.rpartition("(")[2].rstrip(")").strip()
            try:
                self.practice_bot().watch(live.id, level)
            except Exception:
                log.exception("match %s: the practice opponent could not take its seat again", live.id)

    @app_commands.command(name="practice", description="Play the practice opponent in a room of your own")
    @app_commands.describe(
        game="which game",
        level="how strongly the opponent plays (random, easy, medium, hard; perfect for Dots-and-Boxes)",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        first="who moves first",
        room="a public thread everyone can watch (default), a private thread, or this channel",
    )
    @app_commands.autocomplete(game=game_autocomplete, level=level_autocomplete)
    @app_commands.choices(
        first=[
            app_commands.Choice(name="I move first", value="1"),
            app_commands.Choice(name="the practice opponent moves first", value="2"),
        ],
        room=[
            app_commands.Choice(name="a public thread everyone can watch", value="public"),
            app_commands.Choice(name="a private thread", value="private"),
            app_commands.Choice(name="this channel", value="channel"),
        ],
    )
    @app_commands.guild_only()
    async def practice(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        level: str = "medium",
        options: str = "",
        first: str = "1",
        room: str | None = None,
    ) -> None:
        """A match against the practice opponent, recorded like any other but kept out of `/dm history`."""
        member = interaction.user
        if not isinstance(member, discord.Member) or self.bot.user is None:
            raise HostError(Refusal("practice_in_server"))
        ruleset, opts, clk = self._check_start(game, member, None, options, "", interaction.guild_id)
        try:
            level = check_level(ruleset.id, level)
        except ValueError as exc:
            raise HostError(str(exc).capitalize() + ".") from None
        me = self.bot.user
        opponent = PlayerRef(str(me.id), f"{me.display_name} ({level})")
        await interaction.response.defer(thinking=True)
        try:
            channel, thread = await self._open_room(
                interaction,
                self._room_mode(interaction, room),
                ruleset.title,
                member,
                None,
                member,
                opponent_name=opponent.name,
            )
        except HostError as exc:
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        players = [PlayerRef(str(member.id), member.display_name), opponent]
        loading = getattr(self.bot, "solver_loading", None)
        if uses_solver(ruleset.id, level) and isinstance(loading, asyncio.Task) and not loading.done():
            # the solver's one-time build (first start on a machine) is never charged to the opponent's clock
            with contextlib.suppress(Exception):
                await asyncio.shield(loading)
        try:
            match_id = await self.service.create_match(
                ruleset.id,
                players,
                options=opts,
                clock=clk,
                first=1 if first != "2" else 2,
                guild_id=interaction.guild_id,
                channel_id=channel.id,
                by=str(member.id),
                rated=False,
                practice=True,
                machine=opponent.id,
            )
        except HostError as exc:
            if thread is not None:
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        interaction.extras["match_id"] = match_id
        self.practice_bot().watch(match_id, level)
        where = f" in {thread.mention}" if thread is not None else ""
        await interaction.followup.send(
            f"Practice match {match_id} ({ruleset.title}): {member.mention} vs the practice opponent ({level}) "
            f"has started{where}.",
            allowed_mentions=pinging(member.id),
        )
