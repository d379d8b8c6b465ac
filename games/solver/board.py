"""Static tables of one R×C board for the solver: boxes, edges, symmetries, ground strings, move order.

Edge numbering is the engine's (`games.boxes`): horizontal edges row by row from the top, then
vertical edges row by row. In strings-and-coins terms a box is a coin, an edge between two boxes is a
string joining them, and an edge on the border is a string to the ground.

The tables are built here rather than taken from `games.boxes`, whose module imports pydantic: the
solver's command line starts in well under a second only without it (a test checks both agree).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

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

        a, b = edge_points(self.rows, self.cols)[edge]
        return f"{point_name(*a)}-{point_name(*b)}"


Point = tuple[int, int]


@cache
def edge_points(rows: int, cols: int) -> tuple[tuple[Point, Point], ...]:
    """The two dots (column, row) of every edge, in edge order."""
    points = [((c, r), (c + 1, r)) for r in range(rows + 1) for c in range(cols)]
    points += [((c, r), (c, r + 1)) for r in range(rows) for c in range(cols + 1)]
    return tuple(points)


def edge_index(rows: int, cols: int, a: Point, b: Point) -> int | None:
    """Index of the edge between two dots, or None when they are not adjacent on the board."""
    try:
        return edge_points(rows, cols).index(min((a, b), (b, a)))
    except ValueError:
        return None


def _box_masks(rows: int, cols: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Edge mask of every box, and the boxes of every edge."""
    n_h = (rows + 1) * cols
    masks = []
    edge_boxes: list[list[int]] = [[] for _ in range(n_h + rows * (cols + 1))]
    for r in range(rows):
        for c in range(cols):
            edges = (r * cols + c, (r + 1) * cols + c, n_h + r * (cols + 1) + c, n_h + r * (cols + 1) + c + 1)
            for e in edges:
                edge_boxes[e].append(r * cols + c)
            masks.append(sum(1 << e for e in edges))
    return tuple(masks), tuple(tuple(x) for x in edge_boxes)


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
    points = edge_points(rows, cols)
    n_edges = len(points)
    box_masks, edge_boxes = _box_masks(rows, cols)
    box_edges = tuple(tuple(e for e in range(n_edges) if m >> e & 1) for m in box_masks)
    syms: list[tuple[int, ...]] = []
    for (fc, fr), transpose in _dot_syms(rows, cols):
        perm = []
        for a, b in points:
            pts = []
            for c, r in (a, b):
                c2 = cols - c if fc else c
                r2 = rows - r if fr else r
                if transpose:
                    c2, r2 = r2, c2
                pts.append((c2, r2))
            image = edge_index(rows, cols, pts[0], pts[1])
            assert image is not None
            perm.append(image)
        syms.append(tuple(perm))
    ground: list[tuple[int, ...]] = []
    for x in range(rows * cols):
        g = tuple(e for e in box_edges[x] if len(edge_boxes[e]) == 1)
        ground.append(g if len(g) >= 2 else ())

    def dist(e: int) -> tuple[float, int]:
        (c1, r1), (c2, r2) = points[e]
        x, y = (c1 + c2) / 2 - cols / 2, (r1 + r2) / 2 - rows / 2
        return (x * x + y * y, e)

    return Board(
        rows=rows,
        cols=cols,
        n_edges=n_edges,
        n_boxes=rows * cols,
        full=(1 << n_edges) - 1,
        box_mask=box_masks,
        box_edges=box_edges,
        edge_boxes=edge_boxes,
        syms=tuple(syms),
        ground=tuple(ground),
        center_order=tuple(sorted(range(n_edges), key=dist)),
    )
