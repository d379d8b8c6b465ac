"""`python -m games solve boxes (--rows R --cols C [--drawn EDGES] | --batch) [--all-best] [--memory SIZE]
[--threads N]`.

The transposition table is sized to the position within a memory limit: `--memory SIZE` (`512M`,
`4G`) caps the process's resident size, else a quarter of the memory available is the limit
(`games.solver.memory`). The output states the table and the limit (`table_entries`, `table_bytes`,
`memory_limit`) and, apart from the search's `seconds`, the time spent making the compiled search
ready (`build_seconds`: its one-time build on a new machine, else loading it). `--threads N` searches
on N threads over one shared table (default: every core the process may use; 1 is the sequential
search); the value and the `--all-best` set are the same for every N, and `threads` in the output
says how many the search ran on (one for positions with few undrawn edges).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EXIT_OK = 0
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        """Usage errors exit 2 through `main`, not through SystemExit here."""
        raise ValueError(message)


def _parser() -> _Parser:
    p = _Parser(prog="python -m games solve", description="exact Dots-and-Boxes analysis")
    p.add_argument("game", choices=["boxes"])
    p.add_argument("--rows", type=int)
    p.add_argument("--cols", type=int)
    p.add_argument("--drawn", default="", help="comma-separated edges like A1-B1,A1-A2")
    p.add_argument("--batch", action="store_true", help="read one JSON position per line from stdin")
    p.add_argument("--all-best", action="store_true", help="list every optimal move")
    p.add_argument(
        "--memory",
        metavar="SIZE",
        help="memory the process may use, like 512M or 4G (default: a quarter of the memory available)",
    )
    p.add_argument(
        "--threads",
        metavar="N",
        help="threads to search on (default: every core available; 1: the sequential search)",
    )
    p.add_argument("--engine", choices=["auto", "pure", "kernel"], default="auto", help=argparse.SUPPRESS)
    return p


def _once_each(rows: int, cols: int, drawn: list[str]) -> None:
    """ValueError when an edge is given twice (`A1-B1,B1-A1` too): a position draws each edge once."""
    from games.solver.api import parse_drawn

    seen: dict[int, str] = {}
    for edge in drawn:
        bit = parse_drawn(rows, cols, [edge])
        if bit in seen:
            raise ValueError(f"the edge {edge} is drawn twice (also as {seen[bit]}): give each edge once")
        seen[bit] = edge


def _solve_one(rows: Any, cols: Any, drawn: list[str], all_best: bool, engine: str) -> dict[str, Any]:
    from games.solver.api import solve

    if not isinstance(rows, int) or not isinstance(cols, int) or rows < 1 or cols < 1:
        raise ValueError("rows and cols must be positive integers")
    _once_each(rows, cols, drawn)
    return solve(rows, cols, drawn, all_best=all_best, engine=engine).to_json()


def _set_threads(text: str | None) -> None:
    """Apply `--threads` (ValueError for anything but a whole number of at least 1)."""
    from games.solver import cores

    if text is not None:
        cores.set_threads(cores.parse_threads(text))


def _set_memory(text: str | None) -> None:
    """Apply `--memory` (ValueError for a bad size, or one the process is already past)."""
    from games.solver import memory

    if text is None:
        return
    limit = memory.parse_size(text)
    used = memory.resident()
    if limit <= used:
        raise memory.MemoryLimitError(
            f"--memory {text} is below what the process already uses ({memory.format_size(used)})"
        )
    memory.set_limit(limit)


def main(argv: list[str]) -> int:
    """Run the solver CLI; returns the exit code (0 ok, 2 usage error)."""
    try:
        args = _parser().parse_args(argv)
        _set_memory(args.memory)
        _set_threads(args.threads)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    if args.batch:
        if args.rows is not None or args.cols is not None or args.drawn:
            print("error: --batch reads positions from stdin; drop --rows/--cols/--drawn", file=sys.stderr)
            return EXIT_USAGE
        code = EXIT_OK
        for number, line in enumerate(sys.stdin, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("each line must be a JSON object")
                drawn = item.get("drawn", [])
                if not isinstance(drawn, list) or not all(isinstance(x, str) for x in drawn):
                    raise ValueError('"drawn" must be a list of edges like "A1-B1"')
                out = _solve_one(item.get("rows"), item.get("cols"), drawn, args.all_best, args.engine)
            except ValueError as exc:  # json.JSONDecodeError is a ValueError
                out = {"error": f"line {number}: {exc}"}
                code = EXIT_USAGE
            print(json.dumps(out), flush=True)
        return code
    if args.rows is None or args.cols is None:
        print("error: give --rows and --cols (or --batch)", file=sys.stderr)
        return EXIT_USAGE
    edges = [t.strip() for t in args.drawn.split(",") if t.strip()]
    try:
        out = _solve_one(args.rows, args.cols, edges, args.all_best, args.engine)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(out))
    return EXIT_OK
