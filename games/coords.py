"""Board coordinates shared by every game: bijective base-26 column letters, rows from 1 at the top.

Columns are 0-based integers internally (`A` = 0, `Z` = 25, `AA` = 26); rows are 0-based
internally and printed from 1. `A1` is the top-left point.
"""

from __future__ import annotations

import re
from functools import lru_cache

_POINT = re.compile(r"^\s*([A-Za-z]{1,3})\s*(\d{1,3})\s*$")
POINT_TOKEN = r"[A-Za-z]{1,3}\s*\d{1,3}"
"""A regex fragment matching one point as players write it (`B7`, `aa 12`)."""


@lru_cache(maxsize=4096)
def col_to_letters(col: int) -> str:
    """0 → 'A', 25 → 'Z', 26 → 'AA' (bijective base-26)."""
    if col < 0:
        raise ValueError(f"column index must be >= 0, got {col}")
    n = col + 1
    out = []
    while n:
        n, rem = divmod(n - 1, 26)
        out.append(chr(ord("A") + rem))
    return "".join(reversed(out))


def letters_to_col(letters: str) -> int:
    """'A' → 0, 'Z' → 25, 'AA' → 26; case-insensitive."""
    if not letters or not letters.isalpha() or not letters.isascii():
        raise ValueError(f"{letters!r} is not a column name")
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


@lru_cache(maxsize=16384)
def point_name(col: int, row: int) -> str:
    """0-based (col, row) → 'A1'."""
    return f"{col_to_letters(col)}{row + 1}"


def parse_point(text: str) -> tuple[int, int]:
    """'b7' → (1, 6); raises ValueError for anything that is not one point (row 0 included)."""
    m = _POINT.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a point like B7")
    row = int(m.group(2))
    if row < 1:
        raise ValueError(f"{text!r}: rows start at 1")
    return letters_to_col(m.group(1)), row - 1


def find_points(text: str) -> list[tuple[int, int]]:
    """Every point named in free text, in order ('swap A4 and b4' → [(0, 3), (1, 3)])."""
    out = []
    for m in re.finditer(r"(?<![A-Za-z])([A-Za-z]{1,3})\s*(\d{1,3})(?![0-9])", text):
        row = int(m.group(2))
        if row >= 1:
            out.append((letters_to_col(m.group(1)), row - 1))
    return out


def column_header(width: int, cell: int = 2, indent: int = 3) -> str:
    """A line of column letters for a monospace board with `cell`-wide columns."""
    return " " * indent + "".join(col_to_letters(c).ljust(cell) for c in range(width)).rstrip()
