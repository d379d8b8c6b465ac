"""The practice opponent answers a move posted the moment a room starts (the solver still warming up).

`dmhost room boxes --bot hard` loads the compiled solver in a background thread at start; a first move
that arrives before that thread is done must still get the bot's answer, with no traceback and no
"practice bot failed" line (see also tests/games/solver/test_warmup.py, which holds the warm-up inside
the kernel's import on purpose)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from tests import ROOT

PATIENCE = 600.0
"""Seconds to wait for the bot's answer before giving up: only a failing run waits this long (a fresh
machine compiles the solver first, about 20 s of work)."""


def _pump(stream: IO[str], tag: str, lines: queue.Queue[tuple[str, str | None]]) -> None:
    for line in iter(stream.readline, ""):
        lines.put((tag, line))
    lines.put((tag, None))


def test_the_bot_answers_a_move_posted_at_once(tmp_path: Path) -> None:
    args = ["room", "boxes", "--player", "alice", "--bot", "hard", "--db", str(tmp_path / "race.db"), "--events-json"]
    room = subprocess.Popen(
        [sys.executable, "-m", "bot.ops.cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert room.stdin is not None and room.stdout is not None and room.stderr is not None
    lines: queue.Queue[tuple[str, str | None]] = queue.Queue()
    for stream, tag in ((room.stdout, "out"), (room.stderr, "err")):
        threading.Thread(target=_pump, args=(stream, tag, lines), daemon=True).start()
    room.stdin.write("alice: A1-B1\n")  # at once: the solver's warm-up has only just begun
    room.stdin.flush()
    events: list[dict[str, object]] = []
    errors: list[str] = []
    try:
        while True:
            tag, line = lines.get(timeout=PATIENCE)
            if line is None:
                break
            if tag == "err":
                errors.append(line)
                if "Traceback" in line or "failed" in line:
                    break
            elif line.startswith("{"):
                events.append(json.loads(line))
                if events[-1]["event"] == "move" and events[-1]["seat"] == 2:
                    break
    finally:
        room.stdin.close()
        room.wait(timeout=60)
    moves = [(e["seat"], e["move"]) for e in events if e["event"] == "move"]
    assert moves[:1] == [(1, "A1-B1")]
    assert len(moves) == 2 and moves[1][0] == 2, "".join(errors)  # the bot answered
    assert not [line for line in errors if "Traceback" in line or "failed" in line]
    assert room.returncode == 0
