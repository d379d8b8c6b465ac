"""Move choice for the practice opponent: `easy`, `medium` and `perfect`, on boards of any size.

- `easy`: takes a box when it can, else a random edge that gives nothing away, else the edge that
  gives the fewest boxes away.
- `medium`: a depth-limited alpha-beta with the same chain rules as the exact solver (captures as a
  compound move, the hard-hearted handout as the only alternative), deepened while time lasts;
  a random choice among the best edges. Small endgames are solved exactly.
- `perfect`: the exact solver within the time budget, its table sized to the position within the
  process's memory limit (`games.solver.memory`); when the position is too big for it (or no
  table fits), the `medium` search with the whole budget.

The budget is seconds of wall-clock time, or with `nodes` a count of positions searched: then the
move depends only on the position and the seed (the exact search gets a fresh table sized by the
position and the budget, and its engine
is chosen by the position alone, not by whether the compiled kernel is already loaded).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from games.solver.board import MAX_EDGES, Board, any_board
from games.solver.memory import MemoryLimitError, wanted_bits
from games.solver.options import FULL
from games.solver.pure import INF, PureSearch, SearchAborted

if TYPE_CHECKING:
    from games.boxes import BoxesState

LEVELS = ("easy", "medium", "perfect")
MEDIUM_MAX_DEPTH = 3
EXACT_FREE_EDGES = 12
KERNEL_NODES_PER_SECOND = 2_000_000
PURE_NODES_PER_SECOND = 50_000


class _Limited(PureSearch):
    """Depth-limited negamax over quiet positions (depth counts quiet moves), with a deadline or a
    node limit."""

    def __init__(self, b: Board, deadline: float, node_limit: int | None = None) -> None:
        super().__init__(b, FULL, node_limit)
        self.deadline = deadline
        self.memo: dict[tuple[int, int], int] = {}

    def dl_value(self, d: int, depth: int, alpha: int, beta: int) -> int:
        if self.capturable(d):
            k, r, h = self.closure(d)
            v1 = self.dl_node(r, depth, alpha - k, beta - k)
            if h == 0:
                return k + v1
            v2 = -h - self.dl_node(r, depth, -h - beta + k, -h - max(alpha - k, v1))
            return k + max(v1, v2)
        return self.dl_node(d, depth, alpha, beta)

    def dl_node(self, d: int, depth: int, alpha: int, beta: int) -> int:
        if d == self.b.full or depth == 0:
            return 0
        self.nodes += 1
        if self.node_limit is not None:
            if self.nodes > self.node_limit:
                raise SearchAborted
        elif self.nodes & 255 == 0 and time.monotonic() > self.deadline:
            raise SearchAborted
        best = -INF
        for e in self.moves(d):
            v = -self.dl_value(d | 1 << e, depth - 1, -beta, -max(alpha, best))
            if v > best:
                best = v
                if best >= beta:
                    break
        return best


def _completes(b: Board, d: int, e: int) -> int:
    return sum(1 for y in b.edge_boxes[e] if (d & b.box_mask[y]).bit_count() == 3)


def _gives(b: Board, d: int, e: int) -> int:
    """Boxes the opponent could take right after the quiet edge e (0 for a safe edge)."""
    c = d | 1 << e
    if not any((c & b.box_mask[y]).bit_count() == 3 for y in b.edge_boxes[e]):
        return 0
    return PureSearch(b).closure(c)[0]


def _easy(b: Board, d: int, rng: random.Random) -> int:
    legal = [e for e in range(b.n_edges) if not d >> e & 1]
    takes = [e for e in legal if _completes(b, d, e)]
    if takes:
        return rng.choice(takes)
    cost = {e: _gives(b, d, e) for e in legal}
    low = min(cost.values())
    return rng.choice([e for e in legal if cost[e] == low])


def _limited(
    b: Board, d: int, rng: random.Random, deadline: float, max_depth: int, node_limit: int | None = None
) -> int:
    s = _Limited(b, deadline, node_limit)
    legal = [e for e in range(b.n_edges) if not d >> e & 1]
    scores: dict[int, int] = {}
    for depth in range(1, max_depth + 1):
        try:
            cur = {}
            for e in legal:
                k = _completes(b, d, e)
                c = d | 1 << e
                cur[e] = k + s.dl_value(c, depth, -INF, INF) if k else -s.dl_value(c, depth - 1, -INF, INF)
            scores = cur
        except SearchAborted:
            break
    if not scores:
        return _easy(b, d, rng)
    top = max(scores.values())
    return rng.choice([e for e in legal if scores[e] == top])


def choose_move(
    state: BoxesState,
    level: str = "medium",
    rng: random.Random | None = None,
    budget_seconds: float = 1.0,
    *,
    nodes: int | None = None,
) -> int:
    """An edge index for the player to move in `state` at this level (see the module docstring);
    with `nodes`, bounded by that many positions searched instead of `budget_seconds`."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    rng = rng or random.Random()
    b = any_board(state.rows, state.cols)
    d = state.drawn
    if d == b.full:
        raise ValueError("the game is over")
    start = time.monotonic()
    deadline = start + budget_seconds
    free = b.n_edges - d.bit_count()
    if level == "easy":
        return _easy(b, d, rng)
    from games.solver.api import PURE_MAX_FREE, choose_engine, exact_best, make_search, searcher

    if b.n_edges <= MAX_EDGES and (free <= EXACT_FREE_EDGES or level == "perfect"):
        try:
            if free <= EXACT_FREE_EDGES or nodes is None:
                engine = choose_engine(b, d)
                rate = KERNEL_NODES_PER_SECOND if engine == "kernel" else PURE_NODES_PER_SECOND
                limit = None if free <= EXACT_FREE_EDGES else int(budget_seconds * rate)
                with searcher(b, FULL, engine, limit, d) as s:
                    return rng.choice(exact_best(s, b, d))
            # a work budget: an engine chosen by the position alone, and a fresh table whose size
            # depends on the position and the budget alone (not on the memory in use)
            engine = "pure" if free <= PURE_MAX_FREE else "kernel"
            bits = wanted_bits(b, d, nodes) if engine == "kernel" else None
            fresh = make_search(b, FULL, engine, nodes, bits, d)
            return rng.choice(exact_best(fresh, b, d))
        except (SearchAborted, MemoryLimitError):  # over budget, or no table fits the memory limit
            pass
    elif free <= EXACT_FREE_EDGES:
        return rng.choice(exact_best(PureSearch(b), b, d))
    depth = 64 if level == "perfect" else MEDIUM_MAX_DEPTH
    return _limited(b, d, rng, deadline, depth, nodes)
