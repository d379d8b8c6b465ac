"""Judging one played move against an engine (pure): the verdict scale and each game's engine.

- Boxes (and the Pathing support board, a 3×3 Boxes board): the exact solver's margins.
- Trax: the practice engine's forced-win search (wins at once, and double threats that win on the
  mover's next turn whatever the reply), for the mover before the move and the opponent after it.
- Dots and Dot Dash: the `hard` practice engine's alpha-beta search, deeper than it plays
  (`ENGINE_DEPTH`), at a fixed number of positions (`ENGINE_NODES`) so the verdicts are the same on any
  machine; a move is judged by the win chance it gives away (`win_chance`: a sigmoid of the value whose
  scale fits the game and the board, `value_scale`), so a one-dot loss in an open Dots game is an
  inaccuracy, not a mistake.

Every judgement carries the mover's value after the move and the best value (the mover's point of
view), `value_p1` (the position after the move from seat 1's point of view, for a chart) and a
verdict: best, good, inaccuracy, mistake or blunder (thresholds below; the README lists them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from games.base import AnyRuleset

VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder")

EXACT = "exact solver"
SOLVER_NODES = 3_000_000
"""Per Boxes position; a position the solver cannot finish within it is not analysed."""
ENGINE_NODES = 10_000
"""Positions the hard engine searches per Dots or Dot Dash move judged (the analysis runs in the
background: it may take its time), at most; Dots on a larger field gets fewer (`engine_nodes`)."""
DOTS_WORK = 640_000
"""Dots: positions times the field's points per move judged (a position's evaluation walks every point):
10,000 positions on 8×8, 2,500 on 16×16, and 1,000 (`ENGINE_MIN_NODES`) on the 39×32 default, where one
move costs some 8 s of CPU already."""
ENGINE_MIN_NODES = 1_000
ENGINE_DEPTH = {"dots": 6, "dotdash": 7}
"""The deepest the analysis searches (plies; the practice engine's `hard` stops at 4 and 5)."""
TRAX_NODES = 5_000
"""Units of work (moves and replies tried) for each Trax forced-win search."""
TRAX_DEPTH = 2
"""The Trax search sees wins within this many of a seat's own turns (at once, or a double threat)."""
WIN_VALUE = 1000.0
"""`value_p1` of a position the engine sees as won (Dots, Dot Dash, Trax)."""

WIN_CHANCE_LIMITS = (5.0, 10.0, 20.0)
"""Dots and Dot Dash: upper bounds of the win chance lost (percentage points) for good, inaccuracy and
mistake; more is a blunder. With the scales below a one-dot loss in an even 8×8 Dots game costs 9.97
points (an inaccuracy), two dots 19 (a mistake), three 27 (a blunder); ahead by five dots, one dot
costs 3.5 (good)."""
DOTS_SCALE_PER_SIDE = 3.2
"""Dots: the value scale is one captured dot (`CAPTURE`) times the field's mean side over this: 25 units
(2.5 dots) on 8×8, 110 units (11 dots) on the 39×32 default, where a dot matters less."""
DOTDASH_SCALE = 25.0
"""Dot Dash: a four (6 units) moves an even game's win chance by 6 points, a five-row (100) decides it."""
BOXES_SCALE = 1.5
"""Boxes and Pathing's support board: the chart's scale, in boxes of margin (one box up: 66 %)."""
TRAX_SCALE = WIN_VALUE / 8
"""Trax: values are ±1000 (a forced win seen) or 0, so its chart reads 100 %, 50 % or 0 %."""

# Upper bounds of the loss (best value minus the played move's, in evaluation units) for good,
# inaccuracy and mistake; a larger loss is a blunder (`by_limits`; kept for stored rows of version 2).
DOTS_LIMITS = (3.0, 10.0, 30.0)
"""Dots: 10 units are one captured dot (games.opponents.dots.CAPTURE): under 0.3 of a dot good, under
one dot an inaccuracy, under three a mistake."""
DOTDASH_LIMITS = (3.0, 6.0, 50.0)
"""Dot Dash: a three is 1 unit, a four 6, a five-row 100 (games.opponents.dotdash): under 3 good, under a
four an inaccuracy, under half a five-row a mistake."""


@dataclass
class Judgement:
    """One move's judgement (values from the mover's point of view unless named `_p1`)."""

    analysed: bool
    engine: str
    value: float | None = None
    best_value: float | None = None
    best: list[str] = field(default_factory=list)
    loss: float = 0
    verdict: str | None = None
    value_p1: float | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The keys an analysis entry carries (the `threw_away` flag is set for analysed moves)."""
        out: dict[str, Any] = {"analysed": self.analysed, "engine": self.engine, "verdict": self.verdict}
        if self.analysed:
            out.update(
                value=self.value,
                best_value=self.best_value,
                best=list(self.best),
                loss=self.loss,
                value_p1=self.value_p1,
                threw_away=self.loss > 0,
            )
            if self.note:
                out["note"] = self.note
        return out


def value_scale(game: str, width: int = 0, height: int = 0) -> float:
    """The units of value that move a game's win chance from 50 % to 73 % (`win_chance`); Dots by its
    field's size (`width`, `height`: points)."""
    if game == "dots":
        from games.opponents.dots import CAPTURE

        side = math.sqrt(max(9, width * height)) if width and height else math.sqrt(39 * 32)
        return CAPTURE * side / DOTS_SCALE_PER_SIDE
    return {"dotdash": DOTDASH_SCALE, "trax": TRAX_SCALE}.get(game, BOXES_SCALE)


def win_chance(value: float, scale: float) -> float:
    """The chance of winning, in percent, of the side whose `value` it is: a sigmoid bounded by 0 and 100."""
    x = max(-60.0, min(60.0, value / scale))
    return 100.0 / (1.0 + math.exp(-x))


def by_win_chance(best: float, played: float, scale: float) -> str:
    """Best for no loss of value; otherwise by the win chance lost (`WIN_CHANCE_LIMITS`)."""
    if best - played <= 1e-9:
        return "best"
    return by_limits(win_chance(best, scale) - win_chance(played, scale), WIN_CHANCE_LIMITS)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def by_limits(loss: float, limits: tuple[float, float, float]) -> str:
    """Best for no loss, then good, inaccuracy and mistake below each limit in turn, else blunder."""
    if loss <= 1e-9:
        return "best"
    for verdict, limit in zip(VERDICTS[1:4], limits, strict=True):
        if loss < limit:
            return verdict
    return "blunder"


def boxes_verdict(loss: int, margin_before: int, margin_after: int) -> str:
    """Boxes by boxes lost (the margin moves two for each box handed over): none → best, 1 → good,
    2 → inaccuracy, 3–4 → mistake, 5 or more → blunder; a move that turns a won game into a draw or a
    loss, or a drawn one into a loss (the final margins under best play), is a blunder whatever it cost."""
    if loss <= 0:
        return "best"
    if _sign(margin_after) < _sign(margin_before):
        return "blunder"
    boxes = max(1, (loss + 1) // 2)
    return {1: "good", 2: "inaccuracy", 3: "mistake", 4: "mistake"}.get(boxes, "blunder")


def judge_boxes(
    rows: int, cols: int, drawn: int, edge: int, score_margin: int, node_limit: int = SOLVER_NODES
) -> Judgement:
    """The exact judgement of drawing `edge` on a Boxes board with `drawn` edges, for a mover who leads by
    `score_margin` boxes so far; `value_p1` is then set by the caller (it knows the seats)."""
    from games.solver import SearchAborted, move_values
    from games.solver.board import board

    try:
        res = move_values(rows, cols, drawn, node_limit=node_limit)
    except SearchAborted:
        return Judgement(False, EXACT)
    b = board(rows, cols)
    played = res.move_values[edge]
    loss = res.value - played
    verdict = boxes_verdict(loss, score_margin + res.value, score_margin + played)
    return Judgement(True, EXACT, played, res.value, [b.edge_text(e) for e in res.best], loss, verdict)


def _p1(value: float, mover: int) -> float:
    v = max(-WIN_VALUE, min(WIN_VALUE, value))
    return round(v if mover == 1 else -v, 2) + 0.0  # no -0.0


def engine_nodes(game: str, state: Any) -> int:
    """The positions the analysis searches for one move of `game` in `state` (see `DOTS_WORK`)."""
    if game != "dots":
        return ENGINE_NODES
    points = max(1, int(getattr(state, "width", 39)) * int(getattr(state, "height", 32)))
    return max(ENGINE_MIN_NODES, min(ENGINE_NODES, DOTS_WORK // points))


def judge_engine(
    ruleset: AnyRuleset, state: Any, move: Any, nodes: int | None = None, max_depth: int | None = None
) -> Judgement:
    """Dots or Dot Dash: the hard engine's values of the played move and of the moves it searches, at the
    deepest depth it completes for all of them within `nodes` positions."""
    from games.opponents import PROFILES
    from games.opponents.search import WIN, Budget, OutOfTime, Search

    profile = PROFILES[ruleset.id]
    mover = ruleset.to_move(state)
    if nodes is None:
        nodes = engine_nodes(ruleset.id, state)
    if mover is None:
        return Judgement(False, f"hard engine, {nodes} nodes")
    if max_depth is None:
        max_depth = ENGINE_DEPTH.get(ruleset.id)
    search = Search(ruleset, profile, mover, Budget(math.inf, nodes))
    roots = search.children(state, 0, None, root=True)
    if not any(m == move for _v, m, _c in roots):
        child = search.after(state, move)
        roots.append((search.static(child, 1), move, child))
    scored = [(v, m) for v, m, _c in roots]
    depth, done = 2, 1
    deepest = max_depth if max_depth is not None else profile.depth.get("hard", 2)
    while depth <= deepest:
        cur: list[tuple[float, Any]] = []
        try:
            for _v, m, child in roots:
                cur.append((search.value(child, depth - 1, -WIN * 2, WIN * 2, 1), m))
        except OutOfTime:
            break
        scored, done = cur, depth
        depth += profile.depth_step
    best_value = max(v for v, _m in scored)
    played = next(v for v, m in scored if m == move)
    best = [ruleset.format(state, m) for v, m in scored if v >= best_value - 1e-9][:8]
    loss = round(best_value - played, 4)
    scale = value_scale(ruleset.id, getattr(state, "width", 0), getattr(state, "height", 0))
    verdict = by_win_chance(best_value, played, scale)
    if best_value >= WIN / 2 > played or played <= -WIN / 2 < best_value:
        verdict = "blunder"  # a win missed, or a loss the search saw coming walked into
    return Judgement(
        True,
        f"hard engine, {nodes} nodes (depth {done})",
        _clamp(played),
        _clamp(best_value),
        best,
        min(loss, 2 * WIN_VALUE),
        verdict,
        _p1(played, mover),
    )


def _clamp(value: float) -> float:
    """An engine value within ±WIN_VALUE (a won or lost position the search sees), rounded for showing."""
    return round(max(-WIN_VALUE, min(WIN_VALUE, value)), 2)


def judge_trax(ruleset: AnyRuleset, state: Any, move: Any, nodes: int = TRAX_NODES) -> Judgement:
    """Trax by forced wins: did the mover have a win (at once, or a double threat winning next turn) and
    keep it; does the move leave the opponent one that another move would have avoided.

    best: wins, or keeps a forced win; good: nothing forced seen either way (or lost whatever the move);
    inaccuracy: missed a win in 1 but still wins in 2; mistake: missed a win in 2 (the game stays open);
    blunder: missed a win in 1 and no longer wins, or allowed a forced loss that another move avoids."""
    from games.opponents.search import Budget
    from games.opponents.trax import candidates, forces_win, play_or_stay, tactical, unstoppable, winning_moves

    engine = f"Trax forced-win search depth {TRAX_DEPTH}, {nodes} nodes"
    me = state.seat
    child = play_or_stay(state, move)
    wins_now = winning_moves(ruleset, state)
    won = child.finished and child.winner == me

    def forced(pos: Any) -> Any | None:
        found = winning_moves(ruleset, pos)
        return found[0] if found else unstoppable(ruleset, pos, Budget(math.inf, nodes))

    def text(m: Any) -> str:
        return str(ruleset.format(state, m))

    mine = None if won or wins_now else unstoppable(ruleset, state, Budget(math.inf, nodes))
    keeps = won or forces_win(ruleset, state, move, Budget(math.inf, nodes))
    mover_value = 0.0
    best_value = WIN_VALUE if (wins_now or mine is not None) else -WIN_VALUE
    note = ""
    verdict = "good"
    best: list[str] = []
    if won:
        verdict, mover_value = "best", WIN_VALUE
        note = "wins"
    elif wins_now:
        best = [text(m) for m in wins_now[:4]]
        verdict = "inaccuracy" if keeps else "blunder"
        note = "missed a win in 1" + ("; still wins in 2" if keeps else "")
        mover_value = WIN_VALUE if keeps else 0.0
    elif mine is not None:
        best = [text(mine)]
        verdict = "best" if keeps else "mistake"  # a double threat not seen: the win is gone, the game open
        note = "wins in 2" if keeps else "missed a win in 2"
        mover_value = WIN_VALUE if keeps else 0.0
    if not won and not keeps and not child.finished:
        theirs = forced(child)
        if theirs is not None:
            depth = 1 if winning_moves(ruleset, child) else 2
            mover_value = -WIN_VALUE
            saving = _a_safe_move(ruleset, state, move, nodes, candidates, tactical, forced)
            if saving is not None:
                best_value = max(best_value, 0.0)
                verdict = "blunder"
                note = (note + "; " if note else "") + f"allows a forced loss in {depth}"
                best = best or [text(saving)]
            else:
                note = note or f"lost in {depth} whatever the move"
    elif child.finished and not won:
        mover_value = -WIN_VALUE if child.winner else 0.0
    best_value = max(best_value, mover_value)
    return Judgement(
        True, engine, mover_value, best_value, best, best_value - mover_value, verdict, _p1(mover_value, me), note
    )


def _a_safe_move(
    ruleset: AnyRuleset, state: Any, played: Any, nodes: int, candidates: Any, tactical: Any, forced: Any
) -> Any | None:
    """A move other than `played` after which the opponent has no forced win the search finds (moves
    near the fight first, within `nodes` units), or None."""
    from games.opponents.trax import play_or_stay

    seen: set[Any] = {played}
    tried = 0
    for m in tactical(ruleset, state) + candidates(ruleset, state):
        if m in seen:
            continue
        seen.add(m)
        child = play_or_stay(state, m)
        if child is state:
            continue
        tried += 1
        if tried > 12:
            return None
        if child.finished:
            if child.winner == state.seat:
                return m
            continue
        if forced(child) is None:
            return m
    return None
