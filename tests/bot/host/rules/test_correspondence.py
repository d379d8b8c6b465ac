"""Correspondence clocks (`--clock kind=correspondence move=… [bank=…] [remind=…]`, issue 41): the reminder,
the loss on time, the bank, durations in days, and deadlines that run on while no room runs — through the
real command line (`dmhost room … --events-json`, real subprocesses on real SQLite files)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from bot.host.clocks import Clocks
from bot.host.rules.correspondence import days_hours
from bot.types import ClockKind, ClockNotice, TimeControl
from games.base import ClockSpec
from tests.bot.adapters.terminal.test_room_cli import DMHOST

SPEC = ClockSpec(ClockKind.MOVE_RESERVE, 60.0, 300.0)
PLAYERS = ["--player", "alice", "--player", "bob"]


def corr(**clock: str) -> TimeControl:
    return TimeControl.from_spec(SPEC, {"kind": "correspondence", **clock})


def test_durations_and_settings() -> None:
    tc = corr(move="2d", bank="5d")
    assert (tc.kind, tc.move, tc.bank, tc.remind) == (ClockKind.CORRESPONDENCE, 172800.0, 432000.0, 0.8)
    assert corr(move="36h").move == 129600.0 and corr(move="90m").move == 5400.0 and corr(move="45s").move == 45
    assert corr(move="4", remind="0.5").remind == 0.5
    assert TimeControl.from_json(tc.to_json()) == tc
    for bad in ({"move": "2x"}, {"move": "400d"}, {"move": "1d", "remind": "1.5"}, {"move": "1d", "remind": "x"}):
        with pytest.raises(ValueError):
            corr(**bad)
    with pytest.raises(ValueError, match="belongs to kind=correspondence"):
        TimeControl.from_spec(SPEC, {"bank": "60"})
    with pytest.raises(ValueError, match="a week"):
        TimeControl.from_spec(SPEC, {"move": "8d"})
    assert [days_hours(s) for s in (40, 720, 19200, 190800, 172800)] == ["40s", "12m", "5h 20m", "2d 5h", "2d"]


def test_the_bank_saves_unused_time_up_to_its_cap_and_is_spent_after_the_move_time() -> None:
    clocks = Clocks.new(corr(move="100", bank="150"))
    clocks.start(1, 0.0)
    assert clocks.schedule() == [(80.0, ClockNotice.REMINDER), (100.0, ClockNotice.TIMEOUT)]
    clocks.stop(10.0)  # 90 s saved
    clocks.start(1, 10.0)
    assert clocks.limit() == 190.0 and clocks.schedule()[0] == (152.0, ClockNotice.REMINDER)
    clocks.stop(20.0)  # another 90 s, capped at 150
    assert clocks.reserve_left[1] == 150.0
    clocks.start(1, 20.0)
    clocks.stop(220.0)  # 200 s used: 100 from the bank
    assert clocks.reserve_left[1] == 50.0
    plain = Clocks.new(corr(move="100"))
    plain.start(2, 0.0)
    plain.stop(1.0)
    assert plain.reserve_left[2] == 0.0  # without a bank every move starts afresh


def _room(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*DMHOST, "room", *args, "--events-json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


def _until(proc: subprocess.Popen[str], *events: str) -> list[dict[str, Any]]:
    """JSON events of a running room up to and including the first of `events`."""
    assert proc.stdout is not None
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("{"):
            seen.append(json.loads(line))
            if seen[-1]["event"] in events:
                return seen
    raise AssertionError(f"none of {events} in {seen}")


def _say(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 0


def test_reminder_at_80_percent_then_the_loss_on_time(tmp_path: Path) -> None:
    proc = _room(["boxes", *PLAYERS, "--clock", "kind=correspondence", "move=4", "--db", "r.db"], tmp_path)
    _say(proc, "alice: A1-B1")
    events = _until(proc, "finished")
    _stop(proc)
    kinds = [e["event"] for e in events]
    assert kinds == ["started", "move", "turn", "reminder", "timeout", "finished"]
    reminder = events[3]
    assert reminder["player"] == "bob" and reminder["left"] == 1 and reminder["seat"] == 2  # 20 % of 4 s
    assert "bob, your move against alice is waiting: 1s left" in reminder["text"]
    assert events[-1] == {
        "event": "finished",
        "match": 1,
        "winner": "alice",
        "reason": "time",
        "text": events[-1]["text"],
    }


def test_time_saved_on_a_fast_move_is_spent_later(tmp_path: Path) -> None:
    proc = _room(["boxes", *PLAYERS, "--clock", "kind=correspondence", "move=4", "bank=10", "--db", "b.db"], tmp_path)
    _say(proc, "alice: A1-B1")  # at once: nearly 4 s go into alice's bank
    _until(proc, "turn")
    _say(proc, "bob: A2-B2")
    turn = _until(proc, "turn")
    began = time.monotonic()
    events = _until(proc, "finished")
    lasted = time.monotonic() - began
    _stop(proc)
    (reminder,) = [e for e in events if e["event"] == "reminder"]
    assert reminder["player"] == "alice" and reminder["left"] == 2  # 20 % of 4 s + nearly 4 s saved
    assert turn[-1]["seat"] == 1 and events[-1]["winner"] == "bob" and events[-1]["reason"] == "time"
    assert lasted > 5  # the move's 4 s, then the bank


def test_days_per_move_are_accepted_and_shown(tmp_path: Path) -> None:
    done = subprocess.run(
        [*DMHOST, "room", "boxes", *PLAYERS, "--clock", "kind=correspondence", "move=2d", "--db", "d.db"],
        input="alice: A1-B1\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    log = subprocess.run(
        [*DMHOST, "log", "1", "--db", "d.db", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=90
    )
    assert log.returncode == 0 and '"correspondence"' in log.stdout and "172800" in log.stdout
    bad = subprocess.run(
        [*DMHOST, "room", "boxes", *PLAYERS, "--clock", "kind=correspondence", "move=2w", "--db", "d.db"],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=90,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "2d" in bad.stderr


def test_a_room_resumed_after_the_deadline_rules_on_it_at_once(tmp_path: Path) -> None:
    proc = _room(["boxes", *PLAYERS, "--clock", "kind=correspondence", "move=4", "--db", "s.db"], tmp_path)
    _say(proc, "alice: A1-B1")
    _until(proc, "turn")
    _stop(proc)  # bob to move, with 4 s
    time.sleep(4.5)  # no room runs; the deadline passes
    again = _room(["--db", "s.db", "--resume", "1"], tmp_path)
    events = _until(again, "finished")
    _stop(again)
    # the reminder no room could tell is told late (nothing left) rather than never, then the loss (issue 47)
    assert [e["event"] for e in events] == ["resumed", "reminder", "timeout", "finished"]
    assert events[1]["player"] == "bob" and events[1]["left"] == 0
    assert events[-1]["winner"] == "alice" and events[-1]["reason"] == "time"


def test_a_room_resumed_after_the_reminder_time_reminds_once(tmp_path: Path) -> None:
    # the reminder is due 12 s into alice's move and her time runs out at 30 s: the resumed room has 17 s
    # to start (a loaded machine starts a Python process slowly) and must remind her once, then rule
    clock = ["--clock", "kind=correspondence", "move=30", "remind=0.4"]
    proc = _room(["boxes", *PLAYERS, *clock, "--db", "m.db"], tmp_path)
    started = _until(proc, "started")
    _stop(proc)
    time.sleep(12.5)
    again = _room(["--db", "m.db", "--resume", str(started[0]["match"])], tmp_path)
    events = _until(again, "finished")
    _stop(again)
    kinds = [e["event"] for e in events]
    assert kinds == ["resumed", "reminder", "timeout", "finished"]
    assert events[1]["player"] == "alice" and 0 < events[1]["left"] < 18
