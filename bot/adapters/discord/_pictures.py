"""A match's board as pictures and lines any Discord feature shows (the announcer's board, `/dm board`,
`/dm live`): the picture and its crop, the result a rule may still undo, the running deadline."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import discord

from bot.host.service import Live
from bot.types import OVER_STATUSES, MatchStatus
from bot.wording import clock_deadline_text, deadline_text, result_sentence, seat_name

__all__ = ["deadline_line", "pending_result", "picture", "player_label", "result_is_final", "zoom_picture"]

log = logging.getLogger(__name__)


def picture(live: Live, *, prev_state: Any = None, last_move: Any = None, result: str | None = None) -> bytes | None:
    """A PNG of the position with both names and colours, the last move highlighted, and at the end the
    result (None when this game has no pictures or drawing fails: the text board is shown instead)."""
    from games import pictures

    if not pictures.has_renderer(live.game):
        return None
    try:
        return pictures.render_png(
            live.ruleset,
            live.state,
            names=(seat_name(live, 1), seat_name(live, 2)),
            last_move=last_move,
            prev_state=prev_state,
            result=result,
            winner=live.result[0] if live.result is not None and result is not None else None,
            final=result_is_final(live),
        )
    except Exception:
        log.exception("drawing match %s failed; showing the text board", live.id)
        return None


def result_is_final(live: Live) -> bool:
    """Whether a result the engine sees on the board is the match's: not while a rule holds it (an answer that
    may undo it) or the move that made it is still provisional."""
    return live.status != MatchStatus.HELD and live.provisional() is None


def pending_result(live: Live) -> str | None:
    """The result the board shows while a rule may still undo it (None: there is none)."""
    if result_is_final(live):
        return None
    try:
        outcome = live.ruleset.outcome(live.state)
    except Exception:
        return None
    if outcome is None:
        return None
    names = {seat: seat_name(live, seat) for seat in live.players}
    return result_sentence(outcome.termination, outcome.winner, names, pending=True)


def zoom_picture(live: Live, *, prev_state: Any = None, last_move: Any = None) -> bytes | None:
    """While a large board's game runs: a legible crop around the last move, shown beside the whole board
    (None for boards that read well whole, and when drawing fails)."""
    try:
        from games import pictures

        return pictures.render_zoom_png(
            live.ruleset,
            live.state,
            names=(seat_name(live, 1), seat_name(live, 2)),
            last_move=last_move,
            prev_state=prev_state,
            final=result_is_final(live),
        )
    except Exception:
        log.exception("drawing the crop of match %s failed", live.id)
        return None


def player_label(live: Live, seat: int) -> str:
    """A player's name with the colour they play in the picture ("alice (red)")."""
    try:
        from games import pictures

        colour = pictures.renderer_for(live.game).colour_word(live.ruleset, live.state, seat)
    except Exception:
        return seat_name(live, seat)
    return f"{seat_name(live, seat)} ({colour})" if colour else seat_name(live, seat)


def deadline_line(live: Live, now: float) -> str | None:
    """The running deadline as a Discord timestamp (`<t:UNIX:R>`), or None when no clock runs: the soonest
    deadline a rule of the match declares, else the clock's next phase."""
    if live.status in OVER_STATUSES:
        return None
    utc_now = discord.utils.utcnow()

    def stamp(at: float) -> str:
        return discord.utils.format_dt(utc_now + dt.timedelta(seconds=max(0.0, at - now)), "R")

    ruled = [d for rule in live.rules for d in rule.deadlines(live) if d.at != float("inf")]
    for d in sorted(ruled, key=lambda d: d.at):
        line = deadline_text(d.label, seat_name(live, d.seat), stamp(d.at))
        if line is not None:
            return line
    if live.status != MatchStatus.ONGOING:
        return None
    for deadline in live.clocks.next_deadlines(now):
        line = clock_deadline_text(deadline.kind, seat_name(live, deadline.seat), stamp(deadline.at))
        if line is not None:
            return line
    return None
