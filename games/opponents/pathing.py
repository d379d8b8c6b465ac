"""Pathing: the four-in-a-row race on the pathing board, with the round's box margin as a tiebreak."""

from __future__ import annotations

from games.base import Seat
from games.pathing import PathingState

LINES = tuple([0xF << (4 * r) for r in range(4)] + [0x1111 << c for c in range(4)])
_WEIGHT = (0.0, 0.5, 2.0, 8.0, 0.0)
BOX = 1.5
SQUARE = 1.0


def line_score(own: int, other: int) -> float:
    """How close a colour is to four in a row (lines blocked by enemy squares count half)."""
    total = 0.0
    for line in LINES:
        n = (own & line).bit_count()
        w = _WEIGHT[n]
        total += w if not other & line else w / 2
    return total


def evaluate(state: PathingState, me: Seat) -> float:
    """Line race, square count and the round's box margin (the round winner gains a square)."""
    mine, theirs = state.colour_mask(me), state.colour_mask(3 - me)
    score = line_score(mine, theirs) - line_score(theirs, mine)
    score += SQUARE * (mine.bit_count() - theirs.bit_count())
    score += BOX * (state.box_count(me) - state.box_count(3 - me))
    return score
