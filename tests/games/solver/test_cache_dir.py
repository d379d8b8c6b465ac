"""The solver works when the compiled-code folders it is given cannot be written (a container run as
another user, a read-only root): it compiles into a folder it can write instead, and says nothing wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests import ROOT


def solve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "games", "solve", "boxes", "--rows", "2", "--cols", "2"],
        capture_output=True,
        text=True,
        env=full,
        cwd="/",
        timeout=600,
    )


def unwritable(tmp_path: Path) -> Path:
    """A folder nobody can create, root included: its parent is a regular file."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder would be\n")
    return blocker / "cache"


def test_numba_path_with_an_unwritable_cache_dir(tmp_path: Path) -> None:
    done = solve({"NUMBA_CACHE_DIR": str(unwritable(tmp_path)), "DMHOST_SOLVER_AOT": "0"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value"] == 2  # the published 2x2 value: the first player wins by two
    assert "no locator" not in done.stderr and "Traceback" not in done.stderr


def test_ahead_of_time_path_with_an_unwritable_module_folder(tmp_path: Path) -> None:
    done = solve({"NUMBA_CACHE_DIR": str(unwritable(tmp_path)), "DMHOST_SOLVER_AOT_DIR": str(unwritable(tmp_path))})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value"] == 2
    assert "Traceback" not in done.stderr


def test_the_fallback_is_a_folder_this_user_can_write(tmp_path: Path) -> None:
    code = (
        "import os; from games.solver.aot import ensure_cache_dir, writable; from pathlib import Path; "
        "ensure_cache_dir(); d = os.environ['NUMBA_CACHE_DIR']; print(d, writable(Path(d)))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(unwritable(tmp_path))}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    folder, ok = out.split()
    assert ok == "True" and folder == str(tmp_path / "xdg" / "dmhost" / "numba")
