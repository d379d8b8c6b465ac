"""The exact search, written for numba: the algorithm of `games.solver.pure` on uint64 edge sets, plus
three techniques of its own (each a `SolveOptions` switch): the table keeps each position's best
move and tries it first (`tt_move`); a wide window is searched as null-window tests, MTD(f) from a
guess of 0 (`null_window`); and the table has buckets of four one-word entries, a new entry
replacing the smallest subtree (`tt_buckets`). Symmetry images are updated per added edge rather than recomputed.

The same functions are compiled two ways (`games.solver.kernel.load` picks): ahead of time into an
extension module (`games.solver.aot`), or just in time by numba, cached on disk (`cache=True`).
Importing this module imports numba (slow: about a quarter of a second, and loading the compiled
code as much again). The search's memory layout (one uint64 array) is described in `games.solver.layout`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.solver.aot import ensure_cache_dir

ensure_cache_dir()

from numba import njit, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

from games.solver.layout import (  # noqa: E402
    BUCKET,
    BUCKET_MASK,
    F_BUCKETS,
    F_CHAINS,
    F_CORNERS,
    F_IMPARTIAL,
    F_NULL,
    F_SYM,
    F_TTMOVE,
    F_TWO,
    H_ABORT,
    H_BOXMASK,
    H_BUSY,
    H_BUSYMASK,
    H_BUSYMIN,
    H_COMPACT,
    H_DEFER,
    H_EDGEBOX,
    H_EDGEGROUP,
    H_FLAGS,
    H_FULL,
    H_GFIRST,
    H_GMASK,
    H_IMG,
    H_INV,
    H_LIMIT,
    H_NB,
    H_NBYTES,
    H_NE,
    H_NG,
    H_NODES,
    H_NSYM,
    H_ORDER,
    H_PERM,
    H_SHIFT,
    H_SYMTAB,
    H_TT,
    HASH_MUL,
    U0,
    U1,
)


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
    elif t[slot] ^ t[slot + 1] == key:
        # the key word is stored XORed with the bounds word: an entry torn by another thread's
        # write (the two words from different stores) does not match (lockless hashing)
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
    # with other threads searching (ABDADA, simplified): a move after the first whose position
    # another thread is searching now is put off to a last pass (class 4), by then probably stored
    busy_mask = at(t, H_BUSYMASK)
    o_busy = at(t, H_BUSY)
    mark = busy_mask > 0 and ne - popcount(d) > at(t, H_BUSYMIN)
    defer = t[H_DEFER] != U0
    deferred = U0
    for cls in range(5):
        if done:
            break
        if cls == 1 and chains:
            continue
        if cls == 0 and first < 0:
            continue
        if cls == 4:
            left = deferred
        else:
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
            if cls == 4:
                if not left & be:
                    continue
                left &= ~be
            elif cls > 0:
                if mycls != cls:
                    continue
                left &= ~be
            c = d | be
            bslot = -1
            if mark and cls < 4:
                bslot = o_busy + (np.int64((c * HASH_MUL) >> np.uint64(40)) & busy_mask)
                if defer and searched > 0 and t[bslot] == c:
                    deferred |= be
                    if left == U0:
                        break
                    continue
                t[bslot] = c
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
                    if bslot >= 0 and t[bslot] == c:
                        t[bslot] = U0
                    return 0
                if v >= wb and wb < b0:
                    wb = b0
                    continue
                break
            if bslot >= 0 and t[bslot] == c:
                t[bslot] = U0
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
        meta = (
            np.uint64(nlo + 128)
            | (np.uint64(nhi + 128) << np.uint64(8))
            | (np.uint64(pp) << np.uint64(16))
            | (np.uint64(mv) << np.uint64(24))
        )
        t[slot] = key ^ meta
        t[slot + 1] = meta
    return best


@intrinsic
def _words(typingctx: Any, addr: Any) -> Any:
    """A raw uint64 pointer from an address (no reference counting on the recursive calls)."""
    ptr = types.CPointer(types.uint64)  # type: ignore[no-untyped-call]

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], context.get_value_type(ptr))

    return ptr(types.intp), codegen


@njit(cache=True, nogil=True)
def search(d: Any, alpha: Any, beta: Any, p: Any, addr: Any) -> Any:
    """`node` at the top, on the search array's memory given by its address: numba reference-counts
    an array argument on every call, a raw pointer not (the caller keeps the array alive); and an
    address is typed without numba looking at a numpy array (which imports numpy.ma: slow)."""
    return node(d, alpha, beta, p, _words(addr), d)  # type: ignore[call-arg]


@njit(cache=True, nogil=True)
def closure_at(d: Any, addr: Any) -> Any:
    """`closure` of any position, on the search array at an address (see `search`)."""
    return closure(d, _words(addr), -1)  # type: ignore[call-arg]


def needs_compiling() -> bool:
    """Whether numba's disk cache lacks a usable compiled search (numba would compile it on first call)."""
    try:
        index = search._cache._cache_file._load_index()  # type: ignore[attr-defined]  # numba internals
    except Exception:  # a change in numba's internals: just don't announce
        return False
    return not index
