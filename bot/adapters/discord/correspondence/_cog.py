"""`/dm event vacation` and `/dm event notify`: a correspondence player's own settings in a server.

The `/dm` group holds its 18 entries already (docs/discord.md, "The command tree"), so these two join `/dm event`,
the group about when games are played. Which reminder goes to whom, and the daily digest, are decided by
`bot.host.digest.Reminders`; this cog words and sends what it is handed."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import require_host, respond
from bot.adapters.discord.render import markdown
from bot.host.digest import Digest, Notice, Reminders, Waiting
from bot.host.service import HostError
from bot.host.vacation import VacationRefused, take_vacation
from bot.store.correspondence import MAX_VACATION_DAYS, NOTIFY, CorrespondenceStore
from bot.text import Text
from bot.types import days_hours
from bot.wording import correspondence as words

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)


class CorrespondenceCog(commands.Cog):
    """Vacation and reminders for correspondence players: the commands, and the delivery of what the
    reminders' core (`bot.host.digest.Reminders`, built by the composition root) hands over."""

    def __init__(self, bot: DMHost, store: CorrespondenceStore, reminders: Reminders) -> None:
        parts(bot).correspondence = self
        self.bot = bot
        self.store = store  # built by the composition root (`bot.compose.build_app`)
        self.reminders = reminders
        reminders.deliver = self.deliver
        reminders.serves = lambda guild_id: bot.get_guild(guild_id) is not None

    # -- delivery ------------------------------------------------------------------------
    async def deliver(self, notice: Notice) -> bool:
        """A reminder or a digest, worded and sent as a direct message."""
        server = self._server(notice.guild_id)
        if isinstance(notice, Digest):
            text = words.digest(server, [self._digest_line(g) for g in notice.games])
        else:
            game = notice.game
            text = words.reminder_dm(
                game.opponent,
                days_hours(game.left),
                int(game.deadline.timestamp()),
                server,
                self._link(game.guild_id, game.channel_id, game.match_id),
                before_digest=notice.before_digest,
            )
        return await self._send(notice.player_id, markdown(text))

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
            await user.send(markdown(text), allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.info("a correspondence reminder could not be sent to %s", player_id)
            return False
        return True

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Run digests from now on (the database is migrated and the matches resumed by then)."""
        await self.reminders.start()

    async def before_close(self) -> None:
        """The bot is closing: stop running digests and wait for direct messages on their way."""
        await self.reminders.close()

    def _digest_line(self, game: Waiting) -> Text:
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
            raise HostError(markdown(words.refused("vacation_in_server", {})))
        try:
            done = await take_vacation(
                self.bot.service, self.store, interaction.guild_id, str(interaction.user.id), days
            )
        except VacationRefused as exc:
            raise HostError(markdown(words.refused(exc.code, exc.data))) from None
        text: str | Text
        if done.until is None:
            text = words.vacation_ended(self._links(done.matches), done.refunded, done.used, done.allowance)
        else:
            text = words.vacation_started(
                int(done.until.timestamp()), self._links(done.matches), done.used, done.allowance
            )
        await respond(interaction, markdown(text))

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
            raise HostError(markdown(words.refused("notify_in_server", {})))
        due = await self.reminders.choose(interaction.guild_id, str(interaction.user.id), how, hour)
        await respond(interaction, markdown(words.notify_saved(how, None if due is None else int(due.timestamp()))))

    async def config(self, interaction: discord.Interaction[Any], vacation_days: int) -> None:
        """`/dm config vacation_days:` (hosts): the yearly allowance of this server."""
        require_host(interaction)
        if interaction.guild_id is None:
            raise HostError(markdown(words.refused("vacation_in_server", {})))
        days = await self.store.set_allowance(interaction.guild_id, vacation_days)
        await respond(interaction, markdown(words.allowance_saved(days)))

    async def shown(self, guild_id: int) -> str:
        """The server's correspondence settings as `/dm config` shows them."""
        return markdown(words.allowance_line(await self.store.allowance(guild_id)))
