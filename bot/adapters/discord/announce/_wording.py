"""The board's own words: the move record, pings addressed to one player, and links back to the board.

The host's events are worded in `bot.wording`; what only the Discord board says (a compact record of the
last moves, a ping that speaks to the player it mentions, the link that keeps the board at hand) is here.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapters.discord.render import markdown
from bot.host.events import EventKind, HostEvent
from bot.types import ClockNotice
from bot.wording import display, event_text, rule_event_text, seconds
from bot.wording.room import move_seconds_left, seconds_left

RECORD_PREFIX = "Moves: "
PENDING = "provisional"


def record_line(plies: Sequence[tuple[int, str]], *, earlier: bool, pending_until: str | None) -> str | None:
    """The recent moves, numbered by ply (`Moves: … 11. B2/  12. @1+ (final <t:…:R>)`); `earlier`: older
    moves are left out; `pending_until`: the last move is provisional until then (a Discord timestamp, or
    the word for "not final yet" when no moment is known). None before the first move."""
    if not plies:
        return None
    moves = "  ".join(f"{ply}. {notation}" for ply, notation in plies).replace("`", "'")
    text = f"{RECORD_PREFIX}`{'… ' if earlier else ''}{moves}`"
    if pending_until is not None:
        text += f" *(final {pending_until})*" if pending_until.startswith("<t:") else f" *({PENDING})*"
    return text


def board_link(url: str) -> str:
    """A short link back up to the board, for everything the bot posts below it."""
    return f"[↑ board](<{url}>)"


def with_board_link(text: str, url: str | None) -> str:
    """A reply in the room, with the link to the board at its end (when the board is known)."""
    return text if url is None else f"{text} · {board_link(url)}"


def moved_board(match_id: int, url: str) -> str:
    """What an earlier board message becomes once the board has moved down to the latest messages."""
    return f"Match {match_id}: the board has moved down to the latest messages: [↓ board](<{url}>)"


def ping_text(ev: HostEvent) -> str:
    """An event for the one player it mentions, spoken to them (the mention is their name: it is never
    followed by that name again)."""
    d = {**ev.data, **ev.detail}
    if ev.kind == EventKind.CLOCK:
        kind = str(d.get("notice") or "")
        if kind.startswith("move_warn"):
            return move_seconds_left(kind.removeprefix("move_warn"))
        if kind.startswith("warn"):
            return seconds_left(kind.removeprefix("warn"))
        if kind == ClockNotice.RESERVE_STARTED:
            return "your move time is up; your reserve is running."
        if kind == ClockNotice.GRACE_STARTED:
            return (
                f"your {seconds(float(d.get('move', 0)))} are up and you are in grace now "
                f"(at most {seconds(float(d.get('grace', 0)))} more): post `ready` before you move."
            )
        if (own := rule_event_text(ev, f"ping:{ev.kind}:{kind}")) is not None:  # a rule's own notice
            return markdown(own)
    if (own := rule_event_text(ev, f"ping:{ev.kind}")) is not None:  # a house rule's words for the one it pings
        return markdown(own)
    return _without_name(markdown(event_text(ev)), ev)


def _without_name(text: str, ev: HostEvent) -> str:
    """An event's sentence without its addressee's name at its start (`alice: …`, `alice, …`)."""
    for seat in (ev.seat, *ev.names):
        if seat is None or seat not in ev.names:
            continue
        who = display(ev.names[seat])
        for lead in (f"{who}: ", f"{who}, "):
            if text.startswith(lead):
                return text[len(lead) :]
    return text
