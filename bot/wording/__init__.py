"""Every sentence the host says: host events and refusals (data from `bot.host`) → text people read.

The host core never words anything; the terminal room, the Discord adapter and the text log all word
its events here, so a game reads the same everywhere. Names, never seats: a `Name` turns a seat into
the player's display name (`namer(event.names)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bot.host.events import ClockFacts, HostError, HostEvent, Ignored, Refusal, SubmitResult, TurnFacts
from bot.tournaments.refusals import KIND as TOURNAMENT
from bot.types import ClockKind, ClockNotice
from bot.wording.correspondence import away_event, away_note
from bot.wording.counts import plural
from bot.wording.tournaments import refusal_text as tournament_refusal
from bot.wording.tournaments import template as tournament_template
from games.base import TITLES, Event, OptionProblem, Termination

if TYPE_CHECKING:
    from bot.host.match import Live

Name = Callable[[int | None], str]


def namer(names: Mapping[int, str]) -> Name:
    """Seat → display name, for a match's players (`nobody` for no seat)."""

    def name(seat: int | None) -> str:
        return display(names[seat]) if seat is not None and seat in names else "nobody"

    return name


def seat_name(live: Live, seat: int | None) -> str:
    """A running match's player in `seat`, by display name."""
    return namer(live.names())(seat)


def seconds(value: float) -> str:
    """A duration as a clock shows it (`7.5s`, `42s`, `1:05`)."""
    s = max(0.0, value)
    if s >= 60:
        return f"{int(s // 60)}:{int(s % 60):02d}"
    return f"{s:.1f}s" if s < 10 else f"{int(s)}s"


def quote(text: str) -> str:
    """A player's text, quoted safely (one line, at most 40 characters, cannot ping or break formatting)."""
    clean = "".join(ch if ch.isprintable() else " " for ch in text[:200])
    clean = clean.replace("`", "'").replace("@", "@\u200b")
    return f"`{clean[:40]}{'…' if len(clean) > 40 else ''}`"


def display(name: str) -> str:
    """A player's name as the host says it: one line, at most 40 characters, and it can never ping
    (`@everyone`, `@here`, `<@&role>`, `<@user>`)."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name[:200]).split())
    clean = clean.replace("@", "@\u200b")
    return (clean[:40] + "…" if len(clean) > 40 else clean) or "?"


def turn_line(turn: TurnFacts | None, name: Name) -> str:
    """Whose turn it is, or what the match waits for."""
    if turn is None:
        return ""
    return named(_turn(turn.status, turn.to_move, turn.prompt, turn.provisional, name), name)


def _turn(status: str, to_move: int | None, prompt: str, provisional: int | None, name: Name) -> str:
    if status == "choosing":
        return "Waiting for the advantage player to choose who starts."
    if status in ("finished", "aborted"):
        return "The match is over."
    if status == "mulligan_wait":
        return "Waiting for the mulligan answer."
    if provisional is not None:
        return f"{name(provisional)}'s move becomes final in a few seconds."
    if to_move is None:
        return "The game is over."
    return f"{name(to_move)} to move" + (f": {prompt}." if prompt else ".")


def notice(kind: ClockNotice, who: str, move: float, grace: float) -> str:
    """A clock notice for the player on move."""
    if kind == ClockNotice.RESERVE_STARTED:
        return f"{who}: move time is up, your reserve is running."
    if kind == ClockNotice.GRACE_STARTED:
        return (
            f"{who}: your {seconds(move)} are up and you are now in grace "
            f"(at most {seconds(grace)} more); post `ready` before you move."
        )
    if kind == ClockNotice.RESTART:
        return f"{who}: that turn would leave three same-coloured tracks; your clock is restarted once."
    left = kind.seconds_left
    if left is not None and kind.of_move:
        return f"{who}: {left} s left for this move."
    if left is not None:
        return f"{who}: {left} s left before you lose on time."
    return f"{who}: {kind}"


def named(text: str, name: Name) -> str:
    """Engine text speaks of seats ("seat 2 to move"); people read names."""
    return _SEAT_WORDS.sub(lambda m: name(int(m.group(1))), text)


def event_text(ev: HostEvent) -> str:
    """The sentence of a host event."""
    name = namer(ev.names)
    refused = ev.detail.get("refusal")
    if isinstance(refused, Refusal):
        return refusal_text(refused)
    data = {**ev.data, **ev.detail}
    own = rule_words().get(ev.kind)
    if own is not None:  # a house rule's own event, in the words it declares
        seat = ev.seat
        values = {k: name(v) if k in _SEAT_FIELDS else v for k, v in data.items()}
        values.update(player=name(seat), opponent=name(None if seat is None else 3 - seat))
        return named(own.format(**values), name)
    if ev.kind == "move":
        data["said"] = describe(data.get("events") or [], name)
    if ev.kind == "time" and ev.clocks is not None:
        data["clocks"] = clock_line(ev.clocks, name)
    return named(_say(ev.kind, data, ev.seat, name, turn_line(ev.turn, name)), name)


def say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str = "") -> str:
    """The sentence of a host event given as parts (`now_turn`: the turn line, for events that end with it)."""
    return named(_say(kind, data, seat, name, now_turn), name)


def clock_line(facts: ClockFacts, name: Name) -> str:
    """One line with both clocks (`clocks: ▶ alice 42s (grace 5:00) | bob …`)."""
    parts = []
    for seat in (1, 2):
        rem = facts.remaining[seat]
        mark = "▶ " if facts.running == seat else ""
        if facts.kind == ClockKind.CORRESPONDENCE:
            away = facts.away.get(seat)
            note = "" if away is None else " " + away_note(away)
            parts.append(f"{mark}{name(seat)} {correspondence_left(rem)}{note}")
        elif facts.kind == ClockKind.MOVE_RESERVE:
            parts.append(f"{mark}{name(seat)} {seconds(rem['move'])} + {seconds(rem['reserve'])} reserve")
        else:
            g = "grace used" if rem["grace_used"] and rem["grace"] == 0 else f"grace {seconds(rem['grace'])}"
            parts.append(f"{mark}{name(seat)} {seconds(rem['move'])} ({g})")
    suffix = " (paused)" if facts.paused else ""
    return "clocks: " + " | ".join(parts) + suffix


def correspondence_left(rem: Mapping[str, float]) -> str:
    """A correspondence clock in days and hours: `1d 20h` (`+ 3d bank` when the player has saved time)."""
    from bot.host.rules.correspondence import days_hours

    bank = f" + {days_hours(rem['reserve'])} bank" if rem["reserve"] > 0 else ""
    return f"{days_hours(rem['move'])}{bank}"


def clocks_text(live: Live, now: float) -> str:
    """The clock line of a running match at loop time `now`."""
    from bot.host.match import clock_facts

    return clock_line(clock_facts(live, now), namer(live.names()))


def status_lines(live: Live, now: float) -> list[str]:
    """Whose turn it is and both clocks: the two lines under a board."""
    from bot.host.match import turn_facts

    name = namer(live.names())
    return [turn_line(turn_facts(live), name), clocks_text(live, now)]


def board_text(live: Live, now: float) -> str:
    """The text board (names, never seats), whose turn it is and both clocks."""
    board = named(live.ruleset.render_text(live.state), namer(live.names()))
    return "\n".join([board, *status_lines(live, now)])


def _say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str) -> str:
    d = data
    if kind in ("started", "resumed"):
        return f"Match {d['match']} ({d['title']}) {kind}: {name(1)} vs {name(2)}. {now_turn}"
    if kind == "choose":
        return (
            f"{name(seat)} has the advantage: post `first` to move first or `second` to let {name(3 - (seat or 1))} "
            f"start (within {seconds(float(d['seconds']))}; after that {name(seat)} moves first)."
        )
    if kind == "choice_timeout":
        return f"{name(seat)} did not choose in time, so {name(seat)} moves first."
    if kind == "provisional":
        return (
            f"{name(seat)} played {d['move']}. It becomes final in {float(d['seconds']):g} s "
            "(delete or edit your message, or post `take back`, to take it back)."
        )
    if kind == "move" and d.get("final"):
        return f"{name(seat)}'s move {d['move']} is final." + str(d.get("said", ""))
    if kind == "move":
        return f"{name(seat)} played {d['move']}." + str(d.get("said", ""))
    if kind == "turn":
        return now_turn
    if kind == "takeback":
        return f"{name(seat)} took back {d['move']}. {now_turn}"
    if kind == "mulligan":
        return f"{name(seat)} used their mulligan: the last {d['rewound']} turn(s) are rewound. {now_turn}"
    if kind == "mulligan_offer":
        return (
            f"{name(d['winner'])} completed a {d['reason']}. {name(d['loser'])}, you still have your mulligan: "
            f"post `mulligan` to rewind, or `decline` (you have {float(d['seconds']):g} s)."
        )
    if kind == "presence":
        return (
            f"{name(d['asker'])} is ready to move from grace. {name(d['confirmer'])}, please confirm you are here "
            f"(button or `here`) within {float(d['seconds']):g} s."
        )
    if kind == "presence_ok":
        return f"{name(seat)}, you may move now ({d['how']})."
    if kind == "clock":
        return notice(ClockNotice(d["notice"]), name(seat), float(d.get("move", 0)), float(d.get("grace", 0)))
    if kind == "finished":
        winner = d.get("winner")
        players = {seat: name(seat) for seat in (1, 2)}
        return f"Game over: {result_sentence(d.get('reason'), winner, players, score=d.get('score'))}."
    if kind == "paused":
        return f"Match {d['match']} is paused by the host."
    if kind == "unpaused":
        return f"Match {d['match']} continues. {now_turn}"
    if kind == "aborted":
        return f"Match {d['match']} was aborted by the host."
    if kind in ("vacation", "vacation_over"):
        return away_event(kind, d, name)
    if kind == "time":
        verb = "gets" if float(d["seconds"]) >= 0 else "loses"
        return f"{name(seat)} {verb} {abs(float(d['seconds'])):g} s. {d.get('clocks', '')}".rstrip()
    return kind.replace("_", " ")


_REFUSALS: dict[str, str] = {
    "takeback_none": "There is no move of yours to take back: moves are final after {seconds:g} s.",
    "takeback_late": "Too late: the move is already final.",
    "not_final": "Wait: the last move is not final yet.",
    "mulligan_used": "You have already used your mulligan.",
    "mulligan_own_turn": "You can use your mulligan on your own turn.",
    "mulligan_winner": "Only the player who lost can use a mulligan now.",
    "mulligan_nothing": "You have no turn of your own to rewind yet.",
    "mulligan_no_offer": "There is no mulligan offer for you to decline.",
    "over": "The game is over.",
    "late": "Too late: your time had run out before you posted this.",
    "ready_not_in_grace": "`ready` is for a player in grace, on their turn.",
    "ready_cleared": "You are cleared to move.",
    "ready_waiting": "Already asked: waiting for {other} to confirm they are here.",
    "here_nobody": "Nobody is waiting for your confirmation.",
    "grace_ready": "You are in grace: post `ready` and wait for {other} to confirm, then move.",
    "grace_wait": "Waiting for {other} to confirm they are here.",
    "shift_confirm": "That move lowers your five-row count and loses at once. Post `confirm` to play it anyway.",
    "confirm_nothing": "There is nothing for you to confirm.",
    "choose_not_you": "{chooser} chooses who starts.",
    "choose_first": "{chooser} must first choose who starts.",
    "paused": "The match is paused.",
    "match_over": "The match is over.",
    "stored_over": "Match {match} is over.",
    "already_over": "The match is already over.",
    "turn": "It is {mover}'s turn.",
    "unreadable": "I can't read {text} as a move: {hint}.",
    "illegal": "Illegal move {text}: {reason}.",
    "unsaved": "The host could not save that just now, so it did not happen: please post it again.",
    "failed": "The host could not handle that; the match is unchanged.",
    "not_hosted": "Another host process runs this match now: try again in a moment.",
    "taken_over": "Another host took over this match, so that did not count here: post your move again.",
    "unconfirmed": (
        "The host lost touch with its database and cannot tell yet whether that counted: "
        "look at the board before posting again."
    ),
    "no_rule:mulligan": "This match has no mulligans.",
    "no_rule:decline": "There is no mulligan offer for you to decline.",
    "no_rule:ready": "`ready` is for a player in grace, on their turn.",
    "no_rule:here": "Nobody is waiting for your confirmation.",
    "no_rule:takeback": "Moves are final at once in this match.",
    "no_rule:first": "That choice is not open any more.",
    "no_rule:second": "That choice is not open any more.",
    "not_saved": "the match could not be saved; try again in a moment",
    "not_running": "match {match} is not running",
    "no_match": "there is no match {match}",
    "two_players": "a match needs two different players",
    "advantage_seat": "advantage names player 1 or 2",
    "first_seat": "first must be 1 or 2",
    "seat": "seat must be 1 or 2",
    "not_player": "only a player of this match can do that",
    "not_player:resign": "only a player of this match can resign",
    "not_player:mulligan": "only a player of this match can use a mulligan",
    "not_player:decline": "only a player of this match can decline",
    "not_player:here": "only the opponent can confirm presence",
    "pause_paused": "match {match} is paused, not running",
    "pause_over": "match {match} is over, not running",
    "not_paused": "match {match} is not paused",
    "settings_game": "{detail}",
    "settings_clock": "clock for {title}: {detail}",
    "settings_room_mode": "room mode must be one of {modes}, not {value!r}",
    "rule_unknown": "{game} takes no rule {rule!r}; it accepts {accepted}",
    "rule_on_off": "{rule} is on or off, not {value!r}",
    "rule_seconds": "{rule} is a number of seconds (0 = off), not {value!r}",
    "rule_range": "{rule} must be between {low:g} and {high:g} seconds",
    "rule_count": "{rule} is a number of {rule}s per player (0 = off), not {value!r}",
    "rule_choice": "{rule} is {choices}, not {value!r}",
    "stale": "That is not open any more.",
    "stale:takeback": "That move is already final.",
    "not_actor": "Only {actor} can do that.",
    "not_actor:takeback": "Only {actor} can take back {move}.",
    "not_player:first": "Only a player of this match can choose.",
    "not_player:second": "Only a player of this match can choose.",
}
_REFUSALS.update(
    {  # the Discord commands' own refusals (adapters raise `HostError(Refusal(code, data=…))`)
        "pairs": "{what} must look like `key=value key=value`; {text} does not.",
        "no_running_match": "There is no running match {match} in this server.",
        "no_match_here": "There is no running match in this channel: give the match id.",
        "several_here": "Several matches run here ({ids}): give the match id.",
        "host_only": "Only a host can do that: you need the `{role}` role or the Manage Server permission.",
        "unseen_match": "There is no running match {match} that you can see here.",
        "unseen_record": "There is no match {match} that you can see here.",
        "no_match_in_server": "There is no match {match} in this server.",
        "bots_cannot_play": "Bots cannot play.",
        "two_different_players": "A match needs two different players.",
        "thread_from_text": "A thread can only be opened from a text channel; use `room: this channel`.",
        "unknown_game": "unknown game {game!r}; known: {known}",
        "no_rule_card": "There is no rule card for {title} yet.",
        "not_in_match": "{player} does not play match {match}.",
        "practice_in_server": "Practice works in a server channel only.",
        "this_match_over": "This match is over.",
        "versus_self": "Pick someone else for the head-to-head record.",
        "config_in_server": "Settings belong to a server: use `/dm config` in one.",
        "config_everyone": "@everyone cannot be the host role: choose a role only hosts hold.",
        "config_clock_game": "Say which game the clock is for: `/dm config game:boxes clock:move=90 reserve=600`.",
        "config_game_clock": "Give `clock:` (e.g. `move=90 reserve=600`) or `reset: clock` with `game:`.",
        "config_reset": "`reset:` takes one of {choices}.",
        "config_reset_game": "Say which game's clock to reset: `/dm config reset:clock game:boxes`.",
        "config_room_mode": "Room mode must be one of {modes}.",
    }
)
_DEADLINES = {
    "final": "{who}'s move becomes final {at}",
    "mulligan_offer": "The mulligan offer ends {at}",
    "choose": "The choice of who starts ends {at}",
    "presence": "The presence check ends {at}",
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


_DETAIL = ("game", "options")
"""Refusals whose words come from where the problem was found (an engine's options, a rule's value)."""
_SEAT_FIELDS = ("other", "chooser", "mover", "actor", "opponent", "offerer")


def rule_words() -> dict[str, str]:
    """The templates house rules declare for their own events and refusals (`HouseRule.words`)."""
    from bot.host.rules import REGISTRY

    return {code: text for rule in REGISTRY for code, text in rule.words.items()}


_SEAT_WORDS = re.compile(r"\bseat ([12])\b", re.IGNORECASE)
"""An engine's "seat 2" in a sentence, replaced by the player's name."""


NOT_POSSIBLE = "That is not possible now."
"""The reply to a refusal no template words."""


def fill(templates: Mapping[str, str], code: str, values: Mapping[str, Any]) -> str:
    """A refusal's sentence: the template of `code` (`kind:detail` falls back to `kind`'s), filled with
    `values`. Every feature words its refusals this way, from its own table of templates."""
    template = templates.get(code) or templates.get(code.partition(":")[0])
    return NOT_POSSIBLE if template is None else template.format_map(values)


def refusal(code: str, data: Mapping[str, Any], name: Name) -> str:
    """The reply to a refused action of the host given as parts (seats in `data` are said as names)."""
    values = {k: name(v) if k in _SEAT_FIELDS else quote(v) if k == "text" else v for k, v in data.items()}
    templates = _REFUSALS if code in _REFUSALS else {**rule_words(), **_REFUSALS}
    return named(fill(templates, code, values), name)


def refusal_text(r: Refusal) -> str:
    """The reply to a refusal."""
    if r.code == "said":
        return str(r.data.get("text", ""))
    if r.kind == TOURNAMENT:
        return tournament_refusal(r)
    if r.code == "options" and "problems" in r.data:
        return options_text(r.data["problems"], r.data.get("valid", ()))
    if r.code in _DETAIL:
        return str(r.data.get("detail", ""))
    return refusal(r.code, r.data, namer(r.names))


def options_text(problems: Sequence[OptionProblem], valid: Sequence[str] = ()) -> str:
    """Game options that do not validate, in players' words: "width must be at most 52"; an unknown
    option lists the ones the game takes."""
    said: list[str] = []
    unknown = [p.key for p in problems if p.kind == "extra_forbidden"]
    if unknown:
        keys = ", ".join(valid) or "none"
        names = " or ".join(repr(k) for k in unknown)
        said.append(f"there is no option {names}; the options are {keys}")
    for p in problems:
        if p.kind != "extra_forbidden":
            said.append(_option_problem(p))
    return "; ".join(said)


_OPTION_WORDS = {
    "less_than_equal": "{key} must be at most {le}",
    "less_than": "{key} must be less than {lt}",
    "greater_than_equal": "{key} must be at least {ge}",
    "greater_than": "{key} must be more than {gt}",
    "int_parsing": "{key} must be a whole number, not {given}",
    "int_type": "{key} must be a whole number, not {given}",
    "int_from_float": "{key} must be a whole number, not {given}",
    "float_parsing": "{key} must be a number, not {given}",
    "bool_parsing": "{key} is on or off (true or false), not {given}",
    "literal_error": "{key} must be {expected}, not {given}",
    "enum": "{key} must be {expected}, not {given}",
    "string_too_long": "{key} must be at most {max_length} characters",
    "string_too_short": "{key} must be at least {min_length} characters",
    "missing": "{key} is needed",
}


def _option_problem(p: OptionProblem) -> str:
    template = _OPTION_WORDS.get(p.kind)
    given = quote(str(p.given)) if p.given is not None else "that"
    if template is not None:
        try:
            return template.format(key=p.key or "the options", given=given, **p.limits)
        except (KeyError, IndexError):
            pass
    message = p.message.removeprefix("Value error, ")  # a validator's own sentence (e.g. a start that does not fit)
    return f"{p.key}: {message}" if p.key else message


def error_text(exc: HostError) -> str:
    """The reply to a refused request."""
    return refusal_text(exc.refusal)


def _opens_with_a_word(r: Refusal) -> bool:
    """Whether a refusal's sentence begins with a word of its template (not with a name, a number or code put
    into it): only such a first letter is made a capital."""
    if r.code == "said":  # an adapter's own sentence: it may open with a name
        return False
    if r.kind == TOURNAMENT:
        template = tournament_template(r.code)
    elif r.code == "options" or r.code in _DETAIL:
        return True
    else:
        templates = _REFUSALS if r.code in _REFUSALS else {**rule_words(), **_REFUSALS}
        template = templates.get(r.code) or templates.get(r.code.partition(":")[0])
    return template is not None and template[:1].isalpha()


def error_sentence(exc: HostError) -> str:
    """A refused request as a sentence, where a person reads it (Discord): `error_text` with a capital first
    letter and a full stop ("There is no match 5.", not "there is no match 5"; a name opening it is left as
    it is). The command line keeps `error_text` after its `dmhost …:` prefix."""
    text = error_text(exc).strip()
    if text[:1].islower() and _opens_with_a_word(exc.refusal):
        text = text[0].upper() + text[1:]
    return text + ("." if text[-1:].isalnum() or text[-1:] in (")", "'", '"') else "")


_IGNORED: dict[Ignored, str] = {
    Ignored.CHAT: "chat",
    Ignored.EMPTY: "empty",
    Ignored.TOO_LONG: "too long to be a move",
    Ignored.STRANGER: "not a player of this match",
    Ignored.ELSEWHERE: "another host process runs this match now",
    Ignored.NOT_RUNNING: "no such running match",
    Ignored.NOT_PROVISIONAL: "not the provisional move's message",
}


def ignored_text(reason: Ignored) -> str:
    """Why a text was ignored, in a few words (the terminal room's `(alice, not a move: chat)`)."""
    return _IGNORED[reason]


def reason_text(result: SubmitResult) -> str | None:
    """The reply to a rejected text, or its short reason when it was ignored (None: accepted)."""
    if result.refusal is not None:
        return refusal_text(result.refusal)
    return None if result.reason is None else ignored_text(result.reason)


def state_words(status: str) -> str:
    """A match's state as `/dm` answers say it (`mulligan_wait` → "waiting for a mulligan decision")."""
    return {
        "ongoing": "in play",
        "paused": "paused by the host",
        "choosing": "waiting for the choice of who starts",
        "mulligan_wait": "waiting for a mulligan decision",
        "finished": "finished",
        "aborted": "aborted",
    }.get(status, status.replace("_", " "))


def describe(events: Sequence[Mapping[str, Any] | Event], name: Name) -> str:
    """The extra sentence(s) after 'X played M.' for a move's engine events (as the engine made them, or
    as stored: `{"kind": …, …data}`; the first, 'move', is skipped)."""
    parts: list[str] = []
    kinds = [e.kind if isinstance(e, Event) else str(e.get("kind")) for e in events]
    ends = "round_end" in kinds or "game_over" in kinds  # a box that ends the round or game earns no extra move
    for e in events[1:]:
        d: Mapping[str, Any] = e.data if isinstance(e, Event) else e
        kind = e.kind if isinstance(e, Event) else str(e.get("kind"))
        if kind == "boxes":
            n = d.get("count", 1)
            again = "" if ends else " and moves again"
            parts.append(f"{name(d.get('seat'))} takes {n} box{'es' if n != 1 else ''}{again}")
        elif kind == "extra_turn":
            if not any(p.endswith("moves again") for p in parts):
                parts.append(f"{name(d.get('seat'))} moves again")
        elif kind == "forced":
            tiles = d.get("tiles") or d.get("moves") or []
            parts.append(f"forced: {', '.join(str(t) for t in tiles)}" if tiles else "forced tiles placed")
        elif kind == "round_end":
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
        elif kind == "penalty":
            parts.append(f"{name(d.get('seat'))} picked {d.get('square')} ({d.get('action', 'penalty')})")
        elif kind == "round_start":
            parts.append(f"round {d.get('round')} starts with {name(d.get('seat'))}")
        elif kind == "colours":
            parts.append(
                f"{name(d.get('red'))} plays red, {name(d.get('blue'))} plays blue; {name(d.get('first'))} moves first"
            )
        elif kind == "capture":
            taken = int(d.get("taken") or 0)
            text = f"{name(d.get('seat'))} captures {taken} dot{'s' if taken != 1 else ''}"
            freed = int(d.get("freed") or 0)
            if freed:
                text += f" (freeing {freed} of their own)"
            parts.append(text + (" (the dot was played inside their enclosure)" if d.get("suicide") else ""))
        elif kind == "stop":
            seat = int(d.get("seat") or 1)
            loose = int(d.get("ungrounded") or 0)
            handed = (
                f"hands {loose} ungrounded dot{'s' if loose != 1 else ''} over to {name(3 - seat)}"
                if loose
                else "hands nothing over (every dot is grounded)"
            )
            parts.append(f"{name(seat)} stops and {handed}. {name(3 - seat)} may place more dots, then posts `end`")
        elif kind == "five_rows":
            counts = {k: v for k, v in d.items() if k in ("1", "2")}
            parts.append("five-rows: " + ", ".join(f"{name(int(k))} {v}" for k, v in sorted(counts.items())))
        elif kind in ("game_over", "move"):
            continue
        else:
            parts.append(kind.replace("_", " "))
    return (" " + "; ".join(parts) + ".") if parts else ""


_SHOWN_KINDS = {
    "move": "move",
    "commit": "final",
    "illegal": "illegal",
    "syntax": "unreadable",
    "turn": "out of turn",
    "takeback": "take-back",
    "mulligan": "mulligan",
    "mulligan_offer": "mulligan offered",
    "mulligan_declined": "mulligan declined",
    "clock": "clock",
    "timeout": "timeout",
    "pause": "paused",
    "resume": "resumed",
    "resumed": "host restarted",
    "abort": "aborted",
    "time": "time adjusted",
    "award": "awarded",
    "resign": "resigned",
    "ready": "ready",
    "here": "presence",
    "choice": "first player chosen",
    "finished": "result",
    "vacation": "on vacation",
    "vacation_over": "back from vacation",
    "created": "created",
}


def log_text(data: Mapping[str, Any]) -> str:
    """A match's log (`bot.records.matchlog.build_log`'s data) as text."""
    p = data["players"]
    lines = [
        f"Match {data['match']} — {TITLES.get(data['game'], data['game'])} — {state_words(str(data['status']))}",
        f"Players: {p['1']['name']} vs {p['2']['name']}",
        f"Options: {_kv(data['options'])}",
        f"Clock: {clock_words(data['clock'], with_takeback=data.get('rules') is None)}",
        *([odds] if (odds := odds_line(data["clock"], {int(k): v["name"] for k, v in p.items()})) else []),
        f"House rules: {_rules(data.get('rules'))}",
        f"Created: {data['created_at']}",
    ]
    by_seat = namer({int(seat): player["name"] for seat, player in p.items()})
    for e in data["events"]:
        label = _SHOWN_KINDS.get(e["kind"]) or rule_words().get(f"log:{e['kind']}") or e["kind"]
        who = e.get("player", "host" if e["kind"] in ("pause", "resume", "abort", "time", "award") else "")
        line = f"  #{e['seq']:<4} {e['at'][11:19]} {label:<18} {who}"
        if e["kind"] == "move":
            line += f" {e.get('move', e.get('text', ''))}"
            if "used" in e:
                line += f" ({e['used']:.1f} s)"
            if e.get("provisional"):
                line += " (provisional)"
            if e.get("text") and e.get("text") != e.get("move"):
                line += f"  [{e['text']!r}]"
        elif e["kind"] in ("illegal", "syntax", "turn", "finished") and "text" in e:
            line += f" {e.get('text', '')!r}: {named(str(e.get('reason', '')), by_seat)}"
        elif e["kind"] == "commit":
            line += f" {e.get('move', '')} ({e.get('used', 0):.1f} s)"
        elif e["kind"] == "clock":
            line += f" {e.get('notice', '')}"
        elif e["kind"] == "time":
            line += f" {e.get('seconds', 0):+g} s"
        elif e["kind"] == "takeback":
            line += f" {e.get('move', '')} by {e.get('via', '')}"
        elif e["kind"] == "mulligan":
            line += f" rewound {plural(int(e.get('rewound_plies', 0)), 'ply', 'plies')}"
        elif e["kind"] == "finished":
            r = data["result"]
            same = r.get("words") and (r.get("winner"), r.get("reason")) == (e.get("winner"), e.get("reason"))
            said = r["words"] if same else result_sentence(e.get("reason"), e.get("winner"), _shown_names(p))
            line = f"  #{e['seq']:<4} {e['at'][11:19]} {label:<18} {said}"
        lines.append(line.rstrip())
    r = data["result"]
    if data["status"] in ("finished", "aborted"):
        reason = "aborted" if data["status"] == "aborted" else r.get("reason")
        words = r.get("words") or result_sentence(reason, r.get("winner"), _shown_names(p), score=r.get("score"))
        lines.append(f"Result: {words}")
    else:
        lines.append("Result: not finished")
    return "\n".join(lines)


def _shown_names(players: Mapping[str, Mapping[str, Any]]) -> dict[int, str]:
    return {int(seat): display(str(player["name"])) for seat, player in players.items()}


def clock_words(clock: Mapping[str, Any], *, with_takeback: bool = True) -> str:
    """A match's time control in words, only what is set: "1:00 a move, then a 5:00 reserve"; "30s a
    move, one grace of 2:00 (presence check 2:00)". The take-back window is a house rule and is said
    with them unless asked for (`with_takeback`, for matches stored before house rules)."""
    move = float(clock.get("move") or 0)
    parts = [f"{seconds(move)} a move"]
    if clock.get("kind") == "grace":
        grace = float(clock.get("grace") or 0)
        if grace:
            parts.append(f"one grace of {seconds(grace)} (presence check {seconds(float(clock.get('presence') or 0))})")
    else:
        reserve = float(clock.get("reserve") or 0)
        parts.append(f"then a {seconds(reserve)} reserve" if reserve else "no reserve")
    takeback = clock.get("takeback")
    if with_takeback and takeback is not None:
        parts.append(f"moves final after {float(takeback):g} s" if takeback else "moves final at once")
    return ", ".join(parts)


def odds_line(clock: Mapping[str, Any], names: Mapping[int, str]) -> str | None:
    """A match's time odds (its clock as `TimeControl.to_json` writes it), by player name:
    `Time odds: bob reserve 2:00`; None when both players have the same time."""
    odds = clock.get("odds") or {}
    parts = []
    for seat in sorted(odds, key=int):
        own = ", ".join(f"{key} {seconds(float(value))}" for key, value in odds[seat].items())
        parts.append(f"{display(names.get(int(seat), '?'))} {own}")
    return "Time odds: " + "; ".join(parts) if parts else None


def _kv(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items()) or "defaults"


def _rules(rules: Mapping[str, Any] | None) -> str:
    """The house rules a match was played under (matches from before per-match rules: the game's defaults)."""
    if rules is None:
        return "the game's defaults of the time"
    from bot.host.rules import describe

    said = []
    for key, value in rules.items():
        if key == "clock" or value is None or (value is False and key not in _OFF_SAID):
            continue  # the clock's kind is the Clock line's; a rule that is off is not there
        if isinstance(value, int | float) and not isinstance(value, bool) and value == 0:
            continue
        words = _RULE_WORDS.get(key)
        if words is not None and not isinstance(value, bool):
            said.append(words.format(value=value, s="" if value == 1 else "s"))
        elif key in _OFF_SAID and value is False:
            said.append(_OFF_SAID[key])
        elif words is not None:
            said.append(words)
        else:
            said.append(describe({key: value}))
    return ", ".join(said) or "none"


_RULE_WORDS = {
    "takeback": "a move can be taken back for {value:g} s",
    "mulligan": "{value} mulligan{s} each",
    "draw": "draw offers",
    "threesame": "the first three-of-a-colour turn restarts the clock",
}
_OFF_SAID = {"threesame": "no restart for a three-of-a-colour turn"}
"""Rules on by default whose being off is worth saying."""


def more_replies(count: int) -> str:
    """The last line of a folded catch-up reply that had to leave some out."""
    return f"… and {count} more {'reply' if count == 1 else 'replies'} to messages posted while the host was away."


# -- Overview: /dm live, /dm moves, /dm status, /dm history and the posted results (issue 28) ------------

_WINS = {
    Termination.TIME: "{w} wins on time",
    Termination.RESIGN: "{w} wins by resignation",
    Termination.AWARD: "{w} wins by the host's decision",
    Termination.NO_MOVES: "{w} wins: {l} has no move",
    Termination.LOOP: "{w} wins with a loop",
    Termination.LINE: "{w} wins with a line",
    Termination.SCORE: "{w} wins on score",
    Termination.STOP: "{w} wins after the stop",
    Termination.FOUR_IN_A_ROW: "{w} wins with four in a row",
    Termination.ROUND_LIMIT: "{w} wins at the round limit",
    Termination.FIVE_ROWS: "{w} wins with more five-rows",
    Termination.SHIFT: "{w} wins: {l}'s slide lowered their own five-rows",
    Termination.NO_SHOW: "{w} wins: {l} did not come (no-show)",
}
_DRAWS = {
    Termination.AGREEMENT: "draw by agreement",
    Termination.AWARD: "draw by the host's decision",
    Termination.SCORE: "draw on score",
    Termination.STOP: "draw after the stop",
    Termination.ROUND_LIMIT: "draw at the round limit",
}


def result_sentence(
    reason: Termination | str | None,
    winner: int | None,
    players: Mapping[int, str],
    *,
    score: Mapping[int, int] | Sequence[int] | None = None,
    colours: Mapping[int, str] | None = None,
    pending: bool = False,
) -> str:
    """How a game ended, in the one sentence every place says it (board, picture, history, logs, rooms):
    "bob wins on time, 1–0", "alice wins: bob has no move", "draw by agreement".

    `players` are the seats' names as `display` says them (a seat without one is called by its `colours` word, "Red");
    `score` is the final position's, by seat: the winner's count is said first, a draw's in seat order,
    and a score nobody has scored in is left out. `pending`: a result on the board that may still be
    undone (a mulligan open, the move still provisional): "alice would win with a loop (not final yet)"."""

    def who(seat: int) -> str:
        if players.get(seat):
            return players[seat]
        colour = (colours or {}).get(seat)
        return colour.capitalize() if colour else f"player {seat}"

    try:
        why: Termination | str = Termination(reason) if reason else ""
    except ValueError:  # a rule's own reason
        why = str(reason)
    if why == Termination.ABORTED:
        return "aborted by the host, no result"
    if winner in (1, 2):
        template = _WINS.get(why) if isinstance(why, Termination) else None
        if template is None:
            template = "{w} wins" + (f" ({str(why).replace('-', ' ')})" if why else "")
        if pending:
            template = template.replace("{w} wins", "{w} would win", 1)
        text = template.format(w=who(winner), l=who(3 - winner))
    else:
        text = (_DRAWS.get(why) if isinstance(why, Termination) else None) or (
            "draw" + (f" ({str(why).replace('-', ' ')})" if why else "")
        )
    points = _seat_scores(score)
    if points is not None:
        first = winner if winner in (1, 2) else 1
        text += f", {points[first]}–{points[3 - first]}"
    if pending:
        text = ("" if winner in (1, 2) else "perhaps a ") + text + " (not final yet)"
    return text


def _seat_scores(score: Mapping[int, int] | Sequence[int] | None) -> dict[int, int] | None:
    """Seat → score, or None when the game keeps no score or nobody scored."""
    if score is None:
        return None
    if isinstance(score, Mapping):
        points = {seat: int(score.get(seat, 0)) for seat in (1, 2)}
    else:
        points = {1: int(score[0]), 2: int(score[1])} if len(score) >= 2 else {}
    return points if points and any(points.values()) else None


def live_line(match_id: int, game: str, players: str, turn: str, deadline: str | None, link: str) -> str:
    """One live match in `/dm live`."""
    return f"`#{match_id}` {game}: {players} · {turn}" + (f" · {deadline}" if deadline else "") + f" · {link}"


def no_live_matches() -> str:
    """`/dm live` in a server where nothing is played right now."""
    return "No match is being played in this server right now."


def live_title(count: int) -> str:
    """The heading of `/dm live`."""
    return f"Live matches ({count})"


def status_text(
    match_id: int,
    game: str,
    players: str,
    move_number: int,
    turn: str,
    clocks: str,
    deadline: str | None,
    link: str,
) -> str:
    """`/dm status`: game, players, move number, whose turn, both clocks, the deadline and the room."""
    lines = [f"**Match {match_id} · {game}** · {players}", f"Move {move_number} · {turn}", clocks]
    if deadline:
        lines.append(deadline)
    lines.append(f"Room: {link}")
    return "\n".join(lines)


def history_line(match_id: int, when: str, game: str, players: str, result: str, link: str) -> str:
    """One match in `/dm history` (`result`: its `result_sentence`)."""
    return f"`#{match_id}` {when} · {game}: {players} — {result} · {link}"


def moves_header(match_id: int, game: str, players: str, plies: int) -> str:
    """The first line of `/dm moves`."""
    return f"**Match {match_id} · {game}** · {players} · {plies} move{'s' if plies != 1 else ''}"


def move_line(number: int, name: str, notation: str, used: float | None) -> str:
    """One ply of the move record: `12. bob: B3/ (4 s)`."""
    took = f" ({seconds(used)})" if used is not None else ""
    return f"{number:>3}. {name}: {notation}{took}"


def no_moves_yet() -> str:
    """A move record with no move in it."""
    return "No move has been played yet."


def moves_in_file(plies: int) -> str:
    """When the move record is attached instead of shown."""
    return f"The whole record ({plural(plies, 'move')}) is attached."


def posted_result(match_id: int, game: str, players: str, result: str, link: str) -> str:
    """The result line posted where people look (the room's parent channel or the results channel)."""
    return f"**Match {match_id} · {game}** · {players}: {result} · {link}"


# -- Confirmations and edits in a Discord room (issue 28, points 1 and 10) ----------------------------------

CONFIRM_LABEL = "Confirm"
CANCEL_LABEL = "Cancel"

_ENDS_PLAY = {"stop": "you place no more dots, and your dots not joined to the edge go to your opponent"}
"""What confirming a move that gives up the mover's play means, by its notation (`Grave.text`)."""


def confirm_question(action: str, who: str, move: str, within: float) -> str:
    """The prompt with Confirm / Cancel under a resignation or a play-ending move (`action` as in `Grave`)."""
    tail = f"Confirm within {within:g} s; the clocks keep running."
    if action == "resign":
        return f"{display(who)}, do you resign this match? {tail}"
    means = _ENDS_PLAY.get(move, "it ends your play in this game")
    return f"{display(who)}, play {quote(move)}? Then {means}. {tail}"


def confirm_done(action: str, who: str, move: str) -> str:
    """The prompt once confirmed (the board announces what follows)."""
    if action == "resign":
        return f"Confirmed: {display(who)} resigns."
    return f"Confirmed: {display(who)} plays {quote(move)}."


def confirm_cancelled(action: str, who: str, move: str) -> str:
    """The prompt once cancelled."""
    what = "resign" if action == "resign" else f"play {quote(move)}"
    return f"Cancelled: {display(who)} did not {what}; the game goes on."


def confirm_lapsed(action: str, who: str, move: str, within: float) -> str:
    """The prompt when nobody confirmed it in time."""
    what = "resign" if action == "resign" else f"play {quote(move)}"
    return f"Lapsed: not confirmed within {within:g} s, so {display(who)} did not {what}."


def confirm_moved_on(move: str) -> str:
    """A move confirmed after the position it was asked in changed."""
    return f"The game moved on since you asked: {quote(move)} was not played. Post it again if you still mean it."


def confirm_only(who: str) -> str:
    """Someone else pressed a player's Confirm / Cancel."""
    return f"Only {display(who)} can answer this."


def edit_after_move(move: str) -> str:
    """A player edited the message of a move already played."""
    return f"Edits don't change a move already played: {quote(move)} stands."


def edit_not_read(text: str) -> str:
    """A player edited a message that was not taken as a move into something that looks like one."""
    return f"Edits aren't read as moves: post {quote(text)} as a new message."
