"""The compiled search (the search of `games.solver.jit`) behind the interface of `PureSearch`, and the
one uint64 array it works on.

`load` makes the compiled code ready once per process: the ahead-of-time built extension module
when there is one (`games.solver.aot`: no numba import, a few milliseconds) or it can be built now,
else numba's just-in-time code from its disk cache (a quarter of a second to import numba and as
much to load), compiling it first when the cache is missing. Either way a compile is said once on
stderr. This module itself imports numpy, not numba.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from games.solver.board import Board
from games.solver.options import FULL, SolveOptions
from games.solver.pure import INF, SearchAborted, tables

U1 = np.uint64(1)
U0 = np.uint64(0)
HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)

# option bits (order of SolveOptions fields)
F_CHAINS = 1
F_CENTER = 2
F_CORNERS = 4
F_SYM = 8
F_TWO = 16
F_IMPARTIAL = 32
F_TTMOVE = 64
F_NULL = 128
F_BUCKETS = 256

# The search works on ONE uint64 array `T`: a header (sizes, offsets of the tables, options, node
# counters), the board's tables, then the transposition table. Numba reference-counts every array
# argument on every call (atomic increments), so a recursive search over a dozen arrays would spend
# most of its time there. Signed table values (-1 = none) are stored plus one.
H_NB = 0
H_NE = 1
H_NSYM = 2
H_NBYTES = 3
H_NG = 4
H_BOXMASK = 5
H_BOXEDGES = 6
H_EDGEBOX = 7
H_ORDER = 8
H_EDGEGROUP = 9
H_SYMTAB = 10
H_GMASK = 11
H_GFIRST = 12
H_PERM = 13
H_INV = 14
H_TT = 15
H_SHIFT = 16
H_FULL = 17
H_FLAGS = 18
H_NODES = 19
H_LIMIT = 20
H_ABORT = 21
H_COMPACT = 22
H_IMG = 23
HEADER = 32
COMPACT_EDGES = 44
BUCKET = 4
BUCKET_MASK = 3
"""Boards with at most this many edges keep a table entry in one word: the key above 20 bits of
bounds (6 bits each), player (1) and best move (7); bigger boards use two words (key, then those)."""


def address(t: Any) -> int:
    """The data address of a numpy array."""
    return int(t.__array_interface__["data"][0])


def build_table(b: Board, opts: SolveOptions, node_limit: int | None, tt_bits: int) -> Any:
    """The search's one uint64 array (header, board tables, an empty table of 2^tt_bits entries)."""
    tb = tables(b)
    ne, nb = b.n_edges, b.n_boxes
    groups = [g for g in b.ground if g]
    edge_group = [0] * ne
    g_first: list[int] = []
    for i, g in enumerate(groups):
        firsts = [sum(1 << e for e in g[:k]) for k in range(len(g) + 1)]
        g_first += firsts + [0] * (5 - len(firsts))
        for e in g:
            edge_group[e] = i + 1
    edge_box: list[int] = []
    for boxes in b.edge_boxes:
        edge_box += [x + 1 for x in boxes] + [0] * (2 - len(boxes))
    inv = [[0] * ne for _ in b.syms]
    for s, perm in enumerate(b.syms):
        for e, f in enumerate(perm):
            inv[s][f] = e
    parts: list[tuple[int, list[int]]] = [
        (H_BOXMASK, list(b.box_mask)),
        (H_BOXEDGES, [e for edges in b.box_edges for e in edges]),
        (H_EDGEBOX, edge_box),
        (H_ORDER, list(b.center_order if opts.center_order else tb.left_right)),
        (H_EDGEGROUP, edge_group),
        (H_SYMTAB, [v for per_sym in tb.sym_bytes for row in per_sym for v in row]),
        (H_GMASK, [sum(1 << e for e in g) for g in groups]),
        (H_GFIRST, g_first),
        (H_PERM, [e for perm in b.syms for e in perm]),
        (H_INV, [e for row in inv for e in row]),
        (H_IMG, [0] * (8 * 65)),
    ]
    size = HEADER + sum(len(v) for _, v in parts)
    compact = ne <= COMPACT_EDGES
    # np.full writes every page now, so page faults are not paid inside the search
    t = np.full(size + 8 + (1 if compact else 2) * (1 << tt_bits), EMPTY, dtype=np.uint64)
    # the table starts on a 64-byte boundary, so that a bucket of four entries is one cache line
    tt_at = size + (-(address(t) // 8 + size) % 8)
    t[:HEADER] = 0
    at_ = HEADER
    for h, values in parts:
        t[h] = at_
        t[at_ : at_ + len(values)] = np.array(values, dtype=np.uint64)
        at_ += len(values)
    t[H_NB] = nb
    t[H_NE] = ne
    t[H_NSYM] = len(b.syms)
    t[H_NBYTES] = len(tb.sym_bytes[0])
    t[H_NG] = len(groups)
    t[H_TT] = tt_at
    t[H_COMPACT] = compact
    t[H_SHIFT] = 64 - tt_bits
    t[H_FULL] = b.full
    t[H_FLAGS] = opts.flags()
    t[H_LIMIT] = node_limit if node_limit is not None else 2**62
    return t


READY = False
"""Set once the compiled search has run in this process (loaded from the disk cache or compiled)."""
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
    thread-safe, so a background warm-up and a player's request can race."""
    global READY, BACKEND, _search, _closure_at
    if READY:
        return
    with _load_lock:
        if READY:
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
        READY = True


class KernelSearch:
    """The compiled search behind the same small interface as `PureSearch` (value, completes, nodes)."""

    def __init__(self, b: Board, opts: SolveOptions = FULL, node_limit: int | None = None, tt_bits: int = 20) -> None:
        self.b = b
        self.o = opts
        self.tt_bits = tt_bits
        self.t = build_table(b, opts, node_limit, tt_bits)
        self.addr = address(self.t)
        load()

    def reset(self, node_limit: int | None) -> None:
        """Start counting nodes again, with a new budget; the table keeps its entries."""
        self.t[H_NODES] = 0
        self.t[H_ABORT] = 0
        self.t[H_LIMIT] = node_limit if node_limit is not None else 2**62

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.t[H_NODES])

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
        v = _search(dd, alpha, beta, p, self.addr)
        if self.t[H_ABORT]:
            raise SearchAborted
        return int(v)

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
