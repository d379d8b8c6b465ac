"""A match's host events as sentences: what happened, whose turn it is, the clocks and the board's deadlines."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.host.events import ClockFacts, EventKind, HostEvent, Refusal, TurnFacts
from bot.text import Text, as_text, fill_in, lines, time
from bot.types import BACK, OVER_STATUSES, VACATION, ClockKind, ClockNotice, MatchStatus, days_hours
from bot.wording.basics import _SEAT_FIELDS, _SEAT_WORDS, Name, named, namer, rule_texts, rule_words, seconds
from bot.wording.correspondence import away_event, away_note
from bot.wording.overview import result_sentence
from bot.wording.refusals import refusal_text
from games.base import Event

if TYPE_CHECKING:
    from bot.host.match import Live


class NoteKind(StrEnum):
    """The kinds of the engines' move notes (`games.base.Event.kind`) the move sentence words."""

    MOVE = "move"
    BOXES = "boxes"
    EXTRA_TURN = "extra_turn"
    FORCED = "forced"
    ROUND_END = "round_end"
    PENALTY = "penalty"
    ROUND_START = "round_start"
    COLOURS = "colours"
    CAPTURE = "capture"
    STOP = "stop"
    FIVE_ROWS = "five_rows"
    GAME_OVER = "game_over"


def turn_line(turn: TurnFacts | None, name: Name) -> str:
    """Whose turn it is, or what the match waits for."""
    if turn is None:
        return ""
    return named(_turn(turn.status, turn.to_move, turn.prompt, turn.provisional, name, turn.held_by), name)


def _turn(
    status: str, to_move: int | None, prompt: str, provisional: int | None, name: Name, held_by: str | None = None
) -> str:
    if status in OVER_STATUSES:
        return "The match is over."
    if status == MatchStatus.HELD:  # the holding rule says what it waits for
        return rule_words().get(f"held:{held_by}") or "Waiting for a player's answer."
    if provisional is not None and (waits := rule_words().get("turn:provisional")) is not None:
        return waits.format(player=name(provisional))  # the rule that keeps the move provisional says so
    if to_move is None:
        return "The game is over."
    return f"{name(to_move)} to move" + (f": {prompt}." if prompt else ".")


def notice(kind: ClockNotice, who: str, move: float, grace: float) -> str:
    """A clock notice for the player on move (a house rule's own notice in the words it declares, `clock:<notice>`)."""
    own = rule_words().get(f"{EventKind.CLOCK}:{kind}")
    if own is not None:
        return own.format(player=who)
    if kind == ClockNotice.RESERVE_STARTED:
        return f"{who}: move time is up, your reserve is running."
    if kind == ClockNotice.GRACE_STARTED:
        return (
            f"{who}: your {seconds(move)} are up and you are now in grace "
            f"(at most {seconds(grace)} more); post `ready` before you move."
        )
    left = kind.seconds_left
    if left is not None and kind.of_move:
        return f"{who}: {left} s left for this move."
    if left is not None:
        return f"{who}: {left} s left before you lose on time."
    return f"{who}: {kind}"


def event_text(ev: HostEvent) -> Text:
    """The sentence of a host event."""
    name = namer(ev.names)
    refused = ev.detail.get("refusal")
    if isinstance(refused, Refusal):
        return as_text(refusal_text(refused))
    data = {**ev.data, **ev.detail}
    own = rule_event_text(ev, ev.kind)
    if own is not None:  # a house rule's own event, in the words it declares
        return own
    if ev.kind == EventKind.MOVE:
        data["said"] = describe(data.get("events") or [], name)
    if ev.kind == EventKind.TIME and ev.clocks is not None:
        data["clocks"] = clock_line(ev.clocks, name)
    return as_text(named(_say(ev.kind, data, ev.seat, name, turn_line(ev.turn, name)), name))


_MOMENT = re.compile(r"\d{9,12}")
"""The Unix seconds in a `deadline` an older version wrote as a chat's timestamp (still in the outbox)."""


def rule_event_text(ev: HostEvent, code: str) -> Text | None:
    """A house rule's template `code` (its event kind, or `ping:<kind>`) filled with the event: seats by name,
    `{player}` the event's seat, `{opponent}` the other one, `{turn}` the turn line, `{time}` its `seconds` as a
    clock shows them; `{deadline}`, a moment, as how far away it is (None: no rule has it)."""
    own = rule_texts().get(code)
    if own is None:
        return None
    name = namer(ev.names)
    seat = ev.seat
    values = {k: name(v) if k in _SEAT_FIELDS else v for k, v in {**ev.data, **ev.detail}.items()}
    values.update(player=name(seat), opponent=name(None if seat is None else 3 - seat))
    values.setdefault("turn", turn_line(ev.turn, name))
    if isinstance(values.get("seconds"), int | float):
        values.setdefault("time", seconds(float(values["seconds"])))
    deadline = values.get("deadline")
    if isinstance(deadline, str) and (digits := _MOMENT.search(deadline)) is not None:
        deadline = int(digits.group())  # a reminder owed since before moments were seconds: its moment's digits
    if isinstance(deadline, int | float):
        values["deadline"] = time(int(deadline), "R")
    return named(fill_in(own, **values).rstrip(), name)


def say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str = "") -> Text:
    """The sentence of a host event given as parts (`now_turn`: the turn line, for events that end with it)."""
    return as_text(named(_say(kind, data, seat, name, now_turn), name))


def clock_line(facts: ClockFacts, name: Name) -> Text:
    """One line with both clocks (`clocks: ▶ alice 42s (grace 5:00) | bob …`)."""
    parts: list[str | Text] = []
    for seat in (1, 2):
        rem = facts.remaining[seat]
        mark = "▶ " if facts.running == seat else ""
        if facts.kind == ClockKind.CORRESPONDENCE:
            away = facts.away.get(seat)
            note = "" if away is None else " " + away_note(away)
            parts.append(f"{mark}{name(seat)} {correspondence_left(rem)}" + note)
        elif facts.kind == ClockKind.MOVE_RESERVE:
            parts.append(f"{mark}{name(seat)} {seconds(rem['move'])} + {seconds(rem['reserve'])} reserve")
        else:
            g = "grace used" if rem["grace_used"] and rem["grace"] == 0 else f"grace {seconds(rem['grace'])}"
            parts.append(f"{mark}{name(seat)} {seconds(rem['move'])} ({g})")
    suffix = " (paused)" if facts.paused else ""
    return "clocks: " + as_text(" | ").join(parts) + suffix


def correspondence_left(rem: Mapping[str, float]) -> str:
    """A correspondence clock in days and hours: `1d 20h` (`+ 3d bank` when the player has saved time)."""

    bank = f" + {days_hours(rem['reserve'])} bank" if rem["reserve"] > 0 else ""
    return f"{days_hours(rem['move'])}{bank}"


def clocks_text(live: Live, now: float) -> Text:
    """The clock line of a running match at loop time `now`."""
    from bot.host.match import clock_facts

    return clock_line(clock_facts(live, now), namer(live.names()))


def status_lines(live: Live, now: float) -> tuple[str, Text]:
    """Whose turn it is and both clocks: the two lines under a board."""
    from bot.host.match import turn_facts

    name = namer(live.names())
    return turn_line(turn_facts(live), name), clocks_text(live, now)


def board_text(live: Live, now: float) -> Text:
    """The text board (names, never seats), whose turn it is and both clocks."""
    board = named(live.ruleset.render_text(live.state), namer(live.names()))
    return lines([board, *status_lines(live, now)])


def _say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str) -> str | Text:
    d = data
    if kind in (EventKind.STARTED, EventKind.RESUMED):
        return f"Match {d['match']} ({d['title']}) {kind}: {name(1)} vs {name(2)}. {now_turn}"
    if kind == EventKind.MOVE and d.get("final"):
        return f"{name(seat)}'s move {d['move']} is final." + str(d.get("said", ""))
    if kind == EventKind.MOVE:
        return f"{name(seat)} played {d['move']}." + str(d.get("said", ""))
    if kind == EventKind.TURN:
        return now_turn
    if kind == EventKind.CLOCK:
        return notice(ClockNotice(d["notice"]), name(seat), float(d.get("move", 0)), float(d.get("grace", 0)))
    if kind == EventKind.FINISHED:
        winner = d.get("winner")
        players = {seat: name(seat) for seat in (1, 2)}
        return f"Game over: {result_sentence(d.get('reason'), winner, players, score=d.get('score'))}."
    if kind == EventKind.PAUSED:
        return f"Match {d['match']} is paused by the host."
    if kind == EventKind.UNPAUSED:
        return f"Match {d['match']} continues. {now_turn}"
    if kind == EventKind.ABORTED:
        return f"Match {d['match']} was aborted by the host."
    if kind in (VACATION, BACK):
        return away_event(kind, d, name)
    if kind == EventKind.TIME:
        verb = "gets" if float(d["seconds"]) >= 0 else "loses"
        return (f"{name(seat)} {verb} {abs(float(d['seconds'])):g} s. " + as_text(d.get("clocks", ""))).rstrip()
    return kind.replace("_", " ")


_DEADLINES = {
    "clock": "{who}: {words} {at}",
}
_CLOCK_DEADLINES = {
    ClockNotice.RESERVE_STARTED: "move time ends",
    ClockNotice.GRACE_STARTED: "move time ends",
    ClockNotice.TIMEOUT: "time runs out",
}
"""Clock deadlines that end a phase of the mover's time (warnings are not shown as deadlines)."""


def clock_deadline_text(kind: ClockNotice, who: str, at: str) -> str | None:
    """A clock's next deadline for the player on move (`at`: how the room writes the moment). None: a
    deadline the room does not show (warnings)."""
    words = _CLOCK_DEADLINES.get(kind)
    return None if words is None else _DEADLINES["clock"].format(who=who, words=words, at=at)


def deadline_text(label: str, who: str, at: str) -> str | None:
    """A house rule's running deadline, by the label it declares (`at`: how the room writes the moment).
    None: a deadline the room does not show."""
    template = _DEADLINES.get(label) or rule_words().get(f"deadline:{label}")
    return None if template is None else template.format(who=who, at=at)


def describe(events: Sequence[Mapping[str, Any] | Event], name: Name) -> str:
    """The extra sentence(s) after 'X played M.' for a move's engine events (as the engine made them, or
    as stored: `{"kind": …, …data}`; the first, 'move', is skipped)."""
    parts: list[str] = []
    kinds = [e.kind if isinstance(e, Event) else str(e.get("kind")) for e in events]
    ends = (
        NoteKind.ROUND_END in kinds or NoteKind.GAME_OVER in kinds
    )  # a box that ends the round or game earns no extra move
    for e in events[1:]:
        d: Mapping[str, Any] = e.data if isinstance(e, Event) else e
        kind = e.kind if isinstance(e, Event) else str(e.get("kind"))
        if kind == NoteKind.BOXES:
            n = d.get("count", 1)
            again = "" if ends else " and moves again"
            parts.append(f"{name(d.get('seat'))} takes {n} box{'es' if n != 1 else ''}{again}")
        elif kind == NoteKind.EXTRA_TURN:
            if not any(p.endswith("moves again") for p in parts):
                parts.append(f"{name(d.get('seat'))} moves again")
        elif kind == NoteKind.FORCED:
            tiles = d.get("tiles") or d.get("moves") or []
            parts.append(f"forced: {', '.join(str(t) for t in tiles)}" if tiles else "forced tiles placed")
        elif kind == NoteKind.ROUND_END:
            scores = d.get("scores", {})
            s1, s2 = scores.get(1, scores.get("1", 0)), scores.get(2, scores.get("2", 0))
            task = _SEAT_WORDS.sub(lambda m: name(int(m.group(1))), str(d.get("task") or ""))
            task = task.replace(" must pick", " must now pick", 1)
            if not task:
                task = f"{name(d.get('picker'))} must pick a square, like pick C3"
            then = f", then {name(d['next'])} starts round {int(d.get('round') or 0) + 1}" if "next" in d else ""
            won, lost = (s2, s1) if d.get("winner") == 2 else (s1, s2)  # the winner's count first, as in results
            parts.append(
                f"round {d.get('round')} is over: {name(d.get('winner'))} wins it {won}–{lost} in boxes; {task}{then}"
            )
        elif kind == NoteKind.PENALTY:
            parts.append(f"{name(d.get('seat'))} picked {d.get('square')} ({d.get('action', 'penalty')})")
        elif kind == NoteKind.ROUND_START:
            parts.append(f"round {d.get('round')} starts with {name(d.get('seat'))}")
        elif kind == NoteKind.COLOURS:
            parts.append(
                f"{name(d.get('red'))} plays red, {name(d.get('blue'))} plays blue; {name(d.get('first'))} moves first"
            )
        elif kind == NoteKind.CAPTURE:
            taken = int(d.get("taken") or 0)
            text = f"{name(d.get('seat'))} captures {taken} dot{'s' if taken != 1 else ''}"
            freed = int(d.get("freed") or 0)
            if freed:
                text += f" (freeing {freed} of their own)"
            parts.append(text + (" (the dot was played inside their enclosure)" if d.get("suicide") else ""))
        elif kind == NoteKind.STOP:
            seat = int(d.get("seat") or 1)
            loose = int(d.get("ungrounded") or 0)
            handed = (
                f"hands {loose} ungrounded dot{'s' if loose != 1 else ''} over to {name(3 - seat)}"
                if loose
                else "hands nothing over (every dot is grounded)"
            )
            parts.append(f"{name(seat)} stops and {handed}. {name(3 - seat)} may place more dots, then posts `end`")
        elif kind == NoteKind.FIVE_ROWS:
            counts = {k: v for k, v in d.items() if k in ("1", "2")}
            parts.append("five-rows: " + ", ".join(f"{name(int(k))} {v}" for k, v in sorted(counts.items())))
        elif kind in (NoteKind.GAME_OVER, NoteKind.MOVE):
            continue
        else:
            parts.append(kind.replace("_", " "))
    return (" " + "; ".join(parts) + ".") if parts else ""


def more_replies(count: int) -> str:
    """The last line of a folded catch-up reply that had to leave some out."""
    return f"… and {count} more {'reply' if count == 1 else 'replies'} to messages posted while the host was away."
