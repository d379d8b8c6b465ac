"""Start positions: dots placed before the first move, as (seat, x, y) with 0-based coordinates."""

from __future__ import annotations

import random

StartDot = tuple[int, int, int]

MIN_SIZE = {"empty": (3, 3), "cross": (3, 3), "double-cross": (4, 3), "four-crosses": (7, 7)}
"""Smallest (width, height) each start position fits on."""


def cross(x: int, y: int) -> list[StartDot]:
    """A 2×2 cross with its top-left corner at (x, y): seat 1 on the main diagonal."""
    return [(1, x, y), (1, x + 1, y + 1), (2, x + 1, y), (2, x, y + 1)]


def start_dots(kind: str, width: int, height: int, seed: int) -> list[StartDot]:
    """The dots of a start position, seat 1's and seat 2's alternating."""
    cx, cy = (width - 2) // 2, (height - 2) // 2
    if kind == "empty":
        return []
    if kind == "cross":
        return _alternate(cross(cx, cy))
    if kind == "double-cross":
        # Two crosses side by side continuing the same checkerboard: X O X O over O X O X.
        x = (width - 4) // 2
        return _alternate(cross(x, cy) + cross(x + 2, cy))
    if kind == "four-crosses":
        return _alternate(_four_crosses(width, height, seed))
    raise ValueError(f"unknown start position {kind!r}")


def _four_crosses(width: int, height: int, seed: int) -> list[StartDot]:
    """Four crosses at seeded random places, never touching each other or the edge."""
    rng = random.Random(seed)
    # Prefer the middle half of the field; fall back to everything but the edge.
    areas = [
        (width // 4, width - width // 4 - 2, height // 4, height - height // 4 - 2),
        (1, width - 3, 1, height - 3),
    ]
    for x0, x1, y0, y1 in areas:
        if x1 < x0 or y1 < y0:
            continue
        for _attempt in range(200):
            corners: list[tuple[int, int]] = []
            for _ in range(4):
                x, y = rng.randint(x0, x1), rng.randint(y0, y1)
                if all(max(abs(x - px), abs(y - py)) >= 3 for px, py in corners):
                    corners.append((x, y))
            if len(corners) == 4:
                out: list[StartDot] = []
                for x, y in corners:
                    out += cross(x, y)
                return out
    # Deterministic fallback (a 7×7 field has exactly room for this).
    out = []
    for x, y in ((1, 1), (width - 3, 1), (1, height - 3), (width - 3, height - 3)):
        out += cross(x, y)
    return out


def _alternate(dots: list[StartDot]) -> list[StartDot]:
    """Order seat 1, seat 2, seat 1, … so that replaying them keeps seat 1 to move."""
    ones = [d for d in dots if d[0] == 1]
    twos = [d for d in dots if d[0] == 2]
    out: list[StartDot] = []
    for a, b in zip(ones, twos, strict=True):
        out += [a, b]
    return out
