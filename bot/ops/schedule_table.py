"""`dmhost schedule list` for people: one row per scheduled DM (`--json` keeps the contract's JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.wording.ops import NOTHING_SCHEDULED

HEADS = ("ID", "When (UTC)", "Game", "Players", "Status", "Match", "Prize")


def schedule_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows of `_row` (the contract's objects) as aligned columns, soonest first as given."""
    if not rows:
        return NOTHING_SCHEDULED
    cells = [
        (
            str(r["schedule"]),
            str(r["at"]).replace("T", " ").removesuffix("Z").removesuffix("+00:00"),
            str(r["game"]),
            " vs ".join(r["players"]),
            str(r["status"]),
            "" if r["match"] is None else str(r["match"]),
            r["prize"] or "",
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(HEADS)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADS, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)
