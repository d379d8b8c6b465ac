"""Post-game analysis for admins and players: every move of a finished match judged by an engine.

Boxes moves (and every swap of a Pathing round's support board) get the exact solver's margins; Trax
moves the practice engine's forced-win search; Dots and Dot Dash moves the hard practice engine at a
fixed number of positions (`games.analysis`). Each entry: ply, seat, move, analysed, value, best_value,
best, loss, threw_away, verdict, value_p1, engine (and round for Pathing, note where there is one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from bot.records.replay import Frame, replay_match
from bot.store.matches import StoredMatch
from bot.wording.review import NO_MOVES_ANALYSIS

ANALYSED_GAMES = ("boxes", "pathing", "trax", "dots", "dotdash")
NODE_LIMIT = 3_000_000
"""Per Boxes position; a position the solver cannot finish within it is marked as not analysed."""


def _boxes_entry(rows: int, cols: int, drawn: int, edge: int, seat: int, margin_p1: int) -> dict[str, Any]:
    from games.analysis import judge_boxes

    mover_margin = margin_p1 if seat == 1 else -margin_p1
    j = judge_boxes(rows, cols, drawn, edge, mover_margin, NODE_LIMIT)
    if j.analysed and j.value is not None:
        final = mover_margin + int(j.value)
        j.value_p1 = final if seat == 1 else -final
    return j.as_dict()


def _margin_p1(state: Any) -> int:
    owners = state.owners
    return int(owners.count(1) - owners.count(2))


def _boxes(before: Frame, after: Frame) -> dict[str, Any] | None:
    edge = (after.state.drawn & ~before.state.drawn).bit_length() - 1
    entry: dict[str, Any] = {"ply": after.ply, "seat": after.seat, "move": after.move}
    s = before.state
    entry.update(_boxes_entry(s.rows, s.cols, s.drawn, edge, s.turn, _margin_p1(s)))
    return entry


def _pathing(before: Frame, after: Frame) -> dict[str, Any] | None:
    if before.state.phase != "move":
        return None  # a penalty pick, not a support-board edge
    new_bits = after.state.drawn & ~before.state.drawn
    if not new_bits and after.state.drawn == 0 and before.state.drawn:
        # The last swap of a round clears the board; its edge is the only one left.
        full = (1 << 24) - 1
        new_bits = full & ~before.state.drawn
    if new_bits.bit_count() != 1:
        return None
    edge = new_bits.bit_length() - 1
    entry: dict[str, Any] = {"ply": after.ply, "seat": after.seat, "move": after.move, "round": before.state.round_no}
    # The support board's boxes are a contest inside the round: its margin starts at zero each round.
    margin_p1 = before.state.box_count(1) - before.state.box_count(2)
    entry.update(_boxes_entry(3, 3, before.state.drawn, edge, int(after.seat or 1), margin_p1))
    return entry


def analyse_match(match: StoredMatch) -> list[dict[str, Any]]:
    """One entry per analysed move of a match, in order of play (none for a game without an engine)."""
    if match.game not in ANALYSED_GAMES:
        return []
    ruleset, frames = replay_match(match)
    out: list[dict[str, Any]] = []
    for before, after in pairwise(frames):
        if match.game == "boxes":
            entry = _boxes(before, after)
        elif match.game == "pathing":
            entry = _pathing(before, after)
        else:
            entry = _engine_entry(match.game, ruleset, before, after)
        if entry is not None:
            out.append(entry)
    return out


def _engine_entry(game: str, ruleset: Any, before: Frame, after: Frame) -> dict[str, Any] | None:
    from games.analysis import judge_engine, judge_trax

    state = before.state
    if ruleset.to_move(state) is None or after.engine_move is None:
        return None
    if game == "dotdash" and state.phase != "move":
        return None  # the opening placement and the colour choice are not searched
    judge = judge_trax if game == "trax" else judge_engine
    entry: dict[str, Any] = {"ply": after.ply, "seat": after.seat, "move": after.move}
    entry.update(judge(ruleset, state, after.engine_move).as_dict())
    return entry


def _value(v: Any) -> str:
    if isinstance(v, float) and not v.is_integer():
        return f"{v:+.1f}"
    return f"{int(v):+d}"


def engines_text(entries: Sequence[Mapping[str, Any]]) -> str:
    """The engines of an analysis, each said once, with the depths it reached: "hard engine, 10000 nodes
    (depth 4–6)"."""
    depths: dict[str, list[int]] = {}
    for m in entries:
        text = str(m.get("engine", ""))
        found = re.fullmatch(r"(.*) \(depth (\d+)\)", text)
        name, depth = (found[1], int(found[2])) if found else (text, None)
        if name:
            depths.setdefault(name, [])
            if depth is not None:
                depths[name].append(depth)
    said = []
    for name, ds in depths.items():
        if ds and min(ds) != max(ds):
            said.append(f"{name} (depth {min(ds)}–{max(ds)})")
        elif ds:
            said.append(f"{name} (depth {ds[0]})")
        else:
            said.append(name)
    return "; ".join(said)


def format_analysis(entries: list[dict[str, Any]], names: dict[int, str]) -> str:
    """Text lines for `dmhost log --analyse` and `/dm log`'s attachment (a match without moves, a forfeit before
    the first one, says so)."""
    if not entries:
        return NO_MOVES_ANALYSIS
    engines = engines_text(entries)
    lines = ["Analysis (" + (engines or "no engine") + "). Values are the mover's, best play by both sides:"]
    if any(e.get("engine") == "exact solver" for e in entries):
        lines.append("  (solver values: margin for the mover over the boxes still open)")
    for e in entries:
        who = names.get(e.get("seat") or 0, "?")
        head = f"  {e['ply']:>3}. {who} {e['move']}"
        if "round" in e:
            head += f" (round {e['round']})"
        if not e.get("analysed"):
            lines.append(head + ": too deep to solve")
            continue
        text = f"{head}: {_value(e['value'])} {e.get('verdict') or ''}".rstrip()
        if e.get("engine") == "exact solver" and e["threw_away"]:
            boxes = max(1, e["loss"] // 2)  # the margin moves by two for every box handed over
            text += f"  threw away {boxes} box{'es' if boxes != 1 else ''} (margin {-e['loss']:+d})"
        if e.get("note"):
            text += f"  {e['note']}"
        if e["threw_away"] and e.get("best"):
            text += f"; best {_value(e['best_value'])} with "
            text += ", ".join(e["best"][:4]) + ("…" if len(e["best"]) > 4 else "")
        elif not e["threw_away"] and e.get("engine") == "exact solver":
            text += "  (best)"
        lines.append(text)
    return "\n".join(lines)
