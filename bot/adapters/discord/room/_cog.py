"""Messages in a game room → `service.post` (a resignation or a play-ending move is confirmed first); deleted or
edited provisional moves → `service.withdraw`; any other edit of a move gets one short answer and changes nothing."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import wording
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import board_linked, pinging
from bot.adapters.discord.render import markdown
from bot.adapters.discord.room._confirm import ask_in_room
from bot.host.rules import log_rewind
from bot.host.service import Live, Outcome, SubmitResult
from bot.records.matchlog import result_of
from bot.store.matches import EntryKind, LogEntry
from bot.wording import reason_text
from games.base import MoveError

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

CATCH_UP_REPLY_LIMIT = 1900
"""Replies folded into one catch-up message stop short of Discord's 2,000 characters."""


class GameRoom(commands.Cog):
    """Reads every message in channels that host a match; chat and strangers are ignored silently."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.last_seen: dict[int, int] = {}
        """Room (channel id) → the newest message handled there, whatever became of it (see `_anchor`)."""
        self._boards: dict[int, int] = {}
        """Message → match of the replies a catch-up is collecting (for the link to that match's board)."""
        self.edits_answered: set[int] = set()
        """Messages whose edit was answered already (an edit is answered once per message)."""
        self.started = discord.utils.time_snowflake(discord.utils.utcnow())

    def _match_of(self, channel_id: int, player_id: str, guild_id: int | None) -> Live | None:
        """The player's match in this room; with several, the one where it is their turn."""
        return self.bot.service.match_for(channel_id, player_id, guild_id)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A player's message in their match's room is a move attempt, a host keyword, or chat."""
        await self.handle(message)

    async def handle(
        self,
        message: discord.Message,
        *,
        late: bool = False,
        replies: list[tuple[discord.Message, str]] | None = None,
    ) -> bool:
        """Hand a player's message to their match (`late`: read back after the bot was away, so it counts
        at its own Discord time; `replies`: collect the replies there instead of posting each).
        Whether the message belonged to a match."""
        if message.author.bot or message.webhook_id is not None:
            return False
        player = str(message.author.id)
        guild_id = message.guild.id if message.guild else None
        channel_id = message.channel.id
        self.last_seen[channel_id] = max(self.last_seen.get(channel_id, 0), message.id)  # before it waits its turn
        text = message.content
        if not self.bot.settings.message_content:  # only messages that mention the bot have their text
            text = without_mention(text, self.bot.user.id if self.bot.user is not None else None)
        try:
            posted = await self.bot.service.post(
                channel_id,
                guild_id,
                player,
                text,
                message_id=str(message.id),
                posted_at=message.created_at if late else None,
            )
        except Exception:
            log.exception("room %s: handling message %s failed", channel_id, message.id)
            return True
        if posted is None:
            return await self._after_end(message, channel_id, player, replies)
        if posted.grave is not None:
            await ask_in_room(self.bot, message, posted.grave)
            return True
        result = posted.result
        reason = reason_text(result) if result is not None and result.status == Outcome.REJECTED else None
        if reason and replies is not None:
            replies.append((message, reason))
            self._boards[message.id] = posted.match_id
        elif reason:
            try:
                await message.reply(
                    board_linked(self.bot, posted.match_id, reason),
                    allowed_mentions=pinging(player),
                    mention_author=False,
                )
            except discord.HTTPException:
                log.warning("match %s: could not reply to message %s", posted.match_id, message.id)
        return True

    async def _after_end(
        self, message: discord.Message, channel_id: int, player: str, replies: list[tuple[discord.Message, str]] | None
    ) -> bool:
        """A move posted in the room of a match of the author's that is over: answered with its result (a
        correspondence player may come back days after the end). Chat stays unanswered. Whether answered."""
        match_id = self.bot.service.over_for(channel_id, player, message.content)
        if match_id is None:
            return False
        stored = await self.bot.service.record(match_id)
        if stored is None:
            return False
        reason = wording.over_already(match_id, result_of(stored))
        if replies is not None:
            replies.append((message, reason))
            self._boards[message.id] = match_id
            return True
        try:
            await message.reply(
                board_linked(self.bot, match_id, reason), allowed_mentions=pinging(player), mention_author=False
            )
        except discord.HTTPException:
            log.warning("match %s: could not reply to message %s", match_id, message.id)
        return True

    # -- catching up after the bot was away ---------------------------------------
    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """See `catch_up_all`."""
        await self.catch_up_all()

    async def catch_up_all(self) -> None:
        """A new gateway session (start, restart, re-identify): Discord does not replay what was posted
        meanwhile, so read every live match's room from the last message handled on."""
        for channel_id in self.bot.service.rooms():  # idle correspondence matches' rooms too, none built
            try:
                await self.catch_up(channel_id)
            except Exception:
                log.exception("catching up in room %s failed", channel_id)
        await self.bot.service.rule_overdue()  # then the deadlines that passed while the bot was away
        announcer = parts(self.bot).announcer
        if announcer is not None:
            try:
                await announcer.tell_untold()  # and what a process that died before posting it still owes
            except Exception:
                log.exception("the notices still owed could not be read; told at the next start")

    async def _anchor(self, channel_id: int) -> int:
        """The newest message of this room the host has certainly handled (stored or in memory)."""
        newest = self.last_seen.get(channel_id, 0)
        for live in self.bot.service.matches_in_channel(channel_id):
            stored = await self.bot.service.record(live.id)
            if stored is None:
                continue
            for event in stored.events:
                if event.message_id and event.message_id.isdigit():
                    newest = max(newest, int(event.message_id))
        return newest

    async def catch_up(self, channel_id: int) -> int:
        """Handle, in Discord's order, the players' messages posted since the last one handled — every one of
        them, read page by page (as they are now: deleted ones are gone, edited ones count as edited). Clocks
        are charged up to each message's own time, each from the previous action's Discord time (a move posted
        after the mover's time ran out loses on time), never for the time the bot was away after it. The
        replies are folded into one message for the room. The number of messages handled."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return 0
        anchor = await self._anchor(channel_id)
        me = self.bot.user.id if self.bot.user is not None else None
        missed: list[discord.Message] = []
        async for message in channel.history(limit=None):  # newest first, paged by discord.py
            if message.id <= anchor:
                break
            if message.author.id == me:
                if message.id < self.started:
                    break  # an earlier host process answered everything before this
                continue  # this session's own board or pings
            missed.append(message)
        handled = 0
        replies: list[tuple[discord.Message, str]] = []
        for message in reversed(missed):
            handled += await self.handle(message, late=True, replies=replies)
        if replies:
            await self._fold(replies)
        if handled:
            log.info("room %s: caught up with %d message(s) posted while away", channel_id, handled)
        return handled

    async def _fold(self, replies: list[tuple[discord.Message, str]]) -> None:
        """The replies of one catch-up as one message, answering the first message they are about."""
        lines: list[str] = []
        size = 0
        for shown, (_message, reason) in enumerate(replies):
            if size + len(reason) + 1 > CATCH_UP_REPLY_LIMIT - 80:
                lines.append(wording.more_replies(len(replies) - shown))
                break
            lines.append(reason)
            size += len(reason) + 1
        first = replies[0][0]
        authors = {str(m.author.id) for m, _reason in replies}
        text = "\n".join(lines)
        match_id = self._boards.pop(first.id, None)
        for message, _reason in replies:
            self._boards.pop(message.id, None)
        try:
            text = markdown(text) if match_id is None else board_linked(self.bot, match_id, text)
            await first.reply(text, allowed_mentions=pinging(*authors), mention_author=False)
        except discord.HTTPException:
            log.warning("room %s: could not post the catch-up replies", first.channel.id)

    async def _withdraw(self, channel_id: int, message_id: int, author_id: str | None, via: str) -> SubmitResult | None:
        """Withdraw the provisional move posted in this message, if there is one."""
        return await self.bot.service.withdraw_message(channel_id, str(message_id), author_id, via)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """Deleting a provisional move's message withdraws it (as the rule that keeps it provisional says)."""
        author = payload.cached_message.author.id if payload.cached_message else None
        await self._withdraw(payload.channel_id, payload.message_id, str(author) if author else None, "delete")

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """Editing a provisional move's text withdraws it (embed unfurls are not edits)."""
        data = payload.data
        cached = payload.cached_message
        if data.get("edited_timestamp") is None:
            return
        if cached is not None and "content" in data and cached.content == data["content"]:
            return
        author = data.get("author", {}).get("id")
        if self.bot.user is not None and str(author) == str(self.bot.user.id):
            return  # the bot's own edits (its board, prompts) are never moves, even in a practice match
        taken = await self._withdraw(payload.channel_id, payload.message_id, str(author) if author else None, "edit")
        if (taken is None or taken.status != Outcome.ACCEPTED) and author is not None:
            await self._answer_edit(payload, str(author), data.get("content"))

    async def _answer_edit(self, payload: discord.RawMessageUpdateEvent, author: str, content: Any) -> None:
        """Edits are not moves: a player who edits a move already played, or edits a message that was not taken
        into one that looks like a move, is told so once, in a reply; any other edit (chat) is ignored."""
        if payload.message_id in self.edits_answered:
            return
        live = self._match_of(payload.channel_id, author, payload.guild_id)
        if live is None:
            return
        stored = await self.bot.service.record(live.id)
        played = _played_in(stored.events if stored else [], str(payload.message_id))
        if played is not None:
            reply = wording.edit_after_move(played)
        elif isinstance(content, str) and _reads_as_move(live, content):
            reply = wording.edit_not_read(content.strip())
        else:
            return
        channel = self.bot.get_channel(payload.channel_id)
        if not isinstance(channel, discord.TextChannel | discord.Thread):
            return
        self.edits_answered.add(payload.message_id)
        try:
            await channel.get_partial_message(payload.message_id).reply(
                board_linked(self.bot, live.id, reply), allowed_mentions=pinging(author), mention_author=False
            )
        except discord.HTTPException:
            log.warning("match %s: could not answer the edit of message %s", live.id, payload.message_id)


def without_mention(text: str, bot_id: int | None) -> str:
    """A message's text without the bot's mention (`<@id>`, `<@!id>`) wherever it stands: `@dmhost A1-B1` is
    `A1-B1` (the bot reads only the messages that mention it without the message-content intent)."""
    if bot_id is None:
        return text
    return re.sub(rf"[ \t]*<@!?{bot_id}>[ \t]*", " ", text).strip()


def _reads_as_move(live: Live, text: str) -> bool:
    """Whether a text would be read as a move attempt if it were posted (written as a move of this game)."""
    try:
        live.ruleset.parse_syntax(text.strip())
    except MoveError:
        return False
    return bool(text.strip())


def _played_in(events: Sequence[LogEntry], message_id: str) -> str | None:
    """The move (notation) played from this message and not rewound since (`rules.log_rewind`), if any."""
    played: tuple[int, str] | None = None
    ply = 0
    for e in events:
        if e.kind == EntryKind.MOVE:
            ply = int(e.data.get("ply") or ply + 1)
            if e.message_id == message_id:
                played = (ply, str(e.data.get("move") or e.text or ""))
        elif (to_ply := log_rewind(e.kind, e.data, ply)) is not None:
            ply = to_ply
            if played is not None and played[0] > to_ply:
                played = None
    return None if played is None else played[1]
