"""`/dm practice`: a match against the practice opponent (`bot.adapters.practice.PracticeBot`, every game and
level) in a room of the player's own; after a restart the opponent takes its seats again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord._shared import pinging
from bot.adapters.discord.commands._rooms import Rooms, refuse_after_defer
from bot.adapters.discord.render import markdown
from bot.adapters.practice import PracticeBot
from bot.compose import Bus
from bot.host.events import Refusal
from bot.host.service import HostError, MatchService, PlayerRef
from bot.text import verbatim
from bot.wording import error_sentence
from bot.wording.commands import practice_started
from games.opponents import LEVELS, uses_solver
from games.opponents import check_level as _check_level

log = logging.getLogger(__name__)


def levels(game: str) -> tuple[str, ...]:
    """The levels the practice opponent plays `game` at (empty: no opponent for this game)."""
    return tuple(LEVELS.get(game, ()))


def check_level(game: str, level: str) -> str:
    """The level in canonical form, or a ValueError that names the levels of `game`."""
    return _check_level(game, level)


def opponent(service: MatchService, bus: Bus, player_id: str) -> PracticeBot:
    """The practice opponent playing as `player_id` (`watch(match_id, level)`, `close()`), hearing the host's
    events on the application's `bus`."""
    return PracticeBot(service, bus=bus, player_id=player_id)


async def level_autocomplete(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    """The levels of the chosen game."""
    game = str(getattr(interaction.namespace, "game", "") or "").strip().lower()
    known = levels(game) or levels("boxes")
    return [app_commands.Choice(name=lv, value=lv) for lv in known if current.strip().lower() in lv][:25]


class Practice:
    """`/dm practice` and the practice opponent it seats (one for this bot, made on first use)."""

    def __init__(
        self,
        service: MatchService,
        rooms: Rooms,
        client: discord.Client,
        solver_loading: Callable[[], object],
        *,
        bus: Bus,
    ) -> None:
        self.service = service
        self.bus = bus
        """The application's bus (`App.bus`): the practice opponent hears the host's events on it."""
        self.rooms = rooms
        self.client = client
        self.solver_loading = solver_loading
        """The solver's one-time build (the task the bot starts in its setup; None before), asked at each start."""
        self._opponent: PracticeBot | None = None

    def practice_bot(self) -> PracticeBot:
        """The practice opponent, playing as this bot's own user (created on first use)."""
        if self._opponent is None:
            assert self.client.user is not None
            self._opponent = opponent(self.service, self.bus, str(self.client.user.id))
        return self._opponent

    async def close(self) -> None:
        """The practice opponent stops thinking."""
        if self._opponent is not None:
            await self._opponent.close()

    async def resume(self) -> None:
        """After a restart, the practice opponent takes its seats again (its level is in its name)."""
        if self.client.user is None:
            return
        me = str(self.client.user.id)
        for live in list(self.service.live.values()):
            seat = live.seat_of(me)
            if seat is None:
                continue
            level = live.players[seat].name.rpartition("(")[2].rstrip(")").strip()
            try:
                self.practice_bot().watch(live.id, level)
            except Exception:
                log.exception("match %s: the practice opponent could not take its seat again", live.id)

    async def start(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        *,
        level: str,
        options: str,
        first: str,
        room: str | None,
    ) -> None:
        """A match against the practice opponent, recorded like any other but kept out of `/dm history`."""
        member = interaction.user
        if not isinstance(member, discord.Member) or self.client.user is None:
            raise HostError(Refusal("practice_in_server"))
        ruleset, opts, clk = self.rooms.check_start(game, member, None, options, "", interaction.guild_id)
        try:
            level = check_level(ruleset.id, level)
        except ValueError as exc:
            raise HostError(str(exc).capitalize() + ".") from None
        me = self.client.user
        opponent = PlayerRef(str(me.id), f"{me.display_name} ({level})")
        await interaction.response.defer(thinking=True)
        try:
            channel, thread = await self.rooms.open(
                interaction,
                self.rooms.mode(interaction, room),
                ruleset.title,
                member,
                None,
                member,
                opponent_name=opponent.name,
            )
        except HostError as exc:
            await refuse_after_defer(interaction, error_sentence(exc))
            return
        players = [PlayerRef(str(member.id), member.display_name), opponent]
        loading = self.solver_loading()
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
            await refuse_after_defer(interaction, error_sentence(exc))
            return
        interaction.extras["match_id"] = match_id
        self.practice_bot().watch(match_id, level)
        room = thread.mention if thread is not None else None
        await interaction.followup.send(
            markdown(practice_started(match_id, ruleset.title, verbatim(member.mention), level, room)),
            allowed_mentions=pinging(member.id),
        )
