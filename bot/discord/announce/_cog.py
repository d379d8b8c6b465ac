"""Announcements: one board message per match kept up to date, and host events batched per match.

Events are collected for `announce_batch_seconds` and sent as one message, so a busy room stays far
below Discord's rate limits. Events that need a player's attention ping exactly that player and
carry the buttons for the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord._shared import NO_PINGS, mention, pinging
from bot.discord.announce._views import buttons
from bot.service import HostEvent, Live

if TYPE_CHECKING:
    from bot.app import DMHost

log = logging.getLogger(__name__)

BOARD_KINDS = frozenset(
    {"started", "resumed", "move", "provisional", "takeback", "mulligan", "finished", "aborted", "paused", "unpaused"}
)
"""Events after which the board message is redrawn."""

QUIET_KINDS = frozenset({"illegal", "hint", "confirm"})
"""Events the room listener already answered with a reply to the player's message."""

MAX_CONTENT = 1900


@dataclass
class Room:
    """What the announcer knows about one match's room."""

    channel_id: int | None = None
    live: Live | None = None
    board: discord.Message | None = None
    queued: list[HostEvent] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


def picture(live: Live) -> bytes | None:
    """A PNG of the position when the pictures module exists (it is optional)."""
    try:
        from games import pictures  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        png: bytes = pictures.render_png(live.ruleset, live.state)
    except Exception:
        log.exception("drawing match %s failed; showing the text board", live.id)
        return None
    return png


class Announcer(commands.Cog):
    """Turns host events into Discord messages."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.rooms: dict[int, Room] = {}
        self.pictures = True
        bot.service.subscribe(self.on_host_event)

    async def cog_unload(self) -> None:
        """Send what is still buffered."""
        await self.drain()

    # -- collecting ------------------------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """Buffer an event (called inside the service's lock: never wait on Discord here)."""
        room = self.rooms.setdefault(ev.match_id, Room())
        live = self.bot.service.live.get(ev.match_id)
        if live is not None:
            room.live = live
            room.channel_id = live.channel_id
        room.queued.append(ev)
        if room.task is None or room.task.done():
            room.task = asyncio.create_task(self._flush_later(ev.match_id), name=f"announce-{ev.match_id}")

    async def _flush_later(self, match_id: int) -> None:
        await asyncio.sleep(self.bot.settings.announce_batch_seconds)
        try:
            await self.flush(match_id)
        except Exception:
            log.exception("announcing in match %s failed", match_id)

    async def drain(self) -> None:
        """Wait until every buffered event has been sent (tests, shutdown)."""
        while True:
            tasks = [r.task for r in self.rooms.values() if r.task is not None and not r.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- sending ---------------------------------------------------------------------
    async def flush(self, match_id: int) -> None:
        """Send one message with everything buffered for a match, then redraw its board."""
        room = self.rooms.get(match_id)
        if room is None or not room.queued:
            return
        events, room.queued = room.queued, []
        channel = await self._channel(match_id, room)
        if channel is None:
            log.warning("match %s: no room to announce %d event(s) in", match_id, len(events))
            return
        if any(ev.kind in BOARD_KINDS for ev in events) and room.live is not None:
            try:
                await self._draw_board(channel, room)
            except Exception:  # a board that cannot be drawn must not swallow the announcement
                log.exception("match %s: updating the board message failed", match_id)
        lines: list[str] = []
        pings: list[str] = []
        actions: list[str] = []
        ply = 0
        for ev in events:
            if ev.kind in QUIET_KINDS:
                continue
            who = self._attention(ev, room.live)
            line = ev.text
            if who is not None:
                pings.append(who)
                line = f"{mention(who)} {line}"
            lines.append(line)
            acts, ev_ply = self._actions(ev, room.live)
            if acts:
                actions, ply = acts, ev_ply
        if lines:
            text = "\n".join(lines)
            if len(text) > MAX_CONTENT:
                text = text[: MAX_CONTENT - 1] + "…"
            kwargs: dict[str, Any] = {"allowed_mentions": pinging(*pings) if pings else NO_PINGS}
            if actions:
                kwargs["view"] = buttons(match_id, ply, actions)
            await channel.send(text, **kwargs)
        if any(ev.kind in ("finished", "aborted") for ev in events):
            self.rooms.pop(match_id, None)

    async def _channel(self, match_id: int, room: Room) -> discord.abc.Messageable | None:
        if room.channel_id is None:
            room.channel_id = await self.bot.service.channel_of(match_id)
        if room.channel_id is None:
            return None
        channel = self.bot.get_channel(room.channel_id)
        if channel is None:
            with contextlib.suppress(discord.HTTPException):
                channel = await self.bot.fetch_channel(room.channel_id)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    @staticmethod
    def _attention(ev: HostEvent, live: Live | None) -> str | None:
        """The player id an event is addressed to, if it needs them to act."""
        if ev.kind == "choose":
            return str(ev.data.get("chooser"))
        if ev.kind == "presence":
            return str(ev.data.get("confirmer_id"))
        if ev.kind in ("presence_ok", "mulligan_offer", "clock") and live is not None and ev.seat in live.players:
            return live.players[ev.seat].id
        return None

    @staticmethod
    def _actions(ev: HostEvent, live: Live | None) -> tuple[list[str], int]:
        """The buttons an event offers, and the ply they belong to."""
        ply = live.ply if live is not None else 0
        if ev.kind == "provisional":
            return ["take"], int(ev.data.get("ply", ply))
        if ev.kind == "mulligan_offer":
            return ["mull", "decl"], ply
        if ev.kind == "presence":
            return ["here"], ply
        if ev.kind == "choose":
            return ["first", "second"], 0
        if ev.kind == "move" and live is not None and live.game == "dotdash":
            with contextlib.suppress(Exception):
                if live.ruleset.extra(live.state).get("phase") == "choose":
                    return ["red", "blue"], ply
        return [], ply

    # -- the board -------------------------------------------------------------------
    def board_text(self, live: Live) -> str:
        """Board, turn and clocks (the final position once the match is over)."""
        service = self.bot.service
        if live.id in service.live:
            return service.board_text(live.id)
        return f"{live.ruleset.render_text(live.state)}\nThe match is over."

    async def _draw_board(self, channel: discord.abc.Messageable, room: Room) -> None:
        live = room.live
        assert live is not None
        text = self.board_text(live)
        png = picture(live) if self.pictures else None
        files: list[discord.File] = []
        if png is not None:
            running = live.id in self.bot.service.live
            status = self.bot.service.status_lines(live.id) if running else ["The match is over."]
            content = f"**Match {live.id}** ({live.ruleset.title})\n" + "\n".join(status)
            files.append(discord.File(io.BytesIO(png), filename="board.png"))
        else:
            content = f"**Match {live.id}** ({live.ruleset.title})\n```\n{text}\n```"
            if len(content) > MAX_CONTENT:
                content = f"**Match {live.id}** ({live.ruleset.title}): the board is attached."
                files.append(discord.File(io.BytesIO(text.encode()), filename="board.txt"))
        if room.board is not None:
            try:
                room.board = await room.board.edit(content=content, attachments=files, allowed_mentions=NO_PINGS)
                return
            except discord.HTTPException:
                room.board = None
        room.board = await channel.send(content, files=files, allowed_mentions=NO_PINGS)
