"""The Dots field as a flat byte array with a one-point border, and the capture machinery.

A point of a `width`×`height` field lives at index `(y + 1) * (width + 2) + (x + 1)`. Each byte
holds the dot on the point in its low two bits (0 none, 1 or 2 the seat, 3 the border) and the
seat whose territory the point lies in (0 none) in the next two bits. A point is *dead* once it
lies in somebody's territory; only bytes equal to 0 are playable.

Captures are found locally: a new dot can only close an enclosure when it separates at least two
of the regions around it, and each candidate region is first probed with four straight rays
(a ray that reaches the border proves the region open) before it is flood-filled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

BORDER = 3
DOT_MASK = 3

STOP = -1
"""The move code of a player who stops (every field index is at least 0)."""
END = -2
"""The move code of a player who ends the game."""


def _wall_table(seat: int) -> bytes:
    """byte → 1 when the point holds a live dot of `seat` (a wall of its enclosures)."""
    other = 3 - seat
    return bytes(1 if (v & 3) == seat and (v >> 2) != other else 0 for v in range(256))


WALL: tuple[bytes, bytes, bytes] = (b"", _wall_table(1), _wall_table(2))
"""WALL[seat][byte]: is that point a live dot of `seat`?"""


@dataclass(frozen=True)
class Geometry:
    """Index tables of one field size."""

    width: int
    height: int
    stride: int
    size: int
    points: tuple[int, ...]
    """Indices of every point of the field, row by row from the top."""
    edge: tuple[int, ...]
    """Indices of the points on the field's edge."""
    ring: tuple[int, ...]
    """Offsets of the eight neighbours clockwise from north: N NE E SE S SW W NW."""

    def index(self, x: int, y: int) -> int:
        """0-based column and row → array index."""
        return (y + 1) * self.stride + x + 1

    def xy(self, idx: int) -> tuple[int, int]:
        """Array index → 0-based column and row."""
        y, x = divmod(idx, self.stride)
        return x - 1, y - 1

    def empty_board(self) -> bytearray:
        """A field with no dots, its border marked."""
        b = bytearray([BORDER]) * self.size
        for i in self.points:
            b[i] = 0
        return b


@cache
def geometry(width: int, height: int) -> Geometry:
    """Tables for a width×height field (cached)."""
    stride = width + 2
    size = stride * (height + 2)
    pts = tuple((y + 1) * stride + x + 1 for y in range(height) for x in range(width))
    edge = tuple(
        (y + 1) * stride + x + 1
        for y in range(height)
        for x in range(width)
        if x in (0, width - 1) or y in (0, height - 1)
    )
    w = stride
    ring = (-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1)
    return Geometry(width, height, stride, size, pts, edge, ring)


@dataclass
class Capture:
    """One enclosure taken by `seat`: points now in its territory, dots taken and freed."""

    seat: int
    points: list[int]
    taken: int
    freed: int
    emptied: int
    """Playable points that became dead."""


def _open_by_ray(b: bytearray, start: int, wall: bytes, stride: int) -> bool:
    """Whether a straight line from `start` reaches the border without meeting a wall."""
    for step in (-stride, stride, -1, 1):
        c = start + step
        while True:
            v = b[c]
            if v == BORDER:
                return True
            if wall[v]:
                break
            c += step
    return False


def _flood(b: bytearray, start: int, wall: bytes, stride: int, seen: bytearray, mark: int) -> list[int] | None:
    """The 4-connected region of non-wall points around `start`, or None when it reaches the border.

    `seen` is shared by the floods of one move: meeting a point an earlier flood left unfinished
    means this region is that (open) one.
    """
    seen[start] = mark
    cells = [start]
    stack = [start]
    pop, push, add = stack.pop, stack.append, cells.append
    while stack:
        c = pop()
        for n in (c - stride, c + stride, c - 1, c + 1):
            s = seen[n]
            if s == mark:
                continue
            v = b[n]
            if v == BORDER or s:
                return None
            if not wall[v]:
                seen[n] = mark
                push(n)
                add(n)
    return cells


def _with_holes(region: list[int], wall: bytes, b: bytearray, geo: Geometry) -> list[int]:
    """`region` plus every point inside its outer chain: the area the enclosure really holds.

    The outside is flooded from the frame of the region's bounding box; it may cross the
    enclosing player's dots except those touching the region (they form its chain), so an own
    ring inside the enclosure, or one hanging off the chain, ends up inside with all it holds.
    """
    stride, size, ring = geo.stride, geo.size, geo.ring
    ys = [c // stride for c in region]
    xs = [c % stride for c in region]
    x0, x1 = min(xs) - 1, max(xs) + 1
    y0, y1 = min(ys) - 1, max(ys) + 1
    inside = bytearray(size)
    near = bytearray(size)
    for c in region:
        inside[c] = 1
        for o in ring:
            near[c + o] = 1

    def blocked(c: int) -> bool:
        return bool(near[c] and wall[b[c]])

    reach = bytearray(size)
    frame = [y0 * stride + x for x in range(x0, x1 + 1)] + [y1 * stride + x for x in range(x0, x1 + 1)]
    frame += [y * stride + x0 for y in range(y0 + 1, y1)] + [y * stride + x1 for y in range(y0 + 1, y1)]
    stack = [c for c in frame if not blocked(c)]
    for c in frame:
        reach[c] = 1
    while stack:
        c = stack.pop()
        cy, cx = divmod(c, stride)
        for n, ok in (
            (c - stride, cy - 1 > y0),
            (c + stride, cy + 1 < y1),
            (c - 1, cx - 1 > x0),
            (c + 1, cx + 1 < x1),
        ):
            if ok and not reach[n] and not inside[n]:
                reach[n] = 1
                if not blocked(n):
                    stack.append(n)
    if len(region) == (x1 - x0 - 1) * (y1 - y0 - 1):
        return region
    out = list(region)
    for y in range(y0 + 1, y1):
        for x in range(x0 + 1, x1):
            c = y * stride + x
            if not inside[c] and not reach[c]:
                out.append(c)
    return out


def _take(b: bytearray, seat: int, cells: Sequence[int]) -> Capture:
    """Mark `cells` as `seat`'s territory and count what changed hands."""
    other = 3 - seat
    taken = freed = emptied = 0
    terr = seat << 2
    for c in cells:
        v = b[c]
        d = v & 3
        t = v >> 2
        if d == other:
            if t != seat:
                taken += 1
        elif d == seat:
            if t == other:
                freed += 1
        elif t == 0:
            emptied += 1
        b[c] = d | terr
    return Capture(seat, list(cells), taken, freed, emptied)


def place(b: bytearray, geo: Geometry, idx: int, seat: int) -> list[Capture]:
    """Put `seat`'s dot on the empty live point `idx` of `b` (in place) and resolve captures.

    Returns the captures in the order they happened: the mover's enclosures, or — when the mover
    captured nothing and the dot sits inside an opponent's enclosure — the opponent's capture of it.
    """
    stride = geo.stride
    other = 3 - seat
    b[idx] = seat
    wall = WALL[seat]
    r = geo.ring
    nb = [wall[b[idx + o]] for o in r]
    # Regions around the new dot: orthogonal non-wall neighbours, joined through a non-wall diagonal.
    starts = []
    for i in (0, 2, 4, 6):
        if nb[i]:
            continue
        j = (i - 2) & 7
        if not nb[j] and not nb[(i - 1) & 7]:
            continue
        starts.append(idx + r[i])
    captures: list[Capture] = []
    if len(starts) >= 2:
        seen = bytearray(geo.size)
        mark = 0
        for s in starts:
            if b[s] == BORDER or seen[s] or b[s] >> 2 == seat or _open_by_ray(b, s, wall, stride):
                continue
            mark += 1
            region = _flood(b, s, wall, stride, seen, mark)
            if region is None:
                continue
            if any((b[c] & 3) == other and (b[c] >> 2) != seat for c in region):
                captures.append(_take(b, seat, _with_holes(region, wall, b, geo)))
    if captures:
        return captures
    # No capture: a dot inside the opponent's enclosure is taken at once.
    owall = WALL[other]
    if _open_by_ray(b, idx, owall, stride):
        return captures
    region = _flood(b, idx, owall, stride, bytearray(geo.size), 1)
    if region is not None:
        captures.append(_take(b, other, _with_holes(region, owall, b, geo)))
    return captures


def grounded_mask(b: bytes | bytearray, geo: Geometry, seat: int) -> bytearray:
    """1 on every point joined to the field's edge through `seat`'s live dots or territory."""
    ok = bytes(
        1 if (v != BORDER and (((v & 3) == seat and (v >> 2) != 3 - seat) or (v >> 2) == seat)) else 0
        for v in range(256)
    )
    reach = bytearray(geo.size)
    stack = [c for c in geo.edge if ok[b[c]]]
    for c in stack:
        reach[c] = 1
    stride = geo.stride
    while stack:
        c = stack.pop()
        for n in (c - stride, c + stride, c - 1, c + 1):
            if not reach[n] and ok[b[n]]:
                reach[n] = 1
                stack.append(n)
    return reach


def ungrounded(b: bytes | bytearray, geo: Geometry, seat: int) -> tuple[int, int]:
    """(own live dots, enemy dots held in own territory) of `seat` not joined to the edge."""
    reach = grounded_mask(b, geo, seat)
    other = 3 - seat
    own = held = 0
    for c in geo.points:
        if reach[c]:
            continue
        v = b[c]
        d, t = v & 3, v >> 2
        if d == seat and t != other:
            own += 1
        elif d == other and t == seat:
            held += 1
    return own, held


def handed_over(b: bytes | bytearray, geo: Geometry, seat: int) -> bytes:
    """The field as `seat`'s stop settles it: every point of `seat`'s not joined to the edge (its live dots,
    its territory and the enemy dots that holds) becomes the opponent's territory, so its dots show as the
    opponent's captures and the enemy dots held there as free again (the score `ungrounded` counts)."""
    reach = grounded_mask(b, geo, seat)
    other = 3 - seat
    out = bytearray(b)
    for c in geo.points:
        if reach[c]:
            continue
        v = b[c]
        d, t = v & 3, v >> 2
        if (d == seat and t != other) or t == seat:
            out[c] = d | other << 2
    return bytes(out)
