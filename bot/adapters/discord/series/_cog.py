"""Series on Discord: the score and the time odds under a board's header, the series' result in its room,
and the rematch offer under every finished match (both players click; practice: the human alone)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, board_linked, respond
from bot.adapters.discord.series._views import rematch_view
from bot.host import rules as house_rules
from bot.host.events import EventKind
from bot.host.service import HostError, HostEvent, PlayerRef
from bot.series import NewsKind, Series, SeriesNews, SeriesService, SeriesStatus
from bot.store.matches import StoredMatch
from bot.types import LIVE_CLOCK_KEYS
from bot.wording import odds_line
from bot.wording import series as wording
from games import registry
from games.base import Termination

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

REMATCH_SECONDS = 600.0
"""How long a rematch offer stays open (10 minutes)."""
CLOCK_KEYS = LIVE_CLOCK_KEYS


@dataclass
class Offer:
    """An open rematch offer under a finished match (or series)."""

    match_id: int
    channel_id: int
    needed: dict[str, str]
    """Player id → name of everyone who must click."""
    deadline: float
    series: Series | None = None
    clicked: set[str] = field(default_factory=set)
    message: discord.Message | None = None
    text: str = ""


def rematch_clock(tc: dict[str, Any]) -> dict[str, Any]:
    """A finished match's time control (`TimeControl.to_json`, by its seats) as the clock settings of its
    rematch, whose players are named in the swapped order (its seat 2 first): odds go with their player."""
    out: dict[str, Any] = {k: tc[k] for k in CLOCK_KEYS if tc.get(k) is not None}
    for seat, odds in (tc.get("odds") or {}).items():
        for key, value in odds.items():
            out[f"p{3 - int(seat)}:{key}"] = value
    return out


class SeriesCog(commands.Cog, name="Series"):
    """Runs the series service for the bot and words what it reports."""

    def __init__(self, bot: DMHost, series: SeriesService) -> None:
        parts(bot).series = self
        self.bot = bot
        self.series = series  # built by the composition root (`bot.compose.build_app`)
        self.series.subscribe(self.on_series_news)
        bot.app.bus.subscribe(self.on_host_event)
        self.offers: dict[int, Offer] = {}
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
        """Once the host resumed its matches: the series carry on."""
        if not self._started:
            self._started = True
            await self.series.start()

    async def cog_unload(self) -> None:
        """Stop the lapse timers and the series' pending work."""
        if parts(self.bot).series is self:
            parts(self.bot).series = None
        await self.before_close()

    async def before_close(self) -> None:
        """Called by the bot before the service closes."""
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
        while [t for t in self._tasks if not t.done() and t.get_name() != "lapse"]:
            await asyncio.gather(*[t for t in self._tasks if t.get_name() != "lapse"], return_exceptions=True)

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
        self._spawn(self._offer(Offer(ev.match_id, result.channel_id, needed, self._now() + REMATCH_SECONDS)))

    async def on_series_news(self, news: SeriesNews) -> None:
        """The series' end: its result in the room, with the offer of a new series."""
        if news.kind != NewsKind.OVER or news.series.channel_id is None:
            return
        text = wording.series_result(news.series)
        await self._post_series_result(news, text)
        if news.series.status == SeriesStatus.ABORTED:
            channel = self.bot.get_channel(news.series.channel_id)
            if isinstance(channel, discord.abc.Messageable):
                with contextlib.suppress(discord.HTTPException):
                    await channel.send(board_linked(self.bot, news.match_id, text), allowed_mentions=NO_PINGS)
            return
        needed = {p.id: p.name for p in news.series.players}
        offer = Offer(news.match_id, news.series.channel_id, needed, self._now() + REMATCH_SECONDS, news.series)
        await self._offer(offer, text)

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

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    async def _offer(self, offer: Offer, before: str = "") -> None:
        """Post the rematch offer (and what comes before it) in the room; it lapses after 10 minutes."""
        channel = self.bot.get_channel(offer.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        if offer.series is None and await self._paired_elsewhere(offer.match_id):
            return
        await self._after_board(offer.match_id, offer.channel_id)
        series_of = offer.series.best_of if offer.series is not None else None
        offer.text = "\n".join(
            filter(
                None,
                [before, wording.rematch_offer(list(offer.needed.values()), int(REMATCH_SECONDS // 60), series_of)],
            )
        )
        try:
            offer.message = await channel.send(
                self._shown(offer), view=rematch_view(offer.match_id), allowed_mentions=NO_PINGS
            )
        except discord.HTTPException:
            log.warning("match %s: the rematch offer could not be posted", offer.match_id)
            return
        self.offers[offer.match_id] = offer
        task = asyncio.create_task(self._lapse(offer), name="lapse")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _shown(self, offer: Offer, line: str = "") -> str:
        """The offer as shown in the room (with its latest line), ending with the link to the match's board."""
        return board_linked(self.bot, offer.match_id, "\n".join(filter(None, [offer.text, line])))

    async def _paired_elsewhere(self, match_id: int) -> bool:
        """A tournament's game: its next opponent is the pairing's business, so no rematch is offered."""
        stored = await self.bot.service.record(match_id)
        created = stored.events[0].data if stored is not None and stored.events else {}
        return str(created.get("by") or "").startswith("tournament:")

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

    async def _lapse(self, offer: Offer) -> None:
        await asyncio.sleep(max(0.0, offer.deadline - self._now()))
        if self.offers.get(offer.match_id) is offer:
            del self.offers[offer.match_id]
            if offer.message is not None:
                with contextlib.suppress(discord.HTTPException):
                    await offer.message.edit(content=self._shown(offer, wording.rematch_lapsed()), view=None)

    # -- the rematch ---------------------------------------------------------------------
    async def rematch_click(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """A click on the rematch button: noted; once everyone needed clicked, the rematch starts."""
        offer = self.offers.get(match_id)
        if offer is None or self._now() > offer.deadline:
            await interaction.response.edit_message(view=None)
            await respond(interaction, wording.rematch_lapsed())
            return
        player = str(interaction.user.id)
        if player not in offer.needed:
            await respond(interaction, wording.rematch_not_player())
            return
        offer.clicked.add(player)
        waiting = [name for pid, name in offer.needed.items() if pid not in offer.clicked]
        if waiting:
            line = wording.rematch_waiting(offer.needed[player], waiting[0])
            await interaction.response.edit_message(content=self._shown(offer, line))
            return
        del self.offers[match_id]
        await interaction.response.edit_message(view=None)
        try:
            new_id, where = await self._rematch(offer, player)
        except HostError as exc:
            from bot.wording import error_sentence

            await respond(interaction, error_sentence(exc))
            return
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(content=self._shown(offer, wording.rematch_started(new_id, where)))

    async def _rematch(self, offer: Offer, by: str) -> tuple[int, str]:
        """Start the rematch (colours swapped, same options, clock and rules) in a room like the original's."""
        if offer.series is not None:
            old = offer.series
            channel, thread = await self._room(old.channel_id, old.game, old.players)
            _, match_id = await self.series.create(
                old.game,
                list(old.players),
                old.best_of,
                options=old.options,
                clock=old.clock,
                rules=old.rules,
                first=3 - old.first,
                guild_id=old.guild_id,
                channel_id=channel.id,
                by=by,
                rated=old.rated,
            )
            return match_id, f" in {thread.mention}" if thread is not None else ""
        stored = await self.bot.service.record(offer.match_id)
        if stored is None:
            raise HostError(wording.rematch_lapsed())
        seats = {int(s): PlayerRef(pid, name) for s, (pid, name) in stored.snapshot["players"].items()}
        players = (seats[2], seats[1])  # colours swapped: who moved second moves first
        channel, thread = await self._room(stored.channel_id, stored.game, players)
        created = stored.events[0].data if stored.events else {}
        practice = bool(created.get("practice"))
        try:
            chosen = house_rules.parse(stored.game, created.get("rules"))
        except house_rules.RulesError:
            chosen = None
        match_id = await self.bot.service.create_match(
            stored.game,
            list(players),
            options=stored.options,
            clock=rematch_clock(stored.snapshot["clocks"]["tc"]),
            rules=chosen,
            first=1,
            guild_id=stored.guild_id,
            channel_id=channel.id,
            by=by,
            rated=stored.rated and not practice,
            practice=practice,
        )
        if practice:
            self._practice_again(match_id, stored)
        return match_id, f" in {thread.mention}" if thread is not None else ""

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
    ) -> tuple[Any, discord.Thread | None]:
        """A room like the original: a new thread of the same kind beside it, else the same channel."""
        old = self.bot.get_channel(channel_id) if channel_id is not None else None
        if old is None:
            raise HostError(wording.rematch_lapsed())
        if not isinstance(old, discord.Thread) or not isinstance(old.parent, discord.TextChannel):
            return old, None
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
            return old, None  # no new thread here: the rematch is played in the same room
        for player in players:
            if player.id.isdigit() and not self._is_me(player.id):
                with contextlib.suppress(discord.HTTPException):
                    await thread.add_user(discord.Object(int(player.id)))
        return thread, thread


__all__ = ["REMATCH_SECONDS", "Offer", "SeriesCog"]
