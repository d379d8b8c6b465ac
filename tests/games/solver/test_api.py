"""Engine choice, start-up and reuse: one search per question, numba only when it pays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from games.boxes import geometry
from games.solver import SearchAborted, api, ensure_compiled, kernel_ready, move_values, solve
from games.solver.board import board, edge_points
from tests import DATA, ROOT, run_python

CASES = DATA / "boxes"
"""Published and computed positions with exact values (sources: tests/data/README.md)."""


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_python(["-c", code], env, timeout=120)


def test_board_tables_match_the_boxes_engine() -> None:
    for rows, cols in [(1, 1), (1, 5), (2, 3), (3, 3), (4, 5), (5, 5), (8, 8)]:
        geo = geometry(rows, cols)
        b = board(rows, cols) if geo.n_edges <= 64 else None
        assert edge_points(rows, cols) == geo.edge_points
        if b is not None:
            assert b.box_mask == geo.box_masks
            assert b.edge_boxes == geo.edge_boxes


def test_default_engine_runs_one_search_per_question() -> None:
    ensure_compiled()
    for question in (
        lambda: solve(3, 3),
        lambda: solve(2, 2, ["A1-B1", "A1-A2"], all_best=True),
        lambda: move_values(1, 4, ["A1-B1"]),
        lambda: solve(3, 4, node_limit=200_000),
    ):
        api.searches_started.clear()
        try:
            question()
        except SearchAborted:
            pass
        assert sum(api.searches_started.values()) == 1, api.searches_started
        assert api.searches_started["kernel"] == 1  # the kernel is loaded: auto always uses it


def test_small_positions_stay_in_python_without_numba_or_pydantic() -> None:
    proc = _python(
        "import json, sys\n"
        "from games.solver import api, move_values, solve\n"
        "a = solve(2, 2).value\n"
        "b = move_values(1, 3, 0b1).value\n"
        "print(json.dumps([a, b, dict(api.searches_started), 'numba' in sys.modules, 'pydantic' in sys.modules]))\n"
    )
    assert proc.returncode == 0, proc.stderr
    a, b, started, numba, pydantic = json.loads(proc.stdout)
    assert (a, b) == (solve(2, 2, engine="pure").value, solve(1, 3, 0b1, engine="pure").value)
    assert started == {"pure": 2}
    assert not numba and not pydantic


def test_big_positions_go_straight_to_the_kernel_in_a_fresh_process() -> None:
    proc = _python(
        "import json\n"
        "from games.solver import api, kernel_ready, solve\n"
        "r = solve(3, 3)\n"
        "print(json.dumps([r.value, r.nodes, dict(api.searches_started), kernel_ready()]))\n"
    )
    assert proc.returncode == 0, proc.stderr
    value, nodes, started, ready = json.loads(proc.stdout)
    assert value == -3 and started == {"kernel": 1} and ready and nodes > 0


def test_solver_command_line_imports_neither_pydantic_nor_the_registry() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "games", "solve", "boxes", "--rows", "2", "--cols", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["value"] == 2
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "games.solver.cli" in imported
    assert not {"pydantic", "games.registry", "numba"} & imported


def test_a_missing_kernel_cache_is_detected_before_compiling(tmp_path: Path) -> None:
    ensure_compiled()
    from games.solver.kernel import needs_compiling

    assert kernel_ready() and not needs_compiling()
    proc = _python(
        "from games.solver.kernel import needs_compiling\nprint(needs_compiling())",
        {"NUMBA_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_reused_tables_give_the_published_values_in_any_order() -> None:
    cases = [json.loads(line) for line in (CASES / "positions.jsonl").read_text().splitlines() if line.strip()]
    cases = [c for c in cases if (c["rows"], c["cols"]) == (3, 3)]
    assert len(cases) >= 8
    ensure_compiled()
    for order in (cases, cases[::-1]):
        for case in order:
            assert solve(3, 3, case["drawn"]).value == case["value"], case["name"]
