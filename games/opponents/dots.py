"""Dots: captures first, then pressure (own dots next to enemy dots), searched near the action."""

from __future__ import annotations

from typing import Any

from games.base import AnyRuleset, Seat
from games.dots import END, STOP, DotsState

CAPTURE = 10.0
PRESSURE = 0.3


def evaluate(state: DotsState, me: Seat) -> float:
    """Captured-dot margin, plus how hemmed in the enemy's live dots are compared with mine."""
    caps = state.caps
    score = CAPTURE * (caps[me - 1] - caps[2 - me])
    b = state.board
    stride = state.width + 2
    press = 0
    for i in state.geo.points:
        v = b[i]
        s = v & 3
        if not s or v >> 2:
            continue
        other = 3 - s
        n = 0
        for j in (i - stride, i + 1, i + stride, i - 1):
            w = b[j]
            if w & 3 == other and not w >> 2:
                n += 1
        press += n if other == me else -n
    return score + PRESSURE * press


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
