"""The compiled search's two builds: the ahead-of-time extension module and numba's just-in-time code
search the same tree, the command line searches without importing numba once the extension is built,
and a build or a file that fails leaves the solver working on numba's code, without retrying."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from games.solver import aot, ensure_compiled, kernel, layout
from games.solver.api import parse_drawn
from games.solver.board import board
from games.solver.options import FULL, SolveOptions
from games.solver.pure import INF
from tests import DATA, run_python

SOLVE_AND_SAY_BACKEND = (
    "from games.solver import kernel, solve\nprint(solve(3, 3, engine='kernel').value, kernel.BACKEND)"
)


def _extension() -> object:
    ensure_compiled()
    module = aot.load(build=True)
    assert module is not None, aot.failed_path().read_text() if aot.failed_path().exists() else "no extension"
    return module


def test_the_extension_and_numba_search_the_same_tree() -> None:
    from games.solver import jit

    ext = _extension()
    cases = [json.loads(line) for line in (DATA / "boxes" / "positions.jsonl").read_text().splitlines() if line]
    checked = 0
    for case in cases:
        b = board(case["rows"], case["cols"])
        d = parse_drawn(case["rows"], case["cols"], case["drawn"])
        if any((d & m).bit_count() == 3 for m in b.box_mask):
            continue  # the kernel searches quiet positions
        for opts in (FULL, SolveOptions().without("tt_buckets"), SolveOptions().without("symmetry")):
            runs = []
            for search in (ext.search, jit.search):  # type: ignore[attr-defined]
                t = layout.build_table(b, opts, 300_000, 14)  # a node budget keeps the big boards short
                v = search(np.uint64(d), -INF, INF, checked % 2, layout.address(t))
                runs.append((int(v), int(t[layout.H_NODES]), int(t[layout.H_ABORT])))
            assert runs[0] == runs[1], case["name"]
        checked += 1
    assert checked >= 20


def test_the_extension_and_numba_find_the_same_captures() -> None:
    from games.solver import jit

    ext = _extension()
    rng = random.Random(3)
    for rows, cols in [(3, 3), (4, 4), (5, 5)]:
        b = board(rows, cols)
        t = layout.build_table(b, FULL, None, 8)
        for _ in range(200):
            d = sum(1 << e for e in range(b.n_edges) if rng.random() < 0.7)
            got = ext.closure_at(np.uint64(d), layout.address(t))  # type: ignore[attr-defined]
            assert got == jit.closure_at(np.uint64(d), layout.address(t))


def test_the_command_line_searches_without_numba_once_built() -> None:
    _extension()
    proc = run_python(["-X", "importtime", "-m", "games", "solve", "boxes", "--rows", "3", "--cols", "3"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["value"] == -3
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "games.solver.kernel" in imported and "numba" not in imported
    assert "compiling" not in proc.stderr


def test_a_failed_build_falls_back_to_numba_once_and_is_not_retried(tmp_path: Path) -> None:
    ensure_compiled()  # numba's own cache is warm: only the extension is missing in tmp_path
    env = {"DMHOST_SOLVER_AOT_DIR": str(tmp_path), "CC": "/bin/false", "LDSHARED": "/bin/false"}
    first = run_python(["-c", SOLVE_AND_SAY_BACKEND], env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["-3", "jit"]
    assert first.stderr.count(kernel.COMPILING_NOTICE) == 1  # the build was tried, and said once
    markers = list(tmp_path.glob("*.failed"))
    assert len(markers) == 1 and not list(tmp_path.glob(f"*{aot.suffix()}"))
    second = run_python(["-c", SOLVE_AND_SAY_BACKEND], env)
    assert second.stdout.split() == ["-3", "jit"]
    assert kernel.COMPILING_NOTICE not in second.stderr  # not tried again
    assert list(tmp_path.glob("*.failed")) == markers


def test_a_file_that_does_not_load_is_never_used(tmp_path: Path) -> None:
    env = {"DMHOST_SOLVER_AOT_DIR": str(tmp_path)}
    name = run_python(["-c", "from games.solver import aot; print(aot.module_name())"], env).stdout.strip()
    assert name.startswith(aot.PREFIX)
    (tmp_path / f"{name}{aot.suffix()}").write_bytes(b"not a shared library")
    ensure_compiled()
    proc = run_python(["-c", SOLVE_AND_SAY_BACKEND], env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["-3", "jit"]
    assert "not a shared library" not in proc.stderr
    assert (tmp_path / f"{name}.failed").exists()


def test_turning_the_extension_off_uses_numba() -> None:
    ensure_compiled()
    proc = run_python(["-c", SOLVE_AND_SAY_BACKEND], {"DMHOST_SOLVER_AOT": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["-3", "jit"]
