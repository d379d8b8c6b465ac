"""Dots: the captured-dot margin, searched near the action."""

from __future__ import annotations

from typing import Any

from games.base import AnyRuleset, Seat
from games.dots import END, STOP, DotsState

CAPTURE = 10.0


def evaluate(state: DotsState, me: Seat) -> float:
    """The captured-dot margin, `CAPTURE` a dot.

    There was a second term, "pressure": each live dot's live enemy neighbours, mine counted for me and theirs
    against me. It summed to zero on every field (a pair of neighbours is one enemy neighbour for each of its two
    dots, once for and once against), so it changed no score or choice while it took half of the engine's time;
    it went (measured on the 240 positions of the stored Dots games: the same scores)."""
    caps = state.caps
    return CAPTURE * (caps[me - 1] - caps[2 - me])


def candidates(ruleset: AnyRuleset, state: DotsState) -> list[Any]:
    """Empty points next to a live dot (all points on an empty field); `end` after a stop; never `stop`."""
    if state.reason:
        return []
    seat = state.turn
    b = state.board
    geo = state.geo
    ring = geo.ring
    near = []
    for i in geo.points:
        if b[i]:
            continue
        for off in ring:
            w = b[i + off]
            if 0 < w & 3 < 3 and not w >> 2:
                near.append((seat, i))
                break
    if not near:
        near = [(seat, i) for i in geo.points if not b[i]]
    if state.stopped:
        near.append((seat, END))
    elif not near:
        near.append((seat, STOP))
    return near


def random_moves(ruleset: AnyRuleset, state: DotsState) -> list[Any]:
    """What `random` picks from: any empty point (never `stop`), `end` at once after a stop."""
    if state.stopped:
        return [(state.turn, END)]
    return [m for m in ruleset.legal_moves(state) if m[1] >= 0] or ruleset.legal_moves(state)
