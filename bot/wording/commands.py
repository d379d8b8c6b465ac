"""What the Discord commands say themselves (the host's events and refusals are worded in `events` and
`refusals`): their confirmations, their own refusals, and the answers to errors. A mention made by the Discord
adapter (`member.mention`, `channel.mention`) comes in as a plain `str` argument."""

from __future__ import annotations

from bot.text import Text, fill_in

OWN_MATCH = "You play in this match, so you cannot decide it: another host (or a member with Manage Server) can."
NO_OVERVIEW = "The overview is not running on this bot."
NO_SCHEDULING = "Scheduling is not running in this process."
NO_TOURNAMENTS = "Tournaments are not running on this bot."
SERVER_PAGE_ONLY = "A server's page belongs to a server: use this in one."
SETTINGS_SERVER_ONLY = "Settings belong to a server: use `/dm config` in one."
MOVES_LINE = "Moves are plain messages in the game room; `/dm rules game:` shows how to write them."
"""The help card's last line when the bot has no line of its own on where moves are written."""

PAUSED = "Match {match} is paused."
CONTINUES = "Match {match} continues."
ABORTED = "Match {match} is aborted."
RESIGNED = "You resigned match {match}."
"""Templates of one-step commands' confirmations (`{match}`: the match's number)."""

SERVER_CHANNEL_ONLY = "This command works in a server channel only."
NOT_HERE = "You may not use this command here."


def slow_down(seconds: float) -> str:
    """A command used again before its cooldown ran out."""
    return f"Slow down: try again in {seconds:.0f} s."


def went_wrong(match: int | None) -> str:
    """An unexpected error, told to the one who used the command (the host's operator sees the log)."""
    return "Something went wrong on my side; the host has been told" + (f" (match {match})." if match else ".")


def time_adjusted(player: str, seconds: int, match: int) -> str:
    """`/dm host time`: a player's clock given or taken `seconds`."""
    return f"{player}: {seconds:+d} s in match {match}."


def awarded(match: int, said: str) -> str:
    """`/dm host award`: the match and the result sentence."""
    return f"Match {match}: {said}."


def no_history(who: str) -> str:
    """`/dm history` of a member without matches in this server."""
    return f"{who} has no matches here yet."


def _in(room: str | None) -> str:
    return f" in {room}" if room is not None else ""


def series_title(title: str, series: int) -> str:
    """What a series' first game is, in the line that says it started."""
    return f"{title}, game 1 of a best of {series}"


def started(match: int, what: str, player1: str | Text, player2: str | Text, room: str | None) -> Text:
    """A match started by `/dm start` (`room`: the thread it is played in, when it has one; the players as the
    face names them, a mention on Discord)."""
    return (
        fill_in("Match {match} ({what}): {p1} vs {p2} has started", match=match, what=what, p1=player1, p2=player2)
        + f"{_in(room)}."
    )


def practice_started(match: int, title: str, member: str | Text, level: str, room: str | None) -> Text:
    """A practice match started against the practice opponent at `level` (the member as the face names them)."""
    return (
        fill_in(
            "Practice match {match} ({title}): {member} vs the practice opponent ({level}) has started",
            match=match,
            title=title,
            member=member,
            level=level,
        )
        + f"{_in(room)}."
    )


def no_thread(mode: str, channel: str) -> str:
    """The bot may not open the public or private thread a match's room needs in `channel`."""
    kind = "Public" if mode == "public" else "Private"
    return f"I may not open a {mode} thread in {channel}: I need the Create {kind} Threads permission there."
