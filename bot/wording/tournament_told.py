"""Sentences of a tournament told to everyone (issue 37): withdrawals, round pings with room links, decided
results, public tables and the elimination's round names. Beside `bot.wording.tournaments` (which keeps the
refusals and the older announcements)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.text import Text, as_text, code, fill_in, strong
from bot.tournaments.rounds import Bye, Pairing
from bot.wording.counts import plural
from bot.wording.tournaments import points_text

__all__ = ["plural"]

Who = Callable[[str], str | Text]
Link = Callable[[int], str]


def round_title(number: int, total: int | None, elimination: bool) -> str:
    """`Round 2`; in an elimination of `total` rounds its last three are `Final`, `Semi-final`, `Quarter-final`."""
    if elimination and total:
        left = total - number
        names = {0: "Final", 1: "Semi-final", 2: "Quarter-final"}
        if left in names:
            return names[left]
    return f"Round {number}"


def span(seconds: int) -> str:
    """A tournament's interval: `90 min`, `2 hours`, `1 day`, `3 days` (whole hours and days as such)."""
    if seconds % 86400 == 0:
        return plural(seconds // 86400, "day")
    if seconds % 3600 == 0:
        return plural(seconds // 3600, "hour")
    return f"{seconds // 60} min"


def round_every(seconds: int) -> str:
    """The sign-up card's round interval: `a round a day`, `a round an hour`, `a round every 2 days`."""
    if seconds == 86400:
        return "a round a day"
    if seconds == 3600:
        return "a round an hour"
    return f"a round every {span(seconds)}"


def staying(tournament: str) -> str:
    """`/dm tournament stay`: the player who missed a game plays on."""
    return f"Noted: you play on in {tournament} and are paired in the next round."


def round_soon_line(tournament: str, data: Mapping[str, Any], who: Who, when: Callable[[Any], str]) -> Text:
    """The ping before a round's games start (24 h, 1 h, 10 min before): everyone whose game waits, and,
    when the games wait for both players, how to say one is here."""
    players = as_text(", ").join(who(p) for p in dict.fromkeys(data.get("players") or []))
    text = strong(tournament) + f": round {data['round']} starts {when(data['starts_at'])}: " + players + "."
    if data.get("checkin"):
        text += (
            " Click "
            + strong("I'm here")
            + " (or type "
            + code("here")
            + ") in your game's room: its clocks start once both players are."
        )
    return text


def withdrawn_lines(tournament: str, data: Mapping[str, Any], host: str | None) -> list[str | Text]:
    """The channel's lines of a withdrawal: who, who took them out (a host), and what it forfeits (between
    rounds nothing is: the player is not paired again)."""
    removed = f" (taken out by {host})" if host else ""
    if data.get("missed") is not None:  # lichess's rule (`missed:withdraw`)
        return [
            strong(tournament) + f": {data['name']} is withdrawn: they missed their round {data['missed']} game and "
            "did not confirm they play on."
        ]
    games = data.get("games") or []
    then = "their open games are forfeited" if games else "they are not paired again"
    lines: list[str | Text] = [strong(tournament) + f": {data['name']} has withdrawn{removed}; {then}."]
    for g in data.get("games") or []:
        lines.append(f"Board {g['board']}: {g['opponent_name']} wins by forfeit ({data['name']} withdrew).")
    return lines


def withdrawn_room_line(tournament: str, data: Mapping[str, Any], game: Mapping[str, Any], who: Who) -> Text:
    """What a game's room is told when a player withdrew: the opponent (pinged) wins by forfeit."""
    waiting = " No check-in is needed any more." if game.get("waiting") else ""
    return (
        fill_in(
            "{name} has withdrawn from {tournament}: {opponent} wins this game by forfeit.",
            name=data["name"],
            tournament=tournament,
            opponent=who(game["opponent"]),
        )
        + waiting
    )


def game_over_here(tournament: str) -> str:
    """The answer to a `here` typed in the room of a tournament game already decided."""
    return f"This game of {tournament} is already decided: there is nothing to check in for."


def decided_line(tournament: str, data: Mapping[str, Any], host: str) -> Text:
    """A host's decision of a tournament game, naming the host."""
    return strong(tournament) + (
        f", round {data['round']} board {data['board']}: {data['result']}, decided by {host} (host)."
    )


def pairing_pings(
    title: str,
    pairings: Sequence[Pairing],
    names: Mapping[int, str],
    players: Mapping[int, str],
    rooms: Mapping[int, str],
    who: Who,
) -> list[str | Text]:
    """`Round 2` (or `Final`) then one line per board pinging both players, with a link to the game's room.
    `players`: entry → player id; `rooms`: board → the room's link."""
    lines: list[str | Text] = [title]
    for board, p in enumerate(pairings, start=1):
        if isinstance(p, Bye):
            lines.append(f"{board}. {names.get(p.player, str(p.player))}: bye ({points_text(p.points)})")
            continue

        def named(entry: int) -> str | Text:
            pid = players.get(entry)
            return who(pid) if pid else names.get(entry, str(entry))

        room = f" — {rooms[board]}" if board in rooms else ""
        lines.append(
            fill_in("{board}. {white} – {black}", board=board, white=named(p.white), black=named(p.black)) + room
        )
    return lines


def marked(names: Mapping[int, str], withdrawn: Sequence[int]) -> dict[int, str]:
    """The names with the withdrawn marked: `bob (withdrew)`."""
    return {e: f"{n} (withdrew)" if e in withdrawn else n for e, n in names.items()}


def standings_title(tournament: str, round_number: int, final: bool) -> Text:
    """The head of a posted table."""
    return strong(tournament) + (" — final standings" if final else f" — standings after round {round_number}")


def withdraw_question(tournament: str, opponent: str | None, round_number: int, board: int, live: bool) -> str:
    """The confirmation asked before a player leaves a started tournament, naming the game it forfeits."""
    if opponent is None:
        return f"{tournament} has started: leaving now withdraws you from its remaining rounds. Withdraw?"
    state = "your live game" if live else "your game"
    return (
        f"{tournament} has started: leaving now forfeits {state} against {opponent} "
        f"(round {round_number}, board {board}) and withdraws you from the rest. Withdraw?"
    )


NO_TOURNAMENTS = "Tournaments are not running on this bot."
STILL_IN = "You are still in."


def no_such(tid: int) -> str:
    """A tournament number this server has none of."""
    return f"There is no tournament {tid} in this server."


def signup_closed(status: str) -> str:
    """The sign-up card's last line once sign-up is over."""
    return f"Sign-up is closed ({status})."


def checked_in(opened: bool) -> str:
    """A player pressed I'm here on a game's card (`opened`: both are here, so the match started)."""
    return "You are checked in." + (" Both players are here: the match has started." if opened else "")


def games_start(when: str) -> str:
    """Under a round's pairings: when its games start (`when` as the face shows a moment)."""
    return f"The games start {when}."


def left_the_server(names: Sequence[str]) -> str:
    """Entrants no longer in the server stop the start."""
    return f"{', '.join(names)} left the server: take them out with `/dm tournament remove` before the start."


def has_started(tournament: str) -> str:
    """`/dm tournament start` answered."""
    return f"{tournament} has started."


def is_out(player: str, tournament: str) -> str:
    """`/dm tournament remove` answered."""
    return f"{player} is out of {tournament}."


def paired_so_far(tournament: str, rounds: int) -> str:
    """A round asked for that is not paired yet."""
    return f"{tournament} has {plural(rounds, 'round')} paired so far."


def no_bracket(tournament: str, kind: str) -> str:
    """A bracket asked of a tournament of another format."""
    return f"{tournament} is a {kind}: see /dm tournament standings."


def you_left(tournament: str) -> str:
    """A player left a tournament (before its start, or withdrawing after it)."""
    return f"You have left {tournament}."


def board_decided(board: int, result: str, host: str) -> str:
    """A host decided a board's game."""
    return f"Board {board}: {result}, decided by {host}."


def paused(tournament: str) -> str:
    """`/dm tournament pause` answered."""
    return f"{tournament} is paused."


def goes_on(tournament: str) -> str:
    """`/dm tournament resume` answered."""
    return f"{tournament} goes on."


def cancelled(tournament: str) -> str:
    """`/dm tournament cancel` answered."""
    return f"{tournament} is cancelled."
