"""Solver speed in the layout of Barker & Korf (2012), Table 1: time with every technique, then the
slowdown with each one switched off. `python -m benchmarks.solver [--quick] [--full] [--limit S]`.

Each figure is the time to prove the value of the empty board (compiled kernel, warm cache): wall
clock and CPU time of the process (the comparisons use CPU time, which other jobs on the machine
disturb less). A run that exceeds its node budget (about --limit seconds) is shown as `>x`. The
all-features run of each board is made in a fresh process, so that its peak RSS is its own; the
slowdowns are measured in this one. `--full` adds the paper's five biggest empty boards (1×11, 1×12,
2×7, 3×5, 4×4; all features only, about 10 minutes together). Every board gets the table the library
and `python -m games solve` choose for it (`games.solver.memory`: sized to the board, within a quarter
of the memory available), unless `--tt-bits` says otherwise. `--threads-only` prints just the rows per
thread count (`thread_rows`: empty 2×6 through `python -m games solve … --threads N`, N from 1 to the
cores available; 3×4 with `--quick`), which `python -m benchmarks` also shows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from games.solver import memory
from games.solver.api import make_search
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
    (1, 11): (5.60, (10.04, 13.72, 2.44, 2.36, 0.88)),
    (1, 12): (268.88, (7.44, 12.39, 3.26, 4.98, 4.91)),
    (2, 7): (143.88, (5.97, 3.54, 3.54, 2.26, 1.22)),
    (3, 5): (310.18, (10.62, 4.03, 4.59, 1.96, 1.50)),
    (4, 4): (274.44, (6.33, 17.19, 3.88, 2.10, 1.70)),
}
KNOWN: dict[tuple[int, int], tuple[int, str]] = {
    (3, 3): (-3, "Wilson; shared cases"),
    (1, 8): (0, "shared cases"),
    (2, 5): (-2, "shared cases"),
    (1, 9): (-1, "shared cases"),
    (1, 10): (0, "shared cases"),
    (3, 4): (0, "shared cases"),
    (1, 11): (-1, "plain-Python engine"),
    (3, 5): (-1, "Wilson"),
    (4, 4): (0, "Wilson; Barker & Korf"),
}
"""Values checked outside the compiled kernel: published (Wilson, the paper), computed by the shared
cases' separate reference solver (tests/data/README.md), or by this package's plain-Python engine
(1×11: 167 s of CPU). The other boards are not checked."""
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
BIG = [(1, 11), (1, 12), (2, 7), (3, 5), (4, 4)]
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


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_alone(rows: int, cols: int, limit: float, tt_bits: int) -> dict[str, Any]:
    """One all-features run in a fresh process: wall, cpu (None over budget), value, nodes, rss (MB)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.solver",
            "--one",
            f"{rows}x{cols}",
            "--limit",
            str(limit),
            "--tt-bits",
            str(tt_bits),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _one(spec: str, limit: float, tt_bits: int) -> None:
    rows, cols = (int(x) for x in spec.lower().split("x"))
    timed(1, 2, FULL, 10, 4)  # load the kernel outside the measurement
    t, cpu, value, nodes = timed(rows, cols, FULL, limit, tt_bits)
    print(json.dumps({"wall": t, "cpu": cpu, "value": value, "nodes": nodes, "rss": round(peak_rss_mb(), 1)}))


def table_bits(rows: int, cols: int) -> int:
    """Table size (log2 entries) of a board's run: what `python -m games solve` would use here (the
    board's size within a quarter of the memory available, less this process's own memory)."""
    return memory.choose(board(rows, cols)).bits


def table_mb(rows: int, cols: int, bits: int) -> float:
    """Memory of a table of 2^bits entries on a board (one word per entry up to 44 edges, else two)."""
    return memory.table_bytes(board(rows, cols), bits) / 2**20


def check_cell(rows: int, cols: int, value: int | None) -> str:
    """The value checked against a published or separately computed one, or 'not checked'."""
    known = KNOWN.get((rows, cols))
    if value is None:
        return "–"
    if known is None:
        return "not checked"
    want, source = known
    return f"= {source}" if value == want else f"**≠ {want} ({source})**"


def table_rows(quick: bool = False, limit: float = 60.0) -> list[tuple[str, str, str, bool | None]]:
    """(measure, figure, target, ok) per board for the one-table runner: time with every technique
    against the paper's column-2 time (the full slowdown table: `python -m benchmarks.solver`)."""
    timed(2, 2, FULL, 10, 12)
    rows: list[tuple[str, str, str, bool | None]] = []
    for r, c in QUICK if quick else NORMAL:
        t, cpu, value, nodes = timed(r, c, FULL, limit, table_bits(r, c))
        paper = PAPER[(r, c)][0]
        figure = (
            f"{t:.3f} s, CPU {cpu:.3f} s (value {value}, {nodes:,} nodes)"
            if t is not None and cpu is not None
            else f"> {limit:.0f} s"
        )
        ok = cpu is not None and cpu <= paper
        rows.append((f"empty {r}×{c}, all techniques", figure, f"≤ {paper} s (paper)", ok))
    rows += thread_rows(quick)
    st = startup(runs=5 if quick else 9)
    rows.append(
        (
            "`python -m games solve boxes --rows 3 --cols 3`, median wall",
            f"{st['cli_wall']:.3f} s (CPU {st['cli_cpu']:.3f} s)",
            "≤ 0.5 s",
            st["cli_wall"] <= 0.5,
        )
    )
    return rows


SPEEDUP = 1.5
"""Two threads should search at least this much faster than one (the solver's own `seconds`), on an
idle machine: the figures of a shared machine say little about it (benchmarks/README.md)."""


def solve_cli(rows: int, cols: int, threads: int) -> dict[str, Any]:
    """`python -m games solve boxes --rows R --cols C --threads N` in a fresh process: its JSON, plus
    `wall` (seconds) and `cpu` (user and system seconds of the whole process)."""
    cmd = [sys.executable, "-m", "games", "solve", "boxes", "--rows", str(rows), "--cols", str(cols)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([*cmd, "--threads", str(threads)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result: dict[str, Any] = json.loads(out.stdout)
    result["wall"] = wall
    result["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return result


def thread_rows(quick: bool = False) -> list[tuple[str, str, str, bool | None]]:
    """A row per thread count (1 up to the cores available, at least 2): the empty 2×6 board (3×4
    with `quick`) through the command line, the solver's `seconds` against one thread's divided by
    `SPEEDUP` (with one thread: against the paper)."""
    from games.solver import cores

    r, c = (3, 4) if quick else (2, 6)
    rows: list[tuple[str, str, str, bool | None]] = []
    one = 0.0
    for n in range(1, max(2, cores.available()) + 1):
        res = solve_cli(r, c, n)
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        figure = (
            f"{res['seconds']:.3f} s (wall {res['wall']:.2f} s, CPU {res['cpu']:.2f} s, value {res['value']}, "
            f"{res['nodes']:,} nodes, threads {res['threads']}; load {load})"
        )
        if n == 1:
            one = res["seconds"]
            target, ok = f"≤ {PAPER[(r, c)][0]} s (paper)", res["seconds"] <= PAPER[(r, c)][0]
        else:
            target = f"≤ {one / SPEEDUP:.3f} s (one thread's ÷ {SPEEDUP}, idle machine)"
            ok = res["seconds"] <= one / SPEEDUP
        rows.append((f"`python -m games solve boxes --rows {r} --cols {c} --threads {n}`, seconds", figure, target, ok))
    return rows


STARTUP_CODE = """
import json, time
from games.solver import api, ensure_compiled, solve
ensure_compiled()
auto = [solve(3, 3) for _ in range(1)][0]
api._pool.clear()
kernel = solve(3, 3, engine="kernel")
print(json.dumps([auto.seconds, kernel.seconds, dict(api.searches_started)]))
"""


def startup(runs: int = 9) -> dict[str, Any]:
    """Median wall and CPU time of `python -m games solve boxes --rows 3 --cols 3` (fresh processes,
    warm numba cache), and `solve(3, 3)` with default arguments against `engine="kernel"`."""
    cmd = [sys.executable, "-m", "games", "solve", "boxes", "--rows", "3", "--cols", "3"]
    subprocess.run(cmd, capture_output=True, check=True)  # warm the disk cache
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    out = subprocess.run([sys.executable, "-c", STARTUP_CODE], capture_output=True, text=True, check=True)
    auto, kernel, started = json.loads(out.stdout)
    return {
        "cli_wall": statistics.median(walls),
        "cli_cpu": statistics.median(cpus),
        "auto": auto,
        "kernel": kernel,
        "started": started,
    }


def _cells(rows: int, cols: int, res: dict[str, Any], bits: int, limit: float) -> str:
    paper = PAPER[(rows, cols)][0]
    wall, cpu = res["wall"], res["cpu"]
    value = res["value"] if cpu is not None else None
    shown = f"{wall:.3f}s | {cpu:.3f}s | ×{paper / cpu:.1f}" if cpu is not None else f">{limit:.0f}s | – | –"
    return (
        f"| {rows}×{cols} | {value if value is not None else '?'} | {check_cell(rows, cols, value)} | {res['nodes']} "
        f"| 2^{bits} ({table_mb(rows, cols, bits):.0f} MB) | {res['rss']:.0f} MB | {shown} | {paper}s |"
    )


def main() -> None:
    """Print the table as Markdown."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.solver")
    ap.add_argument("--quick", action="store_true", help="3×3, 1×8 and 2×5 only (under a minute)")
    ap.add_argument("--full", action="store_true", help="also 1×11, 1×12, 2×7, 3×5, 4×4 (all features only; ~10 min)")
    ap.add_argument("--limit", type=float, default=60.0, help="budget per run in seconds (approximate)")
    ap.add_argument(
        "--tt-bits",
        type=int,
        default=0,
        help="table size 2^BITS (default: sized to the board within a quarter of the memory available)",
    )
    ap.add_argument("--only-full", action="store_true", help="only the --full boards (no start-up figures)")
    ap.add_argument(
        "--threads-only",
        action="store_true",
        help="only the rows per thread count (empty 2×6 through the command line; 3×4 with --quick)",
    )
    ap.add_argument("--one", metavar="RxC", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        rows, cols = (int(x) for x in args.one.split("x"))
        _one(args.one, args.limit, args.tt_bits or table_bits(rows, cols))
        return
    if args.threads_only:
        for measure, figure, target, ok in thread_rows(args.quick):
            print(f"| {measure} | {figure} | {target} | {'PASS' if ok else 'FAIL'} |", flush=True)
        return
    boards = [] if args.only_full else QUICK if args.quick else NORMAL
    timed(1, 2, FULL, 10, 4)  # compile or load the kernel outside the measurements
    from games.solver import kernel

    print(
        f"Compiled search: {kernel.BACKEND} "
        "(aot: the ahead-of-time built extension module; jit: numba's just-in-time code).\n",
        flush=True,
    )
    if not args.only_full:
        st = startup()
        print(
            f"Start-up: `python -m games solve boxes --rows 3 --cols 3` median {st['cli_wall']:.3f} s wall, "
            f"{st['cli_cpu']:.3f} s CPU (9 runs, warm cache; target ≤ 0.5 s: "
            f"{'PASS' if st['cli_wall'] <= 0.5 else 'FAIL'}); in a process with the kernel loaded, "
            f"`solve(3, 3)` {st['auto'] * 1000:.1f} ms with default arguments, {st['kernel'] * 1000:.1f} ms with "
            f'engine="kernel" (searches started: {st["started"]}).\n',
            flush=True,
        )
    print(
        "| board | value | checked | nodes | table | peak RSS | all features | CPU | paper ÷ CPU | paper | "
        + " | ".join(f"no {s}" for s in SWITCHES)
        + " |"
    )
    print("|---" * (10 + len(SWITCHES)) + "|")
    for rows, cols in boards:
        bits = args.tt_bits or table_bits(rows, cols)
        res = measure_alone(rows, cols, args.limit, bits)
        base_cpu, value = res["cpu"], res["value"]
        cells = []
        for name in SWITCHES:
            if base_cpu is None:
                cells.append("–")
                continue
            _, cpu, v, _ = timed(rows, cols, FULL.without(name), args.limit, bits)
            assert cpu is None or v == value, f"{rows}x{cols} without {name}: {v} != {value}"
            cells.append(f">{args.limit / base_cpu:.0f}" if cpu is None else f"×{cpu / base_cpu:.2f}")
        print(_cells(rows, cols, res, bits, args.limit) + " " + " | ".join(cells) + " |", flush=True)
    if args.full or args.only_full:
        for rows, cols in BIG:
            bits = args.tt_bits or table_bits(rows, cols)
            res = measure_alone(rows, cols, 1800, bits)
            print(_cells(rows, cols, res, bits, 1800) + " –  |" * len(SWITCHES), flush=True)


if __name__ == "__main__":
    main()
