"""The overview: live matches, move records, status, the board picture, histories and posted results.

`/dm live` and `/dm moves` join the `/dm` group from here (the group itself is `MatchCommands`); the
existing `/dm status`, `/dm board` and `/dm history` call the reply builders below. A finished match's
result line is posted, with a link to its room, in the room's parent channel (public threads) or in the
server's results channel (`/dm config results_channel:`), never for practice matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import wording
from bot.adapters.discord._decider import decider_name
from bot.adapters.discord._pages import page_link
from bot.adapters.discord._parts import parts
from bot.adapters.discord._pictures import deadline_line, pending_result, picture, zoom_picture
from bot.adapters.discord._shared import (
    NO_PINGS,
    find_match,
    host_bot,
    may_read_room,
    respond,
    same_guild,
)
from bot.adapters.discord.render import Said, markdown
from bot.host.events import EventKind, MatchResult, Refusal
from bot.host.service import HostError, HostEvent, Live, MatchService
from bot.records.matchlog import result_of
from bot.records.replay import replay_match
from bot.store.matches import StoredMatch
from bot.types import ClockKind, MatchStatus
from bot.wording import correspondence as correspondence_words
from bot.wording.decisions import told_result
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

MAX_CONTENT = 1900
MAX_EMBED = 4000
LIVE_SHOWN = 25


async def _rating_changes(bot: DMHost, match_id: int) -> str:
    """The ratings hook of a posted result: a line with each player's new rating and change (bot.ratings)."""
    ratings = getattr(bot, "ratings", None)
    rated = await ratings.settle(match_id) if ratings is not None else None
    if rated is None:
        return ""
    from bot.wording.ratings import change_line

    return "\n" + change_line(rated)


def _title(game: str) -> str:
    return registry.TITLES.get(game, game)


def _board_id(bot: DMHost, match_id: int) -> int | None:
    announcer = parts(bot).announcer
    return announcer.board_message_id(match_id) if announcer is not None else None


def room_link(guild_id: int | None, channel_id: int | None, board_id: int | None = None) -> str:
    """The room as a clickable channel mention, and a link straight to its board message when known."""
    if channel_id is None:
        return "no room"
    link = f"<#{channel_id}>"
    if board_id is not None and guild_id is not None:
        link += f" ([board](https://discord.com/channels/{guild_id}/{channel_id}/{board_id}))"
    return link


def _players(live: Live) -> str:
    return f"{wording.seat_name(live, 1)} vs {wording.seat_name(live, 2)}"


def _turn(live: Live) -> str:
    """Whose turn it is, or what the match waits for."""
    if live.status != MatchStatus.ONGOING:
        return wording.state_words(live.status)
    seat = live.to_move()
    return f"{wording.seat_name(live, seat)} to move" if seat in live.players else "in play"


def status_reply(bot: DMHost, live: Live) -> str:
    """`/dm status`: game, players, move number, whose turn, both clocks with the deadline, the room."""
    service = bot.service
    clocks = wording.clocks_text(live, service.now())
    odds = wording.odds_line(live.clocks.tc.to_json(), {seat: p.name for seat, p in live.players.items()})
    return markdown(
        wording.status_text(
            live.id,
            live.ruleset.title,
            _players(live),
            live.ply + 1,
            _turn(live),
            clocks + f"\n{odds}" if odds else clocks,
            deadline_line(live, service.now()),
            room_link(live.guild_id, live.channel_id, _board_id(bot, live.id)),
        )
    )


def board_reply(bot: DMHost, live: Live) -> tuple[str, list[discord.File]]:
    """`/dm board`: the picture (and, for a large Dots field, the crop round the last move) with whose
    turn it is; the text board when the game has no picture."""
    announcer = parts(bot).announcer
    room = announcer.rooms.get(live.id) if announcer is not None else None
    prev_state = getattr(room, "prev_state", None)
    last_move = getattr(room, "last_move", None)
    png = picture(live, prev_state=prev_state, last_move=last_move, result=pending_result(live))
    head = f"**Match {live.id} · {live.ruleset.title}** · {_players(live)} · {_turn(live)}"
    if png is None:
        board = markdown(wording.board_text(live, bot.service.now()))
        return f"{head}\n```\n{board[: MAX_CONTENT - len(head) - 10]}\n```", []
    files = [discord.File(io.BytesIO(png), filename="board.png")]
    crop = zoom_picture(live, prev_state=prev_state, last_move=last_move)
    if crop is not None:
        files.append(discord.File(io.BytesIO(crop), filename="board-zoom.png"))
    return head, files


def _names(stored: StoredMatch) -> tuple[str, str]:
    return (
        wording.display(stored.players.get(1, ("", "?"))[1]),
        wording.display(stored.players.get(2, ("", "?"))[1]),
    )


def history_lines(
    matches: Sequence[StoredMatch], service: MatchService | None = None, web_url: str | None = None
) -> list[str]:
    """`/dm history`: date, game, players, the result in words, the score, a link to the room and (when the
    review pages have a public address, `web_url`) to the match's review page; for a correspondence match
    running here, who is to move and their time left in days and hours."""
    lines = []
    for m in matches:
        result = result_of(m)
        live = service.live.get(m.id) if service is not None else None
        if live is not None and live.clocks.tc.kind == ClockKind.CORRESPONDENCE:
            result = f"{result} · {_time_left(live, service.now() if service is not None else 0.0)}"
        when = discord.utils.format_dt(m.finished_at or m.created_at, "d")
        names = " vs ".join(_names(m))
        lines.append(
            wording.history_line(
                m.id, when, _title(m.game), names, result, room_link(m.guild_id, m.channel_id), page_link(web_url, m.id)
            )
        )
    return lines


def _time_left(live: Live, now: float) -> str:
    """A running correspondence match in `/dm history`: who is to move and their time left."""
    seat = live.clocks.running
    if seat not in live.players:
        return _turn(live)
    rem = live.clocks.remaining(seat, now)
    away = live.away.get(seat)
    return markdown(
        correspondence_words.history_left(
            wording.seat_name(live, seat), wording.correspondence_left(rem), None if away is None else away[1]
        )
    )


def may_read_record(interaction: discord.Interaction[Any], stored: StoredMatch) -> bool:
    """Whether the user may read a match's record: a player, a host, or anyone who can read its room."""
    return may_read_room(interaction, stored.channel_id, [pid for pid, _ in stored.players.values()])


async def _readable_record(interaction: discord.Interaction[Any], match: int | None) -> StoredMatch:
    """The stored match (with its log) that a command is about, if the user may read it."""
    bot = host_bot(interaction)
    if match is None:
        match = find_match(bot.service, interaction.channel_id, None, str(interaction.user.id), interaction.guild_id).id
    interaction.extras["match_id"] = match
    stored = await bot.service.record(match)
    if (
        stored is None
        or not same_guild(stored.guild_id, interaction.guild_id)
        or not may_read_record(interaction, stored)
    ):
        raise HostError(Refusal("unseen_record", data={"match": match}))
    return stored


def move_record(stored: StoredMatch) -> list[str]:
    """Every move of the line played (what the rules rewound left out), numbered, with who and time."""
    _ruleset, frames = replay_match(stored)
    names = dict(enumerate(_names(stored), 1))
    return [wording.move_line(f.ply, names.get(f.seat or 0, "?"), f.move or "?", f.used) for f in frames[1:]]


CORRESPONDENCE_HEADING = "**Correspondence** (days per move)"


def _grouped(shown: list[Live], slow: list[Live]) -> list[Live | str]:
    """Live matches first, then the correspondence ones under their own heading."""
    fast: list[Live | str] = [lv for lv in shown if lv not in slow]
    return [*fast, CORRESPONDENCE_HEADING, *slow] if slow else fast


def make_commands() -> tuple[app_commands.Command[Any, ..., None], ...]:
    """Fresh `/dm live` and `/dm moves` commands for one bot's `/dm` group (a command belongs to one group)."""

    @app_commands.command(name="live", description="The matches being played in this server right now")
    @app_commands.guild_only()
    async def live_command(interaction: discord.Interaction[Any]) -> None:
        """Id, game, players, whose turn, the running deadline and a link to each live match's room."""
        bot = host_bot(interaction)
        shown = [
            lv
            for lv in bot.service.live_in_guild(interaction.guild_id)
            if may_read_room(interaction, lv.channel_id, [p.id for p in lv.players.values()])
        ]
        if not shown:
            await respond(interaction, markdown(wording.no_live_matches()))
            return
        now = bot.service.now()
        slow = [lv for lv in shown if lv.clocks.tc.kind == ClockKind.CORRESPONDENCE]
        lines = [
            item
            if isinstance(item, str)
            else wording.live_line(
                item.id,
                item.ruleset.title,
                _players(item),
                _turn(item),
                deadline_line(item, now),
                room_link(item.guild_id, item.channel_id, _board_id(bot, item.id)),
            )
            for item in _grouped(shown, slow)[:LIVE_SHOWN]
        ]
        embed = discord.Embed(title=wording.live_title(len(shown)), description=markdown("\n".join(lines))[:MAX_EMBED])
        await respond(interaction, embed=embed)

    @app_commands.command(name="moves", description="A match's whole move record (anyone who can read its room)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def moves_command(
        interaction: discord.Interaction[Any], match: app_commands.Range[int, 1] | None = None
    ) -> None:
        """The moves as text, or as a file when they are too many for one message."""
        stored = await _readable_record(interaction, match)
        lines = await asyncio.to_thread(move_record, stored)
        head = markdown(wording.moves_header(stored.id, _title(stored.game), " vs ".join(_names(stored)), len(lines)))
        if not lines:
            await respond(interaction, markdown(f"{head}\n{wording.no_moves_yet()}"))
            return
        text = "\n".join(lines)
        if len(head) + len(text) + 10 <= MAX_CONTENT:
            await respond(interaction, markdown(f"{head}\n```\n{text}\n```"))
            return
        record = discord.File(io.BytesIO((text + "\n").encode()), filename=f"match-{stored.id}-moves.txt")
        await respond(interaction, markdown(f"{head}\n{wording.moves_in_file(len(lines))}"), file=record)

    return (live_command, moves_command)


COMMAND_NAMES = ("live", "moves")


class Overview(commands.Cog):
    """Adds `/dm live` and `/dm moves` to the `/dm` group, and posts each result where people look."""

    def __init__(self, bot: DMHost) -> None:
        parts(bot).overview = self
        self.bot = bot
        self.tasks: set[asyncio.Task[None]] = set()
        bot.app.bus.subscribe(self.on_host_event)

    def _group(self) -> app_commands.Group:
        group = self.bot.tree.get_command("dm")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("the /dm group must be loaded before the overview")
        return group

    async def cog_load(self) -> None:
        """Join the `/dm` group."""
        group = self._group()
        for command in make_commands():
            if group.get_command(command.name) is None:
                group.add_command(command)

    async def cog_unload(self) -> None:
        """Leave the `/dm` group; finish posting results."""
        if parts(self.bot).overview is self:
            parts(self.bot).overview = None
        with contextlib.suppress(RuntimeError):
            group = self._group()
            for name in COMMAND_NAMES:
                group.remove_command(name)
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    # -- results where people look -----------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """On a result: post it (later, outside the service's lock) where people look."""
        if ev.kind != EventKind.FINISHED:
            return
        live = self.bot.service.live.get(ev.match_id)
        announcer = parts(self.bot).announcer
        room = announcer.rooms.get(ev.match_id) if announcer is not None else None
        live = live or getattr(room, "live", None)
        if live is None and ev.detail.get("unplayed") and ev.result is not None:
            task = asyncio.create_task(self._post_unplayed(ev, ev.result), name=f"result-{ev.match_id}")
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return
        if live is None or self._practice(live):
            return
        board = _board_id(self.bot, live.id)
        task = asyncio.create_task(self._post_result(live, ev, board), name=f"result-{live.id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _practice(self, live: Live) -> bool:
        me = self.bot.user
        return me is not None and live.seat_of(str(me.id)) is not None

    async def results_channel(self, live: Live) -> discord.abc.Messageable | None:
        """The server's results channel, else the parent channel of a public thread room (None: the result
        stays in the room, which is then the channel itself or a private thread)."""
        return await self._results_channel_of(live.guild_id, live.channel_id)

    def board_reply(self, live: Live) -> tuple[str, list[discord.File]]:
        """`/dm board`'s body (`board_reply`), for the `/dm` commands."""
        return board_reply(self.bot, live)

    def status_reply(self, live: Live) -> str:
        """`/dm status`'s body (`status_reply`), for the `/dm` commands."""
        return status_reply(self.bot, live)

    def history_lines(
        self, matches: Sequence[StoredMatch], service: MatchService | None = None, web_url: str | None = None
    ) -> list[str]:
        """`/dm history`'s lines (`history_lines`), for the `/dm` commands."""
        return history_lines(matches, service, web_url)

    def may_read_record(self, interaction: discord.Interaction[Any], stored: StoredMatch) -> bool:
        """Whether the user may read a match's record without being a host (`may_read_record`)."""
        return may_read_record(interaction, stored)

    async def results_channel_for(self, guild_id: int | None, channel_id: int | None) -> discord.abc.Messageable | None:
        """Where the results of a room's games go (a series' result goes there too)."""
        return await self._results_channel_of(guild_id, channel_id)

    async def _results_channel_of(self, guild_id: int | None, channel_id: int | None) -> discord.abc.Messageable | None:
        guild = self.bot.get_guild(guild_id) if guild_id is not None else None
        if guild is None or channel_id is None:
            return None
        store = getattr(self.bot, "guild_settings", None)
        configured = store.cached(guild.id).results_channel_id if store is not None else None
        if configured is not None:
            channel = guild.get_channel(configured)
            return channel if isinstance(channel, discord.TextChannel) and channel.id != channel_id else None
        room = guild.get_channel_or_thread(channel_id)
        if room is None:
            with contextlib.suppress(discord.HTTPException):
                fetched = await self.bot.fetch_channel(channel_id)
                room = fetched if isinstance(fetched, discord.Thread) else None
        if isinstance(room, discord.Thread) and not room.is_private():
            parent = room.parent
            return parent if isinstance(parent, discord.TextChannel) else None
        return None

    async def _place(self, match_id: int) -> tuple[str, int, int] | None:
        """The tournament (name), round and board a match was opened for; None: not a tournament's game."""
        app = getattr(self.bot, "app", None)
        if app is None:
            return None
        try:
            place = await app.tournaments.place_of(match_id)
        except Exception:
            log.exception("match %s: its tournament could not be read", match_id)
            return None
        return None if place is None else (place.name, place.round, place.board)

    async def _post_unplayed(self, ev: HostEvent, result: MatchResult) -> None:
        """A match won without being played (a scheduled DM's no-show): its result where results go. A
        tournament's no-show is told once, by the tournament in its channel (naming the cup and round)."""
        try:
            if await self._place(result.match_id) is not None:
                return
            channel = await self._results_channel_of(result.guild_id, result.channel_id)
            if channel is None:
                return
            name = {seat: wording.display(p.name) for seat, p in result.players.items()}
            text = markdown(
                wording.posted_result(
                    result.match_id,
                    _title(result.game),
                    f"{name.get(1)} vs {name.get(2)}",
                    wording.result_sentence(result.reason, result.winner, name),
                    room_link(result.guild_id, result.channel_id),
                )
            )
            text = markdown(text + await _rating_changes(self.bot, result.match_id))
            await channel.send(text[:MAX_CONTENT], allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("match %s: the result could not be posted", ev.match_id)
        except Exception:
            log.exception("match %s: posting the result failed", ev.match_id)

    async def _post_result(self, live: Live, ev: HostEvent, board: int | None) -> None:
        try:
            channel = await self.results_channel(live)
            if channel is None:
                return
            names = {seat: wording.seat_name(live, seat) for seat in live.players}
            result = told_result(
                ev.data.get("reason"),
                ev.data.get("winner"),
                names,
                score=ev.detail.get("score"),
                by=ev.detail.get("by"),
                decider=decider_name(self.bot, live, ev),
            )
            posted = wording.posted_result(
                live.id,
                live.ruleset.title,
                _players(live),
                result,
                room_link(live.guild_id, live.channel_id, board),
            )
            place = await self._place(live.id)
            if place is not None:  # a tournament's game: which cup and round it belongs to
                posted = wording.in_tournament(*place) + posted
            text = markdown(posted + await _rating_changes(self.bot, live.id))
            page = page_link(getattr(getattr(self.bot, "settings", None), "web_url", None), live.id)
            if page is not None:  # a link, not words: sent as it is
                text = Said(f"{text}\nReview: <{page}>")
            await channel.send(text[:MAX_CONTENT], allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("match %s: the result could not be posted outside the room", live.id)
        except Exception:
            log.exception("match %s: posting the result failed", live.id)
