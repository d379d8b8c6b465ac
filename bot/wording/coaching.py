"""The coaching's words: a puzzle's heading and its verdict, insights and the fair-play report as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.coaching import Answered, Puzzle
from bot.text import Text, strong

GAME_TITLES = {"boxes": "Dots-and-Boxes", "pathing": "Pathing", "trax": "Trax", "dots": "Dots", "dotdash": "Dot Dash"}


def _title(game: str) -> str:
    return GAME_TITLES.get(game, game)


def puzzle_heading(puzzle: Puzzle) -> str:
    """`Puzzle 12 (Dots-and-Boxes, from match 5 after 9 moves): al to move. Find the one best move.`"""
    how = "the one best move" if puzzle.game in ("boxes", "pathing") else "the one decisive move"
    return (
        f"Puzzle {puzzle.id} ({_title(puzzle.game)}, from match {puzzle.match_id} after {puzzle.ply} moves): "
        f"{puzzle.mover_name} to move. Find {how}."
    )


def proof_text(puzzle: Puzzle) -> str:
    """What proves the answer, in one sentence."""
    proof = puzzle.proof
    line = " ".join(str(m) for m in proof.get("line") or puzzle.answer)
    if proof.get("method") == "exact solver":
        return (
            f"The solver proves it: {puzzle.answer[0]} keeps a margin of {int(proof['best_value']):+d} over the open "
            f"boxes; every other move does worse (the next best {int(proof['next_value']):+d}). Best play: {line}."
        )
    return (
        f"Every move searched ({proof.get('moves')} of them): only {puzzle.answer[0]} "
        f"{proof.get('decisive', 'is decisive')}."
    )


def answer_text(result: Answered) -> str:
    """Right or wrong, the proof, and the puzzle rating."""
    head = (
        f"Right: {result.move}."
        if result.solved
        else f"Not quite: {result.move}. The answer was {', '.join(result.puzzle.answer)}."
    )
    change = f" ({result.change:+.0f})" if result.change else ""
    return f"{head} {proof_text(result.puzzle)} Puzzle rating: {result.rating:.0f}{change}."


def move_refused(reason: str) -> str:
    """A posted text that is no legal move in the puzzle."""
    return f"That is not a legal move here: {reason}. Try again."


def no_puzzle(name: str, game: str | None) -> str:
    """Nothing left to serve."""
    what = f"{_title(game)} puzzle" if game else "puzzle"
    return f"No {what} for {name} yet: puzzles come from finished, analysed matches (`dmhost puzzles build`)."


def puzzles_line(puzzle: Puzzle) -> str:
    """One puzzle, for `dmhost puzzles build` without `--json`."""
    return (
        f"puzzle {puzzle.id}: {puzzle.game} match {puzzle.match_id} after {puzzle.ply} moves, "
        f"answer {', '.join(puzzle.answer)} (value {puzzle.value:g}; {puzzle.proof.get('method')})"
    )


def built_text(added: int, scanned: int, found: int) -> str:
    """The summary after a build."""
    return f"{added} new puzzle{'s' if added != 1 else ''}; {found} from {scanned} analysed matches searched."


def _verdicts(v: dict[str, int]) -> str:
    return ", ".join(f"{v[k]} {k}" for k in ("best", "good", "inaccuracy", "mistake", "blunder"))


def insights_line(row: dict[str, Any]) -> str:
    """One game's insights in a line (the ratings profile): `Analysed: 40 moves · 25 best, … · 3.5 boxes lost`."""
    return f"Analysed: {row['moves']} moves · {_verdicts(row['verdicts'])} · {row['lost']:g} {row['unit']} lost"


def insights_text(name: str, rows: Sequence[dict[str, Any]]) -> str:
    """A player's insights, a block per game."""
    if not rows:
        return f"No analysed matches of {name} yet."
    lines = [f"Insights of {name}:"]
    for r in rows:
        lines.append(
            f"{_title(r['game'])}: {r['matches']} matches, {r['moves']} analysed moves: {_verdicts(r['verdicts'])}; "
            f"{r['lost']:g} {r['unit']} lost"
        )
        for phase, t in r["phases"].items():
            lines.append(f"  {phase}: {t['moves']} moves, {t['lost']:g} {r['unit']} lost; {_verdicts(t['verdicts'])}")
        for o in r["opponents"]:
            lines.append(
                f"  against {o['opponent']}: {o['matches']} matches, {o['moves']} moves, {o['lost']:g} {r['unit']} lost"
            )
    return "\n".join(lines)


def fairplay_text(rows: Sequence[dict[str, Any]]) -> str:
    """The fair-play report: flagged players first, with their evidence."""
    if not rows:
        return "No rated, analysed matches yet."
    lines = []
    for r in rows:
        mark = "FLAG " if r["flag"] else ""
        lines.append(
            f"{mark}{r['player']} ({_title(r['game'])}): {r['matches']} matches, {r['moves']} hard moves, "
            f"engine's best {r['engine_rate']:.0%} (players of that rating {r['expected_rate']:.0%})"
        )
    return "\n".join(lines)


def puzzle_rating_line(game: str, rating: float, count: int) -> str:
    """A member's puzzle rating in one game."""
    return f"{_title(game)} puzzle rating: {rating:.0f} ({count} puzzle{'s' if count != 1 else ''})."


def daily_text(puzzle: Puzzle) -> Text:
    """The daily puzzle's post."""
    return strong("Daily puzzle.") + f" {puzzle_heading(puzzle)} Answer with `/puzzle answer move: puzzle:{puzzle.id}`."


def daily_set(channel: str) -> str:
    """The host chose the daily puzzle's channel."""
    return f"The daily puzzle is posted in {channel} from now on (today's now, then each day at midnight UTC)."


def daily_stopped() -> str:
    """The host stopped the daily puzzle."""
    return "No more daily puzzles here."


HOSTS_ONLY = "Only hosts (Manage Server or the host role) can do that."
NO_CURRENT = "You have no puzzle to answer: ask for one with `/puzzle play`."
NOT_YOURS = "That puzzle is not open to you now (it comes from a match of your own unfinished series)."
UNKNOWN = "There is no such puzzle here."


def puzzle_served(puzzle: Puzzle) -> str:
    """A puzzle served by `/puzzle play`: its heading and how to answer."""
    return f"{puzzle_heading(puzzle)}\nAnswer with `/puzzle answer move:`."
