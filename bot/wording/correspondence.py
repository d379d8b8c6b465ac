"""The words of correspondence matches beyond the reminder (issue 41): vacation in the room and on the
board, the replies to `/dm event vacation` and `/dm event notify`, the reminders sent as direct messages and
the daily digest, and `/dm config vacation_days:`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.text import Text, fill_in, strong, time
from bot.text import lines as text_lines
from bot.types import VACATION

Name = Callable[[int | None], str]

NOTIFY_CHOICES = {
    "room": "the mention in the room only",
    "dm": "a direct message with each reminder, besides the mention",
    "digest": "one direct message a day listing every game that waits for your move",
}
"""`/dm event notify how:` choices, as the reply and the choice list say them."""


def away_event(kind: str, data: Mapping[str, Any], name: Name) -> Text:
    """A vacation beginning or ending, as the room reads it."""
    who = name(int(data["away"]))
    if kind == VACATION:
        until = time(int(data["until"]), relative=True)
        return fill_in(
            "{who} is on vacation until {until}: {who}'s clock stands still until then.", who=who, until=until
        )
    return fill_in("{who} is back from vacation: {who}'s clock runs again.", who=who)


def away_note(until: int) -> Text:
    """What the board's and `/dm status`'s clock line add after a player on vacation."""
    return "(on vacation until " + time(until, "R") + ")"


def history_left(who: str, left: str, away_until: int | None) -> Text:
    """A running correspondence match in `/dm history`: `bob to move, 1d 4h left`."""
    return fill_in("{who} to move, {left} left", who=who, left=left) + (
        "" if away_until is None else " " + away_note(away_until)
    )


def match_list(links: Sequence[str]) -> str:
    """Matches named in a reply: `#3, #7`."""
    return ", ".join(links)


def vacation_started(until: int, links: Sequence[str], used: int, allowance: int) -> Text:
    """`/dm event vacation days:N` taken."""
    return fill_in(
        "Your vacation runs until {until}: your clock stands still in {matches}. {used} of this year's {allowance} "
        "vacation days used. `/dm event vacation days:0` ends it early.",
        until=time(until, relative=True),
        matches=match_list(links),
        used=used,
        allowance=allowance,
    )


def vacation_ended(links: Sequence[str], refunded: int, used: int, allowance: int) -> str:
    """`/dm event vacation days:0`: back early."""
    where = f"your clock runs again in {match_list(links)}" if links else "no match of yours was waiting"
    back = f" {refunded} day{'s' if refunded != 1 else ''} given back;" if refunded else ""
    return f"Welcome back: {where}.{back} {used} of this year's {allowance} vacation days used."


_REFUSED = {
    "vacation_not_away": "You are not on vacation. `/dm event vacation days:N` stops your correspondence clocks.",
    "vacation_already": (
        "You are on vacation until {until} already. `/dm event vacation days:0` ends it; then take a new one."
    ),
    "vacation_allowance": (
        "{days} days is more than you have left: {left} of this year's {allowance} vacation days "
        "(a host sets the allowance with `/dm config vacation_days:`)."
    ),
    "vacation_no_match": "You play no correspondence match in this server: there is no clock to stop.",
    "vacation_in_server": "Vacation belongs to a server's matches: use `/dm event vacation` in one.",
    "notify_in_server": "Your reminders are set per server: use `/dm event notify` in one.",
}


def refused(code: str, data: Mapping[str, Any]) -> Text:
    """A vacation or notify command refused (`until`: a moment)."""
    values = {**data, **({"until": time(int(data["until"]))} if "until" in data else {})}
    return fill_in(_REFUSED[code], **values)


def allowance_line(days: int) -> Text:
    """`/dm config`: the server's yearly vacation allowance."""
    return strong("Correspondence") + f"\nVacation allowance: {days} day{'s' if days != 1 else ''} a year per player"


def allowance_saved(days: int) -> Text:
    """`/dm config vacation_days:` saved."""
    return "Saved.\n" + allowance_line(days)


def notify_saved(how: str, digest_at: int | None = None) -> str | Text:
    """`/dm event notify how:` saved (`digest_at`: the first digest's moment, whose hour is every digest's)."""
    saved = f"Saved: for your correspondence games in this server you get {NOTIFY_CHOICES[how]}."
    if digest_at is None:
        return saved
    hour = dt.datetime.fromtimestamp(digest_at, dt.UTC).strftime("%H:%M")
    return fill_in(
        "{saved} It comes at {hour} UTC ({local} your time), the first one {first}.",
        saved=saved,
        hour=hour,
        local=time(digest_at, "t"),
        first=time(digest_at, "R"),
    )


def reminder_dm(
    opponent: str, left_text: str, deadline: int, server: str, link: str, *, before_digest: bool = False
) -> Text:
    """A reminder sent as a direct message (`/dm event notify how:dm`; `before_digest`: to a digest player
    whose time runs out before their next digest)."""
    why = " (before your next digest)" if before_digest else ""
    return fill_in(
        "Your move against {opponent} is waiting in {server}: {left_text} left, time runs out {deadline}{why}. {link}",
        opponent=opponent,
        server=server,
        left_text=left_text,
        deadline=time(deadline, "R"),
        why=why,
        link=link,
    )


def digest_line(match_id: int, opponent: str, left_text: str, deadline: int, link: str) -> Text:
    """One game in the daily digest."""
    return fill_in(
        "• #{match_id} against {opponent}: {left_text} left, time runs out {deadline} · {link}",
        match_id=match_id,
        opponent=opponent,
        left_text=left_text,
        deadline=time(deadline, "R"),
        link=link,
    )


def digest(server: str, lines: Sequence[Text]) -> Text:
    """The daily digest (`/dm event notify how:digest`): every game that waits for the player's move."""
    count = len(lines)
    head = f"{count} game{'s' if count != 1 else ''} wait{'s' if count == 1 else ''} for your move in {server}:"
    return text_lines([head, *lines])
