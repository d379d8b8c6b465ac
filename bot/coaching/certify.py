"""Certifying a puzzle: a position where the mover erred and exactly one move keeps the position's best value.

- Boxes, and a swap on Pathing's support board (a 3×3 Boxes board): the exact solver's value of every
  legal move (`games.solver.move_values`); certified when one move has the best value and every other is
  strictly worse. On Pathing no other swap may win the match at once (the solver sees only the boxes).
- Trax, Dots and Dot Dash: an exhaustive search of every legal move to depth 1 (the mover's move, every
  one of them tried): certified when exactly one move is decisive — it wins the game at once, or gains at
  least `DECISIVE` points (captured dots; Dot Dash's five-rows end the game) — and every other move is not.
  Texts that lead to the very same position (two Trax placements forcing the same tiles) are one move: the
  answer is the first, the others are in the proof's `same_as` and are accepted as the answer too.

Pure: games only (no database). The candidates are the positions before the moves the stored analysis
judged an inaccuracy, a mistake or a blunder (`ERRED`): the verdicts are read, never recomputed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from games.base import AnyRuleset

ERRED = ("inaccuracy", "mistake", "blunder")
"""The analysis verdicts of a move that erred: the position before it may make a puzzle."""
SOLVED_GAMES = ("boxes", "pathing")
SEARCHED_GAMES = ("trax", "dots", "dotdash")
SEARCH_DEPTH = 1
"""Plies of the exhaustive search in Trax, Dots and Dot Dash (every legal move of the mover)."""
DECISIVE = {"dots": 1, "dotdash": 1, "trax": 1}
"""Points a move must gain at once (besides a win) to be decisive."""
NODE_LIMIT = 3_000_000
"""Solver positions per Boxes position (as the analysis)."""
LINE_PLIES = 8
"""At most this many moves of the proving line after the answer (best play by both sides)."""
WIN = math.inf


@dataclass
class Draft:
    """A certified puzzle before it is stored."""

    ply: int
    seat: int
    answer: list[str]
    value: float
    proof: dict[str, Any] = field(default_factory=dict)


def certify(game: str, ruleset: AnyRuleset, state: Any, ply: int, entry: dict[str, Any]) -> Draft | None:
    """The puzzle of the position `state` (after `ply` moves) before the analysed move `entry`, or None.

    `entry` is the stored analysis of the move played there: only an analysed move whose verdict erred
    is a candidate."""
    if not entry.get("analysed") or entry.get("verdict") not in ERRED:
        return None
    seat = ruleset.to_move(state)
    if seat is None:
        return None
    if game in SOLVED_GAMES:
        return _solved(game, ruleset, state, ply, int(seat), str(entry.get("move")))
    if game in SEARCHED_GAMES:
        return _searched(game, ruleset, state, ply, int(seat), str(entry.get("move")))
    return None


# -- Boxes and Pathing: the exact solver ------------------------------------------------------


def _support(game: str, state: Any) -> tuple[int, int, int]:
    """(rows, cols, drawn) of the Boxes board the solver sees."""
    if game == "boxes":
        return state.rows, state.cols, state.drawn
    return 3, 3, state.drawn


def _edge_of(game: str, ruleset: AnyRuleset, state: Any, move: Any) -> int | None:
    """The support-board edge a move draws (Boxes: the move itself)."""
    if game == "boxes":
        return int(move)
    if state.phase != "move":
        return None
    child, _ev = ruleset.apply(state, move)
    bits = child.drawn & ~state.drawn
    if not bits and child.drawn == 0 and state.drawn:
        bits = ((1 << 24) - 1) & ~state.drawn  # the round's last swap clears the board
    return bits.bit_length() - 1 if bits.bit_count() == 1 else None


def solver_values(game: str, ruleset: AnyRuleset, state: Any) -> dict[str, int] | None:
    """The exact value (the mover's margin over the open boxes) of every legal move, by its text; None when
    the position is not one for the solver or it cannot finish within `NODE_LIMIT`."""
    from games.solver import SearchAborted, move_values

    if game == "pathing" and state.phase != "move":
        return None
    rows, cols, drawn = _support(game, state)
    try:
        res = move_values(rows, cols, drawn, node_limit=NODE_LIMIT)
    except SearchAborted:
        return None
    out: dict[str, int] = {}
    for move in ruleset.legal_moves(state):
        edge = _edge_of(game, ruleset, state, move)
        if edge is None or edge not in res.move_values:
            return None
        out[ruleset.format(state, move)] = int(res.move_values[edge])
    return out


def _solved(game: str, ruleset: AnyRuleset, state: Any, ply: int, seat: int, played: str) -> Draft | None:
    values = solver_values(game, ruleset, state)
    if not values or len(values) < 2:
        return None
    best = max(values.values())
    answer = [m for m, v in values.items() if v == best]
    if len(answer) != 1 or answer[0] == played:
        return None
    if game == "pathing" and _wins_at_once(ruleset, state, seat, exclude=answer[0]):
        return None
    second = max(v for m, v in values.items() if m != answer[0])
    proof = {
        "method": "exact solver",
        "best_value": best,
        "next_value": second,
        "played": played,
        "played_value": values.get(played),
        "line": solver_line(game, ruleset, state, answer[0]),
    }
    return Draft(ply, seat, answer, float(best), proof)


def _wins_at_once(ruleset: AnyRuleset, state: Any, seat: int, exclude: str) -> bool:
    for move in ruleset.legal_moves(state):
        if ruleset.format(state, move) == exclude:
            continue
        child, _ev = ruleset.apply(state, move)
        out = ruleset.outcome(child)
        if out is not None and out.winner == seat:
            return True
    return False


def solver_line(game: str, ruleset: AnyRuleset, state: Any, first: str, plies: int = LINE_PLIES) -> list[str]:
    """The answer and then best play by both sides (each time the first optimal move), as move texts: at most
    `plies` moves after the answer, within the Boxes board (Pathing: within the round)."""
    from games.solver import SearchAborted, solve

    line = [first]
    pos, _ev = ruleset.apply(state, ruleset.parse(state, first))
    while len(line) <= plies and ruleset.to_move(pos) is not None:
        if game == "pathing" and (pos.phase != "move" or pos.drawn == 0):
            break
        rows, cols, drawn = _support(game, pos)
        try:
            res = solve(rows, cols, drawn, node_limit=NODE_LIMIT)
        except SearchAborted:
            break
        if not res.best:
            break
        edge = res.best[0]
        move = next((m for m in ruleset.legal_moves(pos) if _edge_of(game, ruleset, pos, m) == edge), None)
        if move is None:
            break
        line.append(ruleset.format(pos, move))
        pos, _ev = ruleset.apply(pos, move)
    return line


# -- Trax, Dots and Dot Dash: every move, one ply -------------------------------------------


def gain(ruleset: AnyRuleset, state: Any, seat: int, move: Any) -> tuple[float, Any]:
    """What a move gains the mover at once: `WIN` for a won game, -`WIN` for a lost one, else the change in
    the score difference (captured dots, five-rows); and the position after it."""
    before = ruleset.scores(state)
    child, _ev = ruleset.apply(state, move)
    out = ruleset.outcome(child)
    if out is not None and out.winner is not None:
        return (WIN if out.winner == seat else -WIN), child
    after = ruleset.scores(child)
    other = 3 - seat
    return float((after[seat] - after[other]) - (before[seat] - before[other])), child


def search_values(game: str, ruleset: AnyRuleset, state: Any) -> dict[str, float]:
    """Every legal move's immediate gain for the mover, by its text (the exhaustive search, depth 1)."""
    return {text: value for text, (value, _key) in _searched_moves(game, ruleset, state).items()}


def _searched_moves(game: str, ruleset: AnyRuleset, state: Any) -> dict[str, tuple[float, str]]:
    """Every legal move's text → (its gain, the position it leads to as a key): two placements of Trax that
    force the same tiles are one move."""
    import json

    seat = int(ruleset.to_move(state) or 0)
    if game == "dotdash" and state.phase != "move":
        return {}
    out: dict[str, tuple[float, str]] = {}
    for move in ruleset.legal_moves(state):
        text = ruleset.format(state, move)
        value, child = gain(ruleset, state, seat, move)
        if text not in out or value > out[text][0]:
            out[text] = (value, json.dumps(_unordered(ruleset.to_json(child)), sort_keys=True))
    return out


def _unordered(data: Any) -> Any:
    """A position's JSON with its lists of records (Trax's tiles) in one order: the order of placing is no part
    of the position."""
    if isinstance(data, dict):
        return {k: _unordered(v) for k, v in data.items()}
    if isinstance(data, list) and data and all(isinstance(x, list) for x in data):
        return sorted(data, key=repr)
    return data


def decisive_moves(game: str, ruleset: AnyRuleset, state: Any) -> list[list[str]]:
    """The decisive moves, grouped by the position they lead to (the texts of one group are one move)."""
    need = DECISIVE.get(game, 1)
    groups: dict[str, list[str]] = {}
    for text, (value, key) in _searched_moves(game, ruleset, state).items():
        if value >= need:
            groups.setdefault(key, []).append(text)
    return list(groups.values())


def _searched(game: str, ruleset: AnyRuleset, state: Any, ply: int, seat: int, played: str) -> Draft | None:
    values = search_values(game, ruleset, state)
    groups = decisive_moves(game, ruleset, state)
    if len(groups) != 1 or played in groups[0]:
        return None
    answer, *same = groups[0]
    best = values[answer]
    proof = {
        "method": f"exhaustive search, depth {SEARCH_DEPTH}",
        "depth": SEARCH_DEPTH,
        "moves": len(values),
        "decisive": "wins at once" if best == WIN else f"gains {best:g}",
        "played": played,
        "played_value": _shown(values.get(played, 0.0)),
        "next_value": _shown(max((v for m, v in values.items() if m not in groups[0]), default=0.0)),
        "line": [answer],
    }
    if same:
        proof["same_as"] = same  # other texts of the same move (the same position after it)
    return Draft(ply, seat, [answer], _shown(best), proof)


def _shown(value: float) -> float:
    """A gain for JSON: a win is 1000 (as the analysis's `WIN_VALUE`), a loss -1000."""
    if value == WIN:
        return 1000.0
    if value == -WIN:
        return -1000.0
    return float(value)


def check(game: str, ruleset: AnyRuleset, state: Any, answer: str) -> bool:
    """Re-check a puzzle from scratch: `answer` is the one move keeping the best value (the solver's, or
    the only decisive one of the search)."""
    if game in SOLVED_GAMES:
        values = solver_values(game, ruleset, state)
        if not values:
            return False
        best = max(values.values())
        return values.get(answer) == best and all(v < best for m, v in values.items() if m != answer)
    groups = decisive_moves(game, ruleset, state)
    return len(groups) == 1 and groups[0][0] == answer
