"""The board message's parts: what it shows (picture, move record, deadline, result line, buttons) and the
announcer's limits, apart from the cog that writes it to Discord."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord.announce import _wording
from bot.adapters.discord.announce._views import Choice
from bot.host import rules
from bot.host.events import EventKind
from bot.host.service import HostEvent, Live
from bot.store.matches import EntryKind
from bot.types import OVER_STATUSES, ClockNotice, MatchStatus
from bot.wording import (
    seat_name,
)
from bot.wording.decisions import told_result

if TYPE_CHECKING:
    pass


log = logging.getLogger(__name__)


class LineKind(StrEnum):
    """The kinds of the board's event lines (a move's and a clock's line replace the last of their kind)."""

    MOVE = "move"
    CLOCK = "clock"
    RESULT = "result"
    EVENT = "event"
    ASK = "ask"
    """An event that needs one player to act, or says a clock stands still (a reminder, a vacation): dropped
    from the board once the match is over."""


QUIET_KINDS = frozenset({EventKind.ILLEGAL, EventKind.HINT, EventKind.CONFIRM, EventKind.TURN, EventKind.STARTED})
"""Events the room listener already answered, or that the board's header, record and turn line say anyway
(so do a rule's moves not final yet: `quiet`)."""


def quiet(kind: str) -> bool:
    """Whether an event gets no line of its own on the board (`QUIET_KINDS`, a rule's tentative moves)."""
    return kind in QUIET_KINDS or kind in rules.tentative_kinds()


def ping_kinds() -> frozenset[str]:
    """Events that need one player to act: they also get a short message that pings that player (clock
    warnings, and the events the house rules declare as `pings`)."""
    return frozenset({EventKind.CLOCK, *(kind for rule in rules.REGISTRY for kind in rule.pings)})


END_KINDS = frozenset({EventKind.FINISHED, EventKind.ABORTED})
MAX_CONTENT = 1900
BOARD_SEARCH = 100
"""How far back a restarted bot looks for a match's board message to keep editing it."""
RETRIES = 5
RETRY_SECONDS = 2.0
MAX_LINES = 4
"""At most this many of the latest event lines are shown on the board (the moves are a record of their own)."""
RECORD_PLIES = 20
"""The board's move record shows this many of the latest plies."""
RECORD_CHARS = 700
"""... and at most this many characters of them (older plies are left out first)."""
PILE_LIMIT = 10
"""Once more than this many messages sit below the board, its next update posts it at the bottom."""
MIN_SHOWN_MOVES = 10
"""... but not before this many moves were shown on the board since it was posted: moving costs one more
request, so even a room that chats a lot keeps a match within 1.2 requests per accepted move (with the
result posted outside the room and the rematch offer, even a short game)."""
KNOWN_BOARDS = 1000
"""How many finished matches' board links are remembered (for replies that come after the end)."""
CHANNEL_WRITES, CHANNEL_WINDOW = 3, 5.0
"""The announcer starts a flush only while a room had at most this many of its writes in the last window
(one less when the flush may move the board down): a flush writes at most twice (board, pings), three
times when the board moves (new board, the old one shrunk, pings), so a room stays within Discord's 5
messages per 5 s, with a little room left for the replies to players. Events that come meanwhile are
folded into that flush."""


@dataclass
class Room:
    """What the announcer knows about one match's room."""

    channel_id: int | None = None
    live: Live | None = None
    board: discord.Message | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)
    """The latest event lines: (what kind of line, its text); a move's and a clock's lines replace their own kind."""
    result: str | None = None
    record: dict[int, tuple[str, bool]] = field(default_factory=dict)
    """The line played so far, by ply: the move's notation, and whether it is final."""
    record_loaded: bool = False
    pinged: set[tuple[str, int]] = field(default_factory=set)
    """(player id, ply) of the turns in which a player was already pinged."""
    below: int = 0
    """Messages posted in the room below the board since it was posted (anyone's)."""
    shown_moves: int = 0
    """Moves the board showed since it was posted."""
    unsent_pings: list[tuple[str, str]] = field(default_factory=list)
    queued: list[tuple[HostEvent, bool]] = field(default_factory=list)
    """Events to announce, each with whether it pings its player."""
    task: asyncio.Task[None] | None = None
    seen_state: Any = None
    prev_state: Any = None
    last_move: Any = None
    over: bool = False
    retries: int = 0
    searched: bool = False
    dirty: bool = False
    owed: list[HostEvent] = field(default_factory=list)
    """Events owed durably (`HostEvent.notice`) not told yet: marked told once the board or a message said them."""


def changes_board(ev: HostEvent, pings: bool = False) -> bool:
    """Whether an event changes what the board shows (an answered attempt does not, nor a clock warning
    that pings its player: the countdown on the board runs by itself; later warnings are board lines)."""
    if ev.kind in (EventKind.ILLEGAL, EventKind.HINT, EventKind.CONFIRM):
        return False
    if ev.kind == EventKind.CLOCK and pings:
        return ClockNotice(ev.data["notice"]).seconds_left is None
    return True


def logged_record(events: Sequence[Any]) -> dict[int, str]:
    """The line played, by ply, from a match's stored log (`move` entries, less what a rule rewound,
    `rules.log_rewind`): the notation the host stored, which is the game's own (`Ruleset.format`)."""
    record: dict[int, str] = {}
    for e in events:
        data = e.data or {}
        if e.kind == EntryKind.MOVE and isinstance(data.get("move"), str):
            ply = int(data.get("ply") or (max(record, default=0) + 1))
            record = {p: m for p, m in record.items() if p < ply}
            record[ply] = data["move"]
        elif (to_ply := rules.log_rewind(e.kind, data, max(record, default=0))) is not None:
            record = {p: m for p, m in record.items() if p <= to_ply}
    return record


def record_text(live: Live, record: dict[int, tuple[str, bool]], now: float) -> str | None:
    """The board's move record: the latest plies (at most `RECORD_PLIES`, `RECORD_CHARS`), the provisional
    one marked with the moment it becomes final."""
    plies = sorted(record.items())[-RECORD_PLIES:]
    while len(plies) > 1 and sum(len(m) + len(str(p)) + 4 for p, (m, _f) in plies) > RECORD_CHARS:
        plies = plies[1:]
    pending_until = None
    if plies and not plies[-1][1][1]:
        pending_until = "…"
        due = [d.at for rule in live.rules for d in rule.deadlines(live) if d.label == "final" and d.at != float("inf")]
        if due:
            ahead = dt.timedelta(seconds=max(0.0, min(due) - now))
            pending_until = discord.utils.format_dt(discord.utils.utcnow() + ahead, "R")
    earlier = bool(plies) and plies[0][0] > min(record)
    return _wording.record_line([(p, m) for p, (m, _f) in plies], earlier=earlier, pending_until=pending_until)


def result_line(live: Live, ev: HostEvent, decider: str | None = None) -> str:
    """The result as the board states it: the winner by name (or a draw), how, and the score; an award names
    the host who decided (`decider`), or says the opponent withdrew from the tournament."""
    names = {seat: seat_name(live, seat) for seat in live.players}
    said = told_result(
        ev.data.get("reason"),
        ev.data.get("winner"),
        names,
        score=ev.detail.get("score"),
        by=ev.detail.get("by"),
        decider=decider,
    )
    return f"**Result: {said}.**"


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
