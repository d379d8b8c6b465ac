"""Refusals as sentences: the host's codes (and the house rules' own), game options that do not validate,
and why a text was ignored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.host.events import HostError, Ignored, Refusal, SubmitResult
from bot.tournaments.refusals import KIND as TOURNAMENT
from bot.wording.basics import _SEAT_FIELDS, NOT_POSSIBLE, Name, named, namer, quote, rule_words
from bot.wording.tournaments import refusal_text as tournament_refusal
from bot.wording.tournaments import template as tournament_template
from games.base import OptionProblem

_REFUSALS: dict[str, str] = {
    "over": "The game is over.",
    "late": "Too late: your time had run out before you posted this.",
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
    "not_saved": "the match could not be saved; try again in a moment",
    "not_running": "match {match} is not running",
    "no_match": "there is no match {match}",
    "two_players": "a match needs two different players",
    "advantage_seat": "advantage names player 1 or 2",
    "first_seat": "first must be 1 or 2",
    "seat": "seat must be 1 or 2",
    "not_player": "only a player of this match can do that",
    "not_player:resign": "only a player of this match can resign",
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
    "not_actor": "Only {actor} can do that.",
}
_REFUSALS.update(
    {  # the Discord commands' own refusals (adapters raise `HostError(Refusal(code, data=…))`)
        "pairs": "{what} must look like `key=value key=value`; {text} does not.",
        "no_running_match": "There is no running match {match} in this server.",
        "no_match_here": "There is no running match in this channel: give the match id.",
        "no_match_played_here": "No match was played in this channel: give the match id.",
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
_DETAIL = ("game", "options")
"""Refusals whose words come from where the problem was found (an engine's options, a rule's value)."""


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


UNKNOWN_OPTION = "extra_forbidden"
"""Pydantic's error type for an option the game does not take (`OptionProblem.kind`)."""


def options_text(problems: Sequence[OptionProblem], valid: Sequence[str] = ()) -> str:
    """Game options that do not validate, in players' words: "width must be at most 52"; an unknown
    option lists the ones the game takes."""
    said: list[str] = []
    unknown = [p.key for p in problems if p.kind == UNKNOWN_OPTION]
    if unknown:
        keys = ", ".join(valid) or "none"
        names = " or ".join(repr(k) for k in unknown)
        said.append(f"there is no option {names}; the options are {keys}")
    for p in problems:
        if p.kind != UNKNOWN_OPTION:
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
