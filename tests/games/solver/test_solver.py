"""The exact Dots-and-Boxes solver: published positions, a brute-force cross-check, the CLI, the bot."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import cache

import pytest

from games.boxes import RULESET as R
from games.solver import SolveOptions, choose_move, move_values, review_move, solve
from games.solver.board import board
from games.solver.pure import PureSearch
from tests import DATA, ROOT

CASES = DATA / "boxes"
"""Published and computed positions with exact values (sources: tests/data/README.md)."""
QUICK_EMPTY = {(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 2), (2, 3)}


def _cases(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (CASES / name).read_text().splitlines() if line.strip()]


def _quick(case: dict[str, object]) -> bool:
    if str(case["name"]).startswith("empty"):
        return (case["rows"], case["cols"]) in QUICK_EMPTY
    return True


def test_published_positions_exact_values_and_all_best() -> None:
    checked = 0
    for case in _cases("positions.jsonl"):
        if not _quick(case):
            continue
        rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
        assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
        one = solve(rows, cols, drawn, engine="pure")
        assert one.value == case["value"], case["name"]
        if case["best"] is not None:
            assert one.best_text[0] in case["best"], case["name"]
            every = solve(rows, cols, drawn, all_best=True, engine="pure")
            assert every.best_text == case["best"], case["name"]
        checked += 1
    assert checked >= 45


@pytest.mark.parametrize("name", ["chains", "center_order", "corners", "symmetry", "two_bounds", "impartial_tt"])
def test_each_technique_off_gives_the_same_values(name: str) -> None:
    opts = SolveOptions().without(name)
    for case in _cases("positions.jsonl")[19:]:
        rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
        assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
        assert solve(rows, cols, drawn, options=opts, engine="pure").value == case["value"], case["name"]


@pytest.mark.parametrize("name", ["tt_move", "null_window", "tt_buckets"])
def test_kernel_only_techniques_off_give_the_same_values(name: str) -> None:
    opts = SolveOptions().without(name)
    for case in _cases("positions.jsonl")[19:30]:
        rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
        assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
        got = solve(rows, cols, drawn, all_best=True, options=opts, engine="kernel")
        assert got.value == case["value"], case["name"]
        if case["best"] is not None:
            assert got.best_text == case["best"], case["name"]


def test_kernel_closure_matches_the_pure_one() -> None:
    from games.solver.api import make_search
    from games.solver.kernel import KernelSearch

    rng = random.Random(5)
    for rows, cols in [(3, 3), (1, 6), (4, 4), (5, 5)]:
        b = board(rows, cols)
        ks = make_search(b, engine="kernel", tt_bits=12)
        assert isinstance(ks, KernelSearch)
        ps = PureSearch(b)
        checked = 0
        while checked < 300:
            p = rng.choice([0.5, 0.7, 0.85])
            d = sum(1 << e for e in range(b.n_edges) if rng.random() < p)
            if d == b.full or not ps.capturable(d):
                continue
            assert ps.closure(d) == ks.closure(d)
            checked += 1


def _brute(rows: int, cols: int, start: int) -> dict[int, int]:
    """Plain memoised negamax over every edge (no chain rule, symmetry or pruning): move → value."""
    b = board(rows, cols)

    @cache
    def value(d: int) -> int:
        if d == b.full:
            return 0
        return max(move(d, e) for e in range(b.n_edges) if not d >> e & 1)

    def move(d: int, e: int) -> int:
        c = d | 1 << e
        k = sum(1 for y in b.edge_boxes[e] if c & b.box_mask[y] == b.box_mask[y])
        return k + value(c) if k else -value(c)

    return {e: move(start, e) for e in range(b.n_edges) if not start >> e & 1}


def test_agrees_with_exhaustive_search_on_random_small_positions() -> None:
    rng = random.Random(20120722)
    for _ in range(60):
        rows, cols = rng.choice([(2, 2), (1, 3), (1, 4), (2, 3), (1, 5), (3, 2)])
        b = board(rows, cols)
        edges = list(range(b.n_edges))
        rng.shuffle(edges)
        d = sum(1 << e for e in edges[rng.randint(6, 13) :])
        truth = _brute(rows, cols, d)
        want = max(truth.values())
        opts = SolveOptions() if rng.random() < 0.5 else SolveOptions().without("chains")
        assert PureSearch(b, opts).value(d) == want
        res = move_values(rows, cols, d, engine="pure")
        assert res.value == want
        assert res.move_values == truth
        assert res.best == sorted(e for e, v in truth.items() if v == want)


def test_kernel_matches_on_empty_3x3() -> None:
    res = solve(3, 3, [], all_best=True, engine="kernel")
    assert res.value == -3
    assert len(res.best) == 24
    hard = {c["name"]: c for c in _cases("hard-positions.jsonl")}
    case = hard["berlekamp-3.12"]
    drawn = case["drawn"]
    assert isinstance(drawn, list)
    got = solve(5, 5, drawn, all_best=True, engine="kernel")
    assert (got.value, got.best_text) == (case["value"], case["best"])


def _cli(args: list[str], stdin: str = "") -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "games", "solve", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return proc.returncode, proc.stdout


def test_cli_single_and_batch() -> None:
    code, out = _cli(
        [
            "boxes",
            "--rows",
            "3",
            "--cols",
            "3",
            "--drawn",
            "A1-B1,B1-C1,B2-C2,C2-D2,B4-C4,A1-A2,A2-A3,B2-B3,B3-B4,D3-D4",
        ]
    )
    assert code == 0
    res = json.loads(out)
    assert (res["value"], res["best"]) == (3, ["C3-D3"])
    assert res["nodes"] > 0 and res["seconds"] >= 0
    lines = [
        {"rows": 1, "cols": 4, "drawn": []},
        {"rows": 2, "cols": 2, "drawn": ["A1-B1", "A1-A2"]},
        {"rows": 1, "cols": 2, "drawn": ["A1-B1", "A2-B2", "B1-C1", "B2-C2", "A1-A2", "B1-B2", "C1-C2"]},
    ]
    code, out = _cli(["boxes", "--batch", "--all-best"], "\n".join(json.dumps(x) for x in lines) + "\n")
    assert code == 0
    got = [json.loads(x) for x in out.splitlines()]
    assert [g["value"] for g in got] == [0, solve(2, 2, ["A1-B1", "A1-A2"]).value, 0]
    assert got[0]["best"] == ["C1-C2"]
    assert got[2]["best"] == []


def test_cli_usage_errors() -> None:
    assert _cli(["boxes", "--rows", "2"])[0] == 2
    assert _cli(["boxes", "--rows", "2", "--cols", "2", "--drawn", "A1-C1"])[0] == 2
    assert _cli(["chess", "--rows", "2", "--cols", "2"])[0] == 2
    code, out = _cli(["boxes", "--batch"], "not json\n")
    assert code == 2 and "error" in json.loads(out)


def test_review_move() -> None:
    r = review_move(1, 2, [], "A1-B1")
    assert (r.best_value, r.best_moves, r.played_value) == (0, [5], -2)
    assert r.loss == 2


@pytest.mark.parametrize("level", ["easy", "medium", "perfect"])
def test_choose_move_plays_legal_edges(level: str) -> None:
    rng = random.Random(7)
    for rows, cols in [(2, 2), (3, 3)]:
        state = R.new_game(R.parse_options({"rows": rows, "cols": cols}))
        while R.to_move(state) is not None:
            e = choose_move(state, level, rng, nodes=2000)
            assert not state.drawn >> e & 1
            state, _ = R.apply(state, e)


def test_perfect_level_plays_an_optimal_endgame_move() -> None:
    case = next(c for c in _cases("positions.jsonl") if c["name"] == "berlekamp-3.1")
    drawn = case["drawn"]
    assert isinstance(drawn, list)
    state = R.state_from_edges(3, 3, drawn)
    e = choose_move(state, "perfect", random.Random(1), nodes=20_000)
    assert board(3, 3).edge_text(e) == "C3-D3"
