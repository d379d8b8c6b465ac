"""Trax positions as immutable values, whole turns, legal moves and perft."""

from __future__ import annotations

from dataclasses import dataclass, field

from games.trax.board import (
    FIRST_TILES,
    ORIGIN,
    RED,
    WHITE,
    bounding_box,
    legal_placements,
    place,
    structures,
)

Move = tuple[int, int]
"""A placement: (cell key, tile mask) in the board's absolute coordinates."""


@dataclass(frozen=True)
class TraxState:
    """A position. `tiles` lists every tile (key, mask) in the order it was placed, forced ones too;
    `turns[i]` is how many tiles turn i put down (its primary tile first). `board` is the same
    tiles as a dict for lookups: never mutate it.
    """

    tiles: tuple[Move, ...]
    turns: tuple[int, ...]
    seat1_white: bool
    winner: int = 0
    reason: str = ""
    box: tuple[int, int, int, int] = (0, -1, 0, -1)
    board: dict[int, int] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def finished(self) -> bool:
        """A loop or line has been made."""
        return self.winner != 0

    @property
    def seat(self) -> int:
        """The seat whose turn it is (ignoring whether the game is over)."""
        return 1 if len(self.turns) % 2 == 0 else 2

    def colour_of(self, seat: int) -> int:
        """WHITE or RED for a seat."""
        return WHITE if (seat == 1) == self.seat1_white else RED

    @property
    def width(self) -> int:
        """Bounding-box width in cells (0 on the empty board)."""
        return self.box[1] - self.box[0] + 1 if self.tiles else 0

    @property
    def height(self) -> int:
        """Bounding-box height in cells (0 on the empty board)."""
        return self.box[3] - self.box[2] + 1 if self.tiles else 0


def empty(seat1_white: bool = True) -> TraxState:
    """The empty board."""
    return TraxState((), (), seat1_white)


def from_tiles(tiles: tuple[Move, ...], turns: tuple[int, ...], seat1_white: bool) -> TraxState:
    """Rebuild a position from its tile list; the winner is judged from the last turn."""
    if not tiles:
        return TraxState((), turns, seat1_white)
    board = dict(tiles)
    box = bounding_box(board)
    state = TraxState(tiles, turns, seat1_white, 0, "", box, board)
    if turns:
        fresh = [k for k, _ in tiles[len(tiles) - turns[-1] :]]
        mover = 2 if len(turns) % 2 == 0 else 1
        winner, reason = judge(state, fresh, mover)
        if winner:
            state = TraxState(tiles, turns, seat1_white, winner, reason, box, board)
    return state


def rewind(state: TraxState, turns: int = 1) -> TraxState:
    """The position `turns` whole turns earlier (forced tiles go with their turn)."""
    if turns <= 0:
        return state
    keep_turns = state.turns[: max(0, len(state.turns) - turns)]
    keep = sum(keep_turns)
    tiles = state.tiles[:keep]
    if not tiles:
        return TraxState((), keep_turns, state.seat1_white)
    board = dict(tiles)
    return TraxState(tiles, keep_turns, state.seat1_white, 0, "", bounding_box(board), board)


def judge(state: TraxState, fresh: list[int], mover: int) -> tuple[int, str]:
    """(winning seat or 0, reason) after `mover`'s turn put down the `fresh` tiles."""
    red, white = structures(state.board, fresh, state.box)
    if red is None and white is None:
        return 0, ""
    mine = state.colour_of(mover)
    own = white if mine == WHITE else red
    theirs = red if mine == WHITE else white
    if own is not None:
        return mover, own
    assert theirs is not None
    return 3 - mover, theirs


def simulate(state: TraxState, move: Move) -> tuple[dict[int, int], list[int]]:
    """The board after the turn and the keys it placed; raises `ThreeSame` for an illegal turn."""
    board = dict(state.board)
    placed = place(board, move[0], move[1])
    return board, placed


def play(state: TraxState, move: Move, done: tuple[dict[int, int], list[int]] | None = None) -> TraxState:
    """The position after a legal turn (forced plays and the win check included).

    `done` may carry the result of `simulate` for this move, to avoid doing it twice.
    """
    board, placed = done if done is not None else simulate(state, move)
    tiles = state.tiles + tuple((k, board[k]) for k in placed)
    if state.tiles:
        minx, maxx, miny, maxy = state.box
        for k in placed:
            x, y = k >> 16, k & 0xFFFF
            if x < minx:
                minx = x
            elif x > maxx:
                maxx = x
            if y < miny:
                miny = y
            elif y > maxy:
                maxy = y
        box = (minx, maxx, miny, maxy)
    else:
        box = bounding_box(placed)
    turns = (*state.turns, len(placed))
    new = TraxState(tiles, turns, state.seat1_white, 0, "", box, board)
    winner, reason = judge(new, placed, state.seat)
    if winner:
        new = TraxState(tiles, turns, state.seat1_white, winner, reason, box, board)
    return new


def legal_moves(state: TraxState) -> list[Move]:
    """Every legal placement, each once, in a stable order (cell, then tile)."""
    if state.finished:
        return []
    if not state.tiles:
        return [(ORIGIN, t) for t in FIRST_TILES]
    return sorted(legal_placements(state.board))


def perft(state: TraxState, depth: int) -> int:
    """Number of legal turn sequences of `depth` turns from `state` (a finished game has none)."""
    if depth == 0:
        return 1
    if state.finished:
        return 0
    if depth == 1:
        if not state.tiles:
            return len(FIRST_TILES)
        return len(legal_placements(state.board))
    total = 0
    for move in legal_moves(state):
        total += perft(play(state, move), depth - 1)
    return total
