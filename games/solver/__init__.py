"""Exact Dots-and-Boxes solver after Barker & Korf, "Solving Dots-And-Boxes" (AAAI 2012).

Positions are `boxes` positions: an R×C board (at most 64 edges for exact solving) and the set of
drawn edges, as a bitmask over the engine's edge order (horizontal edges row by row, then vertical
ones) or as a list of edge texts like `"A1-B1"` or indices. Values are margins for the player to
move over the boxes not yet completed (boxes they take from here minus the opponent's): the empty
3×3 board is −3.

API for the host:

- `solve(rows, cols, drawn, *, all_best=False, options=SolveOptions(), engine="auto",
  node_limit=None) -> SolveResult` — `.value`, `.best` (edge indices, optimal only; all of them in
  edge order with `all_best`), `.best_text`, `.seconds` (the search), `.nodes`, `.build_seconds` (making
  the compiled search ready first: its one-time build, or loading it; not in `.seconds`), `.table`
  (entries and bytes of the compiled search's table, None in plain Python) and `.memory_limit`;
  `.to_json()` is the CLI object.
- `move_values(rows, cols, drawn, ...) -> SolveResult` — also `.move_values`: {edge: exact value of
  drawing it, for the mover}; `.best` holds every optimal edge.
- `review_move(rows, cols, drawn, move) -> MoveReview` — `.played_value`, `.best_value`,
  `.best_moves`, `.loss` for post-game analysis (`dmhost log --analyse`).
- `choose_move(state, level, rng, budget_seconds) -> int` — an edge index for the practice
  opponent; levels `easy`, `medium` (depth-limited search with the same chain rules) and `perfect`
  (exact when it fits the budget). Works on any board size.

Engines: `"pure"` (plain Python), `"kernel"` (compiled once and kept on disk: an extension module
built ahead of time where a C compiler is at hand, so that loading it needs no numba, else numba's
just-in-time code; see `games.solver.kernel.load`) and `"auto"`,
which picks one before searching: the kernel once it is loaded in the process, else plain Python for
positions with few undrawn edges (so they never import numba), else the kernel. Compiled searches
and their tables are kept and reused within a process (`api.searcher`).

- `set_memory_limit(bytes | None)` — the memory the process may reach with the compiled search's
  tables (None: a quarter of the memory available). Each table is sized to its position within it
  (`games.solver.memory`); `MemoryLimitError` (a ValueError) when not even the smallest fits.
- `ensure_compiled()` — load the kernel now (compiling it when its disk cache is missing, said once
  on stderr); the bot calls it in a thread at start. `kernel_ready()` says whether it is loaded.

Every technique can be switched off through `SolveOptions` (see `benchmarks/solver.py`).
Raises `ValueError` for bad input and `SearchAborted` when `node_limit` runs out.
"""

from games.solver.api import (
    MoveReview,
    SolveResult,
    ensure_compiled,
    kernel_ready,
    move_values,
    review_move,
    solve,
)
from games.solver.memory import MemoryLimitError
from games.solver.memory import set_limit as set_memory_limit
from games.solver.options import SolveOptions
from games.solver.play import choose_move
from games.solver.pure import SearchAborted

__all__ = [
    "MemoryLimitError",
    "MoveReview",
    "SearchAborted",
    "SolveOptions",
    "SolveResult",
    "choose_move",
    "ensure_compiled",
    "kernel_ready",
    "move_values",
    "review_move",
    "set_memory_limit",
    "solve",
]
