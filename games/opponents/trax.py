"""Trax: threats are tracks whose two open ends lie close together (a tile or two closes a loop)."""

from __future__ import annotations

from games.base import Seat
from games.opponents.search import Profile
from games.trax.board import OFF, PARTNER, TURN, WHITE
from games.trax.state import TraxState

# Weight of a track by the distance between the empty cells its two ends enter.
_CLOSE = {1: 6.0, 2: 3.0, 3: 1.5, 4: 0.75}
# A track reaching across the bounding box is a line in the making.
_SPAN = 0.15


def threats(state: TraxState) -> tuple[float, float]:
    """(red, white) threat scores of a position: closer open ends and longer spans score more."""
    board = state.board
    get = board.get
    scores = [0.0, 0.0]
    seen: set[tuple[int, int]] = set()
    for key, mask in board.items():
        for side in range(4):
            if key + OFF[side] in board or (key, side) in seen:
                continue
            colour = mask >> side & 1
            # Follow the track from this open end to its other end.
            k, d = key, PARTNER[mask][side]
            while True:
                n = k + OFF[d]
                m = get(n)
                if m is None:
                    break
                d = TURN[m << 2 | d]
                k = n
            seen.add((k, d))
            seen.add((key, side))
            a = key + OFF[side]
            b = k + OFF[d]
            dist = abs((a >> 16) - (b >> 16)) + abs((a & 0xFFFF) - (b & 0xFFFF))
            scores[colour] += _CLOSE.get(dist, 0.0)
            span = max(abs((a >> 16) - (b >> 16)), abs((a & 0xFFFF) - (b & 0xFFFF)))
            scores[colour] += _SPAN * span
    return scores[0], scores[1]


def evaluate(state: TraxState, me: Seat) -> float:
    """My threats minus the opponent's; the side to move gets the benefit of the doubt."""
    red, white = threats(state)
    mine, theirs = (white, red) if state.colour_of(me) == WHITE else (red, white)
    if state.seat == me:
        return 1.2 * mine - theirs
    return mine - 1.2 * theirs


PROFILE = Profile(evaluate=evaluate, beam=14, depth={"easy": 1, "medium": 2, "hard": 6}, noise=1.0)
