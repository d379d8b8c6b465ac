"""What a tournament tells everyone on Discord (issue 37): round pairings that ping both players and link each
game's room, withdrawals told in the channel and the rooms, the standings after every round and at the end,
decisions that name their host, and the tables a host posts publicly."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.adapters.discord._pages import page_link
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, mention, pinging
from bot.adapters.discord.render import Said, markdown
from bot.text import lines as text_lines
from bot.text import strong
from bot.tournaments.rounds import Format, Game
from bot.tournaments.service import Tournament, TournamentEvent, TournamentService
from bot.wording import tournament_told as told
from bot.wording.overview import review_link
from bot.wording.tournaments import standings_lines

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)


async def marked_names(service: TournamentService, tid: int) -> dict[int, str]:
    """Entry → name, the withdrawn marked `(withdrew)`."""
    entries = await service.entries(tid)
    return told.marked({e.id: e.name for e in entries}, [e.id for e in entries if e.withdrawn])


async def standings_message(service: TournamentService, t: Tournament, title: str) -> tuple[Said, discord.File]:
    """A table as text and picture (the withdrawn marked)."""
    from bot.wording.tournament_pictures import standings_png

    table, names = await service.standings(t.id), await marked_names(service, t.id)
    text = "\n".join([title, *standings_lines(table, names)])
    plain = title.replace("**", "")
    return Said(markdown(text)[:1900]), discord.File(io.BytesIO(standings_png(plain, table, names)), "standings.png")


def round_title(t: Tournament, number: int) -> str:
    """`Round 2`, or `Final`/`Semi-final`/`Quarter-final` in an elimination."""
    return told.round_title(number, t.rounds, t.format is Format.ELIMINATION)


class Teller:
    """The public side of one bot's tournaments; `TournamentFeature.announce` hands it the events it tells."""

    def __init__(self, bot: DMHost, service: TournamentService, when: Callable[[dt.datetime], str]) -> None:
        self.bot = bot
        self.service = service
        self.when = when
        self.round_posts: dict[tuple[int, int], int] = {}
        """(tournament, round) → the message id of its pairings in the channel (edited as rooms open)."""

    def _channel(self, t: Tournament) -> discord.abc.Messageable | None:
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        return channel if isinstance(channel, discord.abc.Messageable) else None

    def _name(self, t: Tournament, user_id: str | None) -> str | None:
        if not user_id or not str(user_id).isdigit():
            return None
        guild = self.bot.get_guild(t.guild_id) if t.guild_id is not None else None
        member = guild.get_member(int(user_id)) if guild is not None else None
        return member.display_name if member is not None else None

    async def _round_text(self, t: Tournament, number: int) -> tuple[Said, list[str]]:
        games = [g for g in await self.service.games(t.id) if g.round == number]
        entries = await self.service.entries(t.id)
        names = {e.id: e.name for e in entries}
        players = {e.id: e.player_id for e in entries}
        rooms = {g.board: f"<#{g.room_id}>" for g in games if g.room_id and g.room_id != t.channel_id}
        lines = told.pairing_pings(round_title(t, number), [g.pairing for g in games], names, players, rooms, mention)
        starts = min((g.starts_at for g in games if g.starts_at is not None), default=None)
        if starts is not None and starts > discord.utils.utcnow():
            lines.append(told.games_start(self.when(starts)))
        pinged = [players[e] for g in games if isinstance(g.pairing, Game) for e in (g.pairing.white, g.pairing.black)]
        return markdown(text_lines([strong(t.name), *lines])), pinged

    async def round(self, t: Tournament, ev: TournamentEvent) -> None:
        """The standings after the round before (from round 2), then the pairings, pinging both players."""
        channel = self._channel(t)
        if channel is None:
            return
        number = int(ev.data["round"])
        if number > 1:
            await self.standings(t, markdown(told.standings_title(t.name, number - 1, final=False)))
        text, pinged = await self._round_text(t, number)
        try:
            sent = await channel.send(text[:1990], allowed_mentions=pinging(*pinged))
        except discord.HTTPException:
            log.warning("tournament %s: could not announce round %s", t.id, number)
            return
        self.round_posts[(t.id, number)] = sent.id

    async def room_opened(self, t: Tournament, ev: TournamentEvent) -> None:
        """A game's room opened: its link goes into the round's pairings message."""
        number = int(ev.data["round"])
        message_id = self.round_posts.get((t.id, number))
        channel = self._channel(t)
        if message_id is None or not isinstance(channel, discord.TextChannel | discord.Thread):
            return
        text, pinged = await self._round_text(t, number)
        announcer = parts(self.bot).announcer
        with contextlib.suppress(discord.HTTPException):
            if announcer is not None:
                await announcer.take_write(channel.id)
            await channel.get_partial_message(
                message_id
            ).edit(  # an edit notifies nobody again on Discord
                content=text[:1990], allowed_mentions=pinging(*pinged)
            )

    async def standings(self, t: Tournament, title: str) -> None:
        """The table posted in the channel, as text and picture."""
        channel = self._channel(t)
        if channel is None:
            return
        text, picture = await standings_message(self.service, t, title)
        page = page_link(getattr(getattr(self.bot, "settings", None), "web_url", None), t.id, "tournament")
        if page is not None:  # every game of the table is on the tournament's page
            text = Said(f"{text}\n{review_link(page)}")
        try:
            await channel.send(text, file=picture, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("tournament %s: could not post the standings", t.id)

    async def round_soon(self, t: Tournament, ev: TournamentEvent) -> None:
        """The ping before a round's games start, in the channel, mentioning everyone whose game waits."""
        channel = self._channel(t)
        if channel is None:
            return
        text = markdown(told.round_soon_line(t.name, ev.data, mention, self.when))
        players = list(dict.fromkeys(str(p) for p in ev.data.get("players") or []))
        try:
            await channel.send(text[:1990], allowed_mentions=pinging(*players))
        except discord.HTTPException:
            log.warning("tournament %s: could not ping round %s's players", t.id, ev.data.get("round"))

    async def withdrawn(self, t: Tournament, ev: TournamentEvent) -> None:
        """A withdrawal: said in the channel (who took them out, the forfeits) and in each open game's room,
        pinging the opponent; the room's check-in card loses its button."""
        data = ev.data
        host = self._name(t, data.get("by")) if data.get("by") not in (None, data["player"]) else None
        channel = self._channel(t)
        if channel is not None:
            with contextlib.suppress(discord.HTTPException):
                await channel.send(
                    "\n".join(markdown(line) for line in told.withdrawn_lines(t.name, data, host)),
                    allowed_mentions=NO_PINGS,
                )
        for g in data.get("games") or []:
            room = self.bot.get_channel(int(g["room"])) if g.get("room") else None
            if room is None or room.id == t.channel_id or not isinstance(room, discord.abc.Messageable):
                continue
            if g.get("waiting"):
                await self._close_card(room, int(g["game"]))
            with contextlib.suppress(discord.HTTPException):
                await room.send(
                    markdown(told.withdrawn_room_line(t.name, data, g, mention)),
                    allowed_mentions=pinging(g["opponent"]),
                )

    async def _close_card(self, room: discord.abc.Messageable, game_id: int) -> None:
        """The game's check-in card without its I'm here button."""
        custom_id = f"tourgame:{game_id}:here"
        with contextlib.suppress(discord.HTTPException):
            async for m in room.history(limit=50):
                if m.author == self.bot.user and any(
                    getattr(c, "custom_id", None) == custom_id
                    for row in m.components
                    for c in getattr(row, "children", [])
                ):
                    await m.edit(view=None)
                    return

    async def decided(self, t: Tournament, ev: TournamentEvent) -> None:
        """A host's decision of a game (no live match): said in the channel, naming the host."""
        channel = self._channel(t)
        if channel is None:
            return
        host = self._name(t, ev.data.get("by")) or "a host"
        with contextlib.suppress(discord.HTTPException):
            await channel.send(markdown(told.decided_line(t.name, ev.data, host)), allowed_mentions=NO_PINGS)

    async def decided_here(self, message: discord.Message) -> bool:
        """A `here` typed in the room of a game already decided before its match opened (the opponent withdrew,
        a no-show): answered, not ignored. True when answered."""
        for t in await self.service.decided_in(message.channel.id):
            if t.channel_id == message.channel.id:
                continue
            if any(e.player_id == str(message.author.id) for e in await self.service.entries(t.id)):
                with contextlib.suppress(discord.HTTPException):
                    await message.reply(markdown(told.game_over_here(t.name)), allowed_mentions=NO_PINGS)
                return True
        return False


async def players_of_board(service: TournamentService, t: Tournament, board: int, round_: int | None) -> list[str]:
    """The player ids of a board of a round (default: the current one); none if there is no such game."""
    number = round_ or t.round
    entries = {e.id: e.player_id for e in await service.entries(t.id)}
    return [
        entries[e]
        for g in await service.games(t.id)
        if g.round == number and g.board == board and isinstance(g.pairing, Game)
        for e in (g.pairing.white, g.pairing.black)
    ]
