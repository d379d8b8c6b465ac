"""Solving positions: the value, the optimal moves and the value of every move (see `games.solver`)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from games.solver import cores, memory
from games.solver.board import Board, board, edge_index
from games.solver.loaded import KERNEL_LOADED
from games.solver.memory import TableSize
from games.solver.options import FULL, SolveOptions
from games.solver.pure import INF, PureSearch

if TYPE_CHECKING:
    from games.solver.kernel import KernelSearch

PURE_MAX_FREE = 16
"""`engine="auto"` searches positions with at most this many undrawn edges in plain Python while the
compiled kernel is not loaded yet (a few milliseconds, and no numba import); everything else, and
every position once the kernel is loaded, goes to the kernel. The choice is made before searching:
no search is ever thrown away and repeated."""

POOL_BOARDS = 2
"""Compiled searches (with their tables, sized by `games.solver.memory`) kept per process for reuse:
one for each of the last boards (and options) searched. A new table that would not fit under the
memory limit beside them empties the pool first."""

searches_started: Counter[str] = Counter()
"""Searches started per engine in this process (instrumentation: the tests count them)."""

_pool: dict[tuple[int, int, int], list[KernelSearch]] = {}
_pool_lock = threading.Lock()


class Search(Protocol):
    """What the root procedures need from an engine."""

    @property
    def nodes(self) -> int: ...

    def value(self, d: int, alpha: int = -INF, beta: int = INF, p: int = 0) -> int: ...

    def completes(self, d: int, e: int) -> int: ...


@dataclass(frozen=True)
class SolveResult:
    """An exact analysis: margin for the player to move, optimal edges (indices and text)."""

    value: int
    best: list[int]
    best_text: list[str]
    seconds: float
    """The search's time (its table's allocation included), not the one-time set-up in `build_seconds`."""
    nodes: int
    move_values: dict[int, int] = field(default_factory=dict)
    build_seconds: float = 0.0
    """Time this call spent making the compiled search ready first: building it (once per machine,
    seconds) or loading it (once per process, milliseconds); 0 when it was ready or not needed."""
    table: TableSize | None = None
    """The compiled search's table (None: the plain-Python engine, whose table grows as it needs)."""
    memory_limit: int = 0
    """The memory limit (bytes) the table was sized within (`games.solver.memory`)."""
    threads: int = 1
    """The most threads the search ran on (`games.solver.cores`; positions with few undrawn edges,
    and the plain-Python engine, search on one)."""

    def to_json(self) -> dict[str, Any]:
        """The CLI contract's object (value, best, seconds, nodes), then the table used
        (`table_entries`, `table_bytes`; 0 for the plain-Python engine), the `memory_limit` it was
        sized within, `build_seconds` (not part of `seconds`) and the `threads` the search ran on."""
        return {
            "value": self.value,
            "best": self.best_text,
            "seconds": round(self.seconds, 4),
            "nodes": self.nodes,
            "table_entries": self.table.entries if self.table else 0,
            "table_bytes": self.table.bytes if self.table else 0,
            "memory_limit": self.memory_limit,
            "build_seconds": round(self.build_seconds, 4),
            "threads": self.threads,
        }


def parse_drawn(rows: int, cols: int, drawn: int | Iterable[str | int]) -> int:
    """Edge set from a mask, or edge texts (`A1-B1`) / indices; ValueError on a bad edge."""
    n_edges = 2 * rows * cols + rows + cols
    if isinstance(drawn, int):
        if drawn < 0 or drawn >> n_edges:
            raise ValueError(f"edge mask has bits beyond the {n_edges} edges of a {rows}x{cols} board")
        return drawn
    mask = 0
    for item in drawn:
        if isinstance(item, int):
            if not 0 <= item < n_edges:
                raise ValueError(f"edge index {item} is not on a {rows}x{cols} board")
            mask |= 1 << item
            continue
        from games.boxes import RULESET  # only for edge texts: it imports pydantic

        try:
            a, b = RULESET.parse_syntax(item)
        except ValueError:
            raise ValueError(f"{item!r} is not an edge like A1-B1") from None
        e = edge_index(rows, cols, a, b)
        if e is None:
            raise ValueError(f"{item!r} is not an edge of a {rows}x{cols} board")
        mask |= 1 << e
    return mask


def make_search(
    b: Board,
    options: SolveOptions = FULL,
    engine: str = "kernel",
    node_limit: int | None = None,
    tt_bits: int | None = None,
    drawn: int = 0,
    threads: int = 1,
) -> Search:
    """A fresh search ("pure" or "kernel") with an empty table: 2^tt_bits entries, else sized to the
    position `drawn` within the memory limit (`games.solver.memory.choose`; MemoryLimitError when
    nothing fits), on `threads` threads (the kernel; one by default, so that a node budget gives the
    same answer every time). The kernel is loaded first, so that its memory counts."""
    if engine == "pure":
        searches_started[engine] += 1
        return PureSearch(b, options, node_limit)
    from games.solver.kernel import KernelSearch, load

    load()
    bits = tt_bits if tt_bits is not None else memory.choose(b, drawn, node_limit).bits
    searches_started[engine] += 1
    return KernelSearch(b, options, node_limit, bits, threads)


def ready_kernel() -> float:
    """Make the compiled search ready in this process (see `ensure_compiled`); the seconds it took
    (0.0 when it was ready already)."""
    if kernel_ready():
        return 0.0
    t0 = time.perf_counter()
    ensure_compiled()
    return time.perf_counter() - t0


def kernel_ready() -> bool:
    """Whether the compiled kernel is loaded in this process (then every search goes to it). Safe
    while another thread is loading it: that thread sets the flag only when it is done."""
    return KERNEL_LOADED.is_set()


def ensure_compiled() -> None:
    """Load the compiled kernel now, compiling it first when its disk cache is missing or stale
    (about 20 s, announced once on stderr). The bot runs this in a thread at start."""
    from games.solver.kernel import load

    load()


def choose_engine(b: Board, d: int) -> str:
    """The engine `engine="auto"` uses for a position, chosen before any search."""
    if kernel_ready():
        return "kernel"
    return "pure" if b.n_edges - d.bit_count() <= PURE_MAX_FREE else "kernel"


@contextmanager
def searcher(
    b: Board,
    options: SolveOptions = FULL,
    engine: str = "kernel",
    node_limit: int | None = None,
    drawn: int = 0,
    threads: int | None = None,
) -> Iterator[Search]:
    """A search on board b ("pure" or "kernel"): plain Python, or a compiled one lent from the
    process's pool (its table keeps what earlier searches proved: stored bounds stay true) when its
    table is as big as the position `drawn` calls for, else a new one sized to it within the memory
    limit (MemoryLimitError when nothing fits), searching on `threads` threads (None: the process's
    count, `games.solver.cores`)."""
    if engine not in ("pure", "kernel"):
        raise ValueError(f"engine must be auto, pure or kernel, not {engine!r}")
    if engine == "pure":
        yield make_search(b, options, "pure", node_limit)
        return
    key = (b.rows, b.cols, options.flags())
    ks = _lend(key, b, drawn, node_limit)
    if ks is None:
        ks = _new_kernel_search(b, options, node_limit, drawn)
    else:
        searches_started["kernel"] += 1
        ks.reset(node_limit)
    ks.set_threads(threads if threads is not None else cores.threads())
    try:
        yield ks
    finally:
        with _pool_lock:
            free = _pool.pop(key, [])
            free.append(ks)
            _pool[key] = free[-1:]
            while len(_pool) > POOL_BOARDS:
                del _pool[next(iter(_pool))]


def _lend(key: tuple[int, int, int], b: Board, drawn: int, node_limit: int | None) -> KernelSearch | None:
    """A pooled search for this board and options whose table is at least as big as the position
    calls for (or as big as the limit allows now, for one sized to the limit before)."""
    with _pool_lock:
        free = _pool.get(key)
        if not free:
            return None
        ks = free[-1]
        want = memory.wanted_bits(b, drawn, node_limit)
        if ks.tt_bits < want:
            cap = memory.limit()
            room = cap - memory.resident() + memory.table_bytes(b, ks.tt_bits)
            try:
                if memory.fit(b, want, room, cap).bits > ks.tt_bits:
                    return None
            except memory.MemoryLimitError:
                pass
        return free.pop()


def _new_kernel_search(b: Board, options: SolveOptions, node_limit: int | None, drawn: int) -> KernelSearch:
    """A compiled search with a new table sized to the position; when it would not fit beside the
    tables the pool keeps, the pool is emptied (its memory given back) and the size chosen again."""
    from games.solver.kernel import KernelSearch, load

    load()
    cap = memory.limit()
    want = memory.wanted_bits(b, drawn, node_limit)
    try:
        size = memory.fit(b, want, cap - memory.resident(), cap)
    except memory.MemoryLimitError:
        size = None
    if size is None or size.bits < want:
        with _pool_lock:
            dropped = bool(_pool)
            _pool.clear()
        if dropped:
            import gc

            gc.collect()
        if dropped or size is None:
            size = memory.fit(b, want, cap - memory.resident(), cap)
    searches_started["kernel"] += 1
    return KernelSearch(b, options, node_limit, size.bits)


def threads_of(s: Search) -> int:
    """The most threads a search ran on (1 for plain Python)."""
    return int(getattr(s, "used", 1))


def table_of(s: Search, b: Board, limit: int) -> TableSize | None:
    """The table of a compiled search on board b, sized within `limit` (None for plain Python)."""
    bits = getattr(s, "tt_bits", None)
    if bits is None:
        return None
    return TableSize(bits, memory.table_bytes(b, bits), limit)


def _move_value(s: Search, d: int, e: int, alpha: int = -INF, beta: int = INF) -> int:
    """Value of drawing e for the player to move (fail-soft within the window)."""
    k = s.completes(d, e)
    c = d | 1 << e
    if k:
        return k + s.value(c, alpha - k, beta - k)
    return -s.value(c, -beta, -alpha, 1)


def _is_optimal(s: Search, d: int, e: int, v: int) -> bool:
    """Whether e reaches the position's value v (a null-window test)."""
    return _move_value(s, d, e, v - 1, v) >= v


def _root_order(b: Board, d: int) -> list[int]:
    """Legal edges: captures, then quiet ones from the centre, then third edges."""
    first: list[int] = []
    quiet: list[int] = []
    third: list[int] = []
    for e in b.center_order:
        if d >> e & 1:
            continue
        worst = max((d & b.box_mask[y]).bit_count() for y in b.edge_boxes[e])
        (first if worst == 3 else third if worst == 2 else quiet).append(e)
    return first + quiet + third


def _equivalent(b: Board, d: int, e: int) -> int:
    """Representative of e among interchangeable border strings of one box (same value)."""
    for g in b.ground:
        if e in g:
            for f in g:
                if not d >> f & 1:
                    return f
    return e


def _side_by_side(s: Search, b: Board, d: int) -> KernelSearch | None:
    """The compiled search when it should search the root's moves side by side, one thread each
    (more than one thread, and a position big enough for threads to pay: `kernel.PARALLEL_MIN_FREE`),
    else None."""
    if getattr(s, "threads", 1) < 2:
        return None
    from games.solver import kernel

    if not isinstance(s, kernel.KernelSearch) or b.n_edges - d.bit_count() < kernel.PARALLEL_MIN_FREE:
        return None
    return s


def _root(s: Search, b: Board, d: int, all_best: bool, values: bool) -> tuple[int, list[int], dict[int, int]]:
    if d == b.full:
        return 0, [], {}
    legal = _root_order(b, d)
    reps = list(dict.fromkeys(_equivalent(b, d, e) for e in legal))
    side = _side_by_side(s, b, d)
    if values and side is not None:
        # every move's exact value, the moves shared among the threads; the position's is their best
        got = dict(zip(reps, side.map_moves(lambda lane, e: _move_value(lane, d, e), reps), strict=True))
        each = {e: got[_equivalent(b, d, e)] for e in legal}
        v = max(each.values())
        return v, sorted(e for e in legal if each[e] == v), {e: each[e] for e in sorted(legal)}
    v = s.value(d)
    if all_best and side is not None:
        tests = side.map_moves(lambda lane, e: int(_is_optimal(lane, d, e, v)), reps)
        optimal = {e for e, ok in zip(reps, tests, strict=True) if ok}
        return v, sorted(e for e in legal if _equivalent(b, d, e) in optimal), {}
    known: dict[int, int] = {}
    if values:
        for e in legal:
            rep = _equivalent(b, d, e)
            if rep not in known:
                known[rep] = _move_value(s, d, rep)
            known[e] = known[rep]
        return v, sorted(e for e in legal if known[e] == v), {e: known[e] for e in sorted(legal)}
    good: dict[int, bool] = {}
    best: list[int] = []
    for e in legal:
        rep = _equivalent(b, d, e)
        if rep not in good:
            good[rep] = _is_optimal(s, d, rep, v)
        if good[rep]:
            best.append(e)
            if not all_best:
                break
    return v, sorted(best), {}


def exact_best(s: Search, b: Board, d: int) -> list[int]:
    """Every optimal edge of a position with a given search (raises SearchAborted past its budget)."""
    return _root(s, b, d, True, False)[1]


def _run(
    b: Board,
    d: int,
    all_best: bool,
    values: bool,
    options: SolveOptions,
    engine: str,
    node_limit: int | None,
    threads: int | None = None,
) -> SolveResult:
    """Search a position; the compiled search is made ready before the clock starts (`build_seconds`)."""
    if engine == "auto":
        engine = choose_engine(b, d)
    build = ready_kernel() if engine == "kernel" else 0.0
    cap = memory.limit()
    t0 = time.perf_counter()
    with searcher(b, options, engine, node_limit, d, threads) as s:
        v, best, vals = _root(s, b, d, all_best, values)
        seconds = time.perf_counter() - t0
        return SolveResult(
            v,
            best,
            [b.edge_text(e) for e in best],
            seconds,
            s.nodes,
            vals,
            build,
            table_of(s, b, cap),
            cap,
            threads_of(s),
        )


def solve(
    rows: int,
    cols: int,
    drawn: int | Iterable[str | int] = 0,
    *,
    all_best: bool = False,
    options: SolveOptions = FULL,
    engine: str = "auto",
    node_limit: int | None = None,
    threads: int | None = None,
) -> SolveResult:
    """Exact value of the position and one optimal edge (all of them with `all_best`), searched on
    `threads` threads (None: the process's count, `games.solver.cores`); the value and the set of
    optimal edges are the same for every count."""
    b = board(rows, cols)
    d = parse_drawn(rows, cols, drawn)
    return _run(b, d, all_best, False, options, engine, node_limit, threads)


def move_values(
    rows: int,
    cols: int,
    drawn: int | Iterable[str | int] = 0,
    *,
    options: SolveOptions = FULL,
    engine: str = "auto",
    node_limit: int | None = None,
    threads: int | None = None,
) -> SolveResult:
    """Exact value of every legal edge (`move_values`), with the position's value and all optimal
    edges (on `threads` threads, as `solve`)."""
    b = board(rows, cols)
    d = parse_drawn(rows, cols, drawn)
    return _run(b, d, True, True, options, engine, node_limit, threads)


@dataclass(frozen=True)
class MoveReview:
    """How a played edge compares with the best one (margins for the player who moved)."""

    move: int
    played_value: int
    best_value: int
    best_moves: list[int]

    @property
    def loss(self) -> int:
        """Boxes of margin given away by the move (0 for an optimal move)."""
        return self.best_value - self.played_value


def review_move(rows: int, cols: int, drawn: int | Iterable[str | int], move: int | str) -> MoveReview:
    """Exact review of one move for post-game analysis (`dmhost log --analyse`)."""
    d = parse_drawn(rows, cols, drawn)
    e = move if isinstance(move, int) else parse_drawn(rows, cols, [move]).bit_length() - 1
    if d >> e & 1:
        raise ValueError("that edge is already drawn")
    res = move_values(rows, cols, d)
    return MoveReview(e, res.move_values[e], res.value, res.best)
