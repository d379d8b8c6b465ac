"""Checks of `dmhost room` arguments made before anything starts (one usage line, exit 2)."""

from __future__ import annotations

from pathlib import Path


def png_problem(png: str | None) -> str | None:
    """`--png DIR` must name a folder (one that exists or can be made), not a file."""
    if png is None:
        return None
    path = Path(png)
    if path.exists() and not path.is_dir():
        return f"--png names a folder for the pictures, and {png} is a file: give a folder (it is made if missing)"
    for parent in path.resolve().parents:
        if parent.exists():
            if not parent.is_dir():
                return f"--png {png}: {parent} is a file, so the folder cannot be made there"
            break
    return None
