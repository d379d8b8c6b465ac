"""Reading Trax move text: standard notation (`B3/`) and the Death Match form (`B3 north east`).

Both name a cell by labels relative to the board *before* the move: `@` is the empty column left
of `A`, `0` the empty row above `1`. Parsing here is state-free; `games.trax.ruleset` resolves the
labels against a position.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from games.base import MoveSyntaxError
from games.coords import col_to_letters, letters_to_col
from games.trax.board import E, N, S, W

HINT = "write a tile like B3/ or B3+ or B3\\, or a cell and two sides, like B3 north east"


class ParsedMove(NamedTuple):
    """A move as written: column label index (`@` = -1, `A` = 0), row label (0 = above the board),
    and either a tile `shape` (`+`, `/`, `\\`) or two `sides` with an optional explicit `colour`
    ('white'/'red'; None means the mover's colour)."""

    col: int
    row: int
    shape: str | None
    sides: tuple[int, int] | None
    colour: str | None


_CELL = r"(@|[a-z]{1,3})\s*(\d{1,5})"
_STANDARD = re.compile(rf"^{_CELL}\s*([+/\\])$")
_DM = re.compile(rf"^{_CELL}\s*[:,]?\s*([a-z][a-z\s,/&–-]*)$")
_SIDE_WORDS = {
    "n": N,
    "north": N,
    "top": N,
    "up": N,
    "upper": N,
    "e": E,
    "east": E,
    "right": E,
    "s": S,
    "south": S,
    "bottom": S,
    "down": S,
    "lower": S,
    "w": W,
    "west": W,
    "left": W,
}
_COLOURS = {"white": "white", "red": "red"}
_FILLERS = {"and", "to", "side", "sides"}
_LOOKS = re.compile(
    r"(?:@|[a-z]{1,3})\s*\d{1,5}\s*(?:[+/\\]|(?:white|red|north|south|east|west|top|bottom|left|right"
    r"|up|down|[nesw]{1,2})\b)",
    re.IGNORECASE,
)


def clean(text: str) -> str:
    """Lower-case, without Discord code ticks, quotes or the doubled backslash of an escape."""
    t = text.strip().strip("`'\"").strip().lower()
    return t.replace("\\\\", "\\")


def col_label(index: int) -> str:
    """-1 → '@', 0 → 'A', 26 → 'AA'."""
    return "@" if index == -1 else col_to_letters(index)


def parse(text: str) -> ParsedMove:
    """Read one move; raises `MoveSyntaxError` with a hint."""
    t = clean(text)
    if len(t) > 60:
        raise MoveSyntaxError(text, HINT)
    m = _STANDARD.match(t)
    if m:
        col, row = _cell(m.group(1), m.group(2))
        return ParsedMove(col, row, m.group(3), None, None)
    m = _DM.match(t)
    if not m:
        raise MoveSyntaxError(text, HINT)
    col, row = _cell(m.group(1), m.group(2))
    sides: list[int] = []
    colour: str | None = None
    for word in re.findall(r"[a-z]+", m.group(3)):
        if word in _FILLERS:
            continue
        if word in _COLOURS:
            if colour is not None:
                raise MoveSyntaxError(text, "name at most one colour")
            colour = _COLOURS[word]
        elif word in _SIDE_WORDS:
            sides.append(_SIDE_WORDS[word])
        elif len(word) == 2 and all(ch in "nesw" for ch in word):
            sides.extend(_SIDE_WORDS[ch] for ch in word)
        elif (pair := _split_pair(word)) is not None:
            sides.extend(pair)  # 'northeast', 'topleft'
        else:
            raise MoveSyntaxError(text, f"unknown word {word!r}; {HINT}")
    if len(sides) != 2:
        raise MoveSyntaxError(text, f"name exactly two sides; {HINT}")
    if sides[0] == sides[1]:
        raise MoveSyntaxError(text, "a track joins two different sides")
    a, b = sorted(sides)
    return ParsedMove(col, row, None, (a, b), colour)


def _split_pair(word: str) -> tuple[int, int] | None:
    """Two side words written as one ('northeast' → N, E), else None."""
    for cut in range(2, len(word) - 1):
        a, b = _SIDE_WORDS.get(word[:cut]), _SIDE_WORDS.get(word[cut:])
        if a is not None and b is not None:
            return a, b
    return None


def _cell(letters: str, digits: str) -> tuple[int, int]:
    col = -1 if letters == "@" else letters_to_col(letters)
    return col, int(digits)


def looks_like_move(text: str) -> bool:
    """A cell label followed by a tile sign or a side/colour word."""
    return len(text) <= 60 and bool(_LOOKS.search(clean(text)))
