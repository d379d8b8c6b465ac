"""Overview: /dm live, /dm moves, /dm status, /dm history and the posted results; and the one result sentence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.text import Text, lines, strong
from bot.wording.basics import seconds
from bot.wording.counts import plural
from games.base import Termination

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
    undone (a rule holding the match, the move still provisional): "alice would win with a loop (not final yet)"."""

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
    clocks: str | Text,
    deadline: str | None,
    link: str,
) -> Text:
    """`/dm status`: game, players, move number, whose turn, both clocks, the deadline and the room."""
    said: list[str | Text] = [
        strong(f"Match {match_id} · {game}") + f" · {players}",
        f"Move {move_number} · {turn}",
        clocks,
    ]
    if deadline:
        said.append(deadline)
    said.append(f"Room: {link}")
    return lines(said)


def history_line(
    match_id: int, when: str, game: str, players: str, result: str, link: str, review: str | None = None
) -> str:
    """One match in `/dm history` (`result`: its `result_sentence`; `review`: its review page's address)."""
    return f"`#{match_id}` {when} · {game}: {players} — {result} · {link}" + (
        "" if review is None else f" · {review_link(review)}"
    )


def review_link(url: str) -> str:
    """A link to a review page (a match's, a tournament's, a server's), without a preview."""
    return f"[review](<{url}>)"


def moves_header(match_id: int, game: str, players: str, plies: int) -> Text:
    """The first line of `/dm moves`."""
    return strong(f"Match {match_id} · {game}") + f" · {players} · {plies} move{'s' if plies != 1 else ''}"


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


def in_tournament(name: str, round_number: int, board: int) -> Text:
    """What a posted result of a tournament's game starts with: `Spring Cup, round 2 board 1 · ` (the name strong)."""
    return strong(name) + f", round {round_number} board {board} · "


def posted_result(match_id: int, game: str, players: str, result: str, link: str) -> Text:
    """The result line posted where people look (the room's parent channel or the results channel)."""
    return strong(f"Match {match_id} · {game}") + f" · {players}: {result} · {link}"
