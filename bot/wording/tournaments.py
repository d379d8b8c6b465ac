"""Sentences of tournaments: refusals, announcements, pairings, standings and the winner (adapters use these;
the service publishes only codes and data).

`who` turns a player id into how they are named (a Discord mention that pings, or a plain name);
`when` turns an instant into how it is shown (`<t:…:F> (<t:…:R>)` on Discord).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.host.events import Refusal
from bot.text import Text, as_text, code, fill_in, lines, strong
from bot.tournaments.model import TournamentEventKind
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.rounds import Bye, Game, Pairing
from bot.tournaments.standings import BUCHHOLZ, HEAD_TO_HEAD, REACHED, SONNEBORN_BERGER, Standing
from bot.wording.counts import plural

Who = Callable[[str], str | Text]
When = Callable[[dt.datetime], str]

TIEBREAK_LABELS = {BUCHHOLZ: "Bh", SONNEBORN_BERGER: "SB", HEAD_TO_HEAD: "H2H", REACHED: "round"}


def points_text(value: float) -> str:
    """`2½`, `½`, `3` (a half as ½)."""
    whole = int(value)
    return f"{whole}½" if value - whole == 0.5 and whole else ("½" if value == 0.5 else f"{value:g}")


def pairing_lines(round_number: int, pairings: Sequence[Pairing], names: Mapping[int, str]) -> list[str]:
    """`Round 2` then one line per board: `1. alice – bob` (White first), `bye: carol (1)`, results when known."""
    lines = [f"Round {round_number}"]
    for board, p in enumerate(pairings, start=1):
        if isinstance(p, Bye):
            lines.append(f"{board}. {names.get(p.player, str(p.player))}: bye ({points_text(p.points)})")
            continue
        result = f"  {p.result.value}" if p.result is not None else ""
        forfeit = " (forfeit)" if p.forfeit else ""
        lines.append(
            f"{board}. {names.get(p.white, str(p.white))} – {names.get(p.black, str(p.black))}{result}{forfeit}"
        )
    return lines


def standings_lines(table: Sequence[Standing], names: Mapping[int, str]) -> list[str]:
    """One line per player: rank, name, points and the tie-breaks."""
    out = []
    for s in table:
        breaks = ", ".join(f"{TIEBREAK_LABELS.get(k, k)} {points_text(v)}" for k, v in s.tiebreaks.items())
        out.append(f"{s.rank}. {names.get(s.player, str(s.player))} — {points_text(s.points)} ({breaks})")
    return out


def winner_line(tournament: str, winner: str, prize: str | None) -> str:
    """The announcement of the champion."""
    return f"{winner} wins {tournament}!" + (f" Prize: {prize}." if prize else "")


SETTINGS = {"checkin": "check-in", "no_show": "no-show", "round_every": "round interval"}
"""The timed settings of `create`, as a refusal names them."""

REFUSALS: dict[RefusalCode, str] = {
    RefusalCode.NO_TOURNAMENT: "there is no tournament {tournament}",
    RefusalCode.NO_GAME: "there is no tournament game {game}",
    RefusalCode.START_PAST: "the start time must be in the future",
    RefusalCode.BAD_TIME: "the {setting} time is 1 minute to 7 days",
    RefusalCode.BAD_SEEDING: "seeding is {choices_or}, not {value!r}",
    RefusalCode.BAD_NAME: "a tournament needs a name of {low} to {high} characters",
    RefusalCode.NAME_CHARS: "a tournament's name cannot hold a line break, a control character or a text-direction "
    "mark",
    RefusalCode.PRIZE_LONG: "a tournament's prize is at most {limit} characters",
    RefusalCode.BAD_FORMAT: "format must be one of {choices}, not {value!r}",
    RefusalCode.BAD_ROUNDS: "rounds are set for a Swiss only, at least 1",
    RefusalCode.BAD_BYE: "a bye is worth 1 or ½ point",
    RefusalCode.TOO_SMALL: "a tournament needs room for at least {least} players",
    RefusalCode.NAIVE_TIME: "times must carry a time zone",
    RefusalCode.NO_CHECKIN: "{name} has no check-in",
    RefusalCode.CHECKIN_OVER: "the check-in of {name} is over",
    RefusalCode.CHECKIN_EARLY: "the check-in of {name} opens at {opens:%Y-%m-%d %H:%M} UTC",
    RefusalCode.NOT_JOINED: "you have not joined {name}",
    RefusalCode.ALREADY_HERE: "you are already checked in for {name}",
    RefusalCode.BYE_NO_CHECKIN: "a bye needs no check-in",
    RefusalCode.NOT_IN_GAME: "you do not play this game",
    RefusalCode.GAME_NOT_WAITING: "this game is not waiting for its players any more",
    RefusalCode.GAME_ALREADY_HERE: "you are already checked in for this game",
    RefusalCode.NO_GAME_WAITING: "{player} has no game of {name} waiting for check-in",
    RefusalCode.SIGNUP_CLOSED: "sign-up for {name} is closed",
    RefusalCode.SIGNUP_CLOSED_AT: "sign-up for {name} closed at {at:%Y-%m-%d %H:%M} UTC",
    RefusalCode.ALREADY_JOINED: "{player} has already joined {name}",
    RefusalCode.FULL: "{name} is full ({most} players)",
    RefusalCode.NOT_ENTERED: "that player is not playing in {name}",
    RefusalCode.BAD_MISSED: "a missed game either lets the player play on (`play_on`) or withdraws them (`withdraw`)",
    RefusalCode.NOTHING_MISSED: "you have missed no game of {name}: you play on anyway",
    RefusalCode.OVER_NO_WITHDRAW: "{name} is over: there is nothing left to withdraw from",
    RefusalCode.ALREADY_STARTED: "{name} has already started",
    RefusalCode.TOO_FEW: "{name} needs at least {need} players to start; {joined} joined",
    RefusalCode.BAD_SEED_ORDER: "the seeding must order exactly the players who joined",
    RefusalCode.NOT_RUNNING: "{name} is not running ({status})",
    RefusalCode.ROUND_UNFINISHED: "round {round} still has {games_counted} to finish; adjudicate them first",
    RefusalCode.ALREADY_PAIRED: "round {round} of {name} is already paired",
    RefusalCode.BAD_RESULT: "a result is {choices_or}",
    RefusalCode.NO_GAMES: "round {round} of {name} has no games",
    RefusalCode.NO_BOARD: "round {round} has boards {boards}, not {board}",
    RefusalCode.NOT_PAUSED: "{name} is not paused ({status})",
    RefusalCode.ALREADY_OVER: "{name} is already over",
    RefusalCode.CHANGED: "{name} changed meanwhile; try again",
}
"""The sentence of every tournament refusal: a template filled from the refusal's data (a list is said
`a, b, c` as `{key}`, and `a, b or c` as `{key_or}`; `{setting}` by its name in `SETTINGS`)."""


def _listed(items: Sequence[Any], last: str) -> str:
    words = [str(i) for i in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])}{last}{words[-1]}" if words else ""


def template(code: str) -> str | None:
    """The template of a tournament refusal's code (None: not one)."""
    try:
        return REFUSALS[RefusalCode(code)]
    except ValueError:
        return None


def refusal_text(r: Refusal) -> str:
    """The reply to a tournament refusal."""
    values: dict[str, Any] = {}
    for key, value in r.data.items():
        if isinstance(value, list | tuple):
            values[key] = ", ".join(str(v) for v in value)
            values[f"{key}_or"] = _listed(value, " or ")
        else:
            values[key] = value
    if isinstance(values.get("games"), int):
        values["games_counted"] = plural(values["games"], "game")
    if "setting" in values:
        values["setting"] = SETTINGS.get(str(values["setting"]), values["setting"])
    try:
        return REFUSALS[RefusalCode(r.code)].format(**values)
    except (KeyError, ValueError, IndexError):
        return "that is not possible now"


def announcement(
    tournament: str, kind: str, data: Mapping[str, Any], names: Mapping[int, str], when: When, now: dt.datetime
) -> Text:
    """What the tournament's channel is told of an event (`kind` a `TournamentEventKind`)."""
    head = strong(tournament)
    if kind == TournamentEventKind.ROUND:
        text = lines([head, *pairing_lines(data["round"], data["pairings"], names)])
        starts = data.get("starts_at")
        if isinstance(starts, dt.datetime) and starts > now:
            text += f"\nThe games start {when(starts)}."
        return text
    if kind == TournamentEventKind.STARTED:
        removed, left = data.get("removed") or [], data.get("left") or []
        text = head + f" has started with {plural(int(data['players']), 'player')}."
        text += f" Out for leaving the server: {', '.join(left)}." if left else ""
        return text + (f" Out for not checking in: {', '.join(removed)}." if removed else "")
    if kind == TournamentEventKind.ROUND_SOON:
        return head + f": round {data['round']} starts {when(data['starts_at'])}."
    if kind == TournamentEventKind.NO_SHOW:
        text = head + (
            f", round {data['round']} board {data['board']}: {data['winner_name']} wins by "
            f"no-show ({data['absent_name']} did not check in)."
        )
        if data.get("confirm"):  # lichess's rule (`missed:withdraw`)
            text += (
                f" {data['absent_name']} is withdrawn before the next round unless they confirm they play on: "
                f"`/dm tournament stay tournament:{data['tournament']}`."
            )
        return text
    if kind == TournamentEventKind.STAYS:
        return head + f": {data['name']} plays on after missing their round {data['round']} game."
    if kind == TournamentEventKind.REMATCH:
        games = [g for g in data["pairings"] if isinstance(g, Game)]
        return (
            head
            + ": drawn, so replayed with colours swapped: "
            + ", ".join(f"{names.get(g.white, '?')} – {names.get(g.black, '?')}" for g in games)
        )
    if kind == TournamentEventKind.FINISHED:
        winner = data.get("winner_name")
        return as_text(winner_line(tournament, winner, data.get("prize"))) if winner else head + " is over."
    if kind == TournamentEventKind.CANCELLED and isinstance(data.get("refusal"), Refusal):
        return head + f" is cancelled: {refusal_text(data['refusal'])}."
    return head + f" is {kind}."


def checkin_card(tournament: str, data: Mapping[str, Any], who: Who, when: When, now: dt.datetime) -> Text:
    """A game's check-in card in its room (a `game_room` event's data): both players, when it starts, the no-show."""
    starts, deadline = data.get("starts_at"), data.get("deadline")
    said: list[str | Text] = [
        strong(tournament)
        + fill_in(
            ", round {round} board {board}: {white} (first) vs {black}",
            round=data["round"],
            board=data["board"],
            white=who(data["white"]),
            black=who(data["black"]),
        ),
        "Click "
        + strong("I'm here")
        + " or type "
        + code("here")
        + ": the match starts "
        + (f"{when(starts)} " if isinstance(starts, dt.datetime) and starts > now else "")
        + "once both of you are here.",
    ]
    if isinstance(deadline, dt.datetime):
        said.append(f"A player still absent {when(deadline)} loses this game by no-show.")
    return lines(said)


def no_show_line(data: Mapping[str, Any], who: Who) -> Text:
    """A no-show ruling, said in the game's room (a `no_show` event's data)."""
    return fill_in(
        "{winner} wins by no-show: {absent} did not check in in time.",
        winner=who(data["winner"]),
        absent=who(data["absent"]),
    )
