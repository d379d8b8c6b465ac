"""Reviewing a finished match without a shell: the animated replay, the SGF record (Dots) and the
solver's verdict on every move (Boxes, Pathing), each as bytes ready to attach, fitted to a size limit.

Pure functions on a stored match (loaded with its events); the heavy ones are meant to run in a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.records.matchlog import result_of
from bot.records.replay import Frame, clock_shown, replay_match
from bot.store.matches import StoredMatch
from bot.types import OVER_STATUSES, MatchStatus
from bot.wording import review as words

MIN_FRAMES = 2


@dataclass
class Review:
    """The review files of one match, and what had to be left out to fit."""

    files: list[tuple[str, bytes]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _names(stored: StoredMatch) -> dict[int, str]:
    return {seat: name for seat, (_pid, name) in stored.players.items()}


def replay_gif(stored: StoredMatch, *, every: int = 1) -> tuple[bytes, int]:
    """The animated replay (a frame per move, or per `every` moves; the final position always) and its
    number of frames."""
    from games import pictures

    ruleset, frames = replay_match(stored)
    names = _names(stored)
    keep: list[Frame] = [f for i, f in enumerate(frames) if i % every == 0 or i == len(frames) - 1]
    captions = [frame_caption(f, names, lambda v: clock_shown(v, stored.clock)) for f in keep]
    result = result_of(stored) if stored.status in OVER_STATUSES else None
    data = pictures.render_replay_gif(
        ruleset,
        [f.state for f in keep],
        captions,
        names=names,
        moves=[f.engine_move for f in keep] if every == 1 else None,
        result=result,
        winner=stored.winner_seat if stored.status == MatchStatus.FINISHED else None,
    )
    return data, len(keep)


_KEEP = "\u00a0"
"""A no-break space: the picture's caption breaks lines at spaces only, so the clocks stay one piece."""


def frame_caption(frame: Frame, names: dict[int, str], clock_text: Callable[[Any], str]) -> str:
    """A replay frame's caption: the move, then both clocks; when it needs two lines, the clocks move to
    the second whole (never "bob" on one line and "5:00" on the next)."""
    clocks = (_KEEP * 3).join(
        f"{names.get(s, '?')}{_KEEP}{clock_text(v)}".replace(" ", _KEEP) for s, v in sorted(frame.clocks.items())
    )
    return f"{frame.caption}   {clocks}"


def sgf_text(stored: StoredMatch) -> str | None:
    """The SGF record of a Dots match (None for other games)."""
    if stored.game != "dots":
        return None
    ruleset, frames = replay_match(stored)
    return ruleset.export_sgf(stored.options, [f.engine_move for f in frames[1:]])


def analysis_text(stored: StoredMatch, entries: list[dict[str, Any]] | None = None) -> str | None:
    """The engine's verdict on every move: the stored analysis `entries`, else computed now for a Boxes or
    Pathing match (the exact solver is quick); None for a game whose analysis is not stored yet."""
    from bot.records.analysis import ANALYSED_GAMES, analyse_match, format_analysis

    if stored.game not in ANALYSED_GAMES:
        return None
    if entries is None:
        if stored.game not in ("boxes", "pathing"):
            return None
        entries = analyse_match(stored)
    return format_analysis(entries, _names(stored))


def build_review(
    stored: StoredMatch,
    limit: int,
    used: int = 0,
    *,
    with_analysis: bool = True,
    analysis: list[dict[str, Any]] | None = None,
) -> Review:
    """Replay GIF, SGF and analysis for `stored`, within `limit` bytes in all (`used` already taken):
    frames are dropped first, then whole files, each with a note saying so."""
    review = Review()
    budget = limit - used
    prefix = f"match-{stored.id}"
    small: list[tuple[str, bytes]] = []
    sgf = sgf_text(stored)
    if sgf is not None:
        small.append((f"{prefix}.sgf", sgf.encode()))
    if with_analysis:
        verdicts = analysis_text(stored, analysis)
        if verdicts is not None:
            small.append((f"{prefix}-analysis.txt", verdicts.encode()))
        elif stored.status == MatchStatus.FINISHED and stored.game not in ("boxes", "pathing"):
            review.notes.append(words.ANALYSIS_NOT_READY)
    for name, data in small:
        if len(data) <= budget:
            review.files.append((name, data))
            budget -= len(data)
        else:
            review.notes.append(words.file_left_out(name))
    try:
        every = 1
        while True:
            gif, count = replay_gif(stored, every=every)
            if len(gif) <= budget:
                review.files.insert(0, (f"{prefix}.gif", gif))
                if every > 1:
                    review.notes.append(words.replay_thinned(every, count))
                break
            if count <= MIN_FRAMES:
                review.notes.append(words.REPLAY_LEFT_OUT)
                break
            every *= 2
    except Exception as exc:  # a replay that cannot be drawn must not cost the rest of the review
        review.notes.append(words.replay_failed(type(exc).__name__))
    return review
