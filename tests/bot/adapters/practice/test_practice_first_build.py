"""The first practice game on a new machine (issue 37, item 12): the solver's one-time build happens before
any clock runs, so the bot never loses on time to it. Real `dmhost room` on empty solver caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from games.solver.kernel import COMPILING_NOTICE
from tests import ROOT


def test_the_first_game_on_empty_solver_caches_builds_before_the_clock(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DMHOST_SOLVER_", "NUMBA_"))}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "fresh-cache")  # nothing built yet: the machine's first game
    args = ["room", "boxes", "--player", "alice", "--bot", "hard", "--clock", "move=10 reserve=5"]
    proc = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", *args, "--db", str(tmp_path / "first.db"), "--events-json"],
        input="alice: A1-B1\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=900,  # a cold build on a busy machine: only a failing run comes near this
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(COMPILING_NOTICE) == 1, proc.stderr  # the caches were empty: built, and said once
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["event"] == "started"
    moves = [(e["seat"], e["move"]) for e in events if e["event"] == "move"]
    assert moves[0] == (1, "A1-B1") and len(moves) == 2 and moves[1][0] == 2  # the bot answered in time
    assert not [e for e in events if e["event"] in ("timeout", "finished")]
    assert events[-1]["event"] == "eof"


def test_tournament_play_prepares_the_solver_only_for_the_levels_that_search_with_it() -> None:
    """`dmhost tournament play --bot LEVEL` makes the solver ready before the matches' clocks run again, only
    where the bots search with it (Boxes `hard`), in a fresh process with the machine's caches."""
    script = (
        "import asyncio\n"
        "from bot.adapters.terminal.tournament import _prepare_solver\n"
        "from games.solver import kernel_ready\n"
        "for game, level in [('trax', 'hard'), ('boxes', 'medium'), ('boxes', 'nonsense'), ('boxes', 'hard')]:\n"
        "    asyncio.run(_prepare_solver(game, level))\n"
        "    print(game, level, kernel_ready())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=900, env=os.environ.copy()
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "trax hard False",
        "boxes medium False",
        "boxes nonsense False",
        "boxes hard True",
    ]
