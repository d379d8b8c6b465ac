"""The exact search compiled with numba: the same algorithm as `games.solver.pure`, on uint64 edge sets.

Importing this module imports numba (slow: about half a second), so `games.solver` imports it only
when a position is too big for the pure search. Compiled code is cached on disk (`cache=True`); see
`ensure_cache_dir` for where.
"""

from __future__ import annotations

import os
import tempfile
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

from numba import njit  # noqa: E402

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

# stats slots
S_NODES = 0
S_LIMIT = 1
S_ABORT = 2


@njit(cache=True, inline="always")
def popcount(x: Any) -> Any:
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def canon(d: Any, flags: Any, sym_tab: Any, nsym: Any, g_mask: Any, g_first: Any) -> Any:
    """(canonical key, index of the symmetry giving it) of an edge set under the enabled symmetries
    and the corner rule."""
    nbytes = sym_tab.shape[1]
    ns = nsym if flags & F_SYM else 1
    corners = flags & F_CORNERS
    ng = g_mask.shape[0]
    best = EMPTY
    bs = 0
    for s in range(ns):
        x = U0
        for k in range(nbytes):
            x |= sym_tab[s, k, np.int64((d >> np.uint64(8 * k)) & np.uint64(255))]
        if corners:
            for g in range(ng):
                m = g_mask[g]
                x = (x & ~m) | g_first[g, popcount(x & m)]
        if s == 0 or x < best:
            best = x
            bs = s
    return best, bs


@njit(cache=True, inline="always")
def lowest(m: Any) -> Any:
    """Index of the lowest set bit of a non-zero uint64."""
    return popcount((m & (~m + U1)) - U1)


@njit(cache=True)
def closure(d: Any, box_mask: Any, box_edges: Any, edge_box: Any, e0: Any) -> Any:
    """(K captured, quiet position R, handout cost h) of a position with capturable boxes; e0 ≥ 0
    says that d is a quiet position plus the edge e0, so that only its boxes need looking at."""
    nb = box_mask.shape[0]
    r = d
    k = 0
    cl = U0
    for t in range(nb if e0 < 0 else 2):
        y = t if e0 < 0 else edge_box[e0, t]
        if y < 0:
            continue
        while True:
            missing = box_mask[y] & ~r
            if missing == U0 or missing & (missing - U1):
                break
            r |= missing
            e = lowest(missing)
            nxt = -1
            for j in range(2):
                z = edge_box[e, j]
                if z < 0:
                    continue
                if r & box_mask[z] == box_mask[z]:
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
        und = box_mask[x] & ~d
        ex = False
        deg = 0
        while und:
            f = lowest(und)
            und &= und - U1
            o = edge_box[f, 0]
            if o == x:
                o = edge_box[f, 1]
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
        und = box_mask[x] & ~d
        while und:
            f = lowest(und)
            und &= und - U1
            o = edge_box[f, 0]
            if o == x:
                o = edge_box[f, 1]
            if o >= 0 and (deg2 >> np.uint64(o)) & U1:
                return k, r, 8
    return k, r, 0


@njit(cache=True)
def node(
    d: Any,
    alpha: Any,
    beta: Any,
    p: Any,
    flags: Any,
    box_mask: Any,
    box_edges: Any,
    edge_box: Any,
    order: Any,
    edge_group: Any,
    sym_tab: Any,
    nsym: Any,
    g_mask: Any,
    g_first: Any,
    perm: Any,
    inv: Any,
    tt: Any,
    tt_shift: Any,
    full: Any,
    stats: Any,
) -> Any:
    """Fail-soft alpha-beta value of a position for the player to move (quiet when chains are on)."""
    stats[S_NODES] += 1
    if stats[S_NODES] > stats[S_LIMIT]:
        stats[S_ABORT] = 1
        return 0
    if d == full:
        return 0
    key, sidx = canon(d, flags, sym_tab, nsym, g_mask, g_first)
    pp = 0 if flags & F_IMPARTIAL else p
    slot = np.int64((key * HASH_MUL) >> tt_shift)
    corners = flags & F_CORNERS
    hit = False
    lo: Any = 0
    hi: Any = 0
    first = -1
    if tt[slot, 0] == key:
        meta = tt[slot, 1]
        if np.int64((meta >> np.uint64(16)) & U1) == pp:
            hit = True
            lo = np.int64(meta & np.uint64(255)) - 128
            hi = np.int64((meta >> np.uint64(8)) & np.uint64(255)) - 128
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if flags & F_TTMOVE:
                m = np.int64((meta >> np.uint64(24)) & np.uint64(255))
                if m < 255:
                    first = inv[sidx, m]
                    g = edge_group[first]
                    if g >= 0 and corners:
                        first = lowest(g_mask[g] & ~d)
    # box counts: boxes left, edges that would be a box's third side, edges that complete a box
    nb = box_mask.shape[0]
    rem = 0
    third = U0
    capm = U0
    for x in range(nb):
        c3 = popcount(d & box_mask[x])
        if c3 < 4:
            rem += 1
            if c3 == 2:
                third |= box_mask[x]
            elif c3 == 3:
                capm |= box_mask[x]
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
        for g in range(g_mask.shape[0]):
            free = g_mask[g] & ~d
            cand &= ~(free & (free - U1))
    a0 = max(alpha, lo)
    b0 = min(beta, hi)
    a = a0
    best = -1000
    best_e = -1
    chains = flags & F_CHAINS
    pvs = flags & F_NULL
    ne = order.shape[0]
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
                e = order[i]
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
                        z = edge_box[e, j]
                        if z >= 0 and popcount(d & box_mask[z]) == 3:
                            k += 1
                    v = k + node(
                        c, wa - k, wb - k, p, flags, box_mask, box_edges, edge_box, order, edge_group,
                        sym_tab, nsym, g_mask, g_first, perm, inv, tt, tt_shift, full, stats,
                    )  # fmt: skip
                elif chains and mycls == 3:
                    kk, r, h = closure(c, box_mask, box_edges, edge_box, e)
                    al = -wb - kk
                    bt = -wa - kk
                    v1 = node(
                        r, al, bt, 1 - p, flags, box_mask, box_edges, edge_box, order, edge_group,
                        sym_tab, nsym, g_mask, g_first, perm, inv, tt, tt_shift, full, stats,
                    )  # fmt: skip
                    u = v1
                    if h > 0 and v1 < bt and not stats[S_ABORT]:
                        v2 = -h - node(
                            r, -h - bt, -h - max(al, v1), p, flags, box_mask, box_edges, edge_box, order,
                            edge_group, sym_tab, nsym, g_mask, g_first, perm, inv, tt, tt_shift, full, stats,
                        )  # fmt: skip
                        if v2 > u:
                            u = v2
                    v = -(kk + u)
                else:
                    v = -node(
                        c, -wb, -wa, 1 - p, flags, box_mask, box_edges, edge_box, order, edge_group,
                        sym_tab, nsym, g_mask, g_first, perm, inv, tt, tt_shift, full, stats,
                    )  # fmt: skip
                if stats[S_ABORT]:
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
    if best > a0 and best_e >= 0:
        mv = perm[sidx, best_e]
    elif first >= 0:
        mv = perm[sidx, first]
    tt[slot, 0] = key
    tt[slot, 1] = (
        np.uint64(nlo + 128)
        | (np.uint64(nhi + 128) << np.uint64(8))
        | (np.uint64(pp) << np.uint64(16))
        | (np.uint64(mv) << np.uint64(24))
    )
    return best


class KernelSearch:
    """The compiled search behind the same small interface as `PureSearch` (value, completes, nodes)."""

    def __init__(self, b: Board, opts: SolveOptions = FULL, node_limit: int | None = None, tt_bits: int = 20) -> None:
        t = tables(b)
        self.b = b
        self.t = t
        self.o = opts
        self.flags = opts.flags()
        ne, nb = b.n_edges, b.n_boxes
        self.box_mask = np.array(b.box_mask, dtype=np.uint64)
        self.box_edges = np.array(b.box_edges, dtype=np.int64).reshape(nb, 4)
        eb = np.full((ne, 2), -1, dtype=np.int64)
        for e, boxes in enumerate(b.edge_boxes):
            for j, x in enumerate(boxes):
                eb[e, j] = x
        self.edge_box = eb
        self.order = np.array(b.center_order if opts.center_order else t.left_right, dtype=np.int64)
        groups = [g for g in b.ground if g]
        self.edge_group = np.full(ne, -1, dtype=np.int64)
        self.g_mask = np.zeros(max(1, len(groups)), dtype=np.uint64)
        self.g_first = np.zeros((max(1, len(groups)), 5), dtype=np.uint64)
        for i, g in enumerate(groups):
            self.g_mask[i] = sum(1 << e for e in g)
            for k in range(len(g) + 1):
                self.g_first[i, k] = sum(1 << e for e in g[:k])
            for e in g:
                self.edge_group[e] = i
        if not groups:
            self.g_mask = self.g_mask[:0]
        self.sym_tab = np.array(t.sym_bytes, dtype=np.uint64)
        self.nsym = len(b.syms)
        self.perm = np.array(b.syms, dtype=np.int64)
        self.inv = np.argsort(self.perm, axis=1).astype(np.int64)
        size = 1 << tt_bits
        # one row per slot: canonical key, then bounds / player / best move packed (see `node`);
        # np.full writes every page now, so page faults are not paid inside the search
        self.tt = np.full((size, 2), EMPTY, dtype=np.uint64)
        self.tt_shift = np.uint64(64 - tt_bits)
        self.full = np.uint64(b.full)
        self.stats = np.zeros(3, dtype=np.int64)
        self.stats[S_LIMIT] = node_limit if node_limit is not None else 2**62

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.stats[S_NODES])

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
        v = node(
            np.uint64(d), alpha, beta, p, self.flags, self.box_mask, self.box_edges, self.edge_box,
            self.order, self.edge_group, self.sym_tab, self.nsym, self.g_mask, self.g_first,
            self.perm, self.inv, self.tt, self.tt_shift, self.full, self.stats,
        )  # fmt: skip
        if self.stats[S_ABORT]:
            raise SearchAborted
        return int(v)

    def value(self, d: int, alpha: int = -INF, beta: int = INF, p: int = 0) -> int:
        """Fail-soft value of any position for the player to move."""
        if self.o.chains and any((d & m).bit_count() == 3 for m in self.b.box_mask):
            k, r, h = closure(np.uint64(d), self.box_mask, self.box_edges, self.edge_box, -1)
            k, r, h = int(k), int(r), int(h)
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
