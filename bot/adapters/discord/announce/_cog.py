"""The live board: one message per match, edited whenever the match changes, with what just happened.

Everything the host says about a match is folded into that one board message (the picture with both
names and the last move, whose turn it is, both clocks and the running deadline as a Discord
timestamp that every client counts down by itself), so a move costs one edit. Only events that need
a player's attention while it is not obviously their turn (the choice of who starts, a presence
check, a mulligan offer, clock warnings) also post a short message that pings exactly that player.
The buttons for whatever is open right now live on the board, so no stale button survives a change.
If Discord refuses a write, the lines are kept and folded into the next board update.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.adapters.discord._shared import NO_PINGS, mention, pinging
from bot.adapters.discord.announce._views import Choice, buttons
from bot.host import rules
from bot.host.events import EventKind
from bot.host.service import HostEvent, Live
from bot.types import OVER_STATUSES, ClockNotice, MatchStatus
from bot.wording import clock_deadline_text, deadline_text, event_text, reason_words, seat_name, status_lines

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

QUIET_KINDS = frozenset({"illegal", "hint", "confirm", "turn", "started"})
"""Events the room listener already answered, or that the board's header and turn line say anyway."""


def ping_kinds() -> frozenset[str]:
    """Events that need one player to act: they also get a short message that pings that player (clock
    warnings, and the events the house rules declare as `pings`)."""
    return frozenset({EventKind.CLOCK, *(kind for rule in rules.REGISTRY for kind in rule.pings)})


END_KINDS = frozenset({"finished", "aborted"})
MAX_CONTENT = 1900
BOARD_SEARCH = 100
"""How far back a restarted bot looks for a match's board message to keep editing it."""
RETRIES = 5
RETRY_SECONDS = 2.0
MAX_LINES = 6
CHANNEL_WRITES, CHANNEL_WINDOW = 3, 5.0
"""The announcer starts a flush only while a room had at most this many of its writes in the last window:
a flush writes at most twice (board, pings), so a room stays within Discord's 5 messages per 5 s, with a
little room left for the replies to players. Events that come meanwhile are folded into that flush."""
"""At most this many of the latest announcement lines are shown on the board."""


@dataclass
class Room:
    """What the announcer knows about one match's room."""

    channel_id: int | None = None
    live: Live | None = None
    board: discord.Message | None = None
    lines: list[str] = field(default_factory=list)
    unsent_pings: list[tuple[str, str]] = field(default_factory=list)
    queued: list[HostEvent] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    seen_state: Any = None
    prev_state: Any = None
    last_move: Any = None
    over: bool = False
    retries: int = 0
    searched: bool = False
    dirty: bool = False


def picture(live: Live, *, prev_state: Any = None, last_move: Any = None, result: str | None = None) -> bytes | None:
    """A PNG of the position with both names and colours, the last move highlighted, and at the end the
    result (None when this game has no pictures or drawing fails: the text board is shown instead)."""
    from games import pictures

    if not pictures.has_renderer(live.game):
        return None
    try:
        return pictures.render_png(
            live.ruleset,
            live.state,
            names=(seat_name(live, 1), seat_name(live, 2)),
            last_move=last_move,
            prev_state=prev_state,
            result=result,
            winner=live.result[0] if live.result is not None and result is not None else None,
            final=result_is_final(live),
        )
    except Exception:
        log.exception("drawing match %s failed; showing the text board", live.id)
        return None


def result_is_final(live: Live) -> bool:
    """Whether a result the engine sees on the board is the match's: not while a mulligan may undo it or
    the move that made it is still provisional."""
    return live.status != MatchStatus.MULLIGAN_WAIT and live.provisional() is None


def zoom_picture(live: Live, *, prev_state: Any = None, last_move: Any = None) -> bytes | None:
    """While a large board's game runs: a legible crop around the last move, shown beside the whole board
    (None for boards that read well whole, and when drawing fails)."""
    try:
        from games import pictures

        return pictures.render_zoom_png(
            live.ruleset,
            live.state,
            names=(seat_name(live, 1), seat_name(live, 2)),
            last_move=last_move,
            prev_state=prev_state,
            final=result_is_final(live),
        )
    except Exception:
        log.exception("drawing the crop of match %s failed", live.id)
        return None


def player_label(live: Live, seat: int) -> str:
    """A player's name with the colour they play in the picture ("alice (red)")."""
    try:
        from games import pictures

        colour = pictures.renderer_for(live.game).colour_word(live.ruleset, live.state, seat)
    except Exception:
        return seat_name(live, seat)
    return f"{seat_name(live, seat)} ({colour})" if colour else seat_name(live, seat)


def deadline_line(live: Live, now: float) -> str | None:
    """The running deadline as a Discord timestamp (`<t:UNIX:R>`), or None when no clock runs: the soonest
    deadline a rule of the match declares, else the clock's next phase."""
    if live.status in OVER_STATUSES:
        return None
    utc_now = discord.utils.utcnow()

    def stamp(at: float) -> str:
        return discord.utils.format_dt(utc_now + dt.timedelta(seconds=max(0.0, at - now)), "R")

    ruled = [d for rule in live.rules for d in rule.deadlines(live) if d.at != float("inf")]
    for d in sorted(ruled, key=lambda d: d.at):
        line = deadline_text(d.label, seat_name(live, d.seat), stamp(d.at))
        if line is not None:
            return line
    if live.status != MatchStatus.ONGOING:
        return None
    for deadline in live.clocks.next_deadlines(now):
        line = clock_deadline_text(deadline.kind, seat_name(live, deadline.seat), stamp(deadline.at))
        if line is not None:
            return line
    return None


def changes_board(ev: HostEvent) -> bool:
    """Whether an event changes what the board shows (a clock warning or an answered attempt does not:
    the countdown on the board runs by itself)."""
    if ev.kind in ("illegal", "hint", "confirm"):
        return False
    if ev.kind == "clock":
        return ClockNotice(ev.data["notice"]).seconds_left is None
    return True


def result_line(live: Live, ev: HostEvent) -> str:
    """The result as the board states it: the winner by name (or a draw), how, and the score."""
    winner = ev.data.get("winner")
    reason = str(ev.data.get("reason") or "")
    how = reason_words(reason)
    score = ""
    with contextlib.suppress(Exception):
        scores = live.ruleset.scores(live.state)
        if scores and any(scores.values()):
            score = f"; score {scores.get(1, 0)}–{scores.get(2, 0)}"
    detail = f" ({how}{score})" if how or score else ""
    if winner in live.players:
        return f"**Result: {seat_name(live, winner)} wins{detail}.**"
    return f"**Result: a draw{detail}.**"


def open_actions(live: Live) -> tuple[list[Choice], int]:
    """The buttons open on the board right now (what the match's rules declare open, else the game's own
    choices), and the ply they belong to."""
    if live.status in OVER_STATUSES:
        return [], live.ply
    offered = [a for rule in live.rules for a in rule.open_actions(live) if a.action.button is not None]
    if offered:
        return [Choice(o.action.button or "", o.action.label or "", o.action.style) for o in offered], offered[0].ply
    if live.status == MatchStatus.ONGOING:
        with contextlib.suppress(Exception):
            choices = live.ruleset.choices(live.state)
            return [Choice(code, text.capitalize()) for code, text in choices.items()], live.ply
    return [], live.ply


class Announcer(commands.Cog):
    """Turns host events into board edits (and the few pings a player needs)."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.rooms: dict[int, Room] = {}
        self.writes: dict[int, list[float]] = {}
        """Loop times of the announcer's recent message creates and edits, per channel."""
        self.pictures = True
        self.board_notes: list[Callable[[int], str | None]] = []
        """Other features' lines under a board's header, by match id (a scheduled DM's prize)."""
        bot.service.subscribe(self.on_host_event)

    async def cog_unload(self) -> None:
        """Send what is still buffered."""
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
                if ev.kind in ("move", "provisional"):
                    room.prev_state = room.seen_state
                    room.last_move = self._move_of(live, room.seen_state, ev)
                elif ev.kind in ("takeback", "mulligan", "started", "resumed"):
                    room.prev_state = room.last_move = None
                room.seen_state = live.state
        room.queued.append(ev)
        if room.task is None or room.task.done():
            room.task = asyncio.create_task(self._flush_later(ev.match_id), name=f"announce-{ev.match_id}")

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
            await self._pace(room.channel_id)
        try:
            await self.flush(match_id)
        except Exception:
            log.exception("announcing in match %s failed", match_id)

    async def _pace(self, channel_id: int) -> None:
        """Wait until the room's recent writes leave room for one more flush (Discord's per-channel limit)."""
        loop = asyncio.get_running_loop()
        recent = [t for t in self.writes.get(channel_id, []) if t > loop.time() - CHANNEL_WINDOW]
        self.writes[channel_id] = recent
        if len(recent) > CHANNEL_WRITES:
            await asyncio.sleep(recent[len(recent) - CHANNEL_WRITES - 1] + CHANNEL_WINDOW - loop.time())

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
        events, room.queued = room.queued, []
        fresh: list[str] = []
        for ev in events:
            if ev.kind in ("started", "resumed"):
                room.lines = []
            if ev.kind in QUIET_KINDS:
                continue
            if ev.kind == "finished" and room.live is not None:
                fresh.append(result_line(room.live, ev) + await self._rating_changes(match_id))
            else:
                fresh.append(event_text(ev))
            who = self._attention(ev, room.live) if ev.kind in ping_kinds() else None
            if who is not None and not self._is_me(who):
                room.unsent_pings.append((who, event_text(ev)))
            if ev.kind in END_KINDS:
                room.over = True
        room.lines = (room.lines + fresh)[-MAX_LINES:] if fresh else room.lines
        channel = await self._channel(match_id, room)
        if channel is None:
            log.warning("match %s: no room to announce %d event(s) in", match_id, len(events))
            return
        await self._unarchive(channel)
        room.dirty = room.dirty or room.board is None or any(changes_board(ev) for ev in events)
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
        if room.unsent_pings:
            self._wrote(room)
            await self._send_pings(channel, room)
        if room.over and not room.unsent_pings:
            self.rooms.pop(match_id, None)

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
        from bot.ratings.wording import change_line

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
        text = "\n".join(f"{mention(p)} {t}" for p, t in room.unsent_pings)
        if len(text) > MAX_CONTENT:
            text = text[: MAX_CONTENT - 1] + "…"
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
        named = ev.data.get("chooser") or ev.data.get("confirmer_id")
        if named is not None:
            return str(named)
        if live is not None and ev.seat in live.players:
            return live.players[ev.seat].id
        return None

    # -- the board -------------------------------------------------------------------
    def board_content(self, live: Live, room: Room, *, with_text_board: bool) -> str:
        """Header, what just happened, whose turn, clocks and the running deadline."""
        service = self.bot.service
        head = f"**Match {live.id} · {live.ruleset.title}** · {player_label(live, 1)} vs {player_label(live, 2)}"
        parts = [head, *(note for notes in self.board_notes if (note := notes(live.id)))]
        if with_text_board:
            parts.append(f"```\n{live.ruleset.render_text(live.state)}\n```")
        parts += [f"> {line}" for line in room.lines]
        if room.over or live.status in ("finished", "aborted"):
            parts.append("**The match is over.**")
        else:
            turn, clocks = status_lines(live, service.now())
            parts.append(f"**{turn}**")
            parts.append(clocks)
            deadline = deadline_line(live, service.now())
            if deadline:
                parts.append(deadline)
        content = "\n".join(parts)
        if len(content) > MAX_CONTENT:
            content = "\n".join([head, *parts[-3:]])[:MAX_CONTENT]
        return content

    @staticmethod
    def _result(room: Room) -> str | None:
        """The result line drawn under the final position."""
        if not room.over:
            return None
        return room.lines[-1].replace("**", "").removeprefix("Result: ") if room.lines else "The match is over."

    async def _draw_board(self, channel: discord.abc.Messageable, room: Room, events: list[HostEvent]) -> None:
        live = room.live
        assert live is not None
        png = None
        if self.pictures:
            png = picture(live, prev_state=room.prev_state, last_move=room.last_move, result=self._result(room))
        content = self.board_content(live, room, with_text_board=png is None)
        files: list[discord.File] = []
        if png is not None:
            files.append(discord.File(io.BytesIO(png), filename="board.png"))
            crop = None if room.over else zoom_picture(live, prev_state=room.prev_state, last_move=room.last_move)
            if crop is not None:
                files.append(discord.File(io.BytesIO(crop), filename="board-zoom.png"))
        elif len(content) > MAX_CONTENT:
            files.append(discord.File(io.BytesIO(live.ruleset.render_text(live.state).encode()), filename="board.txt"))
        actions, ply = open_actions(live) if not room.over else ([], live.ply)
        view = buttons(live.id, ply, actions) if actions else None
        if room.board is None and not room.searched and any(ev.kind == "resumed" for ev in events):
            room.searched = True
            room.board = await self._earlier_board(channel, live.id)
        first = room.board is None
        if room.board is not None:
            try:
                room.board = await room.board.edit(
                    content=content, attachments=files, view=view, allowed_mentions=NO_PINGS
                )
                return
            except discord.NotFound:
                room.board = None
        mentions = [p.id for p in live.players.values() if not self._is_me(p.id)] if first else []
        kwargs: dict[str, Any] = {"files": files, "allowed_mentions": pinging(*mentions) if mentions else NO_PINGS}
        if view is not None:
            kwargs["view"] = view
        if mentions:
            content = " ".join(mention(p) for p in mentions) + "\n" + content
            room.unsent_pings = [(p, t) for p, t in room.unsent_pings if p not in mentions]
        room.board = await channel.send(content, **kwargs)

    async def _earlier_board(self, channel: discord.abc.Messageable, match_id: int) -> discord.Message | None:
        """The board message an earlier run of the bot posted for this match (reused after a restart)."""
        me = self.bot.user
        header = f"**Match {match_id} · "
        try:
            async for message in channel.history(limit=BOARD_SEARCH):
                if me is not None and message.author.id == me.id and header in message.content:
                    return message
        except discord.HTTPException:
            return None
        return None

    def board_message_id(self, match_id: int) -> int | None:
        """The id of a match's board message, if one was posted by this process."""
        room = self.rooms.get(match_id)
        return room.board.id if room is not None and room.board is not None else None
