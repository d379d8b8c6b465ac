"""The search on several threads (Lazy SMP over one table): the same values and optimal sets as on one."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from games.solver import SearchAborted, api, cores, kernel, move_values, solve
from games.solver.board import board
from games.solver.layout import H_TT, address, build_table, helper_table
from games.solver.options import FULL
from tests import DATA, ROOT

TOO_BIG = {"empty-3x5", "empty-4x4", "empty-4x5"}
"""Empty boards the search needs minutes for (their rows are in `benchmarks/README.md`)."""


def _cases(*names: str) -> list[dict[str, object]]:
    out = []
    for name in names:
        out += [json.loads(line) for line in (DATA / "boxes" / name).read_text().splitlines() if line.strip()]
    return out


@pytest.fixture
def every_position_in_parallel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Small positions go to the threads too (normally they stay on one: too short to pay)."""
    monkeypatch.setattr(kernel, "PARALLEL_MIN_FREE", 0)
    api._pool.clear()
    yield
    api._pool.clear()
    cores.set_threads(None)


@pytest.mark.usefixtures("every_position_in_parallel")
def test_one_and_two_threads_give_the_same_values_and_optimal_sets() -> None:
    cases = [c for c in _cases("positions.jsonl", "hard-positions.jsonl") if c["name"] not in TOO_BIG]
    assert len(cases) >= 70
    two_bigger = 0
    for case in cases:
        rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
        assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
        one = solve(rows, cols, drawn, all_best=True, engine="kernel", threads=1)
        two = solve(rows, cols, drawn, all_best=True, engine="kernel", threads=2)
        assert one.threads == 1
        assert two.value == one.value == case["value"], case["name"]
        assert two.best_text == one.best_text, case["name"]
        if case["best"] is not None:
            assert one.best_text == case["best"], case["name"]
        if len(drawn) < rows * cols * 2 + rows + cols:
            assert two.threads == 2, case["name"]
            two_bigger += 1
    assert two_bigger == len(cases)


@pytest.mark.usefixtures("every_position_in_parallel")
def test_move_values_are_the_same_on_two_threads() -> None:
    for case in _cases("hard-positions.jsonl")[:7]:
        rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
        assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
        one = move_values(rows, cols, drawn, engine="kernel", threads=1)
        two = move_values(rows, cols, drawn, engine="kernel", threads=2)
        assert two.move_values == one.move_values, case["name"]
        assert two.best == one.best and two.value == one.value == case["value"], case["name"]


@pytest.mark.usefixtures("every_position_in_parallel")
def test_the_process_count_is_the_default_and_the_json_says_it() -> None:
    cores.set_threads(2)
    got = solve(2, 3, engine="kernel")
    assert got.to_json()["threads"] == 2
    cores.set_threads(1)
    assert solve(2, 3, engine="kernel").to_json()["threads"] == 1
    assert solve(2, 3, engine="pure", threads=2).threads == 1  # plain Python has one thread


def test_small_positions_stay_on_one_thread() -> None:
    api._pool.clear()
    got = solve(2, 3, engine="kernel", threads=2)  # 17 undrawn edges
    assert got.threads == 1 and got.value == solve(2, 3, engine="pure").value == -2


def test_a_node_budget_stops_every_thread(every_position_in_parallel: None) -> None:
    before = threading.active_count()
    with pytest.raises(SearchAborted):
        solve(3, 3, engine="kernel", threads=2, node_limit=1000)
    assert threading.active_count() == before
    with pytest.raises(SearchAborted):  # the root's moves shared out, one thread each
        move_values(3, 3, engine="kernel", threads=2, node_limit=1000)
    assert threading.active_count() == before
    assert solve(3, 3, engine="kernel", threads=2).value == -3  # the same table, searched again


def test_a_helper_array_reaches_the_shared_table() -> None:
    t = build_table(board(2, 2), FULL, None, 12)
    h = helper_table(t)
    offset = int(h[H_TT]) - (1 << 64 if int(h[H_TT]) >> 63 else 0)
    assert address(h) + 8 * offset == address(t) + 8 * int(t[H_TT])


@pytest.mark.parametrize(("text", "n"), [("1", 1), (" 2 ", 2), ("16", 16)])
def test_thread_counts_are_read(text: str, n: int) -> None:
    assert cores.parse_threads(text) == n


@pytest.mark.parametrize("text", ["0", "-1", "two", "1.5", ""])
def test_bad_thread_counts_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="thread count"):
        cores.parse_threads(text)


def test_the_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    cores.set_threads(None)
    monkeypatch.setenv(cores.ENV, "1")
    assert cores.threads() == 1
    monkeypatch.setenv(cores.ENV, "nonsense")
    assert cores.threads() == cores.available()
    monkeypatch.delenv(cores.ENV)
    assert cores.threads() == cores.available() >= 1


def _cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games", "solve", "boxes", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.slow
def test_the_command_line_takes_threads_and_says_them() -> None:
    runs = {n: _cli(["--rows", "1", "--cols", "6", "--all-best", "--threads", n]) for n in ("1", "2")}
    got = {n: json.loads(p.stdout) for n, p in runs.items()}
    assert got["1"]["threads"] == 1 and got["2"]["threads"] == 2  # 19 undrawn edges: on both threads
    assert got["1"]["value"] == got["2"]["value"] and got["1"]["best"] == got["2"]["best"]
    default = json.loads(_cli(["--rows", "1", "--cols", "2"]).stdout)
    assert default["threads"] == 1  # a small position stays on one thread whatever the count


@pytest.mark.slow
@pytest.mark.parametrize("n", ["0", "two", "-3"])
def test_a_bad_thread_count_is_one_line_and_exit_2(n: str) -> None:
    p = _cli(["--rows", "2", "--cols", "2", "--threads", n])
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error: ") and "thread count" in p.stderr and len(p.stderr.splitlines()) == 1


def _pooled_threads() -> int:
    return max(ks.used for free in api._pool.values() for ks in free)


@pytest.mark.usefixtures("every_position_in_parallel")
def test_the_analysis_and_the_perfect_opponent_search_on_the_process_threads() -> None:
    from games.analysis import judge_boxes
    from games.boxes import RULESET as R
    from games.solver import choose_move

    case = next(c for c in _cases("hard-positions.jsonl") if c["name"] == "6x3-move-seq-02")
    rows, cols, drawn = case["rows"], case["cols"], case["drawn"]
    assert isinstance(rows, int) and isinstance(cols, int) and isinstance(drawn, list)
    state = R.state_from_edges(rows, cols, drawn)
    edge = (board(rows, cols).full & ~state.drawn).bit_length() - 1
    judged = {}
    for n in (1, 2):
        cores.set_threads(n)
        api._pool.clear()
        judged[n] = judge_boxes(rows, cols, state.drawn, edge, 0).as_dict()
        assert _pooled_threads() == n
    assert judged[1] == judged[2] and judged[2]["best_value"] == case["value"]
    cores.set_threads(2)
    api._pool.clear()
    api.ensure_compiled()
    e = choose_move(state, "perfect", budget_seconds=60.0)  # the time budget: the process's threads
    assert _pooled_threads() == 2
    assert board(rows, cols).edge_text(e) in case["best"]  # type: ignore[operator]
