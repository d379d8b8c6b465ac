"""Messages in a game room → `service.submit`; deleted or edited provisional moves → `service.takeback`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.discord._shared import pinging
from bot.service import HostError, Live, SubmitResult

if TYPE_CHECKING:
    from bot.app import DMHost

log = logging.getLogger(__name__)


class GameRoom(commands.Cog):
    """Reads every message in channels that host a match; chat and strangers are ignored silently."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot

    def _match_of(self, channel_id: int, player_id: str) -> Live | None:
        for live in self.bot.service.matches_in_channel(channel_id):
            if live.seat_of(player_id) is not None:
                return live
        return None

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A player's message in their match's room is a move attempt, a host keyword, or chat."""
        if message.author.bot or message.webhook_id is not None:
            return
        player = str(message.author.id)
        live = self._match_of(message.channel.id, player)
        if live is None:
            return
        try:
            result = await self.bot.service.submit(live.id, player, message.content, message_id=str(message.id))
        except HostError as exc:
            result = SubmitResult("rejected", str(exc), "host")
        except Exception:
            log.exception("match %s: handling message %s failed", live.id, message.id)
            return
        if result.status == "rejected" and result.reason:
            try:
                await message.reply(result.reason, allowed_mentions=pinging(player), mention_author=False)
            except discord.HTTPException:
                log.warning("match %s: could not reply to message %s", live.id, message.id)

    async def _take_back(self, channel_id: int, message_id: int, author_id: str | None, via: str) -> None:
        """Take back the provisional move posted in this message, if there is one."""
        await self.bot.service.takeback_message(channel_id, str(message_id), author_id, via)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """Deleting a provisional move's message takes it back (within the window)."""
        author = payload.cached_message.author.id if payload.cached_message else None
        await self._take_back(payload.channel_id, payload.message_id, str(author) if author else None, "delete")

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """Editing a provisional move's text takes it back (embed unfurls are not edits)."""
        data = payload.data
        cached = payload.cached_message
        if data.get("edited_timestamp") is None:
            return
        if cached is not None and "content" in data and cached.content == data["content"]:
            return
        author = data.get("author", {}).get("id")
        await self._take_back(payload.channel_id, payload.message_id, str(author) if author else None, "edit")
