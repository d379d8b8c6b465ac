"""Every sentence of scheduled DMs: events, refusals and listings, from structured data.

`who` turns a player into how they are named (a Discord mention that pings, a `verbatim` run of the Discord
adapter's, or a plain name): sentences that name players are `Text`, with the names as the face gave them;
`when` turns an instant into how it is shown (in each reader's zone on Discord, ISO in the terminal).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from bot.host.match import PlayerRef
from bot.schedule.status import ScheduleEventKind
from bot.schedule.store import Schedule
from bot.schedule.when import EXAMPLE, iso
from bot.text import EMPTY, Text, as_text, code, fill_in, lines, strong
from bot.wording import fill, result_sentence
from games import registry

Who = Callable[[PlayerRef], str | Text]
When = Callable[[dt.datetime], str]

REASONS = {
    "no_show": "by no-show",
    "resign": "by resignation",
    "time": "on time",
    "award": "by the host's decision",
    "agreement": "by agreement",
}


def plain(player: PlayerRef) -> str:
    """A player's name as it is."""
    return player.name


def iso_when(at: dt.datetime) -> str:
    """An instant as ISO UTC."""
    return iso(at)


def title(game: str) -> str:
    """A game's title."""
    return registry.TITLES.get(game, game)


def duration(seconds: float) -> str:
    """`24 h`, `1 h 30 min`, `10 min`, `45 s`."""
    total = round(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} d" if days else "", f"{hours} h" if hours else "", f"{minutes} min" if minutes else ""]
    if secs and not days and not hours:
        parts.append(f"{secs} s")
    return " ".join(p for p in parts if p) or "0 s"


def headline(s: Schedule, who: Who = plain) -> Text:
    """`Death Match #3: alice vs bob — Dots-and-Boxes`."""
    return fill_in(
        "Death Match #{id}: {a} vs {b} — {game}", id=s.id, a=who(s.players[0]), b=who(s.players[1]), game=title(s.game)
    )


def stake(s: Schedule) -> str:
    """`Prize: 15 garnets.` or nothing."""
    return f" Prize: {s.prize}." if s.prize else ""


_SEATS = {1: "{p1}", 2: "{p2}"}
"""The seats' names as fields of a result's template, filled with `who`'s names (which may be runs)."""


def result_line(s: Schedule, who: Who = plain) -> Text:
    """`alice wins the DM by no-show. Prize: 15 garnets.`; `bob wins the DM on score.`; `The DM ends in a draw
    by agreement.` (how it ended as every result says it, the prize in a sentence of its own)."""
    reason = s.result_reason or ""
    names = {"p1": who(s.players[0]), "p2": who(s.players[1])}
    if s.winner() is None:
        return fill_in("The DM ends in a " + result_sentence(reason, None, _SEATS) + ".", **names)
    seat = s.winner_seat or 1
    if reason in REASONS:
        how = f" {REASONS[reason]}" if reason else ""
    else:
        how = result_sentence(reason, seat, _SEATS).removeprefix(_SEATS[seat] + " wins")
    return fill_in(_SEATS[seat] + " wins the DM" + how + ".", **names) + stake(s)


def card(s: Schedule, who: Who = plain, when: When = iso_when) -> Text:
    """The event card: what, who, when, the stake, the note, and how check-in works."""
    said: list[str | Text] = [strong(headline(s, who)), f"Starts {when(s.at)}."]
    if s.prize:
        said.append(f"Prize: {s.prize}")
    if s.note:
        said.append(f"Note: {s.note}")
    said.append(
        f"Check-in opens {duration(s.checkin_s)} before the start; a player still absent "
        f"{duration(s.no_show_s)} after it loses by no-show."
    )
    return lines(said)


CHECK_IN_HOW = "press " + strong("I'm here") + " or type " + code("here")
"""How a player checks in on Discord (the terminal room says `type NAME: here`)."""


def say(
    kind: str,
    s: Schedule,
    data: dict[str, Any],
    who: Who = plain,
    when: When = iso_when,
    how: str | Text = CHECK_IN_HOW,
) -> Text:
    """The sentence for a schedule event (`how`: how a player checks in, where the sentence is shown)."""
    return as_text(_say(kind, s, data, who, when, how))


def _say(kind: str, s: Schedule, data: dict[str, Any], who: Who, when: When, how: str | Text) -> str | Text:
    p1, p2 = who(s.players[0]), who(s.players[1])
    both = fill_in("{p1} and {p2}", p1=p1, p2=p2)
    name = f"DM #{s.id} ({title(s.game)})"
    if kind == ScheduleEventKind.SCHEDULED:
        return fill_in("{name} between {both} is scheduled for {at}.", name=name, both=both, at=when(s.at)) + stake(s)
    if kind == ScheduleEventKind.RESCHEDULED:
        return fill_in(
            "{name} between {both} now starts {at} (was {before}).",
            name=name,
            both=both,
            at=when(s.at),
            before=when(data["before"]),
        )
    if kind == ScheduleEventKind.PROPOSED:
        other = s.player(3 - (s.seat_of(str(data["by"])) or 1))
        proposer = s.player(s.seat_of(str(data["by"])) or 1)
        return fill_in(
            "{proposer} proposes to move {name} to {at}; {other} (or a host) can accept.",
            proposer=who(proposer),
            name=name,
            at=when(data["at"]),
            other=who(other),
        )
    if kind == ScheduleEventKind.CANCELLED:
        if data.get("reason") == "no_show":
            return fill_in(
                "{name}: neither {p1} nor {p2} checked in, so the DM is cancelled without a result.",
                name=name,
                p1=p1,
                p2=p2,
            )
        if data.get("reason") == "aborted":
            return f"{name} was aborted by a host: no result."
        return fill_in("{name} between {both} is cancelled.", name=name, both=both)
    if kind == ScheduleEventKind.REMINDER:
        late = " (a reminder missed while the host was away)" if data.get("late") else ""
        return fill_in(
            "Reminder{late}: {both}, {name} starts {at}.", late=late, both=both, name=name, at=when(s.at)
        ) + stake(s)
    if kind == ScheduleEventKind.CHECKIN_OPEN:
        return fill_in(
            "Check-in for {name} is open: {both}, {how}. It starts {at}.", name=name, both=both, how=how, at=when(s.at)
        )
    if kind == ScheduleEventKind.CHECKED_IN:
        seat = int(data["seat"])
        rest = EMPTY if all(s.here) else fill_in(" Waiting for {other}.", other=who(s.player(3 - seat)))
        return fill_in("{player} is here.", player=who(s.player(seat))) + rest
    if kind == ScheduleEventKind.WAITING:
        missing = as_text(" and ").join(who(s.player(seat)) for seat in data["missing"])
        return fill_in(
            "{name} is due: {missing}, check in now ({how}). Absent at {until} loses by no-show.",
            name=name,
            missing=missing,
            how=how,
            until=when(data["until"]),
        )
    if kind == ScheduleEventKind.EXTENDED:
        return f"A host extended the wait for {name}: check-in stays open until {when(data['until'])}."
    if kind == ScheduleEventKind.STARTED:
        return fill_in("{name} begins: {both}.", name=name, both=both) + stake(s)
    if kind == ScheduleEventKind.START_FAILED:
        return f"{name} could not be started ({data.get('reason') or 'an error'}); a host can try `start anyway`."
    if kind == ScheduleEventKind.FORFEITED:
        loser = s.player(3 - int(data["winner"]))
        return fill_in("{loser} did not check in. ", loser=who(loser)) + result_line(s, who)
    if kind == ScheduleEventKind.FINISHED:
        return result_line(s, who)
    return f"{name}: {kind}"


_REFUSALS = {
    "unknown": "There is no scheduled DM #{schedule} here.",
    "past": "That time ({at}) is in the past; {example}.",
    "not_open": "DM #{schedule} is {status}, so that is no longer possible.",
    "not_player": "Only the two players of DM #{schedule} can do that.",
    "no_proposal": "Nobody has proposed a new time for DM #{schedule}.",
    "not_other": "Only the other player or a host can accept a proposed time.",
    "too_early": "Check-in opens {opens}.",
    "already_here": "You are already checked in.",
    "bad_minutes": "Give the extra wait in minutes, between 1 and 1440.",
    "prize_long": "Keep the prize under {limit} characters.",
    "note_long": "Keep the note under {limit} characters.",
}
_TIMES = ("at", "opens")
"""Refusal data that are instants, shown with `when`."""


def refusal(code: str, data: dict[str, Any], when: When = iso_when) -> str:
    """Why a request about a scheduled DM was refused (`bot.wording.fill` over this feature's templates)."""
    values = {**data, "example": EXAMPLE, **{k: when(data[k]) for k in _TIMES if k in data}}
    return fill(_REFUSALS, code, values)


def status_line(s: Schedule, who: Who = plain, when: When = iso_when) -> Text:
    """One line of `/dm upcoming`."""
    here = [who(s.player(seat)) for seat in (1, 2) if s.here[seat - 1] is not None]
    extra = " — here: " + as_text(", ").join(here) if here else ""
    proposal = f" — {when(s.proposed_at)} proposed" if s.proposed_at is not None else ""
    said = fill_in(
        "#{id} {at}: {a} vs {b}, {game}",
        id=s.id,
        at=when(s.at),
        a=who(s.players[0]),
        b=who(s.players[1]),
        game=title(s.game),
    )
    return said + stake(s) + extra + proposal


UPCOMING_TITLE = strong("Scheduled DMs")
"""The head of `/dm event upcoming`."""

RESULTS_TITLE = strong("Results")
"""The head of `/dm event results`."""


def nothing_scheduled() -> str:
    """`/dm event upcoming` with nothing scheduled."""
    return "Nothing is scheduled in this server."


def no_results() -> str:
    """`/dm event results` with nothing matching."""
    return "No finished DMs match."


def more_results(count: int) -> str:
    """The last line of a results list cut short."""
    return f"… and {count} more (use `export:` for all)."


BOTS_CANNOT_PLAY = "Bots cannot play."
ONLY_HOST_OR_PLAYER = "Only a host, or a player of this DM proposing a new time, can do that."
ONLY_HOST = "Only a host can do that."
CHECKED_IN = "You are checked in."
ACCEPTED = "Accepted: the DM has its new time."
STARTED = "Started."
REMINDER_RANGE = "Each reminder must be between 1 minute and 14 days before the start."
SAVED = "Saved (for DMs scheduled from now on)."


def event_description(game: str, player1: str, player2: str, prize: str | None, note: str | None) -> str:
    """The description of a scheduled DM's server event."""
    said = [f"{title(game)} Death Match: {player1} vs {player2}."]
    if prize:
        said.append(f"Prize: {prize}")
    if note:
        said.append(note)
    return "\n".join(said)


def scheduled(s: Schedule, who: Who = plain, when: When = iso_when) -> Text:
    """A DM stored by `/dm event schedule`: its number, players, game, time and prize."""
    said = fill_in(
        "Scheduled DM #{id}: {a} vs {b}, {game}, {at}.",
        id=s.id,
        a=who(s.players[0]),
        b=who(s.players[1]),
        game=title(s.game),
        at=when(s.at),
    )
    return said + stake(s)


def moved(schedule_id: int, at: str) -> str:
    """A host moved a DM (`at` as the face shows a moment)."""
    return f"DM #{schedule_id} now starts {at}."


def proposed(schedule_id: int, at: str) -> str:
    """A player proposed a new time for their DM."""
    return f"Proposed {at} for DM #{schedule_id}; it takes effect when accepted."


def cancelled(schedule_id: int) -> str:
    """A host called a DM off."""
    return f"DM #{schedule_id} is cancelled."


def longer_wait(minutes: int) -> str:
    """A host extended the wait for a no-show."""
    return f"The wait is {minutes} minutes longer."


def card_ending(status: str, ending: str | Text) -> Text:
    """The line a DM's card gets once it is no longer scheduled: its state, and its result when it has one."""
    return ("\n" + strong(f"{status.capitalize()}.") + " " + ending).rstrip()


def reminders_unreadable(item: str) -> str:
    """A `reminders:` item that is not a time before the start."""
    return f"`reminders:` takes times before the start such as `24h 1h 10m` (or `off`), not `{item[:20]}`."


def reminders_count(most: int) -> str:
    """Too few or too many `reminders:`."""
    return f"`reminders:` takes 1 to {most} times, e.g. `24h 1h 10m`, or `off`."


def settings_text(timezone: str, reminders: list[str], checkin_s: float, no_show_s: float) -> Text:
    """The scheduling settings as a host reads them."""
    return lines(
        [
            UPCOMING_TITLE,
            f"Time zone of times written without one: {timezone}",
            f"Reminders before the start: {', '.join(reminders) or 'none'}",
            f"Check-in opens {duration(checkin_s)} before the start",
            f"A player still absent {duration(no_show_s)} after the start loses by no-show",
        ]
    )
