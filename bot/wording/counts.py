"""Counted nouns, said right: `1 game`, `2 games`, `1 match`, `3 matches`."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 round`, `2 rounds` (`many`: an irregular plural, e.g. `matches`)."""
    return f"{count} {word if count == 1 else many or word + 's'}"
