"""A monospace picture of a Trax position with the same labels the notation uses.

Each cell is drawn at its centre with its shape (`+`, `/`, `\\`; `.` for an empty cell) and each
side of a tile shows the colour of the track leaving it: `o` white, `#` red. Neighbouring tiles
share the character of their common side (their colours always agree).
"""

from __future__ import annotations

from games.trax.board import SHAPE
from games.trax.notation import col_label
from games.trax.state import TraxState

WHITE_MARK = "o"
RED_MARK = "#"


def render(state: TraxState) -> str:
    """The board framed by the empty row and column on every side, labels as in the notation."""
    if not state.tiles:
        return "   @\n0  .   (empty board: the first tile goes at @0, as @0+ or @0/)"
    minx, _maxx, miny, _maxy = state.box
    width, height = state.width, state.height
    cols = [col_label(c) for c in range(-1, width + 1)]
    pitch = max(2, max(len(c) for c in cols) + 1)
    row_w = len(str(height + 1))
    indent = row_w + 2
    n_cols = len(cols)
    line_len = indent + pitch * (n_cols - 1) + 2
    canvas = [[" "] * line_len for _ in range(2 * (height + 2) + 1)]

    def centre(ci: int, ri: int) -> tuple[int, int]:
        return 2 * ri + 1, indent + pitch * ci

    for ri in range(height + 2):
        for ci in range(n_cols):
            r, c = centre(ci, ri)
            canvas[r][c] = "."
    board = state.board
    for key, mask in board.items():
        ci = (key >> 16) - minx + 1
        ri = (key & 0xFFFF) - miny + 1
        r, c = centre(ci, ri)
        canvas[r][c] = SHAPE[mask]
        marks = [WHITE_MARK if mask >> side & 1 else RED_MARK for side in range(4)]
        canvas[r - 1][c] = marks[0]
        canvas[r][c + 1] = marks[1]
        canvas[r + 1][c] = marks[2]
        canvas[r][c - 1] = marks[3]
    header = " " * indent + "".join(label.ljust(pitch) for label in cols)
    lines = [header.rstrip()]
    for r, chars in enumerate(canvas):
        if r in (0, len(canvas) - 1):
            continue  # outside the empty frame: always blank
        label = str(r // 2).rjust(row_w) if r % 2 else " " * row_w
        lines.append((label + "".join(chars)[row_w:]).rstrip())
    return "\n".join(lines)
