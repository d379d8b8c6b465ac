"""The sentences of ratings: what players read in a result line, a leaderboard, a profile, the terminal."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ratings.service import GameProfile, MatchRating, Result, Standing
from bot.wording.counts import plural


def shown(rating: float, provisional: bool) -> str:
    """`1623`, or `1623?` while the rating is provisional."""
    return f"{rating:.0f}{'?' if provisional else ''}"


def signed(delta: float) -> str:
    """`+14`, `-3`, `0`."""
    rounded = round(delta)
    return f"+{rounded}" if rounded > 0 else str(rounded)


def change_line(rating: MatchRating) -> str:
    """`alice 1623 (+14) · bob 1577 (-14)`: each player's new rating and the change."""
    return " · ".join(f"{c.name} {shown(c.after, c.provisional)} ({signed(c.delta)})" for c in rating.changes)


def deviation_text(s: Standing) -> str:
    """The deviation: `±87`."""
    return f"±{s.deviation:.0f}"


def rating_text(s: Standing) -> str:
    """`1523 ±87`; `1258? ±397` while the rating is provisional."""
    return f"{shown(s.rating, s.provisional)} {deviation_text(s)}"


def record(s: Standing) -> str:
    """`12 games: 7 won, 4 lost, 1 drawn`."""
    return f"{plural(s.games, 'game')}: {s.wins} won, {s.losses} lost, {s.draws} drawn"


def streak(s: Standing) -> str:
    """`3 wins in a row`, `2 losses in a row`, or `none`."""
    if s.streak > 0:
        return f"{s.streak} win{'s' if s.streak != 1 else ''} in a row"
    if s.streak < 0:
        return f"{-s.streak} loss{'es' if s.streak != -1 else ''} in a row"
    return "none"


def leaderboard_line(s: Standing, name: str | None = None) -> str:
    """`1. alice 1623 ±62 · 12 games, 7 won, 4 lost, 1 drawn` (`1258? ±397` while provisional)."""
    return (
        f"{s.rank}. {name or s.name} {rating_text(s)} · "
        f"{plural(s.games, 'game')}, {s.wins} won, {s.losses} lost, {s.draws} drawn"
    )


def own_place(s: Standing | None, total: int) -> str:
    """The caller's place under a leaderboard."""
    if s is None:
        return "You have no rated match in this game here yet."
    return f"Your place: {s.rank} of {total}, {rating_text(s)}."


def empty_leaderboard(title: str) -> str:
    """A game nobody has a rating in yet."""
    return f"Nobody has played a rated {title} match in this server yet."


def result_word(score: float) -> str:
    """`won`, `lost`, `drew`."""
    return "won" if score == 1.0 else "lost" if score == 0.0 else "drew"


def result_line(r: Result, link: str | None) -> str:
    """One of the last results: `won against bob (+14) → 1623, match 12`, the match linked to its room."""
    match = f"[match {r.match_id}]({link})" if link else f"match {r.match_id}"
    return f"{result_word(r.score)} against {r.opponent} ({signed(r.delta)}) → {r.rating_after:.0f}, {match}"


def head_to_head(p: GameProfile, other: str) -> str | None:
    """`Against bob: 3 won, 1 lost, 0 drawn`."""
    if p.head_to_head is None:
        return None
    won, lost, drawn = p.head_to_head
    return f"Against {other}: {won} won, {lost} lost, {drawn} drawn"


def profile_summary(p: GameProfile) -> str:
    """Rating and deviation (`Rating 1523 ±87`, marked while provisional), rank, record and streak of one game."""
    s = p.standing
    mark = PROVISIONAL_NOTE if s.provisional else ""
    return f"Rating {rating_text(s)}{mark}, rank {s.rank}\n{record(s)}; streak: {streak(s)}"


PROVISIONAL_NOTE = " (provisional)"
"""After a provisional rating on a profile: fewer than 10 rated games and a deviation of 110 or more."""


def no_profile(name: str) -> str:
    """A member with no rated match here."""
    return f"{name} has no rated match in this server yet."


def table_text(rows: Sequence[Standing]) -> str:
    """`dmhost ratings` without `--json`: one line per player, per game."""
    if not rows:
        return "No rated matches yet."
    lines = []
    game = None
    for s in rows:
        if s.game != game:
            game = s.game
            lines.append(f"{game}:")
        lines.append("  " + leaderboard_line(s))
    return "\n".join(lines)
