"""What the terminal room says itself (the host's events are worded in `events`): its first words (how to write a
move, `help`, `quit`), the card `help` and `?` print (how to write this game's moves, the words that work in this
match, how to leave), and its answers to `NAME: vacation N`."""

from __future__ import annotations

from typing import Any, Final

from bot.host import rules as house_rules
from bot.text import Text, chat_only, code, fill_in, from_markdown, lines, time
from bot.wording.room import MOVES_BY_MESSAGE

VACATION_HELP: Final = (
    "`NAME: vacation N` stops NAME's clock for N days (within 14 days a year); `NAME: vacation 0` ends it early."
)


def moves_card(game: str) -> Text:
    """The short "how to write moves" card of a game (package data, Markdown) as runs: its sentence on posting
    each move as a message is true only where there are messages (`MOVES_BY_MESSAGE`)."""
    from games.resources import moves_card as stored_card

    document = stored_card(game)
    if document is None:
        return fill_in("Moves of {game}: see {help}.", game=game, help=code("python -m games replay --help"))
    head, said, tail = document.strip().partition(MOVES_BY_MESSAGE)
    before = head.rstrip()
    return from_markdown(before) + chat_only(head[len(before) :] + said) + from_markdown(tail).rstrip()


def intro(game: str, players: list[str], against_bot: bool) -> str:
    """The room's first words, before the match (and its clock) starts: how to write a move, `help`, `quit`."""
    from games.resources import move_example

    example = move_example(game) or "a move"
    speaker = players[0]
    who = (
        f"A line is {speaker}'s move"
        if against_bot
        else f"A line without a name is the move of the player to move; `{players[-1]}: {example}` speaks as "
        f"{players[-1]}"
    )
    return (
        f"Write each move on its own line, as `{example}`. {who}.\n"
        "`help` (or `?`) shows how to write this game's moves and the words the host answers; `quit` leaves "
        "(the match stays resumable). The clocks start with the board below."
    )


def keywords_line(live: Any) -> str:
    """The words this match answers besides moves: `resign` and each house rule's first phrase."""
    said = ["resign"]
    for rule in live.rules:
        if not rule.in_play(live):  # built for every match, acting only under a setting this match has not
            continue
        for action in getattr(rule, "actions", ()):
            if action.keywords and action.keywords[0] not in said:
                said.append(action.keywords[0])
    return "Words the host answers in this match: " + ", ".join(f"`{w}`" for w in said) + "."


def help_card(live: Any, resume: str) -> Text:
    """The card `help` and `?` print."""
    correspondence = str(live.clocks.tc.kind) == "correspondence"
    return lines(
        [
            moves_card(live.game),
            keywords_line(live),
            "In this room: `NAME: text` speaks as NAME; a line without a name is the player to move's"
            + (_withdraw_note() if any(rule.withdraw for rule in live.rules) else "")
            + ". `help` or `?` shows this card.",
            *([VACATION_HELP] if correspondence else []),
            f"Leave with `quit`, `exit` or Ctrl-C: the match stays resumable with: {resume}",
        ]
    )


def vacation_taken(name: str, until: int | None, used: int, allowance: int, refunded: int) -> str | Text:
    """The room's answer to `NAME: vacation N` (`until` None: `vacation 0` ended it)."""
    days = f"{used} of this year's {allowance} vacation days used."
    if until is None:
        back = f" {refunded} day{'s' if refunded != 1 else ''} given back." if refunded else ""
        return f"{name} is back: {name}'s clock runs again.{back} {days}"
    return fill_in(
        "{name}'s vacation runs until {until}: {name}'s clock stands still. {days}",
        name=name,
        until=time(until, "R"),
        days=days,
    )


def vacation_used(name: str, until: int | None, used: int, allowance: int, refunded: int) -> str:
    """The room's line after `NAME: vacation N` once the host has announced the vacation (or its end) in the
    match: only what that announcement does not say, the days used (and given back)."""
    back = f"{refunded} day{'s' if refunded != 1 else ''} given back; " if until is None and refunded else ""
    return f"{name}: {back}{used} of this year's {allowance} vacation days used."


_VACATION_REFUSED: Final = {
    "vacation_not_away": "{name} is not on vacation; `{name}: vacation N` stops {name}'s clock for N days.",
    "vacation_already": "{name} is on vacation until {until} already; `{name}: vacation 0` ends it.",
    "vacation_allowance": "{days} days is more than {name} has left: {left} of this year's {allowance} days.",
    "vacation_no_match": "vacation stops a correspondence clock (`--clock kind=correspondence`); this match has none.",
}


def vacation_refused(name: str, code: str, data: dict[str, Any]) -> Text:
    """Why `NAME: vacation N` was refused (`until`: a moment)."""
    values = {**data, **({"until": time(int(data["until"]), "R")} if "until" in data else {})}
    return fill_in(_VACATION_REFUSED.get(code, code), name=name, **values)


def _withdraw_note() -> str:
    """` (`take back` without a name is the player who just moved)`, in the phrase of the rule that withdraws."""
    name = house_rules.withdraw_action()
    declared = None if name is None else house_rules.action(name)
    if declared is None or not declared.keywords:
        return ""
    return f" (`{declared.keywords[0]}` without a name is the player who just moved)"


def vacation_days_refused(said: str | None) -> str:
    """Why `vacation` with `said` as its one word (None: nothing) is no number of days."""
    if said is None:
        return "say for how many days: `NAME: vacation N` (whole days; `vacation 0` ends a vacation)."
    return f"{said!r} is not a number of days: `NAME: vacation N` takes whole days (`vacation 0` ends a vacation)."


# The room's own lines about where the match is hosted, the end of input, and its refusals at start (one line,
# exit 2). `again` is the command that continues, ready to paste.

END_OF_INPUT_PENDING = "End of input: waiting for the last move to become final."
RESUMER_ONE = "with --resume give at most one --player: the player at this terminal"
NEW_MATCH_NEEDS = "name a game and two --player (or one --player and --bot)"
SAY_WHO = "say who is here: `NAME: here`"
HOW_TO_CHECK_IN = "type `NAME: here`"
"""How a player checks in for a scheduled DM in the terminal."""

# The `"text"` of the room's own JSON events (`--events-json`): the event in a few words, without the command.
EOF_EVENT = "end of input: the match stays resumable"
LEFT_EVENT = "left the room: the match stays resumable"
WAITING_EVENT = "end of input: waiting for the move to be final"


def aside(name: str, reason: object) -> str:
    """A player's line refused (not an illegal move: out of turn, a clock, a rule, a check-in), said aside."""
    return f"({name}: {reason})"


def not_a_move(name: str, reason: object) -> str:
    """A player's line that is no move, said aside (without `--events-json`)."""
    return f"({name}, not a move: {reason})"


def error_aside(said: str) -> str:
    """The host refused what a player did, said aside."""
    return f"(error: {said})"


def taken_over(match_id: int | None) -> str:
    """Another process took the match's lease over mid-game."""
    return f"Another process hosts match {match_id} now: this room stops."


def left_room(again: str) -> str:
    """`quit`, `exit` or Ctrl-C."""
    return f"Left the room. Resume with: {again}"


def end_of_input(again: str, *, scheduled: bool = False) -> str:
    """Input ended with the match still going (or the scheduled DM still to come)."""
    return f"End of input. {'Continue' if scheduled else 'Resume'} with: {again}"


def no_match(match_id: int, db: str) -> str:
    """`--resume` of a match the database does not have."""
    return f"there is no match {match_id} in the database {db}"


def nothing_to_resume(match_id: int, status: str) -> str:
    """`--resume` of a match that is over."""
    return f"match {match_id} is {status}; nothing to resume"


def hosted_elsewhere(match_id: int, where: str | None = None, *, retry: bool = False) -> str:
    """Another process holds the match's lease (`where`: the tournament or DM whose lease it is)."""
    return (
        f"match {match_id} is hosted by another process"
        + (f" ({where})" if where else "")
        + ("; try again when it stops" if retry else "")
    )


def not_a_player(name: str, match_id: int, names: str) -> str:
    """`--resume ID --player NAME` with a NAME that does not play in the match."""
    return f"{name} is not a player of match {match_id} (its players: {names})"


def stranger(name: str, what: str = "match") -> str:
    """A `NAME: …` line whose NAME plays in neither seat (`what`: this match, or this DM)."""
    return f"(ignored: {name!r} is not a player of this {what})"


def no_schedule(schedule_id: int, db: str) -> str:
    """`--scheduled` of a DM the database does not have."""
    return f"there is no scheduled DM {schedule_id} in the database {db}"


def discord_dm(schedule_id: int) -> str:
    """`--scheduled` of a DM of a Discord server."""
    return f"DM #{schedule_id} belongs to a Discord server: the bot hosts it, not the terminal"


def nothing_to_host(schedule_id: int, status: str) -> str:
    """`--scheduled` of a DM already decided."""
    return f"DM #{schedule_id} is {status}; nothing to host"


def dm_hosted_elsewhere(schedule_id: int) -> str:
    """The DM's start belongs to the room that holds its lease."""
    return f"DM #{schedule_id} is hosted by another room"


def checkin(at: str | None, how: str) -> str:
    """When the check-in of a DM opens (`at`: None once it is open) and how to check in."""
    return f"The check-in is open: {how}." if at is None else f"Check-in opens {at}: {how}."


def standby(schedule_id: int) -> str:
    """Another room holds the DM's lease: this one waits."""
    return f"DM #{schedule_id} is hosted by another room: this room waits; a `here` typed here counts."


def hosting_now(schedule_id: int) -> str:
    """The room that held the DM's lease stopped: this one took it over."""
    return f"DM #{schedule_id}: the other room stopped; this room hosts it now."


def dm_elsewhere(schedule_id: int, status: str) -> str:
    """The DM began, or was decided, in another room."""
    return f"DM #{schedule_id} is {status} in another room: this room stops."


def dm_taken_over(schedule_id: int) -> str:
    """Another process took the DM's lease over."""
    return f"Another process hosts DM #{schedule_id} now: this room stops."


def tournament_elsewhere(tid: int, *, lost: bool) -> str:
    """Another process hosts the tournament's matches (`lost`: it took them over from this one)."""
    if lost:
        return f"another process took over tournament {tid}'s matches; this one stops"
    return f"tournament {tid} is being played by another process; try again when it stops"


def game_over(match_id: int, player1: str, player2: str, said: str) -> str:
    """`tournament play`'s progress: one game's end."""
    return f"Match {match_id} ({player1} vs {player2}): {said}."
