"""The tournament feature on Discord: the cog that owns the service, takes typed `here`s, redraws the sign-up
card and announces the tournament's events (the commands are in `_group`, the card and its buttons in
`_card`, the public side of the announcements in `_told`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._pages import page_link
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, mention, pinging
from bot.adapters.discord.render import Said, markdown
from bot.adapters.discord.tournament._card import card_text, game_view, gone_from, stamp
from bot.adapters.discord.tournament._group import TournamentGroup
from bot.adapters.discord.tournament._told import Teller
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.service import (
    SIGNUP,
    Entry,
    Tournament,
    TournamentEvent,
    TournamentEventKind,
    TournamentRefused,
    TournamentService,
)
from bot.wording import error_sentence
from bot.wording import tournament_told as told
from bot.wording.overview import review_link
from bot.wording.tournaments import announcement, checkin_card, no_show_line

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)


class TournamentFeature(commands.Cog):
    """Owns the tournament service of this process, the `/dm tournament` group and the announcements."""

    def __init__(self, bot: DMHost, tournaments: TournamentService) -> None:
        parts(bot).tournaments = self
        self.bot = bot
        self.tournaments = tournaments  # built (and subscribed) by the composition root (`bot.compose`)
        tournaments.open_room, tournaments.rating_order = self.open_room, self.rating_order
        tournaments.left_server = self.left_server
        bot.app.bus.subscribe(self.announce, topic=TournamentEvent)
        self.teller = Teller(bot, self.tournaments, stamp)
        self.group: TournamentGroup | None = None
        self._caught_up = False
        self.cards: dict[int, int] = {}
        """Tournament → its sign-up card's message id, as posted or last clicked in this process."""
        self._stale: set[int] = set()
        self._redrawing: dict[int, asyncio.Task[None]] = {}

    async def cog_load(self) -> None:
        """Join `/dm` as its `tournament` subgroup and listen to the host before it resumes matches."""
        dm = self.bot.tree.get_command("dm")
        if not isinstance(dm, app_commands.Group):
            raise RuntimeError("the /dm commands must be loaded before the tournament feature")
        self.group = TournamentGroup(dm)
        dm.add_command(self.group, override=True)

    async def before_close(self) -> None:
        """The bot is closing: stop the timer and the card redraws before the database closes."""
        await self._stop_redraws()
        await self.tournaments.close()

    async def cog_unload(self) -> None:
        """Stop the timer and leave `/dm`."""
        if parts(self.bot).tournaments is self:
            parts(self.bot).tournaments = None
        await self._stop_redraws()
        await self.tournaments.close()
        dm = self.bot.tree.get_command("dm")
        if isinstance(dm, app_commands.Group):
            dm.remove_command("tournament")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once connected: record results that arrived unheard, open what is still to open, pair what is due."""
        if self._caught_up:
            return
        self._caught_up = True
        try:
            await self.tournaments.catch_up()
        except Exception:
            log.exception("tournament catch-up failed")
        self.tournaments.run()

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """`here` checks a player in: in a game's room (its I'm here button's twin), or in the channel of a
        tournament whose check-in is open. Anyone else's `here` is ignored."""
        if message.author.bot or message.guild is None or message.content.strip().lower().rstrip("!.") != "here":
            return
        player = str(message.author.id)
        try:
            for g in await self.tournaments.waiting_in(message.channel.id):
                try:
                    await self.tournaments.check_in_game(g.id, player)
                except TournamentRefused as exc:
                    if exc.code == RefusalCode.NOT_IN_GAME:
                        continue
                    raise
                return
            if await self.teller.decided_here(message):
                return
            for t in await self.tournaments.signup_in(message.channel.id):
                if t.checkin_s is None or not any(e.player_id == player for e in await self.tournaments.entries(t.id)):
                    continue
                await self.tournaments.check_in(t.id, player)
                with contextlib.suppress(discord.HTTPException):
                    await message.add_reaction("✅")
                if isinstance(message.channel, discord.TextChannel | discord.Thread):
                    self.redraw_card(t.id, message.channel)
                return
        except TournamentRefused as exc:
            with contextlib.suppress(discord.HTTPException):
                await message.reply(markdown(error_sentence(exc)), allowed_mentions=NO_PINGS)

    # -- the sign-up card ------------------------------------------------------------------
    def redraw_card(self, tid: int, channel: discord.TextChannel | discord.Thread) -> None:
        """Redraw a tournament's sign-up card soon (a typed `here`: no click edits it). Within the channel's
        write pacing; what changes while a redraw waits is drawn by that one edit."""
        self._stale.add(tid)
        if tid not in self._redrawing:
            self._redrawing[tid] = asyncio.create_task(self._redraw(tid, channel), name=f"tournament-card-{tid}")

    async def _redraw(self, tid: int, channel: discord.TextChannel | discord.Thread) -> None:
        announcer = parts(self.bot).announcer
        try:
            while tid in self._stale:
                if announcer is not None:
                    await announcer.take_write(channel.id)
                self._stale.discard(tid)
                card_id = self.cards.get(tid) or await self._find_card(tid, channel)
                if card_id is None:
                    return
                self.cards[tid] = card_id
                t = await self.tournaments.get(tid)
                text = card_text(t, await self.tournaments.entries(tid))
                card = channel.get_partial_message(card_id)
                if t.status == SIGNUP:
                    await card.edit(content=text, allowed_mentions=NO_PINGS)
                else:  # started: no Join/Leave any more
                    await card.edit(content=text, allowed_mentions=NO_PINGS, view=None)
        except discord.HTTPException:
            log.warning("tournament %s: the sign-up card could not be redrawn", tid)
        except Exception:
            log.exception("tournament %s: redrawing the sign-up card failed", tid)
        finally:  # here, not in a done callback: a `here` typed from now on starts a new redraw
            self._stale.discard(tid)
            self._redrawing.pop(tid, None)

    async def _find_card(self, tid: int, channel: discord.abc.Messageable) -> int | None:
        """The card among the channel's recent messages (after a restart, before anyone clicked it)."""
        head = f"**Tournament {tid} · "
        async for m in channel.history(limit=100):
            if m.author == self.bot.user and m.content.startswith(head):
                return m.id
        return None

    async def _stop_redraws(self) -> None:
        for task in list(self._redrawing.values()):
            task.cancel()
        await asyncio.gather(*self._redrawing.values(), return_exceptions=True)

    async def left_server(self, t: Tournament, entries: list[Entry] | Any) -> list[Entry]:
        """The entrants who are no longer members of the tournament's server (none while its member list is not
        complete here: a member missing from a partial cache has not left)."""
        guild = self.bot.get_guild(t.guild_id) if t.guild_id is not None else None
        return [] if guild is None or not guild.chunked else gone_from(guild, list(entries))

    async def rating_order(self, t: Tournament, entries: list[Entry] | Any) -> list[Entry]:
        """Entrants by rating in this server's table for the game (the unrated as 1500, in sign-up order)."""
        ratings = getattr(self.bot, "ratings", None)  # the ratings cog's `Ratings`
        if ratings is None:
            return list(entries)
        order = await ratings.seed_order(t.guild_id, t.game, [e.player_id for e in entries])
        by_player = {e.player_id: e for e in entries}
        return [by_player[p] for p in order]

    async def open_room(self, t: Tournament, white: Entry, black: Entry) -> int | None:
        """A public thread per game under the tournament's channel (the channel itself if that fails)."""
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if not isinstance(channel, discord.TextChannel):
            return t.channel_id
        try:
            thread = await channel.create_thread(
                name=f"{t.name} R{t.round}: {white.name} vs {black.name}"[:100],
                type=discord.ChannelType.public_thread,
            )
        except discord.HTTPException:
            log.warning("tournament %s: no thread for %s vs %s; playing in the channel", t.id, white.name, black.name)
            return t.channel_id
        return thread.id

    async def announce(self, ev: TournamentEvent) -> None:
        """Rounds, rematches, withdrawals, decisions, the standings and the winner, said in the tournament's
        channel (the public side in `_told`)."""
        if ev.kind not in (
            TournamentEventKind.ROUND,
            TournamentEventKind.ROUND_SOON,
            TournamentEventKind.STAYS,
            TournamentEventKind.REMATCH,
            TournamentEventKind.FINISHED,
            TournamentEventKind.CANCELLED,
            TournamentEventKind.PAUSED,
            TournamentEventKind.RESUMED,
            TournamentEventKind.STARTED,
            TournamentEventKind.GAME_ROOM,
            TournamentEventKind.NO_SHOW,
            TournamentEventKind.WITHDRAWN,
            TournamentEventKind.RESULT,
        ):
            return
        t = await self.tournaments.get(ev.tournament_id)
        if ev.kind == TournamentEventKind.GAME_ROOM:
            await self._checkin_card(t, ev.data)
            await self.teller.room_opened(t, ev)
            return
        if ev.kind == TournamentEventKind.ROUND:
            await self.teller.round(t, ev)
            return
        if ev.kind == TournamentEventKind.WITHDRAWN:
            await self.teller.withdrawn(t, ev)
            return
        if ev.kind == TournamentEventKind.ROUND_SOON:
            await self.teller.round_soon(t, ev)
            return
        if ev.kind == TournamentEventKind.RESULT:
            await self.teller.decided(t, ev)
            return
        if ev.kind == TournamentEventKind.STARTED:
            await self.cards_closed(t)
        if ev.kind == TournamentEventKind.NO_SHOW:
            await self._no_show(t, ev.data)
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if not isinstance(channel, discord.abc.Messageable):
            return
        names = await self.tournaments.names(t.id)
        text = markdown(announcement(t.name, ev.kind, ev.data, names, stamp, discord.utils.utcnow()))
        if ev.kind == TournamentEventKind.NO_SHOW and ev.data.get("match"):
            page = page_link(getattr(getattr(self.bot, "settings", None), "web_url", None), int(ev.data["match"]))
            text = text if page is None else Said(f"{text} {review_link(page)}")  # a link: sent as it is
        try:
            await channel.send(text[:1990], allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("tournament %s: could not announce %s", t.id, ev.kind)
        if ev.kind == TournamentEventKind.FINISHED:
            await self.teller.standings(t, markdown(told.standings_title(t.name, t.round, final=True)))

    async def cards_closed(self, t: Tournament) -> None:
        """The start: the sign-up card is redrawn without its buttons."""
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if isinstance(channel, discord.TextChannel | discord.Thread):
            self.redraw_card(t.id, channel)

    async def _checkin_card(self, t: Tournament, data: dict[str, Any]) -> None:
        """A game's room opened: with a per-game check-in, both players are pinged with an I'm here button."""
        if not data.get("checkin"):
            return
        room = self.bot.get_channel(int(data["room"]))
        if not isinstance(room, discord.abc.Messageable):
            return
        white, black = data["white"], data["black"]
        text = markdown(checkin_card(t.name, data, mention, stamp, discord.utils.utcnow()))
        try:
            await room.send(text, view=game_view(int(data["game"])), allowed_mentions=pinging(white, black))
        except discord.HTTPException:
            log.warning("tournament %s: could not post the check-in of game %s", t.id, data["game"])

    async def _no_show(self, t: Tournament, data: dict[str, Any]) -> None:
        """A no-show ruling: said in the game's room, pinging both; a rated tournament's forfeit is rated."""
        if data.get("rated"):
            ratings = getattr(self.bot, "ratings", None)  # the ratings cog's `Ratings`
            if ratings is not None:
                try:
                    await ratings.settle(int(data["match"]))
                except Exception:
                    log.exception("tournament %s: rating the no-show of match %s failed", t.id, data["match"])
        room = self.bot.get_channel(int(data["room"])) if data.get("room") else None
        if room is None or room.id == t.channel_id or not isinstance(room, discord.abc.Messageable):
            return
        text = markdown(no_show_line(data, mention))
        with contextlib.suppress(discord.HTTPException):
            await room.send(text, allowed_mentions=pinging(data["winner"], data["absent"]))
