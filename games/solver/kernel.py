"""The exact search compiled with numba: the algorithm of `games.solver.pure` on uint64 edge sets, plus
three techniques of its own (each a `SolveOptions` switch): the table keeps each position's best
move and tries it first (`tt_move`); a wide window is searched as null-window tests, MTD(f) from a
guess of 0 (`null_window`); and the table has buckets of four one-word entries, a new entry
replacing the smallest subtree (`tt_buckets`). Symmetry images are updated per added edge rather than recomputed.

Importing this module imports numba (slow: about a quarter of a second, and loading the compiled
code as much again), so `games.solver` imports it only when a position is too big for the pure
search; `load` does it once per process. Compiled code is cached on disk (`cache=True`); see
`ensure_cache_dir` for where.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np


def ensure_cache_dir() -> None:
    """Point NUMBA_CACHE_DIR somewhere writable when the package folder is not (read-only installs)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).resolve().parent
    if os.access(here, os.W_OK):
        return
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    target = Path(base) / "dmhost" / "numba"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        target = Path(tempfile.gettempdir()) / "dmhost-numba"
        target.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target)


ensure_cache_dir()

from numba import njit, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

from games.solver.board import Board  # noqa: E402
from games.solver.options import FULL, SolveOptions  # noqa: E402
from games.solver.pure import INF, SearchAborted, tables  # noqa: E402

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


@njit(cache=True, inline="always")
def popcount(x: Any) -> Any:
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def lowest(m: Any) -> Any:
    """Index of the lowest set bit of a non-zero uint64."""
    return popcount((m & (~m + U1)) - U1)


@njit(cache=True, inline="always")
def at(t: Any, i: Any) -> Any:
    """T[i] as an int64."""
    return np.int64(t[i])


@njit(cache=True, inline="always")
def canon(d: Any, pd: Any, t: Any) -> Any:
    """(canonical key, index of the symmetry giving it) of an edge set under the enabled symmetries
    and the corner rule. The image of d under each symmetry is kept per number of edges drawn and
    made from the parent position pd's images (pd == d: from scratch)."""
    flags = at(t, H_FLAGS)
    ns = at(t, H_NSYM) if flags & F_SYM else 1
    corners = flags & F_CORNERS
    ng = at(t, H_NG)
    ne = at(t, H_NE)
    o_gm = at(t, H_GMASK)
    o_gf = at(t, H_GFIRST)
    o_perm = at(t, H_PERM)
    o_eg = at(t, H_EDGEGROUP)
    row = at(t, H_IMG) + 8 * popcount(d)
    if pd == d:
        nbytes = at(t, H_NBYTES)
        o_sym = at(t, H_SYMTAB)
        for s in range(ns):
            x = U0
            base = o_sym + s * nbytes * 256
            for k in range(nbytes):
                x |= t[base + k * 256 + np.int64((d >> np.uint64(8 * k)) & np.uint64(255))]
            if corners:
                for g in range(ng):
                    m = t[o_gm + g]
                    x = (x & ~m) | t[o_gf + 5 * g + popcount(x & m)]
            t[row + s] = x
    else:
        # the images are kept with the corner rule applied: an edge added to a group of border
        # strings just adds one to that group's count
        prow = at(t, H_IMG) + 8 * popcount(pd)
        diff = d & ~pd
        for s in range(ns):
            x = t[prow + s]
            rest = diff
            while rest:
                e = lowest(rest)
                rest &= rest - U1
                f = t[o_perm + s * ne + e]
                g = at(t, o_eg + np.int64(f)) - 1
                if g >= 0 and corners:
                    m = t[o_gm + g]
                    x = (x & ~m) | t[o_gf + 5 * g + popcount(x & m) + 1]
                else:
                    x |= U1 << f
            t[row + s] = x
    best = t[row]
    bs = 0
    for s in range(1, ns):
        x = t[row + s]
        if x < best:
            best = x
            bs = s
    return best, bs


@njit(cache=True, inline="always")
def closure(d: Any, t: Any, e0: Any) -> Any:
    """(K captured, quiet position R, handout cost h) of a position with capturable boxes; e0 ≥ 0
    says that d is a quiet position plus the edge e0, so that only its boxes need looking at."""
    nb = at(t, H_NB)
    o_bm = at(t, H_BOXMASK)
    o_eb = at(t, H_EDGEBOX)
    r = d
    k = 0
    cl = U0
    for i in range(nb if e0 < 0 else 2):
        y = i if e0 < 0 else at(t, o_eb + 2 * e0 + i) - 1
        if y < 0:
            continue
        while True:
            missing = t[o_bm + y] & ~r
            if missing == U0 or missing & (missing - U1):
                break
            r |= missing
            e = lowest(missing)
            nxt = -1
            for j in range(2):
                z = at(t, o_eb + 2 * e + j) - 1
                if z < 0:
                    continue
                if r & t[o_bm + z] == t[o_bm + z]:
                    k += 1
                    cl |= U1 << np.uint64(z)
                elif z != y:
                    nxt = z
            if nxt < 0:
                break
            y = nxt
    # handout cost: 4 if a captured box has both an exit (a string out of the group, the ground
    # included) and a string inside the group; else 8 if two joined captured boxes both have two
    # strings inside the group (a closed chain of at least four boxes); else 0
    deg2 = U0
    rest = cl
    while rest:
        x = lowest(rest)
        rest &= rest - U1
        und = t[o_bm + x] & ~d
        ex = False
        deg = 0
        while und:
            f = lowest(und)
            und &= und - U1
            o = at(t, o_eb + 2 * f) - 1
            if o == x:
                o = at(t, o_eb + 2 * f + 1) - 1
            if o >= 0 and (cl >> np.uint64(o)) & U1:
                deg += 1
            else:
                ex = True
        if ex and deg > 0:
            return k, r, 4
        if deg >= 2:
            deg2 |= U1 << np.uint64(x)
    rest = deg2
    while rest:
        x = lowest(rest)
        rest &= rest - U1
        und = t[o_bm + x] & ~d
        while und:
            f = lowest(und)
            und &= und - U1
            o = at(t, o_eb + 2 * f) - 1
            if o == x:
                o = at(t, o_eb + 2 * f + 1) - 1
            if o >= 0 and (deg2 >> np.uint64(o)) & U1:
                return k, r, 8
    return k, r, 0


@njit(cache=True)
def node(d: Any, alpha: Any, beta: Any, p: Any, t: Any, pd: Any) -> Any:
    """Fail-soft alpha-beta value of a position for the player to move (quiet when chains are on);
    pd is the position it was reached from (d itself at the top)."""
    t[H_NODES] += U1
    if t[H_NODES] > t[H_LIMIT]:
        t[H_ABORT] = U1
        return 0
    full = t[H_FULL]
    if d == full:
        return 0
    flags = at(t, H_FLAGS)
    key, sidx = canon(d, pd, t)
    pp = 0 if flags & F_IMPARTIAL else p
    idx = np.int64((key * HASH_MUL) >> t[H_SHIFT])
    compact = t[H_COMPACT] != U0
    slot = at(t, H_TT) + (idx if compact else 2 * idx)
    corners = flags & F_CORNERS
    ne = at(t, H_NE)
    o_eg = at(t, H_EDGEGROUP)
    o_gm = at(t, H_GMASK)
    hit = False
    lo: Any = 0
    hi: Any = 0
    first = -1
    m: Any = 255
    buckets = compact and flags & F_BUCKETS
    if compact:
        # with `tt_buckets`, four entries per bucket (32 bytes, one cache line); a new entry
        # replaces the one with the smallest subtree (most edges drawn), see the store below
        if buckets:
            base = at(t, H_TT) + (idx & ~BUCKET_MASK)
            for j in range(BUCKET):
                if t[base + j] >> np.uint64(20) == key:
                    slot = base + j
                    break
        w = t[slot]
        if w >> np.uint64(20) == key and np.int64((w >> np.uint64(12)) & U1) == pp:
            hit = True
            lo = np.int64(w & np.uint64(63)) - 32
            hi = np.int64((w >> np.uint64(6)) & np.uint64(63)) - 32
            m = np.int64((w >> np.uint64(13)) & np.uint64(127))
            if m == 127:
                m = 255
    elif t[slot] == key:
        meta = t[slot + 1]
        if np.int64((meta >> np.uint64(16)) & U1) == pp:
            hit = True
            lo = np.int64(meta & np.uint64(255)) - 128
            hi = np.int64((meta >> np.uint64(8)) & np.uint64(255)) - 128
            m = np.int64((meta >> np.uint64(24)) & np.uint64(255))
    if hit:
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        if flags & F_TTMOVE and m < 255:
            first = at(t, at(t, H_INV) + sidx * ne + m)
            g = at(t, o_eg + first) - 1
            if g >= 0 and corners:
                first = lowest(t[o_gm + g] & ~d)
    # box counts: boxes left, edges that would be a box's third side, edges that complete a box
    nb = at(t, H_NB)
    o_bm = at(t, H_BOXMASK)
    o_eb = at(t, H_EDGEBOX)
    rem = 0
    third = U0
    capm = U0
    for x in range(nb):
        bm = t[o_bm + x]
        c3 = popcount(d & bm)
        if c3 < 4:
            rem += 1
            if c3 == 2:
                third |= bm
            elif c3 == 3:
                capm |= bm
    third &= ~capm
    if not hit:
        lo = -rem
        hi = rem
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
    # candidate edges: undrawn, and only the first free border string of each box with the corner rule
    cand = full & ~d
    if corners:
        for g in range(at(t, H_NG)):
            free = t[o_gm + g] & ~d
            cand &= ~(free & (free - U1))
    a0 = max(alpha, lo)
    b0 = min(beta, hi)
    a = a0
    best = -1000
    best_e = -1
    chains = flags & F_CHAINS
    pvs = flags & F_NULL
    o_order = at(t, H_ORDER)
    done = False
    searched = 0
    for cls in range(4):
        if done:
            break
        if cls == 1 and chains:
            continue
        if cls == 0 and first < 0:
            continue
        left = cand & (capm if cls == 1 else (third if cls == 3 else ~(capm | third)))
        if cls > 0 and first >= 0:
            left &= ~(U1 << np.uint64(first))
        if cls > 0 and left == U0:
            continue
        for i in range(ne):
            if cls == 0:
                if i > 0:
                    break
                e = first
            else:
                e = at(t, o_order + i)
                if e == first:
                    continue
            be = U1 << np.uint64(e)
            if not cand & be:
                continue
            mycls = 1 if capm & be else (3 if third & be else 2)
            if cls > 0:
                if mycls != cls:
                    continue
                left &= ~be
            c = d | be
            wa = a
            wb = b0
            if pvs and searched > 0 and a + 1 < b0:
                wb = a + 1
            for _attempt in range(2):
                if mycls == 1:
                    k = 0
                    for j in range(2):
                        z = at(t, o_eb + 2 * e + j) - 1
                        if z >= 0 and popcount(d & t[o_bm + z]) == 3:
                            k += 1
                    v = k + node(c, wa - k, wb - k, p, t, d)
                elif chains and mycls == 3:
                    kk, r, h = closure(c, t, e)
                    al = -wb - kk
                    bt = -wa - kk
                    v1 = node(r, al, bt, 1 - p, t, d)
                    u = v1
                    if h > 0 and v1 < bt and not t[H_ABORT]:
                        v2 = -h - node(r, -h - bt, -h - max(al, v1), p, t, d)
                        if v2 > u:
                            u = v2
                    v = -(kk + u)
                else:
                    v = -node(c, -wb, -wa, 1 - p, t, d)
                if t[H_ABORT]:
                    return 0
                if v >= wb and wb < b0:
                    wb = b0
                    continue
                break
            searched += 1
            if v > best:
                best = v
                best_e = e
                if v > a:
                    a = v
                    if a >= b0:
                        done = True
                        break
            if cls > 0 and left == U0:
                break
    if best <= a0:
        nlo = -rem
        nhi = best
    elif best >= b0:
        nlo = best
        nhi = rem
    else:
        nlo = best
        nhi = best
    if flags & F_TWO:
        nlo = max(lo, nlo)
        nhi = min(hi, nhi)
    mv = 255
    o_perm = at(t, H_PERM)
    if best > a0 and best_e >= 0:
        mv = at(t, o_perm + sidx * ne + best_e)
    elif first >= 0:
        mv = at(t, o_perm + sidx * ne + first)
    if compact:
        if buckets and t[slot] >> np.uint64(20) != key:
            # the children may have moved things: find the key again, else the smallest subtree
            base = at(t, H_TT) + (idx & ~BUCKET_MASK)
            slot = base
            most = -1
            for j in range(BUCKET):
                wj = t[base + j] >> np.uint64(20)
                if wj == key:
                    slot = base + j
                    break
                cj = popcount(wj)
                if cj > most:
                    most = cj
                    slot = base + j
        t[slot] = (
            (key << np.uint64(20))
            | np.uint64(nlo + 32)
            | (np.uint64(nhi + 32) << np.uint64(6))
            | (np.uint64(pp) << np.uint64(12))
            | (np.uint64(min(mv, 127)) << np.uint64(13))
        )
    else:
        t[slot] = key
        t[slot + 1] = (
            np.uint64(nlo + 128)
            | (np.uint64(nhi + 128) << np.uint64(8))
            | (np.uint64(pp) << np.uint64(16))
            | (np.uint64(mv) << np.uint64(24))
        )
    return best


@intrinsic
def _words(typingctx: Any, addr: Any) -> Any:
    """A raw uint64 pointer from an address (no reference counting on the recursive calls)."""
    ptr = types.CPointer(types.uint64)  # type: ignore[no-untyped-call]

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], context.get_value_type(ptr))

    return ptr(types.intp), codegen


@njit(cache=True)
def search(d: Any, alpha: Any, beta: Any, p: Any, addr: Any) -> Any:
    """`node` at the top, on the search array's memory given by its address: numba reference-counts
    an array argument on every call, a raw pointer not (the caller keeps the array alive); and an
    address is typed without numba looking at a numpy array (which imports numpy.ma: slow)."""
    return node(d, alpha, beta, p, _words(addr), d)  # type: ignore[call-arg]


@njit(cache=True)
def closure_at(d: Any, addr: Any) -> Any:
    """`closure` of any position, on the search array at an address (see `search`)."""
    return closure(d, _words(addr), -1)  # type: ignore[call-arg]


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
COMPILING_NOTICE = "compiling the solver, once, about 20 s"
_load_lock = threading.Lock()


def needs_compiling() -> bool:
    """Whether the disk cache lacks a usable compiled search (numba would compile it on first call)."""
    try:
        index = search._cache._cache_file._load_index()  # type: ignore[attr-defined]  # numba internals
    except Exception:  # a change in numba's internals: just don't announce
        return False
    return not index


def load() -> None:
    """Load (or compile, saying so once on stderr) the compiled search and closure; idempotent and
    thread-safe, so a background warm-up and a player's request can race."""
    global READY
    if READY:
        return
    with _load_lock:
        if READY:
            return
        if needs_compiling():
            print(COMPILING_NOTICE, file=sys.stderr, flush=True)
        from games.solver.board import board

        t = build_table(board(1, 2), FULL, None, 4)
        search(np.uint64(0), -INF, INF, 0, address(t))
        closure_at(np.uint64(0b110100), address(t))
        READY = True


class KernelSearch:
    """The compiled search behind the same small interface as `PureSearch` (value, completes, nodes)."""

    def __init__(self, b: Board, opts: SolveOptions = FULL, node_limit: int | None = None, tt_bits: int = 20) -> None:
        self.b = b
        self.o = opts
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
        v = search(dd, alpha, beta, p, self.addr)
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
        k, r, h = closure_at(np.uint64(d), self.addr)
        return int(k), int(r), int(h)
