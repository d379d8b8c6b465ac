"""Series on Discord: the score and the time odds under a board's header, the series' result in its room,
and the rematch offer under every finished match (both players click; practice: the human alone).

The offers themselves are the rematch service's (`bot.series.rematch`, durable jobs: an offer outlives a
restart); this cog posts them, hands clicks over, chooses the rematch's room and shows the lapse."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, board_linked, respond
from bot.adapters.discord.render import Said, markdown
from bot.adapters.discord.series._views import rematch_view
from bot.host.events import EventKind
from bot.host.service import HostError, HostEvent, PlayerRef
from bot.series import NewsKind, Series, SeriesNews, SeriesService, SeriesStatus
from bot.series.rematch import Click, Offer, Rematches
from bot.store.matches import StoredMatch
from bot.wording import odds_line
from bot.wording import series as wording
from games import registry
from games.base import Termination

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)


class SeriesCog(commands.Cog, name="Series"):
    """Runs the series service for the bot and words what it reports; posts and routes the rematch offers."""

    def __init__(self, bot: DMHost, series: SeriesService, rematches: Rematches) -> None:
        parts(bot).series = self
        self.bot = bot
        self.series = series  # built by the composition root (`bot.compose.build_app`), as is `rematches`
        self.rematches = rematches
        rematches.room, rematches.lapsed = self._room, self._lapsed
        bot.app.bus.subscribe(self.on_series_news, topic=SeriesNews)
        bot.app.bus.subscribe(self.on_host_event)
        self._odds: dict[int, str | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = False

    def attach_notes(self) -> None:
        """The series score and the time odds under every board's header."""
        announcer = parts(self.bot).announcer
        if announcer is not None and self.board_note not in announcer.board_notes:
            announcer.board_notes.append(self.board_note)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once the host resumed its matches: the series carry on, and the offers' lapses run."""
        if not self._started:
            self._started = True
            await self.series.start()
            self.rematches.start()

    async def cog_unload(self) -> None:
        """Stop the series' pending work (the offers stay stored)."""
        if parts(self.bot).series is self:
            parts(self.bot).series = None
        await self.before_close()

    async def before_close(self) -> None:
        """Called by the bot before the service closes."""
        self.rematches.stop()
        for task in list(self._tasks):
            task.cancel()
        await self.series.close()

    def _spawn(self, work: Any) -> None:
        async def run() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("series/rematch work failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait until game ends and offers are handled (tests)."""
        await self.series.drain()
        while [t for t in self._tasks if not t.done()]:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- the board's lines ---------------------------------------------------------------
    def board_note(self, match_id: int) -> str | None:
        """`Series: alice 1–0 bob, best of 3 · game 2` and `Time odds: bob reserve 2:00`, when they apply."""
        lines = []
        series = self.series.of_match(match_id)
        if series is not None:
            lines.append(wording.series_line(series, match_id))
        if match_id not in self._odds:
            live = self.bot.service.live.get(match_id)
            if live is None:
                return "\n".join(lines) or None
            names = {seat: p.name for seat, p in live.players.items()}
            self._odds[match_id] = odds_line(live.clocks.tc.to_json(), names)
        odds = self._odds[match_id]
        if odds is not None:
            lines.append(odds)
        return "\n".join(lines) or None

    # -- ends ---------------------------------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """A single match finished: offer the rematch (a series game: the series decides)."""
        if ev.kind in (EventKind.RESUMED, EventKind.STARTED):
            self._odds.pop(ev.match_id, None)
        if ev.kind != EventKind.FINISHED or ev.result is None or self.series.of_match(ev.match_id) is not None:
            return
        if ev.data.get("reason") == Termination.NO_SHOW:  # nobody played: a rematch is not what was missed
            return
        result = ev.result
        if result.channel_id is None:
            return
        needed = {p.id: p.name for p in result.players.values() if not (result.practice and self._is_me(p.id))}
        self._spawn(self._offer(ev.match_id, result.guild_id, result.channel_id, needed))

    async def on_series_news(self, news: SeriesNews) -> None:
        """The series' end: its result in the room, with the offer of a new series."""
        if news.kind != NewsKind.OVER or news.series.channel_id is None:
            return
        text = markdown(wording.series_result(news.series))
        await self._post_series_result(news, text)
        if news.series.status == SeriesStatus.ABORTED:
            channel = self.bot.get_channel(news.series.channel_id)
            if isinstance(channel, discord.abc.Messageable):
                with contextlib.suppress(discord.HTTPException):
                    await channel.send(board_linked(self.bot, news.match_id, text), allowed_mentions=NO_PINGS)
            return
        needed = {p.id: p.name for p in news.series.players}
        await self._offer(news.match_id, news.series.guild_id, news.series.channel_id, needed, news.series)

    async def _post_series_result(self, news: SeriesNews, text: str) -> None:
        """The series' result also where game results go (the server's results channel, or a thread room's
        parent channel), as each game's result is."""
        overview = parts(self.bot).overview
        if overview is None:
            return
        with contextlib.suppress(discord.HTTPException):
            channel = await overview.results_channel_for(news.series.guild_id, news.series.channel_id)
            if channel is not None:
                await channel.send(board_linked(self.bot, news.match_id, text), allowed_mentions=NO_PINGS)

    def _is_me(self, player_id: str) -> bool:
        return self.bot.user is not None and player_id == str(self.bot.user.id)

    # -- the offer ----------------------------------------------------------------------
    async def _offer(
        self, match_id: int, guild_id: int | None, channel_id: int, needed: dict[str, str], series: Series | None = None
    ) -> None:
        """Open the rematch offer (after a series: of a new series) and post it after the final board in the
        room; it lapses after 10 minutes (a correspondence match's: after a move's time)."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        offer = await self.rematches.offer(match_id, guild_id, channel_id, needed, series)
        if offer is None:
            return
        await self._after_board(match_id, channel_id)
        try:
            message = await channel.send(
                await self._shown(offer), view=rematch_view(match_id), allowed_mentions=NO_PINGS
            )
        except discord.HTTPException:
            await self.rematches.withdraw(offer)
            log.warning("match %s: the rematch offer could not be posted", match_id)
            return
        await self.rematches.posted(offer, message.id)

    async def _shown(self, offer: Offer, line: str = "") -> Said:
        """The offer as shown in the room (the series' result before it, its latest line after it), ending
        with the link to the match's board."""
        series = await self.series.get(offer.series_id) if offer.series_id is not None else None
        before = markdown(wording.series_result(series)) if series is not None else ""
        minutes = int(offer.lasts // 60)
        text = wording.rematch_offer(list(offer.needed.values()), minutes, series.best_of if series else None)
        return board_linked(self.bot, offer.match_id, "\n".join(filter(None, [before, text, line])))

    async def _after_board(self, match_id: int, channel_id: int) -> None:
        """Wait until the announcer drew the final board, then for room within the channel's write limit
        (the announcer's own pacing: a room keeps within Discord's 5 messages per 5 s); the write is counted."""
        announcer = parts(self.bot).announcer
        if announcer is None:
            return
        room = announcer.rooms.get(match_id)
        task = getattr(room, "task", None)
        while task is not None and not task.done():  # polled: cancelling this wait never cancels the board
            await asyncio.sleep(0.05)
        await announcer.take_write(channel_id)

    async def _lapsed(self, offer: Offer) -> None:
        """The offer's job ran: its message says it lapsed, without the button (once: the job runs once)."""
        channel = self.bot.get_channel(offer.channel_id)
        if offer.message_id is None or not isinstance(channel, discord.abc.Messageable):
            return
        message = channel.get_partial_message(offer.message_id)
        with contextlib.suppress(discord.HTTPException):
            await message.edit(content=await self._shown(offer, wording.rematch_lapsed()), view=None)

    # -- the rematch ---------------------------------------------------------------------
    async def rematch_click(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """A click on the rematch button: noted; once everyone needed clicked, the rematch starts."""
        try:
            clicked = await self.rematches.click(match_id, str(interaction.user.id))
        except HostError as exc:
            from bot.wording import error_sentence

            await interaction.response.edit_message(view=None)
            await respond(interaction, markdown(error_sentence(exc)))
            return
        offer = clicked.offer
        if clicked.kind == Click.NOT_PLAYER:
            await respond(interaction, markdown(wording.rematch_not_player()))
        elif clicked.kind == Click.WAITING and offer is not None:
            line = wording.rematch_waiting(clicked.by, offer.waiting[0])
            await interaction.response.edit_message(content=await self._shown(offer, line))
        elif clicked.kind == Click.STARTED and offer is not None and clicked.match_id is not None:
            if clicked.practice is not None:
                self._practice_again(clicked.match_id, clicked.practice)
            where = f" in <#{clicked.channel_id}>" if clicked.new_room else ""
            line = wording.rematch_started(clicked.match_id, where)
            await interaction.response.edit_message(content=await self._shown(offer, line), view=None)
        else:  # lapsed, taken already, or its room gone
            await interaction.response.edit_message(view=None)
            await respond(interaction, markdown(wording.rematch_lapsed()))

    def _practice_again(self, match_id: int, stored: StoredMatch) -> None:
        """The practice opponent takes its seat in the rematch, at the same level."""
        commands_cog = parts(self.bot).commands
        me = str(self.bot.user.id) if self.bot.user is not None else None
        name = next((n for pid, n in stored.players.values() if pid == me), "")
        level = name.rpartition("(")[2].rstrip(")").strip()
        if commands_cog is not None and level:
            commands_cog.practice_bot().watch(match_id, level)

    async def _room(
        self, channel_id: int | None, game: str, players: tuple[PlayerRef, PlayerRef]
    ) -> tuple[int, bool] | None:
        """The rematch's room, like the original: a new thread of the same kind beside it, else the same
        channel (`Rematches.room`)."""
        old = self.bot.get_channel(channel_id) if channel_id is not None else None
        if old is None:
            return None
        if not isinstance(old, discord.Thread) or not isinstance(old.parent, discord.TextChannel):
            return old.id, False
        title = registry.TITLES.get(game, game)
        private = old.type == discord.ChannelType.private_thread
        try:
            thread = await old.parent.create_thread(
                name=f"{title}: {players[0].name} vs {players[1].name}"[:100],
                type=discord.ChannelType.private_thread if private else discord.ChannelType.public_thread,
                auto_archive_duration=10080,
                invitable=not private,
            )
        except discord.HTTPException:
            return old.id, False  # no new thread here: the rematch is played in the same room
        for player in players:
            if player.id.isdigit() and not self._is_me(player.id):
                with contextlib.suppress(discord.HTTPException):
                    await thread.add_user(discord.Object(int(player.id)))
        return thread.id, True


__all__ = ["SeriesCog"]
