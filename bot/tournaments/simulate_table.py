"""`dmhost tournament simulate` for people: the pairings of each round and the final table (`--json` keeps
the contract's object)."""

from __future__ import annotations

from typing import Any


def _points(value: float) -> str:
    return f"{value:g}"


def simulate_table(result: dict[str, Any]) -> str:
    """The simulation's rounds (players by number, White first) and its standings as aligned columns."""
    lines = []
    for number, games in enumerate(result["rounds"], 1):
        said = [f"bye {g['bye']}" if "bye" in g else f"{g['white']}–{g['black']}" for g in games]
        lines.append(f"Round {number}: {', '.join(said)}")
    table = result["standings"]
    breaks = list(table[0]["tiebreaks"]) if table else []
    heads = ["Rank", "Player", "Points", *(b.replace("_", "-") for b in breaks)]
    rows = [
        [str(rank), str(s["player"]), _points(s["points"]), *(_points(s["tiebreaks"][b]) for b in breaks)]
        for rank, s in enumerate(table, 1)
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
    lines.append("Standings")
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in [heads, *rows]]
    return "\n".join(lines)
