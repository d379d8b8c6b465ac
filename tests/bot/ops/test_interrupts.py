"""Ctrl-C at any moment of a command's start-up, and during `tournament play`: a quiet exit, never a traceback.

From the first line of dmhost's own code on (`bot/__init__`): the interpreter's first few tens of milliseconds
(CPython importing `site`) are outside any program's reach, so the moments drawn start after them.
"""

from __future__ import annotations

import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests import DMHOST, ROOT

INTERRUPTED = (130, -signal.SIGINT)
"""How a Ctrl-C'd command ends: exit 130 from our handler, or, when it comes while Python is still importing the
command (`bot/__init__` leaves SIGINT to the system then), killed by SIGINT, which a shell reports as 130 too."""


def _interrupted(args: list[str], after: float, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(
        [*DMHOST, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.slow
def test_ctrl_c_while_a_room_starts_is_never_a_traceback(tmp_path: Path) -> None:
    rng = random.Random(48)
    for i, after in enumerate(sorted(rng.uniform(0.08, 1.5) for _ in range(8))):
        db = tmp_path / f"r{i}.db"
        done = _interrupted(["room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db)], after, ROOT)
        assert "Traceback" not in done.stdout + done.stderr, (after, done.stderr)
        assert done.returncode in (0, *INTERRUPTED), (after, done.returncode, done.stderr)


@pytest.mark.slow
def test_ctrl_c_during_tournament_play_is_quiet_and_play_goes_on_afterwards(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*DMHOST, "tournament", *args, "--db", db], capture_output=True, text=True, cwd=tmp_path)

    assert run("create", "Cup", "--game", "boxes", "--format", "swiss", "--opt", "rows=3", "cols=3").returncode == 0
    assert run("join", "1", "a", "b", "c", "d").returncode == 0
    assert run("start", "1").returncode == 0
    for after in (0.4, 1.2):
        done = _interrupted(["tournament", "play", "1", "--bot", "easy", "--db", db], after, tmp_path)
        assert "Traceback" not in done.stdout + done.stderr, done.stderr
        assert done.returncode in INTERRUPTED, (after, done.returncode, done.stderr)
    finished = run("play", "1", "--bot", "easy")
    assert finished.returncode == 0 and "wins Cup" in finished.stdout, finished.stderr
