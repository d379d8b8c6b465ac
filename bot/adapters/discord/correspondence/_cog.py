"""`/dm event vacation` and `/dm event notify`: a correspondence player's own settings in a server.

The `/dm` group holds its 18 entries already (README, "The command tree"), so these two join `/dm event`,
the group about when games are played. A player's daily digest is a durable job (`bot.jobs`, kind `digest`,
one per player and server) due at the digest's moment: it outlives a restart, and a digest due while no
bot ran is sent once at the next start."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import require_host, respond
from bot.host.events import HostEvent
from bot.host.service import HostError
from bot.host.vacation import VacationRefused, Waiting, reminded_since, take_vacation
from bot.jobs import Job
from bot.store.correspondence import MAX_VACATION_DAYS, NOTIFY, CorrespondenceStore
from bot.types import REMINDER, days_hours
from bot.wording import correspondence as words

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

DIGEST_EVERY: Final = dt.timedelta(days=1)
"""At most one digest a day per player and server."""
DIGEST: Final = "digest"
"""The kind of a digest's job."""


def digest_key(guild_id: int, player_id: str) -> str:
    """The key of a player's digest job in a server."""
    return f"digest:{guild_id}:{player_id}"


def next_digest(after: dt.datetime, hour: int | None, cadence: dt.datetime) -> dt.datetime:
    """The first digest moment later than `after`: at `hour` o'clock UTC, or (no hour chosen) at the time of
    day of `cadence` (when the digest was chosen)."""
    if hour is None:
        days = (after - cadence) // DIGEST_EVERY + 1
        return cadence + DIGEST_EVERY * max(1, days)
    moment = after.astimezone(dt.UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment if moment > after else moment + DIGEST_EVERY


class CorrespondenceCog(commands.Cog):
    """Vacation and reminders for correspondence players."""

    def __init__(self, bot: DMHost, store: CorrespondenceStore) -> None:
        parts(bot).correspondence = self
        self.bot = bot
        self.store = store  # built by the composition root (`bot.compose.build_app`)
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready = False
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
        """Run digests from now on (the database is migrated and the matches resumed by then); a player who
        chose the digest before it was a job gets one."""
        if self._ready:
            return
        self._ready = True
        for player in await self.store.players("digest"):
            if self.bot.get_guild(player.guild_id) is None:
                continue  # another process (shard) serves this server
            if await self.bot.jobs.get(digest_key(player.guild_id, player.player_id)) is None:
                cadence = player.digest_sent or self.bot.service.wall()
                await self._plan_digest(player.guild_id, player.player_id, None, cadence, cadence)
        self.bot.jobs.register(DIGEST, self.send_digest)

    async def before_close(self) -> None:
        """The bot is closing: stop running digests and wait for direct messages on their way."""
        self.bot.jobs.unregister(DIGEST)
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)

    async def _plan_digest(
        self, guild_id: int, player_id: str, hour: int | None, cadence: dt.datetime, after: dt.datetime
    ) -> dt.datetime:
        """The player's next digest job (one row per player and server: planned again, it moves)."""
        due = next_digest(after, hour, cadence)
        payload = {"guild": guild_id, "player": player_id, "hour": hour, "cadence": cadence.isoformat()}
        await self.bot.jobs.add(DIGEST, digest_key(guild_id, player_id), due, payload, scope=guild_id)
        return due

    async def send_digest(self, job: Job) -> None:
        """A digest's moment: the games whose reminder came since the last digest (none: nothing is sent),
        then the next day's job. A moment missed while no bot ran sends one digest now, not one per day."""
        guild_id, player_id = int(job.payload["guild"]), str(job.payload["player"])
        player = await self.store.player(guild_id, player_id)
        if player.notify != "digest":
            return  # the player chose otherwise meanwhile
        wall = self.bot.service.wall()
        games = reminded_since(self.bot.service, guild_id, player_id, player.digest_sent)
        if games:
            lines = [self._digest_line(g) for g in games]
            await self._send(player_id, words.digest(self._server(guild_id), lines))
        await self.store.save(guild_id, player_id, digest_sent=wall)
        hour = job.payload.get("hour")
        cadence = dt.datetime.fromisoformat(str(job.payload.get("cadence") or job.due.isoformat()))
        await self._plan_digest(guild_id, player_id, None if hour is None else int(hour), cadence, max(wall, job.due))

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
    @app_commands.describe(
        how="the mention in the room only, a direct message too, or one message a day",
        hour="the digest's hour (UTC, 0-23); by default the time of day you choose it",
    )
    @app_commands.choices(how=[app_commands.Choice(name=words.NOTIFY_CHOICES[n], value=n) for n in NOTIFY])
    @app_commands.guild_only()
    async def notify(
        self, interaction: discord.Interaction[Any], how: str, hour: app_commands.Range[int, 0, 23] | None = None
    ) -> None:
        """Choose how this server's correspondence reminders reach you (and when the digest comes)."""
        if interaction.guild_id is None or how not in NOTIFY:
            raise HostError(words.refused("notify_in_server", {}))
        guild_id, player_id = interaction.guild_id, str(interaction.user.id)
        now = self.bot.service.wall()  # without an hour, a digest comes daily from the time of day it was chosen
        await self.store.save(guild_id, player_id, notify=how, digest_sent=now)
        if how == "digest":
            due = await self._plan_digest(guild_id, player_id, hour, now, now)
            await respond(interaction, words.notify_saved(how, int(due.timestamp())))
            return
        await self.bot.jobs.cancel(digest_key(guild_id, player_id))
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
