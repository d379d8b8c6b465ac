"""Trax: threats are tracks whose two open ends lie close together (a tile or two closes a loop)."""

from __future__ import annotations

from typing import Any

from games.base import AnyRuleset, Seat
from games.opponents.search import Budget, Profile
from games.trax.board import FIT, OFF, PARTNER, STRIDE, WHITE, ThreeSame, need, track_end
from games.trax.state import TraxState, legal_moves, play

# Weight of a track by the distance between the empty cells its two ends enter.
_CLOSE = {1: 6.0, 2: 3.0, 3: 1.5, 4: 0.75}
# A track reaching across the bounding box is a line in the making.
_SPAN = 0.15
HOT_DISTANCE = 2
LINE_SPAN = 8
NEAR = 2


def threats(state: TraxState, hot: set[int] | None = None) -> tuple[float, float]:
    """(red, white) threat scores of a position: closer open ends and longer spans score more.

    With `hot`, the empty cells at the ends of tracks whose ends are close are added to it."""
    board = state.board
    minx, maxx, miny, maxy = state.box
    wide = maxx - minx >= LINE_SPAN - 2
    tall = maxy - miny >= LINE_SPAN - 2
    scores = [0.0, 0.0]
    seen: set[tuple[int, int]] = set()
    for key, mask in board.items():
        for side in range(4):
            if key + OFF[side] in board or (key, side) in seen:
                continue
            colour = mask >> side & 1
            k, d = track_end(board, key, PARTNER[mask][side])  # this open end's track, to its other end
            seen.add((k, d))
            seen.add((key, side))
            a = key + OFF[side]
            b = k + OFF[d]
            dist = abs((a >> 16) - (b >> 16)) + abs((a & 0xFFFF) - (b & 0xFFFF))
            scores[colour] += _CLOSE.get(dist, 0.0)
            if hot is not None:
                ax, ay, bx, by = a >> 16, a & 0xFFFF, b >> 16, b & 0xFFFF
                if dist <= HOT_DISTANCE or (
                    (wide and abs(ax - bx) >= maxx - minx) or (tall and abs(ay - by) >= maxy - miny)
                ):
                    hot.add(a)
                    hot.add(b)
            span = max(abs((a >> 16) - (b >> 16)), abs((a & 0xFFFF) - (b & 0xFFFF)))
            scores[colour] += _SPAN * span
    return scores[0], scores[1]


def candidates(ruleset: AnyRuleset, state: TraxState) -> list[Any]:
    """Moves where the fight is: near the last two turns' tiles, or at the ends of tracks whose ends
    are close (where loops are made and stopped); every move when none of those is legal."""
    moves = legal_moves(state)
    if len(state.turns) < 2:
        return moves
    hot: set[int] = set()
    threats(state, hot)
    recent = sum(state.turns[-2:])
    for key, _mask in state.tiles[len(state.tiles) - recent :]:
        for dx in range(-NEAR, NEAR + 1):
            for dy in range(-NEAR, NEAR + 1):
                hot.add(key + dx * STRIDE + dy)
    near = [m for m in moves if m[0] in hot]
    return near or moves


def tactical(ruleset: AnyRuleset, state: TraxState) -> list[Any]:
    """Placements that may win at once: at the ends of tracks whose ends are close (loops) or that
    nearly span a bounding box big enough for a line. Not checked for the three-same rule (that costs
    a play each): `play_or_stay` turns an illegal one into no change."""
    if not state.tiles:
        return []
    hot: set[int] = set()
    threats(state, hot)
    board = state.board
    return [(cell, t) for cell in hot if cell not in board for t in FIT[need(board, cell)]]


def play_or_stay(state: TraxState, move: Any) -> TraxState:
    """The position after `move`, or `state` itself when the turn breaks the three-same rule."""
    try:
        return play(state, move)
    except ThreeSame:
        return state


def passed(state: TraxState) -> TraxState:
    """The same position with the other seat to act (an empty turn): what the seat that just moved
    could do if it moved again, which is what it threatens."""
    return TraxState(state.tiles, (*state.turns, 0), state.seat1_white, 0, "", state.box, state.board)


def winning_moves(ruleset: AnyRuleset, state: TraxState) -> list[Any]:
    """The moves that win at once for the seat to act (loops and lines the tactical cells can close)."""
    out = []
    for move in tactical(ruleset, state):
        child = play_or_stay(state, move)
        if child is not state and child.winner == state.seat:
            out.append(move)
    return out


def _near(cell: int, cells: set[int], reach: int) -> bool:
    x, y = cell >> 16, cell & 0xFFFF
    return any(abs(x - (c >> 16)) <= reach and abs(y - (c & 0xFFFF)) <= reach for c in cells)


def unstoppable(ruleset: AnyRuleset, state: TraxState, budget: Budget, share: float = 1.0) -> Any | None:
    """A move after which the seat to act wins next turn whatever the reply: it makes threats (moves
    that would win at once) that no reply near them stops, usually two far apart (a double threat).
    Replies are looked for within two cells of the threats' cells (a tile far away rarely changes a
    track near them). None when there is no such move, or when the first `share` of `budget` is used up
    (each move looked at and each reply tried counts one unit of work)."""
    seen: set[Any] = set()
    for move in tactical(ruleset, state) + candidates(ruleset, state):
        if move in seen:
            continue
        seen.add(move)
        if budget.spent(share):
            return None
        budget.spend()
        if forces_win(ruleset, state, move, budget):
            return move
    return None


def forces_win(ruleset: AnyRuleset, state: TraxState, move: Any, budget: Budget) -> bool:
    """Whether `move` makes threats that no reply near them stops, so the seat to act wins on its next
    turn whatever the reply (each reply tried counts one unit of `budget`; the caller checks it)."""
    me = state.seat
    child = play_or_stay(state, move)
    if child is state or child.finished:
        return False  # illegal (three same), or already won or lost: not a threat to look at
    threats = winning_moves(ruleset, passed(child))
    if not threats or winning_moves(ruleset, child):
        return False  # nothing threatened, or the opponent wins first
    cells = {cell for cell, _tile in threats}
    for reply in legal_moves(child):
        if not _near(reply[0], cells, 2):
            continue
        budget.spend()
        after = play_or_stay(child, reply)
        if after is child:
            continue
        if after.finished:
            if after.winner == me:
                continue
            return False  # the reply wins
        if not winning_moves(ruleset, after):
            return False
    return True


def evaluate(state: TraxState, me: Seat) -> float:
    """My threats minus the opponent's; the side to move gets the benefit of the doubt."""
    red, white = threats(state)
    mine, theirs = (white, red) if state.colour_of(me) == WHITE else (red, white)
    if state.seat == me:
        return 1.2 * mine - theirs
    return mine - 1.2 * theirs


PROFILE = Profile(
    evaluate=evaluate,
    candidates=candidates,
    beam=10,
    depth={"easy": 1, "medium": 2, "hard": 6},
    noise=2.5,
    play=play_or_stay,
    quiet_leaves=True,
    root_all=False,
    tactical=tactical,
    forcing=unstoppable,
    refutes=unstoppable,
)
