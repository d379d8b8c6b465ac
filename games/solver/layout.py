"""The compiled search's memory: ONE uint64 array holding a header (sizes, offsets of the tables,
options, node counters), the board's tables, then the transposition table, and the constants that
describe it. A leaf module: `games.solver.jit` (the search) and `games.solver.kernel` (its loader and
Python face) both read it, and neither imports the other at module level.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.solver.board import Board
from games.solver.options import SolveOptions
from games.solver.pure import tables

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
H_BUSY = 24
"""Offset (from this array, two's complement) of the table of positions other threads are searching
(ABDADA's deferral, `games.solver.kernel`); H_BUSYMASK its size minus one, 0 when searching alone;
H_BUSYMIN the fewest undrawn edges of a position worth marking."""
H_BUSYMASK = 25
H_BUSYMIN = 26
H_DEFER = 27
"""1 when this thread puts off the moves other threads are searching (else it only marks its own)."""
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
    if not compact:
        # a two-word entry's key word holds key XOR bounds word: an empty slot is EMPTY ^ 0, the
        # key of no position the search looks up (the full board is never looked up)
        t[tt_at + 1 : tt_at + 2 * (1 << tt_bits) : 2] = 0
    return t


def helper_table(t: Any) -> Any:
    """The search array of one more thread searching on t's transposition table: a copy of t's
    header and board tables (its own node counters and symmetry images) whose
    table offset points at t's table, wherever numpy put the copy (the offset, two's complement, may
    be negative: the search indexes a raw pointer). The caller keeps t alive while the copy is used."""
    tt_at = int(t[H_TT])
    h = np.array(t[:tt_at], dtype=np.uint64)
    delta = (address(t) - address(h)) // 8 + tt_at
    h[H_TT] = np.uint64(delta % (1 << 64))
    h[H_NODES] = 0
    h[H_ABORT] = 0
    return h
