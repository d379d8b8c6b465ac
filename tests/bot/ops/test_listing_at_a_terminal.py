"""`dmhost schedule list` at a terminal (issue 37, item 16): a table for people without any flag; on a pipe the
contract's JSON (tests/bot/adapters/terminal/test_room_newcomer.py). Run under a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from tests.bot.adapters.terminal.test_room_cli import DMHOST


def test_schedule_list_on_a_terminal_is_a_table(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    added = subprocess.run(
        [*DMHOST, "schedule", "add", "boxes", "--player", "alice", "--player", "bob", "--at", "in 2h", "--db", db],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=90,
    )
    assert added.returncode == 0, added.stderr
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [*DMHOST, "schedule", "list", "--db", db], stdout=follower, stderr=subprocess.PIPE, cwd=tmp_path, timeout=90
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other side is closed: everything is read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert proc.returncode == 0, proc.stderr
    lines = b"".join(chunks).decode().splitlines()
    assert lines[0].split() == ["ID", "When", "(UTC)", "Game", "Players", "Status", "Match", "Prize"]
    assert lines[1].split()[0] == "1" and "alice vs bob" in lines[1]
