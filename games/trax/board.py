"""Trax tiles on an unbounded grid: placement, forced plays, the three-same rule, loops and lines.

Speed matters here (replays and perft), so the board is a plain dict from a packed cell key to a
4-bit tile mask, and every per-tile question is answered from a precomputed table.

- Sides are numbered N=0, E=1, S=2, W=3. A tile is the set of its *white* sides (exactly two bits);
  the other two sides carry red. So the six tiles are 5 (white N–S), 10 (white E–W), 9 (white N–W),
  6 (white S–E), 3 (white N–E) and 12 (white S–W).
- A cell key packs (x, y) as `x << 16 | y`; y grows downwards. The first tile sits at `ORIGIN`.
- A colour is 1 for white, 0 for red (the value of a side's bit in the tile mask).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

N, E, S, W = 0, 1, 2, 3
SIDE_NAMES = ("north", "east", "south", "west")
STRIDE = 1 << 16
OFF = (-1, STRIDE, 1, -STRIDE)
"""Key offset of the neighbour on each side."""
OPP = (S, W, N, E)
ORIGIN = (1 << 15) * STRIDE + (1 << 15)
"""Key of the first tile."""

WHITE, RED = 1, 0
TILES = (5, 10, 9, 6, 3, 12)
SHAPE = {5: "+", 10: "+", 9: "/", 6: "/", 3: "\\", 12: "\\"}
SHAPE_TILES = {"+": (5, 10), "/": (9, 6), "\\": (3, 12)}
FIRST_TILES = (5, 9)
"""The two first moves: `@0+` (white N–S) and `@0/` (white N–W)."""


def xy(key: int) -> tuple[int, int]:
    """Key → (x, y)."""
    return key >> 16, key & 0xFFFF


def pack(x: int, y: int) -> int:
    """(x, y) → key."""
    return x << 16 | y


def _partner_table() -> tuple[tuple[int, ...], ...]:
    """PARTNER[mask][side]: the other side joined to `side` by the same-coloured track."""
    table: list[tuple[int, ...]] = []
    for mask in range(16):
        row = []
        for side in range(4):
            colour = mask >> side & 1
            others = [o for o in range(4) if o != side and (mask >> o & 1) == colour]
            row.append(others[0] if len(others) == 1 else -1)
        table.append(tuple(row))
    return tuple(table)


PARTNER = _partner_table()


def _need_tables() -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """FIT[idx] lists the tiles that fit, FORCE[idx] the forced tile (0 none, -1 three-same).

    `idx = white_needed | red_needed << 4`: the sides of an empty cell entered by white and by red.
    """
    fit: list[tuple[int, ...]] = []
    force: list[int] = []
    for idx in range(256):
        rw, rr = idx & 15, idx >> 4
        fit.append(tuple(t for t in TILES if t & rw == rw and not t & rr) if not rw & rr else ())
        nw, nr = rw.bit_count(), rr.bit_count()
        if rw & rr:
            force.append(0)
        elif nw >= 3 or nr >= 3:
            force.append(-1)
        elif nw == 2:
            force.append(rw)
        elif nr == 2:
            force.append(15 ^ rr)
        else:
            force.append(0)
    return tuple(fit), tuple(force)


FIT, FORCE = _need_tables()


def need(board: Mapping[int, int], key: int) -> int:
    """The colour demands on an empty cell from its neighbours, as a FIT/FORCE index."""
    idx = 0
    t = board.get(key - 1)
    if t is not None:
        idx |= 1 if t & 4 else 16
    t = board.get(key + STRIDE)
    if t is not None:
        idx |= 2 if t & 8 else 32
    t = board.get(key + 1)
    if t is not None:
        idx |= 4 if t & 1 else 64
    t = board.get(key - STRIDE)
    if t is not None:
        idx |= 8 if t & 2 else 128
    return idx


class ThreeSame(Exception):
    """A turn left an empty cell entered by three same-coloured tracks."""

    def __init__(self, cell: int, colour: int) -> None:
        super().__init__(cell, colour)
        self.cell = cell
        self.colour = colour


def place(board: dict[int, int], key: int, mask: int) -> list[int]:
    """Put a tile and fill every forced cell, mutating `board`; returns the keys placed, primary first.

    Raises `ThreeSame` when the turn is illegal (the board is then left half-done: pass a copy).
    """
    board[key] = mask
    placed = [key]
    stack = [key]
    get = board.get
    while stack:
        k = stack.pop()
        for off in OFF:
            n = k + off
            if n in board:
                continue
            idx = 0
            t = get(n - 1)
            if t is not None:
                idx |= 1 if t & 4 else 16
            t = get(n + STRIDE)
            if t is not None:
                idx |= 2 if t & 8 else 32
            t = get(n + 1)
            if t is not None:
                idx |= 4 if t & 1 else 64
            t = get(n - STRIDE)
            if t is not None:
                idx |= 8 if t & 2 else 128
            f = FORCE[idx]
            if f:
                if f < 0:
                    white = (idx & 15).bit_count() >= 3
                    raise ThreeSame(n, WHITE if white else RED)
                board[n] = f
                placed.append(n)
                stack.append(n)
    return placed


def frontier(board: Mapping[int, int]) -> set[int]:
    """Empty cells next to at least one tile."""
    out: set[int] = set()
    for k in board:
        for off in OFF:
            n = k + off
            if n not in board:
                out.add(n)
    return out


def candidates(board: Mapping[int, int]) -> list[tuple[int, int]]:
    """Placements that match every touching edge (the three-same rule is not checked yet)."""
    out = []
    for cell in frontier(board):
        for t in FIT[need(board, cell)]:
            out.append((cell, t))
    return out


def legal_placements(board: Mapping[int, int]) -> list[tuple[int, int]]:
    """Every legal placement (cell, tile) on a non-empty board, the three-same rule included.

    Most placements force nothing: that is known from the neighbours' demands alone, and only the
    others are played out on a copy of the board.
    """
    out = []
    front = frontier(board)
    needs = {cell: need(board, cell) for cell in front}
    for cell, idx in needs.items():
        for t in FIT[idx]:
            quiet = True
            for side in range(4):
                nidx = needs.get(cell + OFF[side])
                if nidx is None:
                    continue  # a tile, or an empty cell with no other neighbour: nothing to force
                # The track we send into that cell meets one of the same colour: a forced play.
                if (nidx & 15) if t >> side & 1 else (nidx >> 4):
                    quiet = False
                    break
            if not quiet:
                try:
                    place(dict(board), cell, t)
                except ThreeSame:
                    continue
            out.append((cell, t))
    return out


TURN = tuple(PARTNER[m][OPP[d]] if m in SHAPE else -1 for m in range(16) for d in range(4))
"""TURN[mask << 2 | d]: the side a track leaves a tile by after entering it travelling in direction d."""
COLOUR_SIDES = tuple(
    tuple(tuple(s for s in range(4) if (m >> s & 1) == colour) for colour in (RED, WHITE)) for m in range(16)
)
"""COLOUR_SIDES[mask][colour]: the two sides carrying that colour."""


def track_end(
    board: Mapping[int, int], start: int, side: int, seen: set[int] | None = None, colour: int = 0
) -> tuple[int, int]:
    """Follow the track that leaves tile `start` by `side`, tile by tile, to where it stops: (the last
    tile on it, the side the track leaves that tile by). The track stops at an empty cell, or when it
    comes back into `start` (a loop: then the returned tile's neighbour on that side is `start`).
    With `seen`, every tile passed is added to it as `key << 1 | colour`."""
    get = board.get
    k, d = start, side
    while True:
        n = k + OFF[d]
        m = get(n)
        if m is None or n == start:
            return k, d
        d = TURN[m << 2 | d]
        k = n
        if seen is not None:
            seen.add(k << 1 | colour)


def structures(
    board: Mapping[int, int], fresh: Iterable[int], box: tuple[int, int, int, int]
) -> tuple[str | None, str | None]:
    """(red, white) structure made through the `fresh` tiles: 'loop', 'line' or None.

    A loop closes on itself; a line joins the west and east (or north and south) outer edges of
    the bounding box `box` = (minx, maxx, miny, maxy), which must span at least 8 cells that way.
    """
    minx, maxx, miny, maxy = box
    wide = maxx - minx >= 7
    tall = maxy - miny >= 7
    found: list[str | None] = [None, None]
    fresh = list(fresh)
    seen: set[int] | None = set() if len(fresh) > 1 else None
    for start in fresh:
        smask = board[start]
        for colour in (RED, WHITE):
            if found[colour] == "loop" or (seen is not None and start << 1 | colour in seen):
                continue
            first, second = COLOUR_SIDES[smask][colour]
            k1, d1 = track_end(board, start, first, seen, colour)
            if k1 + OFF[d1] == start:
                found[colour] = "loop"
                continue
            if found[colour] is not None or not (wide or tall):
                continue
            k2, d2 = track_end(board, start, second, seen, colour)
            if d1 > d2:
                k1, d1, k2, d2 = k2, d2, k1, d1
            if wide and d1 == E and d2 == W and k1 >> 16 == maxx and k2 >> 16 == minx:
                found[colour] = "line"
            elif tall and d1 == N and d2 == S and k1 & 0xFFFF == miny and k2 & 0xFFFF == maxy:
                found[colour] = "line"
    return found[0], found[1]


def bounding_box(keys: Iterable[int]) -> tuple[int, int, int, int]:
    """(minx, maxx, miny, maxy) of some cells."""
    xs = []
    ys = []
    for k in keys:
        xs.append(k >> 16)
        ys.append(k & 0xFFFF)
    return min(xs), max(xs), min(ys), max(ys)
