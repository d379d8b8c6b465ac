"""`dmhost` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    print("dmhost: the host core is not built yet; try `python -m games list`", file=sys.stderr)
    return 2
