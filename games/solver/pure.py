"""The exact search in plain Python (ints as edge sets): the reference and the fallback of the kernel.

Values are margins for the player to move over the boxes not yet completed (negamax). Positions
that store in the table are "quiet": no box has three sides drawn. A position with capturable boxes
is reduced, when `chains` is on, to its quiet capture-all position R and one number h:

- the mover takes all K capturable boxes and moves on in R: K + V(R); or
- the mover takes all but a hard-hearted handout and gives it away: K − h − V(R), with h = 4 when the
  last chain can be a chain hanging from the ground or from a box of degree ≥ 3 (2 boxes handed out)
  and h = 8 when only closed chains of at least four boxes are left (two handouts of 2 boxes).
  h = 0 when nothing can be handed out (V = K + V(R)).

Both options lead to the same quiet position R, once with each player to move, which is why the
table is indexed by the edges only.
"""

from __future__ import annotations

from functools import cache

from games.solver.board import Board, any_board
from games.solver.options import FULL, SolveOptions

INF = 1000


class SearchAborted(Exception):
    """The node budget ran out."""


class Tables:
    """Derived lookup tables shared by the pure and compiled searches."""

    def __init__(self, b: Board) -> None:
        self.b = b
        self.sym_bytes: list[list[list[int]]] = []
        for perm in b.syms:
            per_byte = []
            for k in range((b.n_edges + 7) // 8):
                row = [0] * 256
                for v in range(1, 256):
                    low = v & -v  # the image of v is that of v without its lowest bit, plus that bit's
                    e = 8 * k + low.bit_length() - 1
                    row[v] = row[v ^ low] | (1 << perm[e] if e < b.n_edges else 0)
                per_byte.append(row)
            self.sym_bytes.append(per_byte)
        # Border strings of one box: mask of the group and "first k drawn" masks.
        self.ground_groups: list[tuple[int, list[int]]] = []
        self.ground_first: dict[int, int] = {}
        for g in b.ground:
            if not g:
                continue
            mask = sum(1 << e for e in g)
            firsts = [sum(1 << e for e in g[:k]) for k in range(len(g) + 1)]
            self.ground_groups.append((mask, firsts))
            for e in g:
                self.ground_first[e] = mask
        self.left_right = tuple(range(b.n_edges))


@cache
def _tables(rows: int, cols: int) -> Tables:
    return Tables(any_board(rows, cols))


def tables(b: Board) -> Tables:
    """Shared (cached) tables of a board."""
    return _tables(b.rows, b.cols)


def popcount(x: int) -> int:
    """Number of set bits."""
    return x.bit_count()


class PureSearch:
    """Alpha-beta over quiet positions with a bound table; see the module docstring."""

    def __init__(self, b: Board, opts: SolveOptions = FULL, node_limit: int | None = None) -> None:
        self.b = b
        self.t = tables(b)
        self.o = opts
        self.tt: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self.node_limit = node_limit
        self.order = b.center_order if opts.center_order else self.t.left_right
        self.n_syms = len(b.syms) if opts.symmetry else 1

    # -- keys ---------------------------------------------------------------------------------
    def canon(self, d: int) -> int:
        """Canonical key of an edge set under the enabled symmetries."""
        best = -1
        nb = len(self.t.sym_bytes[0])
        for s in range(self.n_syms):
            tab = self.t.sym_bytes[s]
            x = 0
            for k in range(nb):
                x |= tab[k][(d >> (8 * k)) & 255]
            if self.o.corners:
                for mask, firsts in self.t.ground_groups:
                    x = (x & ~mask) | firsts[popcount(x & mask)]
            if best < 0 or x < best:
                best = x
        return best

    # -- captures -----------------------------------------------------------------------------
    def closure(self, d: int) -> tuple[int, int, int]:
        """(K boxes captured by taking everything, quiet position R, handout cost h)."""
        b = self.b
        bm = b.box_mask
        stack = [x for x in range(b.n_boxes) if popcount(d & bm[x]) == 3]
        r = d
        cl: list[int] = []
        while stack:
            x = stack.pop()
            missing = bm[x] & ~r
            if popcount(missing) != 1:
                continue
            r |= missing
            e = missing.bit_length() - 1
            for y in b.edge_boxes[e]:
                if r & bm[y] == bm[y]:
                    cl.append(y)
                elif popcount(r & bm[y]) == 3:
                    stack.append(y)
        return len(cl), r, self.handout_cost(d, cl)

    def handout_cost(self, d: int, cl: list[int]) -> int:
        """4 if some captured group hangs from an exit, 8 if only closed chains ≥ 4, else 0."""
        b = self.b
        inside = set(cl)
        tdeg: dict[int, int] = {}
        for x in cl:
            exit_, deg = False, 0
            und = b.box_mask[x] & ~d
            while und:
                low = und & -und
                e = low.bit_length() - 1
                und ^= low
                other = [y for y in b.edge_boxes[e] if y != x]
                if other and other[0] in inside:
                    deg += 1
                else:
                    exit_ = True
            if exit_ and deg:
                return 4
            tdeg[x] = deg
        for x in cl:
            und = b.box_mask[x] & ~d
            while und:
                low = und & -und
                e = low.bit_length() - 1
                und ^= low
                for y in b.edge_boxes[e]:
                    if y != x and y in inside and tdeg[x] >= 2 and tdeg[y] >= 2:
                        return 8
        return 0

    def capturable(self, d: int) -> bool:
        """Some box has exactly three sides drawn."""
        return any(popcount(d & m) == 3 for m in self.b.box_mask)

    def completes(self, d: int, e: int) -> int:
        """Boxes completed by drawing e in d."""
        n = 0
        for y in self.b.edge_boxes[e]:
            if popcount(d & self.b.box_mask[y]) == 3:
                n += 1
        return n

    # -- search -------------------------------------------------------------------------------
    def value(self, d: int, alpha: int = -INF, beta: int = INF, p: int = 0) -> int:
        """Fail-soft value of any position for the player to move (p: who, for the partial table)."""
        if self.o.chains and self.capturable(d):
            return self.compound(d, alpha, beta, p)
        return self.node(d, alpha, beta, p)

    def compound(self, d: int, alpha: int, beta: int, p: int) -> int:
        """A position with capturable boxes, as one compound move (see the module docstring)."""
        k, r, h = self.closure(d)
        a, bb = alpha - k, beta - k
        v1 = self.node(r, a, bb, p)
        if h == 0 or v1 >= bb:
            return k + v1
        v2 = -h - self.node(r, -h - bb, -h - max(a, v1), 1 - p)
        return k + max(v1, v2)

    def moves(self, d: int) -> list[int]:
        """Moves to search, in order: captures, quiet edges, then third edges."""
        b = self.b
        first: list[int] = []
        quiet: list[int] = []
        third: list[int] = []
        for e in self.order:
            if d >> e & 1:
                continue
            if self.o.corners and e in self.t.ground_first:
                g = self.t.ground_first[e] & ~d
                if (g & -g) != 1 << e:
                    continue
            worst = 0
            for y in b.edge_boxes[e]:
                worst = max(worst, popcount(d & b.box_mask[y]))
            (first if worst == 3 else third if worst == 2 else quiet).append(e)
        return first + quiet + third

    def node(self, d: int, alpha: int, beta: int, p: int) -> int:
        """Alpha-beta at one position with the bound table."""
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchAborted
        b = self.b
        if d == b.full:
            return 0
        rem = sum(1 for m in b.box_mask if d & m != m)
        key = self.canon(d)
        if not self.o.impartial_tt:
            key = key << 1 | p
        lo, hi = self.tt.get(key, (-rem, rem))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a0, b0 = max(alpha, lo), min(beta, hi)
        a = a0
        best = -INF
        for e in self.moves(d):
            c = d | 1 << e
            k = self.completes(d, e)
            if k:
                v = k + self.value(c, a - k, b0 - k, p)
            else:
                v = -self.value(c, -b0, -a, 1 - p)
            if v > best:
                best = v
                if v > a:
                    a = v
                    if a >= b0:
                        break
        if best <= a0:
            nlo, nhi = -rem, best
        elif best >= b0:
            nlo, nhi = best, rem
        else:
            nlo, nhi = best, best
        if self.o.two_bounds:
            nlo, nhi = max(lo, nlo), min(hi, nhi)
        self.tt[key] = (nlo, nhi)
        return best
