"""Post-game analysis for admins: every Dots-and-Boxes move (and every swap of a Pathing round's
support board) with its exact value, the best alternative, and whether it threw boxes away."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from bot.records.replay import replay_match
from bot.store.matches import StoredMatch

NODE_LIMIT = 3_000_000
"""Per position; a position the solver cannot finish within it is marked as not analysed."""


def _review(rows: int, cols: int, drawn: int, edge: int) -> dict[str, Any]:
    from games.solver import SearchAborted, move_values

    try:
        res = move_values(rows, cols, drawn, node_limit=NODE_LIMIT)
    except SearchAborted:
        return {"analysed": False}
    from games.solver.board import board

    b = board(rows, cols)
    played = res.move_values[edge]
    return {
        "analysed": True,
        "value": played,
        "best_value": res.value,
        "best": [b.edge_text(e) for e in res.best],
        "loss": res.value - played,
    }


def analyse_match(match: StoredMatch) -> list[dict[str, Any]]:
    """One entry per analysed move of a `boxes` or `pathing` match, in order of play."""
    if match.game not in ("boxes", "pathing"):
        return []
    _ruleset, frames = replay_match(match)
    out: list[dict[str, Any]] = []
    for before, after in pairwise(frames):
        if match.game == "boxes":
            rows, cols = before.state.rows, before.state.cols
            edge = (after.state.drawn & ~before.state.drawn).bit_length() - 1
            entry: dict[str, Any] = {"ply": after.ply, "seat": after.seat, "move": after.move}
        else:
            if before.state.phase != "move":
                continue  # a penalty pick, not a support-board edge
            rows = cols = 3
            new_bits = after.state.drawn & ~before.state.drawn
            if not new_bits and after.state.drawn == 0 and before.state.drawn:
                # The last swap of a round clears the board; its edge is the only one left.
                full = (1 << 24) - 1
                new_bits = full & ~before.state.drawn
            if new_bits.bit_count() != 1:
                continue
            edge = new_bits.bit_length() - 1
            entry = {"ply": after.ply, "seat": after.seat, "move": after.move, "round": before.state.round_no}
        entry.update(_review(rows, cols, before.state.drawn, edge))
        if entry.get("analysed"):
            entry["threw_away"] = entry["loss"] > 0
        out.append(entry)
    return out


def format_analysis(entries: list[dict[str, Any]], names: dict[int, str]) -> str:
    """Text lines for `dmhost log --analyse`."""
    lines = ["Analysis (margin for the mover over the boxes still open; best play by both sides):"]
    for e in entries:
        who = names.get(e.get("seat") or 0, "?")
        head = f"  {e['ply']:>3}. {who} {e['move']}"
        if "round" in e:
            head += f" (round {e['round']})"
        if not e.get("analysed"):
            lines.append(head + ": too deep to solve")
            continue
        text = f"{head}: {e['value']:+d}"
        if e["threw_away"]:
            boxes = max(1, e["loss"] // 2)  # the margin moves by two for every box handed over
            text += f"  threw away {boxes} box{'es' if boxes != 1 else ''} (margin {-e['loss']:+d})"
            text += f"; best {e['best_value']:+d} with "
            text += ", ".join(e["best"][:4]) + ("…" if len(e["best"]) > 4 else "")
        else:
            text += "  (best)"
        lines.append(text)
    return "\n".join(lines)
