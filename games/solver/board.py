"""Static tables of one R×C board for the solver: boxes, edges, symmetries, ground strings, move order.

Edge numbering is the engine's (`games.boxes`): horizontal edges row by row from the top, then
vertical edges row by row. In strings-and-coins terms a box is a coin, an edge between two boxes is a
string joining them, and an edge on the border is a string to the ground.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from games.boxes import geometry

MAX_EDGES = 64


@dataclass(frozen=True)
class Board:
    """Everything the searches need to know about an R×C board, as plain tuples."""

    rows: int
    cols: int
    n_edges: int
    n_boxes: int
    full: int
    box_mask: tuple[int, ...]
    box_edges: tuple[tuple[int, ...], ...]
    edge_boxes: tuple[tuple[int, ...], ...]
    syms: tuple[tuple[int, ...], ...]
    """Edge permutations of the board's symmetries (identity first): 4, or 8 on a square board."""
    ground: tuple[tuple[int, ...], ...]
    """Per box, its border edges when it has at least two (those strings are interchangeable)."""
    center_order: tuple[int, ...]
    """Edges from the centre outwards (ties in edge order)."""

    def edge_text(self, edge: int) -> str:
        """`A1-B1` for an edge index."""
        from games.coords import point_name

        a, b = geometry(self.rows, self.cols).edge_points[edge]
        return f"{point_name(*a)}-{point_name(*b)}"


def _dot_syms(rows: int, cols: int) -> list[tuple[tuple[int, int], bool]]:
    """(flip col, flip row) and transpose flags of each symmetry, as a small description list."""
    out = []
    for transpose in (False, True) if rows == cols else (False,):
        for fc in (False, True):
            for fr in (False, True):
                out.append(((int(fc), int(fr)), transpose))
    return out


def board(rows: int, cols: int) -> Board:
    """Tables for an R×C board (cached); at most 64 edges (the exact solver's limit)."""
    n = 2 * rows * cols + rows + cols
    if n > MAX_EDGES:
        raise ValueError(f"a {rows}x{cols} board has {n} edges; the solver handles at most {MAX_EDGES}")
    return any_board(rows, cols)


@cache
def any_board(rows: int, cols: int) -> Board:
    """Tables for an R×C board of any size (the pure, depth-limited searches handle big boards)."""
    geo = geometry(rows, cols)
    n_edges = geo.n_edges
    box_edges = tuple(tuple(e for e in range(n_edges) if m >> e & 1) for m in geo.box_masks)
    syms: list[tuple[int, ...]] = []
    for (fc, fr), transpose in _dot_syms(rows, cols):
        perm = []
        for a, b in geo.edge_points:
            pts = []
            for c, r in (a, b):
                c2 = cols - c if fc else c
                r2 = rows - r if fr else r
                if transpose:
                    c2, r2 = r2, c2
                pts.append((c2, r2))
            image = geo.edge_index(pts[0], pts[1])
            assert image is not None
            perm.append(image)
        syms.append(tuple(perm))
    ground: list[tuple[int, ...]] = []
    for x in range(rows * cols):
        g = tuple(e for e in box_edges[x] if len(geo.edge_boxes[e]) == 1)
        ground.append(g if len(g) >= 2 else ())

    def dist(e: int) -> tuple[float, int]:
        (c1, r1), (c2, r2) = geo.edge_points[e]
        x, y = (c1 + c2) / 2 - cols / 2, (r1 + r2) / 2 - rows / 2
        return (x * x + y * y, e)

    return Board(
        rows=rows,
        cols=cols,
        n_edges=n_edges,
        n_boxes=rows * cols,
        full=(1 << n_edges) - 1,
        box_mask=geo.box_masks,
        box_edges=box_edges,
        edge_boxes=geo.edge_boxes,
        syms=tuple(syms),
        ground=tuple(ground),
        center_order=tuple(sorted(range(n_edges), key=dist)),
    )
