"""The terminal room and `dmhost log` as a new user meets them (issue 28, point 11): real subprocesses on
real SQLite files, as `tests/bot/adapters/terminal/test_room_cli.py` runs them."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from PIL import Image

from bot.records.replay import replay_match
from bot.records.review import frame_caption
from bot.store.db import sqlite_url_for
from bot.store.matches import MatchStore
from games.pictures.core import CAPTION_LINES, LINE_SIZE, MARGIN, MIN_WIDTH, clock_text, font, wrap
from tests.bot.adapters.terminal.test_room_cli import DMHOST, room

ZWSP = "\u200b"


def text_room(args: list[str], stdin: str, *, cwd: Path) -> tuple[int, str]:
    """The room in its human form (no --events-json): exit code and everything it printed."""
    proc = subprocess.run([*DMHOST, "room", *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=90)
    return proc.returncode, proc.stdout


def test_the_last_move_shows_the_final_board_before_game_over(tmp_path: Path) -> None:
    db = str(tmp_path / "b.db")
    code, out = text_room(
        ["boxes", "--player", "alice", "--player", "bob", "--opt", "rows=1", "cols=1", "--db", db],
        "A1-B1\nbob: A1-A2\nalice: A2-B2\nbob: B1-B2\n",
        cwd=tmp_path,
    )
    assert code == 0
    lines = out.splitlines()
    last = next(i for i, line in enumerate(lines) if line.startswith("bob played B1-B2"))
    over = next(i for i, line in enumerate(lines) if line.startswith("Game over"))
    board = lines[last + 1 : over]
    assert board[:4] == ["   A   B", " 1 o---o", "   | 2 |", " 2 o---o"]  # every edge drawn, the box bob's
    assert "End of input" not in out


def test_end_of_input_gives_a_resume_command_that_runs_as_printed(tmp_path: Path) -> None:
    folder = tmp_path / "my games"
    folder.mkdir()
    code, out = text_room(
        ["boxes", "--player", "alice", "--player", "bob", "--db", str(folder / "it's.db")], "A1-B1\n", cwd=tmp_path
    )
    assert code == 0
    (hint,) = [line for line in out.splitlines() if line.startswith("End of input")]
    command = shlex.split(hint.split("Resume with: ", 1)[1])
    assert command[:2] == ["dmhost", "room"] and command[command.index("--db") + 1] == str(folder / "it's.db")
    again = subprocess.run(
        [*DMHOST, *command[1:], "--events-json"], input="", capture_output=True, text=True, cwd=tmp_path, timeout=90
    )
    assert again.returncode == 0
    first = json.loads(again.stdout.splitlines()[0])
    assert first["event"] == "resumed" and first["match"] == int(command[-1])


def test_piped_trax_moves_are_final_at_once(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    code, events = room(
        ["trax", "--player", "alice", "--player", "bob", "--events-json", "--db", db],
        "@0+\nbob: @1+\n",
        cwd=tmp_path,
    )
    assert code == 0
    kinds = [e["event"] for e in events]
    assert "provisional" not in kinds and "rejected" not in kinds
    assert [e["move"] for e in events if e["event"] == "move"] == ["@0+", "@1+"]
    stored = _log(events[0]["match"], db)
    assert [m["move"] for m in stored["moves"]] == ["@0+", "@1+"]
    assert not any(m.get("provisional") for m in stored["moves"])


def test_an_asked_take_back_window_is_waited_for_at_the_end_of_input(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    code, events = room(
        ["trax", "--player", "alice", "--player", "bob", "--rule", "takeback=1", "--events-json", "--db", db],
        "@0+\n",
        cwd=tmp_path,
    )
    assert code == 0
    kinds = [e["event"] for e in events]
    assert kinds.index("provisional") < kinds.index("waiting") < kinds.index("move") < kinds.index("eof")
    assert [e["kind"] for e in _log(events[0]["match"], db)["events"]][-2:] == ["move", "commit"]


def _log(match: object, db: str) -> dict[str, Any]:
    proc = subprocess.run([*DMHOST, "log", str(match), "--db", db, "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _until(proc: subprocess.Popen[str], event: str) -> list[dict[str, object]]:
    """JSON events read from a running room up to and including the first `event`."""
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("{"):
            seen.append(json.loads(line))
            if seen[-1]["event"] == event:
                return seen
    raise AssertionError(f"no {event} event in {seen}")


def test_after_resume_no_clock_runs_while_a_move_is_provisional(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    proc = subprocess.Popen(
        [
            *DMHOST,
            "room",
            "trax",
            "--player",
            "alice",
            "--player",
            "bob",
            *("--rule", "takeback=2", "--db", db, "--events-json"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert proc.stdin is not None
    proc.stdin.write("@0+\n")
    proc.stdin.flush()
    match = _until(proc, "provisional")[0]["match"]
    proc.send_signal(signal.SIGTERM)  # stops at once: the move stays provisional
    proc.communicate(timeout=60)
    assert proc.returncode == 0
    code, out = text_room(["--db", db, "--resume", str(match)], "", cwd=tmp_path)
    assert code == 0
    clocks = [line for line in out.splitlines() if line.startswith("clocks:")]
    assert clocks[0].startswith("clocks: alice ") and "▶" not in clocks[0]  # held: nobody's clock runs
    assert "becomes final" in out and "alice's move @0+ is final." in out
    assert "| ▶ bob" in clocks[-1]


def test_option_and_clock_mistakes_name_what_is_valid(tmp_path: Path) -> None:
    for args, valid in (
        (["--opt", "colour=red"], "rows, cols"),
        (["--clock", "speed=3"], "kind, move, reserve, grace, presence, takeback"),
    ):
        proc = subprocess.run(
            [*DMHOST, "room", "boxes", "--player", "a", "--player", "b", *args],
            input="",
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert proc.returncode == 2 and valid in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Extra inputs" not in proc.stderr
    assert not (tmp_path / "dmhost.db").exists()


def test_no_zero_width_space_reaches_the_terminal(tmp_path: Path) -> None:
    code, out = text_room(
        ["trax", "--player", "alice", "--player", "bob", "--db", str(tmp_path / "z.db")],
        "@5+\n@0+ @mention\n",
        cwd=tmp_path,
    )
    assert code == 0
    assert "Illegal move `@5+`" in out and ZWSP not in out
    _code, events = room(
        ["trax", "--player", "alice", "--player", "bob", "--events-json", "--db", str(tmp_path / "j.db")],
        "@5+\n",
        cwd=tmp_path,
    )
    assert any("@5+" in str(e.get("text")) for e in events) and not any(ZWSP in json.dumps(e) for e in events)


def test_log_gif_says_where_the_file_went(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    text_room(
        ["boxes", "--player", "alice", "--player", "bob", "--opt", "rows=1", "cols=1", "--db", db],
        "A1-B1\nbob: A1-A2\nalice: A2-B2\nbob: B1-B2\n",
        cwd=tmp_path,
    )
    proc = subprocess.run(
        [*DMHOST, "log", "1", "--db", db, "--gif", "replay.gif"], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [f"Wrote the replay of match 1 (5 frames) to {tmp_path / 'replay.gif'}"]
    assert Image.open(tmp_path / "replay.gif").n_frames == 5
    both = subprocess.run(
        [*DMHOST, "log", "1", "--db", db, "--gif", "r2.gif", "--json"], capture_output=True, text=True, cwd=tmp_path
    )
    assert json.loads(both.stdout)["match"] == 1 and "r2.gif" in both.stderr


def test_run_without_a_network_is_one_plain_line(tmp_path: Path) -> None:
    isolated = (
        ["unshare", "-n"] if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0 else []
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "DMHOST_TOKEN": "not.a.token",
        "DMHOST_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'run.db'}",
    }
    proc = subprocess.run(
        [*isolated, *DMHOST, "run"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=90
    )
    assert proc.returncode == 2
    assert proc.stdout == "" and "\x1b[" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("dmhost: cannot reach Discord") and "network" in line


def _frames(path: Path) -> list[Image.Image]:
    gif = Image.open(path)
    out = []
    for i in range(gif.n_frames):
        gif.seek(i)
        out.append(gif.convert("RGB"))
    return out


def _played(tmp_path: Path, game: str, moves: str, *extra: str) -> Path:
    """A finished match's replay GIF, written by `dmhost log --gif`."""
    db = str(tmp_path / f"{game}.db")
    code, _out = text_room([game, "--player", "alice", "--player", "bob", "--db", db, *extra], moves, cwd=tmp_path)
    assert code == 0
    gif = tmp_path / f"{game}.gif"
    proc = subprocess.run([*DMHOST, "log", "1", "--db", db, "--gif", str(gif)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return gif


def test_replay_captions_keep_each_clock_whole(tmp_path: Path) -> None:
    """The caption under a replay frame is the move, then both clocks; a line break never falls inside a
    clock ("bob" on one line, "5:00" on the next) and nothing is cut, however narrow the picture."""
    _played(tmp_path, "boxes", "A1-B1\nbob: A1-A2\nalice: A2-B2\nbob: B1-B2\n", "--opt", "rows=1", "cols=1")

    async def load() -> object:
        store = MatchStore(sqlite_url_for(tmp_path / "boxes.db"))
        await store.open()
        try:
            return await store.load(1, with_events=True)
        finally:
            await store.close()

    stored = asyncio.run(load())
    _ruleset, frames = replay_match(stored)  # type: ignore[arg-type]
    mono = font("mono", LINE_SIZE - 1)
    for frame in frames:
        caption = frame_caption(frame, {1: "alice", 2: "bob"}, clock_text)
        for room_px in (MIN_WIDTH - 2 * MARGIN, 300, 400, 600):  # the narrowest picture's line, and wider
            lines = [line.replace("\u00a0", " ") for line in wrap(caption, mono, room_px, CAPTION_LINES)]
            assert not any(line.endswith(("alice", "bob")) for line in lines), lines
            assert sum("alice 5:00" in line or "alice 4:" in line for line in lines) == 1, lines
            assert not any(line.endswith("…") for line in lines), lines


def test_trax_replay_frames_have_no_dark_band(tmp_path: Path) -> None:
    """Every frame of a GIF is padded with its panel's own colour (a Trax board grows between frames)."""
    trax = _frames(_played(tmp_path, "trax", "@0+\nbob: B1\\\nalice: @1\\\nbob: A2/\nalice: resign\n"))
    assert len({f.size for f in trax}) == 1 and len(trax) == 5  # the start and four tiles
    for frame in trax:
        width, height = frame.size
        panel = frame.getpixel((6, 6))
        for y in range(height - 12, height - 4):  # the strip just above the bottom border
            row = [frame.getpixel((x, y)) for x in range(6, width - 6)]
            assert all(sum(p) > sum(panel) - 60 for p in row), (y, set(row) - {panel})


def test_a_scheduled_room_names_its_real_database_at_the_end_of_input(tmp_path: Path) -> None:
    db = tmp_path / "dm games" / "dm.db"
    db.parent.mkdir()
    added = subprocess.run(
        [
            *DMHOST,
            "schedule",
            "add",
            "boxes",
            *("--player", "alice", "--player", "bob"),
            *("--at", "in 2s"),
            *("--opt", "rows=1", "cols=1", "--db", str(db)),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert added.returncode == 0, added.stderr
    sid = json.loads(added.stdout)["schedule"]
    proc = subprocess.run(
        [*DMHOST, "room", "--db", str(db), "--scheduled", str(sid)],
        input="alice: here\nbob: here\nalice: A1-B1\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (hint,) = [line for line in proc.stdout.splitlines() if line.startswith("End of input")]
    command = shlex.split(hint.split("Continue with: ", 1)[1])
    assert command == ["dmhost", "room", "--db", str(db), "--scheduled", str(sid)]
