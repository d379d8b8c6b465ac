"""Checks of `dmhost room` arguments made before anything starts (one usage line, exit 2)."""

from __future__ import annotations

from pathlib import Path


def png_problem(png: str | None) -> str | None:
    """`--png DIR` must name a folder (one that exists or can be made), not a file."""
    if png is None:
        return None
    from bot.wording.ops import png_is_a_file, png_under_a_file

    path = Path(png)
    if path.exists() and not path.is_dir():
        return png_is_a_file(png)
    for parent in path.resolve().parents:
        if parent.exists():
            if not parent.is_dir():
                return png_under_a_file(png, parent)
            break
    return None
