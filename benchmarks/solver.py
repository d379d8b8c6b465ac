"""Solver speed in the layout of Barker & Korf (2012), Table 1: time with every technique, then the
slowdown with each one switched off. `python -m benchmarks.solver [--quick] [--full] [--limit S]`.

Each figure is the time to prove the value of the empty board (compiled kernel, warm cache): wall
clock and CPU time of the process (the slowdowns use CPU time, which other jobs on the machine
disturb less). A run that exceeds its node budget (about --limit seconds) is shown as `>x`.
"""

from __future__ import annotations

import argparse
import time

from games.solver.api import default_tt_bits, make_search
from games.solver.board import board
from games.solver.options import FULL, SolveOptions
from games.solver.pure import SearchAborted

# board: (Barker & Korf's time with all features, their slowdowns without chains, order, corners,
# two bounds, impartial table)
PAPER: dict[tuple[int, int], tuple[float, tuple[float, ...]]] = {
    (3, 3): (0.05, (2.60, 2.00, 3.58, 1.80, 1.40)),
    (1, 8): (0.08, (3.25, 5.50, 4.13, 1.63, 1.25)),
    (2, 5): (0.32, (2.75, 3.62, 3.65, 1.94, 1.12)),
    (1, 9): (0.20, (6.35, 8.65, 2.34, 2.25, 0.85)),
    (1, 10): (4.92, (3.12, 5.17, 2.81, 2.86, 0.71)),
    (3, 4): (1.46, (3.68, 10.02, 3.86, 2.06, 1.17)),
    (2, 6): (12.00, (3.05, 2.36, 3.90, 1.87, 1.10)),
    (4, 4): (274.44, (6.33, 17.19, 3.88, 2.10, 1.70)),
}
SWITCHES = [
    "chains",
    "center_order",
    "corners",
    "symmetry",
    "two_bounds",
    "impartial_tt",
    "tt_move",
    "null_window",
    "tt_buckets",
]
QUICK = [(3, 3), (1, 8), (2, 5)]
NORMAL = [(3, 3), (1, 8), (2, 5), (1, 9), (1, 10), (3, 4), (2, 6)]
NODES_PER_SECOND = 2_500_000


def timed(
    rows: int, cols: int, opts: SolveOptions, limit: float, tt_bits: int
) -> tuple[float | None, float | None, int, int]:
    """(wall seconds, CPU seconds — both None when over budget —, value, nodes)."""
    b = board(rows, cols)
    s = make_search(b, opts, "kernel", int(limit * NODES_PER_SECOND), tt_bits)
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        v = s.value(0)
    except SearchAborted:
        return None, None, 0, s.nodes
    return time.perf_counter() - t0, time.process_time() - c0, v, s.nodes


def table_rows(quick: bool = False, limit: float = 60.0) -> list[tuple[str, str, str, bool | None]]:
    """(measure, figure, target, ok) per board for the one-table runner: time with every technique
    against the paper's column-2 time (the full slowdown table: `python -m benchmarks.solver`)."""
    timed(2, 2, FULL, 10, 12)
    rows: list[tuple[str, str, str, bool | None]] = []
    for r, c in QUICK if quick else NORMAL:
        t, cpu, value, nodes = timed(r, c, FULL, limit, default_tt_bits(board(r, c)))
        paper = PAPER[(r, c)][0]
        figure = (
            f"{t:.3f} s, CPU {cpu:.3f} s (value {value}, {nodes:,} nodes)"
            if t is not None and cpu is not None
            else f"> {limit:.0f} s"
        )
        ok = cpu is not None and cpu <= paper
        rows.append((f"empty {r}×{c}, all techniques", figure, f"≤ {paper} s (paper)", ok))
    return rows


def main() -> None:
    """Print the table as Markdown."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.solver")
    ap.add_argument("--quick", action="store_true", help="3×3, 1×8 and 2×5 only (under a minute)")
    ap.add_argument("--full", action="store_true", help="also 4×4 (all features only; up to 15 min)")
    ap.add_argument("--limit", type=float, default=60.0, help="budget per run in seconds (approximate)")
    ap.add_argument(
        "--tt-bits", type=int, default=0, help="table size 2^BITS (default: edges - 6, at most 23; 27 for 4×4)"
    )
    args = ap.parse_args()
    boards = QUICK if args.quick else NORMAL
    timed(2, 2, FULL, 10, 12)  # compile or load the kernel outside the measurements
    print("| board | value | nodes | all features | CPU | paper | " + " | ".join(f"no {s}" for s in SWITCHES) + " |")
    print("|---" * (6 + len(SWITCHES)) + "|")
    for rows, cols in boards:
        bits = args.tt_bits or default_tt_bits(board(rows, cols))
        base, base_cpu, value, nodes = timed(rows, cols, FULL, args.limit, bits)
        paper = PAPER[(rows, cols)][0]
        cells = []
        for name in SWITCHES:
            if base_cpu is None:
                cells.append("–")
                continue
            _, cpu, v, _ = timed(rows, cols, FULL.without(name), args.limit, bits)
            assert cpu is None or v == value, f"{rows}x{cols} without {name}: {v} != {value}"
            cells.append(f">{args.limit / base_cpu:.0f}" if cpu is None else f"×{cpu / base_cpu:.2f}")
        shown = (
            f"{base:.3f}s | {base_cpu:.3f}s" if base is not None and base_cpu is not None else f">{args.limit:.0f}s | –"
        )
        print(
            f"| {rows}×{cols} | {value} | {nodes} | {shown} | {paper}s | " + " | ".join(cells) + " |",
            flush=True,
        )
    if args.full:
        t, cpu, v, n = timed(4, 4, FULL, 900, args.tt_bits or 27)
        shown = f"{t:.1f}s | {cpu:.1f}s" if t is not None and cpu is not None else ">900s | –"
        print(f"| 4×4 | {v if t is not None else '?'} | {n} | {shown} | 274.44s |" + " – |" * len(SWITCHES))


if __name__ == "__main__":
    main()
