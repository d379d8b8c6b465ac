"""The live board: one message per match, edited whenever the match changes, with what just happened.

Everything the host says about a match is folded into that one board message (the picture with both
names and the last move, the last 20 moves in the game's notation, whose turn it is, both clocks and the
running deadline as a Discord timestamp that every client counts down by itself), so a move costs one
edit. The moves are a record of their own, apart from the few latest event lines, so no clock warning
ever pushes them out; a provisional move is one marker on its move. Only events that need a player's
attention while it is not obviously their turn (an event a house rule `pings` for, such as the choice of
who starts, the first clock warning of a turn) also post a short message that pings exactly that player, at
most once per player and turn; later warnings only change the board. Everything the bot posts below
the board links back to it, and once more than 10 messages have piled up below it, the board's next
update posts it anew at the bottom (the old message shrinks to a link). The buttons for whatever is
open right now live on the board, so no stale button survives a change. If Discord refuses a write,
the lines are kept and folded into the next board update.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.adapters.discord._decider import decider_name
from bot.adapters.discord._parts import parts
from bot.adapters.discord._pictures import deadline_line, pending_result, picture, player_label, zoom_picture
from bot.adapters.discord._shared import NO_PINGS, mention, pinging
from bot.adapters.discord.announce import _wording
from bot.adapters.discord.announce._views import buttons
from bot.adapters.discord.render import Said, markdown
from bot.host import rules
from bot.host.deadlines import durable
from bot.host.events import EventKind
from bot.host.service import HostEvent, Live
from bot.text import as_text, lines
from bot.types import BACK, OVER_STATUSES
from bot.wording import (
    describe,
    event_text,
    namer,
    status_lines,
)
from bot.wording.room import MATCH_OVER

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

from bot.adapters.discord.announce._board import (
    BOARD_SEARCH,
    CHANNEL_WINDOW,
    CHANNEL_WRITES,
    END_KINDS,
    KNOWN_BOARDS,
    MAX_CONTENT,
    MAX_LINES,
    MIN_SHOWN_MOVES,
    PILE_LIMIT,
    RETRIES,
    RETRY_SECONDS,
    LineKind,
    Room,
    changes_board,
    logged_record,
    open_actions,
    ping_kinds,
    quiet,
    record_text,
    result_line,
)

log = logging.getLogger(__name__)


class Announcer(commands.Cog):
    """Turns host events into board edits (and the few pings a player needs)."""

    def __init__(self, bot: DMHost) -> None:
        parts(bot).announcer = self
        self.bot = bot
        self.rooms: dict[int, Room] = {}
        self.writes: dict[int, list[float]] = {}
        """Loop times of the announcer's recent message creates and edits, per channel."""
        self.pictures = True
        self.boards: dict[int, tuple[int, int, str]] = {}
        """Match → (room, board message id, its link) of the latest boards, kept after the match is over."""
        self.board_notes: list[Callable[[int], str | None]] = []
        """Other features' lines under a board's header, by match id (a scheduled DM's prize)."""
        bot.app.bus.subscribe(self.on_host_event)  # `Stage.TELL`: after the ratings, before the cores move on
        bot.service.tells = True  # reminders and results are owed durably until posted (`bot.host.notices`)

    async def cog_unload(self) -> None:
        """Send what is still buffered."""
        if parts(self.bot).announcer is self:
            parts(self.bot).announcer = None
        await self.drain()

    # -- collecting ------------------------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """Buffer an event (called inside the service's lock: never wait on Discord here)."""
        room = self.rooms.setdefault(ev.match_id, Room())
        live = self.bot.service.live.get(ev.match_id) or room.live
        if live is not None:
            room.live = live
            room.channel_id = live.channel_id
            if room.seen_state is not live.state:
                if ev.kind == EventKind.MOVE or ev.kind in rules.tentative_kinds():
                    room.prev_state = room.seen_state
                    room.last_move = self._move_of(live, room.seen_state, ev)
                elif ev.kind in (EventKind.STARTED, EventKind.RESUMED) or ev.kind in rules.redraw_kinds():
                    room.prev_state = room.last_move = None
                room.seen_state = live.state
            self._note_move(room, live, ev)
        room.queued.append((ev, self._pings(room, live, ev)))
        if room.task is None or room.task.done():
            room.task = asyncio.create_task(self._flush_later(ev.match_id), name=f"announce-{ev.match_id}")

    async def tell_untold(self) -> int:
        """After the start's catch-up: announce what the matches of this process's guilds still owe (a reminder
        or a result committed by a process that died before posting it), as if it had just happened; how many."""
        late = await self.bot.service.untold_here()
        for ev in late:
            self.on_host_event(ev)
        for match_id in dict.fromkeys(ev.match_id for ev in late):
            room = self.rooms.get(match_id)
            if room is not None and room.task is not None and not room.task.done():
                room.task = asyncio.create_task(self._flush_after(match_id, room.task), name=f"announce-{match_id}")
        return len(late)

    async def _flush_after(self, match_id: int, running: asyncio.Task[None]) -> None:
        """Flush once the flush in flight is over (what was queued meanwhile would wait for the next event)."""
        await asyncio.gather(running, return_exceptions=True)
        try:
            await self.flush(match_id)
        except Exception:
            log.exception("announcing in match %s failed", match_id)

    @staticmethod
    def _note_move(room: Room, live: Live, ev: HostEvent) -> None:
        """Keep the room's move record on the line played: what was taken back or rewound leaves it, a move
        enters it (provisional until its final `move` event)."""
        if ev.kind == EventKind.STARTED:
            room.record_loaded = True
            room.record.clear()
        for later in [p for p in room.record if p > live.ply]:
            del room.record[later]
        notation, ply = ev.data.get("move"), ev.data.get("ply")
        played = ev.kind == EventKind.MOVE or ev.kind in rules.tentative_kinds()
        if played and isinstance(notation, str) and isinstance(ply, int):
            room.record[ply] = (notation, ev.kind == EventKind.MOVE)

    def _pings(self, room: Room, live: Live | None, ev: HostEvent) -> bool:
        """Whether an event pings its player: one that needs them to act, the first in this turn for them (the
        end of a vacation always: the clock it stopped runs again)."""
        who = self._attention(ev, live)
        if who is None or ev.kind not in ping_kinds():
            return False
        if ev.kind == BACK:
            return True
        turn = (who, live.ply if live is not None else -1)
        if turn in room.pinged:
            return False
        room.pinged.add(turn)
        return True

    @staticmethod
    def _move_of(live: Live, before: Any, ev: HostEvent) -> Any:
        """The move object of a move event (for the highlight), parsed from its notation."""
        notation = ev.data.get("move")
        if before is None or not isinstance(notation, str):
            return None
        try:
            return live.ruleset.parse(before, notation, ev.seat)
        except Exception:
            return None

    async def _flush_later(self, match_id: int) -> None:
        delay = self.bot.settings.announce_batch_seconds
        if delay > 0:
            await asyncio.sleep(delay)
        room = self.rooms.get(match_id)
        if delay > 0 and room is not None and room.channel_id is not None:  # 0: every event at once (tests)
            await self._pace(room.channel_id, CHANNEL_WRITES - self._moves_down(room))
        try:
            await self.flush(match_id)
        except Exception:
            log.exception("announcing in match %s failed", match_id)

    async def _pace(self, channel_id: int, allowed: int) -> None:
        """Wait until the room had at most `allowed` of its writes in the last window, so that one more flush
        fits in Discord's per-channel limit."""
        loop = asyncio.get_running_loop()
        recent = [t for t in self.writes.get(channel_id, []) if t > loop.time() - CHANNEL_WINDOW]
        self.writes[channel_id] = recent
        if len(recent) > allowed:
            await asyncio.sleep(recent[len(recent) - allowed - 1] + CHANNEL_WINDOW - loop.time())

    async def take_write(self, channel_id: int) -> None:
        """Wait for room within a channel's write limit, then count one write there: other features' messages in
        a room (a rematch offer, a redrawn sign-up card) keep to the boards' own pacing. No wait while the
        announcer does not pace either (`announce_batch_seconds` 0, tests)."""
        loop = asyncio.get_running_loop()
        while self.bot.settings.announce_batch_seconds > 0:
            recent = [t for t in self.writes.get(channel_id, []) if t > loop.time() - CHANNEL_WINDOW]
            if len(recent) <= CHANNEL_WRITES:
                break
            await asyncio.sleep(recent[len(recent) - CHANNEL_WRITES - 1] + CHANNEL_WINDOW - loop.time())
        self.writes.setdefault(channel_id, []).append(loop.time())

    @staticmethod
    def _moves_down(room: Room) -> bool:
        """Whether the room's next board update may move the board down (one write more than an edit)."""
        return room.board is not None and room.below > PILE_LIMIT and room.shown_moves + 1 >= MIN_SHOWN_MOVES

    def _wrote(self, room: Room) -> None:
        if room.channel_id is not None:
            self.writes.setdefault(room.channel_id, []).append(asyncio.get_running_loop().time())

    async def drain(self) -> None:
        """Wait until every buffered event has been sent (tests, shutdown)."""
        while True:
            tasks = [r.task for r in self.rooms.values() if r.task is not None and not r.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- sending ---------------------------------------------------------------------
    async def flush(self, match_id: int) -> None:
        """Fold everything buffered for a match into its board; ping who must act."""
        room = self.rooms.get(match_id)
        if room is None or not (room.queued or room.retries):
            return
        queued, room.queued = room.queued, []
        events = [ev for ev, _pings in queued]
        room.owed += [ev for ev in events if ev.notice is not None]
        for ev, pings in queued:
            await self._fold_event(match_id, room, ev, pings)
        if not room.record_loaded:
            await self._load_record(match_id, room)
        channel = await self._channel(match_id, room)
        if channel is None:
            log.warning("match %s: no room to announce %d event(s) in", match_id, len(events))
            return
        await self._unarchive(channel)
        room.dirty = room.dirty or room.board is None or any(changes_board(ev, pings) for ev, pings in queued)
        if room.live is not None and room.dirty:
            try:
                self._wrote(room)
                await self._draw_board(channel, room, events)
            except discord.HTTPException:
                log.warning("match %s: the board could not be updated; it is retried", match_id)
                self._retry(match_id, room)
                return
            room.retries = 0
            room.dirty = False
        elif room.live is None and room.owed:  # a match no longer hosted (over): its owed lines as a message
            try:
                self._wrote(room)
                await channel.send(
                    "\n".join(markdown(event_text(ev)) for ev in room.owed)[:MAX_CONTENT], allowed_mentions=NO_PINGS
                )
            except discord.HTTPException:
                log.warning(
                    "match %s: %d owed notice(s) could not be posted; told at the next start", match_id, len(room.owed)
                )
                room.owed = []
                return
        if room.unsent_pings:
            self._wrote(room)
            await self._send_pings(channel, room)
        if room.owed:  # said: owed no more (a process killed before this line says them at its next start)
            owed, room.owed = room.owed, []
            await self.bot.service.told(*owed)
        if room.over and not room.unsent_pings:
            self.rooms.pop(match_id, None)

    async def _fold_event(self, match_id: int, room: Room, ev: HostEvent, pings: bool) -> None:
        """One event into the board's lines (a move's and a clock's line replace the last of their kind)
        and, when it pings its player, into the pings to send."""
        if ev.kind in (EventKind.STARTED, EventKind.RESUMED):
            room.lines = []
        if ev.kind == EventKind.MOVE or ev.kind in rules.tentative_kinds():
            room.lines = [(kind, text) for kind, text in room.lines if kind not in (LineKind.MOVE, LineKind.CLOCK)]
            room.shown_moves += ev.kind == EventKind.MOVE
        who = self._attention(ev, room.live)
        if pings and who is not None and not self._is_me(who):
            room.unsent_pings.append((who, _wording.ping_text(ev)))
            if ev.kind == BACK and room.live is not None:  # the one back is told too: their clock runs again
                back = room.live.players.get(int(ev.data.get("away") or 0))
                if back is not None and not self._is_me(back.id):
                    room.unsent_pings.append((back.id, _wording.ping_text(ev)))
        if ev.kind in END_KINDS:
            room.over = True  # what asked someone to act, or said a clock stands still, is stale now
            room.lines = [(kind, text) for kind, text in room.lines if kind not in (LineKind.CLOCK, LineKind.ASK)]
        if quiet(ev.kind) or (ev.kind == EventKind.CLOCK and pings):
            return
        if ev.kind == EventKind.FINISHED and room.live is not None:
            decider = decider_name(self.bot, room.live, ev)
            line = result_line(room.live, ev, decider) + await self._rating_changes(match_id)
            room.result = line
            self._add_line(room, LineKind.RESULT, line)
            if durable(room.live):  # days apart: an edit of an old board tells nobody, a new message does
                for player in room.live.players.values():
                    if not self._is_me(player.id):
                        room.unsent_pings.append((player.id, line))
        elif ev.kind == EventKind.MOVE:
            if describe(ev.data.get("events") or ev.detail.get("events") or [], namer(ev.names)):
                self._add_line(room, LineKind.MOVE, markdown(event_text(ev)))
        elif ev.kind == EventKind.CLOCK:
            self._add_line(room, LineKind.CLOCK, markdown(event_text(ev)))
        else:
            self._add_line(room, LineKind.ASK if ev.kind in ping_kinds() else LineKind.EVENT, markdown(event_text(ev)))

    @staticmethod
    def _add_line(room: Room, kind: LineKind, text: str) -> None:
        if kind == LineKind.CLOCK:
            room.lines = [(k, t) for k, t in room.lines if k != LineKind.CLOCK]
        text = text.replace("\\", "\\\\")  # Discord reads `\.` as an escaped dot: Trax's `@4\.` would lose its `\`
        room.lines = [*room.lines, (kind, text)][-MAX_LINES:]

    async def _load_record(self, match_id: int, room: Room) -> None:
        """The moves played before this process took the match over (after a restart), from the match's log."""
        room.record_loaded = True
        live = room.live
        if live is None or live.ply == 0:
            return
        try:
            stored = await self.bot.service.record(match_id)
        except Exception:
            log.exception("match %s: its moves could not be read for the board", match_id)
            return
        if stored is None:
            return
        earlier = logged_record(stored.events)
        pending = live.provisional()
        for ply, notation in earlier.items():
            final = pending is None or pending.ply != ply
            room.record.setdefault(ply, (notation, final))
        for ply in [p for p in room.record if p > live.ply]:
            del room.record[ply]

    async def _rating_changes(self, match_id: int) -> str:
        """The ratings hook of the result line: ` alice 1623 (+14) · bob 1577 (-14)` after a rated match."""
        ratings = getattr(self.bot, "ratings", None)
        if ratings is None:
            return ""
        try:
            rated = await ratings.settle(match_id)
        except Exception:
            log.exception("match %s: its rating changes could not be read", match_id)
            return ""
        from bot.wording.ratings import change_line

        return "" if rated is None else f" {change_line(rated)}"

    def _retry(self, match_id: int, room: Room) -> None:
        """Try the board again a little later (the lines are kept, so nothing announced is lost)."""
        room.retries += 1
        if room.retries > RETRIES:
            log.error("match %s: Discord refused the board %d times; giving up until the next event", match_id, RETRIES)
            room.retries = 0
            return

        async def again() -> None:
            await asyncio.sleep(RETRY_SECONDS * room.retries)
            try:
                await self.flush(match_id)
            except Exception:
                log.exception("announcing in match %s failed", match_id)

        room.task = asyncio.create_task(again(), name=f"announce-retry-{match_id}")

    def _is_me(self, player_id: str) -> bool:
        """Whether a player is this bot itself (the practice opponent): it is never pinged."""
        return self.bot.user is not None and player_id == str(self.bot.user.id)

    async def _send_pings(self, channel: discord.abc.Messageable, room: Room) -> None:
        who = list(dict.fromkeys(p for p, _ in room.unsent_pings))
        said: dict[str, list[str]] = {}  # one line per text, mentioning everyone it is for
        for player, told in room.unsent_pings:
            if player not in said.setdefault(told, []):
                said[told].append(player)
        text = markdown(lines(as_text(" ").join(mention(p) for p in players) + " " + t for t, players in said.items()))
        if len(text) > MAX_CONTENT - 120:
            text = Said(text[: MAX_CONTENT - 121] + "…")
        if room.board is not None:
            text = Said(_wording.with_board_link(text, room.board.jump_url))
        try:
            await channel.send(text, allowed_mentions=pinging(*who))
        except discord.HTTPException:
            log.warning("a ping could not be sent; it stays on the board")
        room.unsent_pings = []

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
    async def _unarchive(channel: discord.abc.Messageable) -> None:
        """A long match never stalls on an auto-archived thread."""
        if isinstance(channel, discord.Thread) and channel.archived and not channel.locked:
            with contextlib.suppress(discord.HTTPException):
                await channel.edit(archived=False)

    @staticmethod
    def _attention(ev: HostEvent, live: Live | None) -> str | None:
        """The player id an event that needs someone to act is addressed to: the player of its seat (the id
        its data names, when seats may have changed by the time it is announced: the choice of who starts)."""
        if ev.kind not in ping_kinds():
            return None
        named = ev.data.get("chooser") or ev.data.get("confirmer_id")
        if named is not None:
            return str(named)
        if live is not None and ev.seat in live.players:
            return live.players[ev.seat].id
        return None

    # -- the board -------------------------------------------------------------------
    def board_content(self, live: Live, room: Room, *, with_text_board: bool) -> Said:
        """Header, what just happened, whose turn, clocks and the running deadline (all of it words: nobody is
        mentioned on the board)."""
        service = self.bot.service
        head = f"**Match {live.id} · {live.ruleset.title}** · {player_label(live, 1)} vs {player_label(live, 2)}"
        parts = [head, *(note for notes in self.board_notes if (note := notes(live.id)))]
        if with_text_board:
            parts.append(f"```\n{live.ruleset.render_text(live.state)}\n```")
        record = record_text(live, room.record, service.now())
        if record is not None:
            parts.append(record)
        parts += [f"> {line}" for _kind, line in room.lines]
        if room.over or live.status in OVER_STATUSES:
            parts.append("**The match is over.**")
        else:
            turn, clocks = status_lines(live, service.now())
            parts.append(f"**{turn}**")
            parts.append(markdown(clocks))
            deadline = deadline_line(live, service.now())
            if deadline:
                parts.append(deadline)
        parts = [markdown(part) for part in parts]
        content = "\n".join(parts)
        if len(content) > MAX_CONTENT and with_text_board:  # the text board goes first (it is sent as a file)
            parts = [part for part in parts if not part.startswith("```")]
            content = "\n".join(parts)
        while len(content) > MAX_CONTENT:  # then the oldest event lines (the move record stays)
            oldest = next((i for i, part in enumerate(parts) if part.startswith("> ")), None)
            if oldest is None:
                break
            parts.pop(oldest)
            content = "\n".join(parts)
        return Said(content[:MAX_CONTENT])

    @staticmethod
    def _result(room: Room) -> str | None:
        """The result line drawn under the final position."""
        if not room.over:
            return None
        line = room.result  # `**Result: <the result sentence>.**`, then perhaps the rating changes
        if not line:
            return MATCH_OVER
        return line.removeprefix("**Result: ").partition(".**")[0] if line.startswith("**Result: ") else line

    async def _draw_board(self, channel: discord.abc.Messageable, room: Room, events: list[HostEvent]) -> None:
        live = room.live
        assert live is not None
        png = None
        if self.pictures:
            result = self._result(room) or pending_result(live)
            png = picture(live, prev_state=room.prev_state, last_move=room.last_move, result=result)
        content = self.board_content(live, room, with_text_board=png is None)
        files: list[discord.File] = []
        if png is not None:
            files.append(discord.File(io.BytesIO(png), filename="board.png"))
            crop = None if room.over else zoom_picture(live, prev_state=room.prev_state, last_move=room.last_move)
            if crop is not None:
                files.append(discord.File(io.BytesIO(crop), filename="board-zoom.png"))
        elif "```" not in content:  # too long to show: the text board is a file
            files.append(discord.File(io.BytesIO(live.ruleset.render_text(live.state).encode()), filename="board.txt"))
        actions, ply = open_actions(live) if not room.over else ([], live.ply)
        view = buttons(live.id, ply, actions) if actions else None
        if room.board is None and not room.searched and any(ev.kind == EventKind.RESUMED for ev in events):
            room.searched = True
            room.board = await self._earlier_board(channel, live.id, room)
        first = room.board is None
        if room.board is not None and room.below > PILE_LIMIT and room.shown_moves >= MIN_SHOWN_MOVES:
            await self._move_down(channel, room, content, files, view)
            return
        if room.board is not None:
            try:
                room.board = await room.board.edit(
                    content=content, attachments=files, view=view, allowed_mentions=NO_PINGS
                )
                self._remember(live.id, room.board)
                return
            except discord.NotFound:
                room.board = None
        mentions = [p.id for p in live.players.values() if not self._is_me(p.id)] if first else []
        kwargs: dict[str, Any] = {"files": files, "allowed_mentions": pinging(*mentions) if mentions else NO_PINGS}
        if view is not None:
            kwargs["view"] = view
        if mentions:
            content = Said(markdown(as_text(" ").join(mention(p) for p in mentions)) + "\n" + content)
            room.unsent_pings = [(p, t) for p, t in room.unsent_pings if p not in mentions]
        room.board = await channel.send(content, **kwargs)
        room.below = room.shown_moves = 0
        self._remember(live.id, room.board)

    async def _move_down(
        self,
        channel: discord.abc.Messageable,
        room: Room,
        content: Said,
        files: list[discord.File],
        view: discord.ui.View | None,
    ) -> None:
        """Post the board anew below the messages that piled up under it; the old one becomes a link to it."""
        old = room.board
        assert old is not None and room.live is not None
        kwargs: dict[str, Any] = {"files": files, "allowed_mentions": NO_PINGS}
        if view is not None:
            kwargs["view"] = view
        room.board = await channel.send(content, **kwargs)
        room.below = room.shown_moves = 0
        self._remember(room.live.id, room.board)
        self._wrote(room)
        try:
            await old.edit(
                content=markdown(_wording.moved_board(room.live.id, room.board.jump_url)),
                attachments=[],
                view=None,
                allowed_mentions=NO_PINGS,
            )
        except discord.HTTPException:
            log.warning("match %s: the earlier board could not be shrunk to a link", room.live.id)

    async def _earlier_board(
        self, channel: discord.abc.Messageable, match_id: int, room: Room
    ) -> discord.Message | None:
        """The board message an earlier run of the bot posted for this match (reused after a restart); the
        messages found below it count as piled up, and an update moves it down if there are too many."""
        me = self.bot.user
        header = f"**Match {match_id} · "
        try:
            below = 0
            async for message in channel.history(limit=BOARD_SEARCH):
                if me is not None and message.author.id == me.id and header in message.content:
                    room.below = below
                    room.shown_moves = MIN_SHOWN_MOVES if below > PILE_LIMIT else 0
                    return message
                below += 1
        except discord.HTTPException:
            return None
        return None

    def board_message_id(self, match_id: int) -> int | None:
        """The id of a match's board message, if one was posted by this process."""
        room = self.rooms.get(match_id)
        if room is not None and room.board is not None:
            return room.board.id
        known = self.boards.get(match_id)
        return known[1] if known is not None else None

    def board_url(self, match_id: int) -> str | None:
        """The link to a match's board message (its `jump_url`), if this process posted or found one."""
        room = self.rooms.get(match_id)
        if room is not None and room.board is not None:
            return room.board.jump_url
        known = self.boards.get(match_id)
        return known[2] if known is not None else None

    def linked(self, match_id: int, text: str) -> str:
        """A reply in a match's room with the link to its board at the end (as it is, while none is known)."""
        return _wording.with_board_link(text, self.board_url(match_id))

    def _remember(self, match_id: int, board: discord.Message) -> None:
        """Keep a board's link after its match is over (replies and results may still point to it)."""
        self.boards.pop(match_id, None)
        self.boards[match_id] = (board.channel.id, board.id, board.jump_url)
        while len(self.boards) > KNOWN_BOARDS:
            self.boards.pop(next(iter(self.boards)))

    # -- the messages below the board -------------------------------------------------
    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Count the messages that pile up below each board in the room (anyone's, the bot's own too)."""
        for room in self.rooms.values():
            board = room.board
            if board is not None and room.channel_id == message.channel.id and message.id > board.id:
                room.below += 1
