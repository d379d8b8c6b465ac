"""`/dm event vacation` and `/dm event notify`: a correspondence player's own settings in a server.

The `/dm` group holds its 18 entries already (README, "The command tree"), so these two join `/dm event`,
the group about when games are played."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import require_host, respond
from bot.host.events import HostEvent
from bot.host.rules.correspondence import REMINDER, days_hours
from bot.host.service import HostError
from bot.host.vacation import VacationRefused, Waiting, reminded_since, take_vacation
from bot.store.correspondence import MAX_VACATION_DAYS, NOTIFY, CorrespondenceStore
from bot.wording import correspondence as words

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

DIGEST_EVERY = dt.timedelta(days=1)
"""At most one digest a day per player and server."""
DIGEST_RETRY_SECONDS = 3600.0
"""After a failed look at the digests (the database away), the next one."""


class CorrespondenceCog(commands.Cog):
    """Vacation and reminders for correspondence players."""

    def __init__(self, bot: DMHost, store: CorrespondenceStore) -> None:
        parts(bot).correspondence = self
        self.bot = bot
        self.store = store  # built by the composition root (`bot.compose.build_app`)
        self._tasks: set[asyncio.Task[None]] = set()
        self._digests: asyncio.Task[None] | None = None
        bot.app.bus.subscribe(self.on_host_event)

    # -- reminders as direct messages ------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """A reminder: sent as a direct message too, to a player who chose `dm` (in the background)."""
        if ev.kind != REMINDER or ev.seat is None:
            return
        task = asyncio.create_task(self._direct(ev), name=f"reminder-dm-{ev.match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _direct(self, ev: HostEvent) -> None:
        live = self.bot.service.live.get(ev.match_id)
        if live is None or live.guild_id is None or ev.seat not in live.players:
            return
        player_id = live.players[ev.seat].id
        if (await self.store.player(live.guild_id, player_id)).notify != "dm":
            return
        text = words.reminder_dm(
            live.players[3 - ev.seat].name,
            str(ev.detail.get("left_text", "")),
            str(ev.detail.get("deadline", "")),
            self._server(live.guild_id),
            self._link(live.guild_id, live.channel_id, live.id),
        )
        await self._send(player_id, text)

    def _server(self, guild_id: int) -> str:
        guild = self.bot.get_guild(guild_id)
        return guild.name if guild is not None else "your server"

    def _link(self, guild_id: int | None, channel_id: int | None, match_id: int) -> str:
        """The match's board (its room while no board is known)."""
        announcer = parts(self.bot).announcer
        board = announcer.board_message_id(match_id) if announcer is not None else None
        tail = f"/{board}" if board is not None else ""
        return f"https://discord.com/channels/{guild_id}/{channel_id}{tail}"

    async def _send(self, player_id: str, text: str) -> bool:
        """A direct message; False when it could not be sent (DMs closed, an unknown user)."""
        if not player_id.isdigit() or (self.bot.user is not None and int(player_id) == self.bot.user.id):
            return False
        try:
            user = self.bot.get_user(int(player_id)) or await self.bot.fetch_user(int(player_id))
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.info("a correspondence reminder could not be sent to %s", player_id)
            return False
        return True

    # -- the daily digest ----------------------------------------------------------------
    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Start the digest task once (the database is migrated by then)."""
        if self._digests is None:
            self._digests = asyncio.create_task(self._digest_loop(), name="correspondence-digests")

    async def before_close(self) -> None:
        """The bot is closing: stop the digest task and wait for direct messages on their way."""
        if self._digests is not None:
            self._digests.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._digests
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)

    async def _digest_loop(self) -> None:
        while True:
            try:
                wait = await self.send_digests()
            except Exception:
                log.exception("correspondence digests failed")
                wait = DIGEST_RETRY_SECONDS
            await asyncio.sleep(DIGEST_EVERY.total_seconds() if wait is None else max(1.0, wait))

    def _restart_digests(self) -> None:
        """A player changed their choice: the digest task starts again (and so sleeps until the right time)."""
        if self._digests is not None:
            self._digests.cancel()
            self._digests = asyncio.create_task(self._digest_loop(), name="correspondence-digests")

    async def send_digests(self) -> float | None:
        """Send every digest that is due. A player who chose `digest` gets one a day at most, at the time of
        day they chose it, listing the games whose reminder came since their last digest (none: nothing is
        sent). Returns the seconds until the next digest moment of any player (None: nobody chose it)."""
        wall = self.bot.service.wall()
        soonest: float | None = None
        for player in await self.store.players("digest"):
            if self.bot.get_guild(player.guild_id) is None:
                continue  # another process (shard) serves this server
            last = player.digest_sent or wall
            if wall - last >= DIGEST_EVERY:
                games = reminded_since(self.bot.service, player.guild_id, player.player_id, last)
                if games:
                    lines = [self._digest_line(g) for g in games]
                    await self._send(player.player_id, words.digest(self._server(player.guild_id), lines))
                last += DIGEST_EVERY * ((wall - last) // DIGEST_EVERY)  # the cadence stays the chosen time of day
                await self.store.save(player.guild_id, player.player_id, digest_sent=last)
            elif player.digest_sent is None:
                await self.store.save(player.guild_id, player.player_id, digest_sent=last)
            left = (last + DIGEST_EVERY - wall).total_seconds()
            soonest = left if soonest is None else min(soonest, left)
        return soonest

    def _digest_line(self, game: Waiting) -> str:
        link = self._link(game.guild_id, game.channel_id, game.match_id)
        deadline = int(game.deadline.timestamp())
        return words.digest_line(game.match_id, game.opponent, days_hours(game.left), deadline, link)

    def attach_commands(self) -> None:
        """Put this cog's commands into `/dm event` (made here when the scheduling feature did not)."""
        group = self.bot.tree.get_command("dm")
        if not isinstance(group, app_commands.Group):
            return
        event = group.get_command("event")
        if not isinstance(event, app_commands.Group):
            event = app_commands.Group(name="event", description="Scheduled Death Matches", parent=group)
        for command in self.__cog_app_commands__:
            self.bot.tree.remove_command(command.name)
            event.add_command(command)

    async def cog_unload(self) -> None:
        """Take the commands off `/dm event`."""
        if parts(self.bot).correspondence is self:
            parts(self.bot).correspondence = None
        group = self.bot.tree.get_command("dm")
        event = group.get_command("event") if isinstance(group, app_commands.Group) else None
        if isinstance(event, app_commands.Group):
            for command in self.__cog_app_commands__:
                event.remove_command(command.name)

    def _links(self, match_ids: list[int]) -> list[str]:
        out = []
        for match_id in match_ids:
            live = self.bot.service.live.get(match_id)
            room = f" (<#{live.channel_id}>)" if live is not None and live.channel_id is not None else ""
            out.append(f"#{match_id}{room}")
        return out

    @app_commands.command(name="vacation", description="Stop your correspondence clocks for some days (0: back now)")
    @app_commands.describe(days="how many days (within this year's allowance); 0 ends your vacation now")
    @app_commands.guild_only()
    async def vacation(
        self, interaction: discord.Interaction[Any], days: app_commands.Range[int, 0, MAX_VACATION_DAYS]
    ) -> None:
        """Start a vacation of `days` days in this server's correspondence matches, or end it (0)."""
        if interaction.guild_id is None:
            raise HostError(words.refused("vacation_in_server", {}))
        try:
            done = await take_vacation(
                self.bot.service, self.store, interaction.guild_id, str(interaction.user.id), days
            )
        except VacationRefused as exc:
            raise HostError(words.refused(exc.code, exc.data)) from None
        if done.until is None:
            text = words.vacation_ended(self._links(done.matches), done.refunded, done.used, done.allowance)
        else:
            text = words.vacation_started(
                int(done.until.timestamp()), self._links(done.matches), done.used, done.allowance
            )
        await respond(interaction, text)

    @app_commands.command(name="notify", description="How correspondence reminders reach you: room, DM, daily digest")
    @app_commands.describe(how="the mention in the room only, a direct message too, or one message a day")
    @app_commands.choices(how=[app_commands.Choice(name=words.NOTIFY_CHOICES[n], value=n) for n in NOTIFY])
    @app_commands.guild_only()
    async def notify(self, interaction: discord.Interaction[Any], how: str) -> None:
        """Choose how this server's correspondence reminders reach you."""
        if interaction.guild_id is None or how not in NOTIFY:
            raise HostError(words.refused("notify_in_server", {}))
        now = self.bot.service.wall()  # a digest comes daily from the time of day it was chosen
        await self.store.save(interaction.guild_id, str(interaction.user.id), notify=how, digest_sent=now)
        self._restart_digests()
        await respond(interaction, words.notify_saved(how))

    async def config(self, interaction: discord.Interaction[Any], vacation_days: int) -> None:
        """`/dm config vacation_days:` (hosts): the yearly allowance of this server."""
        require_host(interaction)
        if interaction.guild_id is None:
            raise HostError(words.refused("vacation_in_server", {}))
        days = await self.store.set_allowance(interaction.guild_id, vacation_days)
        await respond(interaction, words.allowance_saved(days))

    async def shown(self, guild_id: int) -> str:
        """The server's correspondence settings as `/dm config` shows them."""
        return words.allowance_line(await self.store.allowance(guild_id))
