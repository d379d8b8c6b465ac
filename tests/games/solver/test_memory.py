"""The transposition table sized to the position within a memory limit: the library, the command line
(`--memory`, peak resident size measured in a child process), the practice opponent."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from games.boxes import RULESET as R
from games.solver import MemoryLimitError, api, choose_move, ensure_compiled, memory, set_memory_limit, solve
from games.solver.board import board
from games.solver.layout import COMPACT_EDGES
from tests import DATA, run_python

MiB = 1 << 20


def _cases(*names: str) -> list[dict[str, object]]:
    out = []
    for name in names:
        out += [json.loads(line) for line in (DATA / "boxes" / name).read_text().splitlines() if line.strip()]
    return out


def _quick(case: dict[str, object]) -> bool:
    """Positions that take well under a second with any table (no big empty boards)."""
    return not str(case["name"]).startswith("empty") or int(case["rows"]) * int(case["cols"]) <= 9  # type: ignore[call-overload]


@pytest.fixture(autouse=True)
def _no_limit_left_behind() -> Iterator[None]:
    yield
    set_memory_limit(None)
    api._pool.clear()


@pytest.mark.parametrize(
    ("text", "size"),
    [("512M", 512 * MiB), ("4G", 4 << 30), ("1.5g", 3 << 29), ("300K", 300 << 10), ("64MiB", 64 * MiB), ("4096", 4096)],
)
def test_sizes_are_read_in_powers_of_1024(text: str, size: int) -> None:
    assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-5M", "0", "12Q", "1e9", "M"])
def test_a_bad_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        memory.parse_size(text)


def test_small_boards_get_small_tables_and_big_boards_big_ones() -> None:
    bits = {(r, c): memory.wanted_bits(board(r, c)) for r, c in [(3, 3), (1, 8), (2, 5), (3, 4), (2, 7), (4, 4)]}
    assert bits[(3, 3)] <= 17 and bits[(1, 8)] <= 17  # half a megabyte or so, not 64 MB
    assert bits[(3, 3)] < bits[(2, 5)] < bits[(3, 4)] < bits[(2, 7)] <= bits[(4, 4)]
    assert bits[(2, 7)] >= 28  # the table Table 1's big rows were measured with (2 GiB), or more
    # a position deep in the game needs far less than its empty board; a node budget caps the table
    drawn = api.parse_drawn(4, 4, ["A1-B1", "B1-C1", "C1-D1", "D1-E1", "A1-A2", "A2-A3", "A3-A4", "A4-A5"])
    assert memory.wanted_bits(board(4, 4), drawn) < bits[(4, 4)]
    assert memory.wanted_bits(board(4, 4), 0, node_limit=100_000) == 17
    assert memory.wanted_bits(board(1, 1)) == memory.MIN_BITS


def test_the_table_shrinks_to_the_limit_and_says_when_nothing_fits() -> None:
    b = board(3, 4)
    want = memory.wanted_bits(b)
    roomy = memory.fit(b, want, 1 << 40, 1 << 40)
    assert roomy.bits == want and roomy.bytes == 8 << want and roomy.entries == 1 << want
    tight = memory.fit(b, want, 5 * MiB, 64 * MiB)
    assert tight.bits < want and tight.bytes + memory.RESERVE <= 5 * MiB
    with pytest.raises(MemoryLimitError, match="no room for the solver's table"):
        memory.fit(b, want, memory.RESERVE, 64 * MiB)
    assert memory.entry_bytes(board(5, 5)) == 16 and memory.COMPACT_EDGES == COMPACT_EDGES


def test_solve_sizes_its_table_to_the_position_within_the_limit() -> None:
    ensure_compiled()
    api._pool.clear()
    r = solve(3, 3)
    assert r.table is not None and r.table.bits == memory.wanted_bits(board(3, 3))
    assert r.memory_limit == r.table.limit > 0 and r.value == -3
    # a limit just above what the process uses: a smaller table, the same value
    api._pool.clear()
    set_memory_limit(memory.resident() + memory.RESERVE + (1 << 15) * 8 + 100_000)
    small = solve(3, 3)
    assert small.table is not None and small.table.bits < r.table.bits and small.value == -3
    set_memory_limit(memory.resident())
    api._pool.clear()
    with pytest.raises(MemoryLimitError):
        solve(3, 3)


def test_a_pooled_table_serves_smaller_positions_and_a_bigger_one_replaces_it() -> None:
    ensure_compiled()
    api._pool.clear()
    empty = solve(3, 3)
    api.searches_started.clear()
    later = solve(3, 3, ["A1-B1", "A1-A2", "B2-C2"])
    assert later.table is not None and empty.table is not None
    assert later.table.bits == empty.table.bits  # the same table, with what the first search proved
    assert api.searches_started == {"kernel": 1}
    api._pool.clear()
    late = solve(3, 3, ["A1-B1", "A1-A2", "B2-C2", "C3-D3", "B1-C1", "D1-D2"])
    bigger = solve(3, 3)
    assert late.table is not None and late.table.bits < empty.table.bits
    assert bigger.table is not None and bigger.table.bits == empty.table.bits


def test_values_are_the_same_with_any_table() -> None:
    ensure_compiled()
    cases = [c for c in _cases("positions.jsonl", "hard-positions.jsonl") if _quick(c)]
    assert len(cases) >= 60
    for limit in (None, memory.resident() + memory.RESERVE + 8 * MiB):
        set_memory_limit(limit)
        api._pool.clear()
        for case in cases:
            got = solve(case["rows"], case["cols"], case["drawn"], engine="kernel")  # type: ignore[arg-type]
            assert got.value == case["value"], case["name"]


def _cli_peak(args: list[str]) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak resident bytes) of `python -m games solve ARGS` run as the only
    child of a fresh process (so that the children's peak is its own)."""
    code = (
        "import json, resource, subprocess, sys\n"
        f"p = subprocess.run([sys.executable, '-m', 'games', 'solve', *{args!r}], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(json.dumps([p.returncode, p.stdout, p.stderr, peak]))\n"
    )
    proc = run_python(["-c", code], timeout=120)
    assert proc.returncode == 0, proc.stderr
    rc, out, err, peak = json.loads(proc.stdout)
    return rc, out, err, peak


def test_the_command_line_stays_within_memory() -> None:
    ensure_compiled()  # built before: a build would run numba in a grandchild
    limit = 44 * MiB
    rc, out, err, peak = _cli_peak(["boxes", "--rows", "3", "--cols", "4", "--memory", "44M"])
    assert rc == 0, err
    res = json.loads(out)
    assert res["value"] == 0  # tests/data/boxes/positions.jsonl: empty-3x4
    assert res["memory_limit"] == limit
    assert 0 < res["table_entries"] < 1 << memory.wanted_bits(board(3, 4))  # squeezed by the limit
    assert res["table_bytes"] == 8 * res["table_entries"]
    assert peak <= limit, f"peak resident {peak / MiB:.1f} MiB over the 44 MiB limit"


def test_the_command_line_reports_its_table_and_limit() -> None:
    ensure_compiled()
    rc, out, err, _ = _cli_peak(["boxes", "--rows", "3", "--cols", "3"])
    assert rc == 0, err
    res = json.loads(out)
    assert (res["value"], res["best"]) == (-3, ["B2-C2"])
    assert res["table_entries"] == 1 << memory.wanted_bits(board(3, 3))
    assert res["table_bytes"] == 8 * res["table_entries"]
    assert res["memory_limit"] > 0 and res["build_seconds"] >= 0 and res["seconds"] >= 0
    rc, out, err, _ = _cli_peak(["boxes", "--rows", "2", "--cols", "2", "--memory", "1G"])
    res = json.loads(out)
    assert rc == 0 and res["value"] == 2 and res["table_entries"] == 0 and res["memory_limit"] == 1 << 30


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--rows", "3", "--cols", "3", "--memory", "1M"], "below what the process already uses"),
        (["--rows", "2", "--cols", "2", "--memory", "2M"], "below what the process already uses"),
        (["--rows", "3", "--cols", "4", "--memory", "24M"], "leaves no room for the solver's table"),
        (["--rows", "3", "--cols", "3", "--memory", "lots"], "looks like 512M or 4G"),
        (["--rows", "3", "--cols", "3", "--memory", "0"], "above zero"),
    ],
)
def test_a_limit_too_small_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    ensure_compiled()
    rc, out, err, _ = _cli_peak(["boxes", *args])
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err, err


def test_a_limit_too_small_in_a_batch_is_that_line_s_error() -> None:
    code = (
        "import subprocess, sys\n"
        'lines = \'{"rows": 2, "cols": 2}\\n{"rows": 3, "cols": 4}\\n\'\n'
        "p = subprocess.run([sys.executable, '-m', 'games', 'solve', 'boxes', '--batch', '--memory', '34M'],"
        " input=lines, capture_output=True, text=True)\n"
        "print(p.returncode); print(p.stdout, end='')\n"
    )
    proc = run_python(["-c", code], timeout=120)
    rc, first, second = proc.stdout.splitlines()
    assert rc == "2" and json.loads(first)["value"] == 2  # plain Python: no table
    assert json.loads(second)["error"].startswith("line 2: a memory limit of 34 MiB leaves no room")


def test_the_practice_opponent_plays_on_when_no_table_fits() -> None:
    ensure_compiled()
    api._pool.clear()
    set_memory_limit(memory.resident())
    state = R.new_game(R.parse_options({"rows": 3, "cols": 3}))
    edge = choose_move(state, "perfect", random.Random(1), budget_seconds=0.05)
    assert not state.drawn >> edge & 1
