"""The compiled search (the search of `games.solver.jit`) behind the interface of `PureSearch`, on the
one uint64 array of `games.solver.layout`.

`load` makes the compiled code ready once per process: the ahead-of-time built extension module
when there is one (`games.solver.aot`: no numba import, a few milliseconds) or it can be built now,
else numba's just-in-time code from its disk cache (a quarter of a second to import numba and as
much to load), compiling it first when the cache is missing. Either way a compile is said once on
stderr. This module itself imports numpy, not numba.
"""

from __future__ import annotations

import copy
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from games.solver.board import Board
from games.solver.layout import (
    H_ABORT,
    H_BUSY,
    H_BUSYMASK,
    H_BUSYMIN,
    H_DEFER,
    H_LIMIT,
    H_NODES,
    address,
    build_table,
    helper_table,
)
from games.solver.loaded import KERNEL_LOADED
from games.solver.options import FULL, SolveOptions
from games.solver.pure import INF, SearchAborted

BACKEND = ""
"""Which compiled search `load` chose: "aot" (the extension module) or "jit" (numba's)."""
COMPILING_NOTICE = "compiling the solver, once, about 20 s"
_load_lock = threading.Lock()
_search: Callable[..., Any] | None = None
_closure_at: Callable[..., Any] | None = None


def needs_compiling() -> bool:
    """Whether `load` would have to compile: no extension module built (and one can be tried) and,
    when the extension is unavailable, no numba disk cache either (this imports numba)."""
    from games.solver import aot

    state = aot.status()
    if state == "ready":
        return False
    if state == "buildable":
        return True
    from games.solver import jit

    return jit.needs_compiling()


def load() -> None:
    """Load (or compile, saying so once on stderr) the compiled search and closure; idempotent and
    thread-safe, so a background warm-up and a player's request can race (the second waits for the
    first). `KERNEL_LOADED` is set at the very end, when the code has run."""
    global BACKEND, _search, _closure_at
    if KERNEL_LOADED.is_set():
        return
    with _load_lock:
        if KERNEL_LOADED.is_set():
            return
        from games.solver import aot

        told = False
        if aot.status() == "buildable":
            print(COMPILING_NOTICE, file=sys.stderr, flush=True)
            told = True
        module = aot.load()
        if module is not None:
            _search, _closure_at, BACKEND = module.search, module.closure_at, "aot"
        else:
            from games.solver import jit

            if not told and jit.needs_compiling():
                print(COMPILING_NOTICE, file=sys.stderr, flush=True)
            _search, _closure_at, BACKEND = jit.search, jit.closure_at, "jit"
        from games.solver.board import board

        t = build_table(board(1, 2), FULL, None, 4)
        _search(np.uint64(0), -INF, INF, 0, address(t))
        _closure_at(np.uint64(0b110100), address(t))
        KERNEL_LOADED.set()


PARALLEL_MIN_FREE = 18
"""A search of a position with fewer undrawn edges stays on one thread: it lasts milliseconds, less
than starting the others would cost."""


BUSY_BITS = 12
"""The table of positions some thread is searching (ABDADA's deferral): 2^12 words, 32 KiB."""
FIRST_DEFERS = False
"""Whether the first thread puts off moves too (ABDADA's rule for every thread); else it keeps the
sequential order and only the others steer around it."""
BUSY_MIN_FREE = 10
"""Only positions with more undrawn edges than this are marked as being searched (smaller ones are
over before another thread could use the mark)."""


class KernelSearch:
    """The compiled search behind the same small interface as `PureSearch` (value, completes, nodes).

    With `threads` above one, each null-window search of a position with at least
    `PARALLEL_MIN_FREE` undrawn edges runs on that many threads at once over the one transposition
    table: every thread searches the whole position in the same order and reads what the others
    stored (Lazy SMP), and an extra thread (not the first, unless `FIRST_DEFERS`) that reaches a
    move whose position another thread is searching right now puts it off to the end of its list
    (ABDADA, simplified: a small table of the positions being searched, `BUSY_BITS`), so that the
    threads spread over the tree instead of walking it in step. The first thread to finish gives the
    value and the others are stopped; `map_moves` shares the root's moves out instead.
    Every stored bound is exact, so the values never depend on the threads; only nodes and time do.
    The node budget (`node_limit`) counts per thread."""

    def __init__(
        self,
        b: Board,
        opts: SolveOptions = FULL,
        node_limit: int | None = None,
        tt_bits: int = 20,
        threads: int = 1,
    ) -> None:
        self.b = b
        self.o = opts
        self.tt_bits = tt_bits
        self.t = build_table(b, opts, node_limit, tt_bits)
        self.addr = address(self.t)
        self.limit = node_limit if node_limit is not None else 2**62
        self._helpers: list[Any] = []
        self._busy: Any = None
        self.threads = 1
        self.used = 1
        """The most threads one search has run on since the last `reset`."""
        self.winner_nodes = 0
        """Nodes searched since the last `reset` by the thread that finished first, call by call: the
        longest path of the work (the nodes of a one-thread search)."""
        self.set_threads(threads)
        load()

    def set_threads(self, threads: int) -> None:
        """Search on this many threads from now on (at least one)."""
        self.threads = max(1, threads)
        if self.threads > 1 and self._busy is None:
            self._busy = np.zeros(1 << BUSY_BITS, dtype=np.uint64)
            self._point_at_busy(self.t)
        while len(self._helpers) < self.threads - 1:
            h = helper_table(self.t)
            h[H_LIMIT] = self.limit
            self._point_at_busy(h)
            self._helpers.append(h)

    def _point_at_busy(self, t: Any) -> None:
        """Give a search array the offset of the busy table (deferral stays off until `_parallel`)."""
        assert self._busy is not None
        t[H_BUSY] = np.uint64(((address(self._busy) - address(t)) // 8) % (1 << 64))
        t[H_BUSYMIN] = BUSY_MIN_FREE
        t[H_BUSYMASK] = 0
        t[H_DEFER] = t is not self.t or FIRST_DEFERS

    def reset(self, node_limit: int | None) -> None:
        """Start counting nodes again, with a new budget; the table keeps its entries."""
        self.limit = node_limit if node_limit is not None else 2**62
        self.used = 1
        self.winner_nodes = 0
        for t in [self.t, *self._helpers]:
            t[H_NODES] = 0
            t[H_ABORT] = 0
            t[H_LIMIT] = self.limit

    @property
    def nodes(self) -> int:
        """Positions searched so far (by every thread)."""
        return int(self.t[H_NODES]) + sum(int(h[H_NODES]) for h in self._helpers)

    def node(self, d: int, alpha: int, beta: int, p: int) -> int:
        """One quiet position through the kernel; with `null_window`, a wide window is searched as a
        series of null-window tests (MTD(f) from a guess of 0)."""
        if not self.o.null_window or beta - alpha <= 1:
            return self._node(d, alpha, beta, p)
        lo, hi = -INF, INF
        gamma = 0
        while True:
            gamma = max(gamma, lo + 1, alpha + 1)
            gamma = min(gamma, hi, beta)
            v = self._node(d, gamma - 1, gamma, p)
            if v >= gamma:
                lo = v
                gamma = v + 1
            else:
                hi = v
                gamma = v
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi

    def _node(self, d: int, alpha: int, beta: int, p: int) -> int:
        dd = np.uint64(d)
        assert _search is not None
        if self.threads > 1 and self.b.n_edges - d.bit_count() >= PARALLEL_MIN_FREE:
            return self._parallel(dd, alpha, beta, p)
        n0 = int(self.t[H_NODES])
        v = _search(dd, alpha, beta, p, self.addr)
        self.winner_nodes += int(self.t[H_NODES]) - n0
        if self.t[H_ABORT]:
            raise SearchAborted
        return int(v)

    def _parallel(self, dd: Any, alpha: int, beta: int, p: int) -> int:
        """One search on `threads` threads; the first to finish unstopped gives the value."""
        search = _search
        assert search is not None
        arrays = [self.t, *self._helpers[: self.threads - 1]]
        self.used = max(self.used, len(arrays))
        lock = threading.Lock()
        outcome: list[tuple[int, bool]] = []

        starts = [int(t[H_NODES]) for t in arrays]

        def run(i: int) -> None:
            t = arrays[i]
            v = search(dd, alpha, beta, p, address(t))
            with lock:
                if not outcome:
                    self.winner_nodes += int(t[H_NODES]) - starts[i]
                    # the first back: its value, or the budget ran out on it (SearchAborted)
                    outcome.append((int(v), bool(t[H_ABORT])))
                    for j, other in enumerate(arrays):
                        if j != i:
                            other[H_LIMIT] = 0

        workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(1, len(arrays))]
        for t in arrays:
            t[H_BUSYMASK] = (1 << BUSY_BITS) - 1
        for w in workers:
            w.start()
        try:
            run(0)
        finally:
            for w in workers:
                w.join()
            for t in arrays:
                t[H_ABORT] = 0
                t[H_LIMIT] = self.limit
                t[H_BUSYMASK] = 0
        v, aborted = outcome[0]
        if aborted:
            raise SearchAborted
        return v

    def map_moves(self, fn: Callable[[KernelSearch, int], int], items: list[int]) -> list[int]:
        """[fn(lane, x) for x in items], the items shared out among `threads` lanes: searches on one
        thread each over the one table (the root's moves searched side by side: `api._root`). A lane
        that runs out of its node budget stops the others and SearchAborted is raised."""
        arrays = [self.t, *self._helpers[: self.threads - 1]]
        lanes = []
        for t in arrays:
            lane = copy.copy(self)
            lane.t, lane.addr, lane.threads, lane._helpers = t, address(t), 1, []
            lanes.append(lane)
        self.used = max(self.used, len(lanes))
        lock = threading.Lock()
        todo = iter(items)
        results: dict[int, int] = {}
        aborted: list[bool] = []

        def work(lane: KernelSearch) -> None:
            while True:
                with lock:
                    x = next(todo, None)
                    if x is None or aborted:
                        return
                try:
                    v = fn(lane, x)
                except SearchAborted:
                    with lock:
                        aborted.append(True)
                        for t in arrays:
                            t[H_LIMIT] = 0
                    return
                results[x] = v

        workers = [threading.Thread(target=work, args=(lane,), daemon=True) for lane in lanes[1:]]
        for w in workers:
            w.start()
        try:
            work(lanes[0])
        finally:
            for w in workers:
                w.join()
            for t in arrays:
                t[H_ABORT] = 0
                t[H_LIMIT] = self.limit
        if aborted:
            raise SearchAborted
        return [results[x] for x in items]

    def value(self, d: int, alpha: int = -INF, beta: int = INF, p: int = 0) -> int:
        """Fail-soft value of any position for the player to move."""
        if self.o.chains and any((d & m).bit_count() == 3 for m in self.b.box_mask):
            k, r, h = self.closure(d)
            a, bb = alpha - k, beta - k
            v1 = self.node(r, a, bb, p)
            if h == 0 or v1 >= bb:
                return k + v1
            v2 = -h - self.node(r, -h - bb, -h - max(a, v1), 1 - p)
            return k + max(v1, v2)
        return self.node(d, alpha, beta, p)

    def completes(self, d: int, e: int) -> int:
        """Boxes completed by drawing e in d."""
        return sum(1 for y in self.b.edge_boxes[e] if (d & self.b.box_mask[y]).bit_count() == 3)

    def closure(self, d: int) -> tuple[int, int, int]:
        """(K captured, quiet position R, handout cost h) of a position with capturable boxes."""
        assert _closure_at is not None
        k, r, h = _closure_at(np.uint64(d), self.addr)
        return int(k), int(r), int(h)
